"""The shell's commands. Importing the modules registers their commands in COMMANDS."""

from py_vfs.shell.commands import (
    attributes,
    builtins,
    data,
    disk,
    files,
    find,
    history,
    links,
    listing,
    mounts,
    reset,
    scoops,
    serve,
    sizes,
    transfers,
    tree,
)
from py_vfs.shell.commands.registry import COMMANDS, CommandSpec, UsageError

__all__ = ["COMMANDS", "CommandSpec", "UsageError", "attributes", "builtins", "data", "disk",
           "files", "find", "history", "links", "listing", "mounts", "reset", "scoops", "serve",
           "sizes", "transfers", "tree"]
