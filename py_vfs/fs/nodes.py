"""The disk's primitives: creating, replacing and removing nodes of the index in a transaction.

What every operation on the disk shares (``files``, ``namespace``, ``copies``, ``metadata``):
a new node and its parent's times, ``mkdir`` and ``mkdir -p`` as the kernel answers them, a
symlink, a subtree removed (``disk_side.py`` makes the disk a side of the rules with them).
Each stages its writes in the ``Transaction`` it is given; the commit engine commits them.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import replace

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, ROOT_ID, SYMLINK, Node
from ..disk.content import NO_CONTENT, Body, Content
from ..disk.index import Index
from ..storage.transaction import Transaction
from .resolver import Resolver, segments

DEFAULT_FILE_MODE = 0o644
DEFAULT_DIR_MODE = 0o755
SYMLINK_MODE = 0o777


def now() -> float:
    """The time stamps of nodes: milliseconds since the epoch."""
    return time.time() * 1000.0


def new_id() -> str:
    """A fresh node id (hex, so it never collides with a mount's virtual ids)."""
    return secrets.token_hex(8)


def link_size(target: str) -> int:
    """What ``lstat`` reports as a symlink's size: its target's length in UTF-8 bytes (Linux's
    ``st_size``), not in characters (``/é`` is 3)."""
    return len(target.encode("utf-8"))


def new_root() -> Node:
    """The root directory of a fresh disk."""
    stamp = now()
    return Node(ROOT_ID, None, "", DIRECTORY, DEFAULT_DIR_MODE, stamp, stamp, stamp)


class Nodes:
    """Node-level changes of the disk, over its index, content and resolver."""

    def __init__(self, index: Index, content: Content, resolver: Resolver) -> None:
        self.index = index
        self.content = content
        self.resolver = resolver

    def touch_dir(self, directory: Node, tx: Transaction, stamp: float) -> None:
        """A directory's mtime and ctime change when its entries change."""
        self.index.put(replace(directory, mtime_ms=stamp, ctime_ms=stamp), tx)

    def create(self, parent: Node, name: str, kind: str, mode: int, tx: Transaction, *,
               body: Body = NO_CONTENT, size: int = 0, target: str | None = None) -> Node:
        """A new entry ``name`` in ``parent`` (where nothing has that name)."""
        assert self.index.child(parent, name) is None, "a name is never created twice"
        stamp = now()
        node = Node(new_id(), parent.id, name, kind, mode & 0o7777, stamp, stamp, stamp,
                    size=size if kind == FILE else link_size(target or ""),
                    target=target, chunks=body.chunks, inline=body.inline)
        self.index.put(node, tx)
        self.touch_dir(self.index.get(parent.id), tx, stamp)
        return node

    def remove_tree(self, node: Node, tx: Transaction) -> None:
        """Remove ``node`` and everything below it, each entry before its directory (an explicit
        stack: a tree may be deeper than Python's recursion limit)."""
        stack = [(node, iter(self.index.entries(node) if node.is_dir else ()))]
        while stack:
            current, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                self.index.remove(current, tx)
            else:
                stack.append((child, iter(self.index.entries(child) if child.is_dir else ())))

    def make_dir(self, path: str, syscall: str, mode: int, tx: Transaction) -> Node:
        """``mkdir(2)``: any entry at ``path``, even a dangling link, is EEXIST."""
        parent, _, name = self.resolver.lookup_parent(path, syscall)
        if self.index.child(parent, name) is not None:
            raise FsError.of("EEXIST", syscall, path)
        return self.create(parent, name, DIRECTORY, mode, tx)

    def make_dirs(self, path: str, syscall: str, tx: Transaction, shown: str,
                  mode: int = DEFAULT_DIR_MODE) -> None:
        """``mkdir -p``, as ``os.makedirs(exist_ok=True)`` does it: create what is missing. A
        non-directory as the last name of a mkdir is EEXIST, even a link that leads nowhere;
        elsewhere a file in the way is ENOTDIR and a dangling or looping link the error of
        looking through it (ENOENT, ELOOP)."""
        if self.resolver.is_dir(path, syscall):  # the common case (every write_file)
            return
        names = segments(path, syscall)
        current = "/"
        for i, segment in enumerate(names):
            current = paths.child(current, segment)
            last = i == len(names) - 1
            parent, _, name = self.resolver.lookup_parent(current, syscall)
            if self.index.child(parent, name) is None:
                self.create(parent, name, DIRECTORY, mode, tx)
                continue
            try:
                node, _ = self.resolver.lookup(current, syscall)
            except FsError as error:
                code = "EEXIST" if last and syscall == "mkdir" else error.code
                raise FsError.of(code, syscall, shown) from None
            if not node.is_dir:
                raise FsError.of("EEXIST" if last and syscall == "mkdir" else "ENOTDIR",
                                 syscall, shown)

    def make_link(self, target: str, path: str, syscall: str, tx: Transaction) -> None:
        """Create the link ``path`` -> ``target`` (errors name both for ``symlink``, as Node's
        do, and the new path alone for ``cp``)."""
        def error(code: str) -> FsError:
            if syscall == "symlink":
                return FsError.of(code, syscall, target, path)
            return FsError.of(code, syscall, path)

        if not target:
            raise error("ENOENT")
        parent, _, name = self.resolver.lookup_parent(path, syscall)
        if self.index.child(parent, name) is not None:
            raise error("EEXIST")
        if paths.has_trailing_slash(path):
            raise error("ENOENT")
        self.create(parent, name, SYMLINK, SYMLINK_MODE, tx, target=target)
