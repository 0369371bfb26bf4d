"""The shell's commands. Importing the modules registers their commands in COMMANDS."""

from py_vfs.shell.commands import (
    archives,
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
    tarballs,
    transfers,
    tree,
)
from py_vfs.shell.commands.registry import COMMANDS, CommandSpec, UsageError

__all__ = ["COMMANDS", "CommandSpec", "UsageError", "archives", "attributes", "builtins",
           "data", "disk", "files", "find", "history", "links", "listing", "mounts", "reset",
           "scoops", "serve", "sizes", "tarballs", "transfers", "tree"]
