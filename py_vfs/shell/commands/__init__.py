"""The shell's commands. Importing the modules registers their commands in COMMANDS."""

from py_vfs.shell.commands import (
    archives,
    attributes,
    builtins,
    columns,
    compare,
    data,
    disk,
    encode,
    files,
    find,
    grep,
    history,
    links,
    listing,
    misc,
    mounts,
    reset,
    scoops,
    serve,
    sizes,
    tarballs,
    text,
    tr,
    transfers,
    tree,
)
from py_vfs.shell.commands.registry import COMMANDS, CommandSpec, UsageError

__all__ = ["COMMANDS", "CommandSpec", "UsageError", "archives", "attributes", "builtins",
           "columns", "compare", "data", "disk", "encode", "files", "find", "grep", "history",
           "links", "listing", "misc", "mounts", "reset", "scoops", "serve", "sizes",
           "tarballs", "text", "tr", "transfers", "tree"]
