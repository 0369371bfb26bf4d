"""How `ls -l` and `stat` show a node: the shapes users know from coreutils.

The VFS has no users, groups or hard links, so every node is owned by "user" with one link.
"""

from __future__ import annotations

import stat as stat_module
import time
from datetime import UTC, datetime
from typing import Any

OWNER = "user"
TYPE_BITS = {
    "file": stat_module.S_IFREG,
    "directory": stat_module.S_IFDIR,
    "symlink": stat_module.S_IFLNK,
}
TYPE_NAMES = {"file": "regular file", "directory": "directory", "symlink": "symbolic link"}
# Fixed minimum widths, as coreutils gives a directory of small files.
LINKS_WIDTH = 2
SIZE_WIDTH = 8


def mode_string(node: Any) -> str:
    """`drwxr-xr-x`: the type letter comes from the node's type, the rest from its mode."""
    return stat_module.filemode(TYPE_BITS.get(node.type, 0) | (node.mode & 0o7777))


def long_lines(entries: list[tuple[str, Any, str | None]]) -> list[str]:
    """One `ls -l` line per (name, node, symlink target) with the size column aligned."""
    width = max([SIZE_WIDTH, *(len(str(node.size)) for _, node, _ in entries)])
    lines = []
    for name, node, target in entries:
        shown = name if target is None else f"{name} -> {target}"
        lines.append(f"{mode_string(node)} {1:>{LINKS_WIDTH}} {OWNER} {OWNER} "
                     f"{node.size:>{width}} {ls_time(node.mtime_ms)} {shown}")
    return lines


def total_blocks(nodes: list[Any]) -> int:
    """The `total` line of `ls -l`: space used, in 1 KiB blocks."""
    return sum(-(-node.size // 1024) for node in nodes)


def ls_time(ms: float) -> str:
    return time.strftime("%b %d %H:%M", time.localtime(ms / 1000))


def stat_time(ms: float) -> str:
    """`2024-11-21 18:43:05.123 +0000`, like GNU stat but to the millisecond the VFS keeps."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone()
    return f"{moment:%Y-%m-%d %H:%M:%S}.{int(ms) % 1000:03d} {moment:%z}"


def stat_lines(name: str, node: Any, target: str | None) -> list[str]:
    kind = TYPE_NAMES.get(node.type, node.type)
    if node.type == "file" and node.size == 0:
        kind = "regular empty file"
    shown = name if target is None else f"{name} -> {target}"
    return [
        f"  File: {shown}",
        f"  Size: {node.size:<15} Type: {kind}",
        f"  Mode: ({node.mode & 0o7777:04o}/{mode_string(node)})  Uid: {OWNER}  Gid: {OWNER}",
        f"Access: {stat_time(node.atime_ms)}",
        f"Modify: {stat_time(node.mtime_ms)}",
        f"Change: {stat_time(node.ctime_ms)}",
    ]
