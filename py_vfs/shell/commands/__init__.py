"""The shell's commands. Importing the modules registers their commands in COMMANDS."""

from py_vfs.shell.commands import (
    builtins,
    data,
    disk,
    files,
    history,
    listing,
    mounts,
    recall,
    reset,
    scoops,
    serve,
)
from py_vfs.shell.commands.registry import COMMANDS, CommandSpec, UsageError

__all__ = ["COMMANDS", "CommandSpec", "UsageError", "builtins", "data", "disk", "files",
           "history", "listing", "mounts", "recall", "reset", "scoops", "serve"]
