"""The shell's commands. Importing the modules registers their commands in COMMANDS."""

from py_vfs.shell.commands import (
    builtins,
    columns,
    data,
    disk,
    files,
    grep,
    history,
    listing,
    misc,
    mounts,
    reset,
    scoops,
    serve,
    text,
    tr,
)
from py_vfs.shell.commands.registry import COMMANDS, CommandSpec, UsageError

__all__ = [
    "COMMANDS",
    "CommandSpec",
    "UsageError",
    "builtins",
    "columns",
    "data",
    "disk",
    "files",
    "grep",
    "history",
    "listing",
    "misc",
    "mounts",
    "reset",
    "scoops",
    "serve",
    "text",
    "tr",
]
