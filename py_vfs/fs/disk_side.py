"""The disk as a side of the rules: its node primitives, and the lookups and the one change
each rule asks, staged in one transaction of the commit engine.

``Nodes`` holds what every operation on the disk shares (``files``, ``namespace``, ``copies``,
``metadata``): a new node and its parent's times, ``mkdir`` and ``mkdir -p`` as the kernel
answers them, a symlink, a subtree removed; each stages its writes in the ``Transaction`` it is
given, and the commit engine commits them. ``DiskSide`` answers the rules over them.

An *at* of the namespace rules is where a name is on the disk: the directory that holds it, that
directory's canonical path, and the name. The content and metadata rules hand over what the
resolver found (``Found``: the node, or the directory and name of a file to create).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Sequence

from ..core import paths
from ..core.cancel import check
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, ROOT_ID, SYMLINK, Node
from ..disk.clock import now
from ..disk.content import CHUNK_SIZE, NO_CONTENT, Body, Content, zero_chunk
from ..disk.engine import CommitEngine
from ..disk.index import Index
from ..disk.limits import check_length
from ..disk.streams import DiskWriteStream, Finish, WriteStream
from ..storage.transaction import Transaction
from .resolver import Found, Resolver

DEFAULT_FILE_MODE = 0o644
DEFAULT_DIR_MODE = 0o755
SYMLINK_MODE = 0o777


# Node ids made ahead, ID_POOL at a time from one ``os.urandom``: in Pyodide that is a crossing
# into JS's ``crypto.getRandomValues`` (for 8 bytes: 9 µs; an id from the pool: about 1), and a
# checkout makes a node per file. The same source, so ids are as random as before; a deque, whose
# ``popleft`` no two threads get the same item of.
ID_POOL = 512
_ids: deque[str] = deque()

if hasattr(os, "register_at_fork"):
    # A forked process must not make its parent's ids (two processes on one SQLite file).
    os.register_at_fork(after_in_child=_ids.clear)


def new_id() -> str:
    """A fresh node id: 16 random hex digits (hex, so it never collides with a mount's virtual
    ids)."""
    while True:
        try:
            return _ids.popleft()
        except IndexError:
            drawn = os.urandom(8 * ID_POOL).hex()
            _ids.extend(drawn[i:i + 16] for i in range(0, len(drawn), 16))


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
        """A directory's mtime and ctime change when its entries change (nothing to store when
        an earlier change of the same round stamped it already: ``disk/clock.py``)."""
        if (directory.mtime_ms == stamp and directory.ctime_ms == stamp
                and (tx.writer is None or directory.writer == tx.writer)):
            return
        self.index.put(directory.changed(mtime_ms=stamp, ctime_ms=stamp), tx)

    def create(self, parent: Node, name: str, kind: str, mode: int, tx: Transaction, *,
               body: Body = NO_CONTENT, size: int = 0, target: str | None = None) -> Node:
        """A new entry ``name`` in ``parent`` (where nothing has that name)."""
        assert self.index.child(parent, name) is None, "a name is never created twice"
        stamp = now()
        node = Node(new_id(), parent.id, name, kind, mode & 0o7777, stamp, stamp, stamp,
                    size=size if kind == FILE else link_size(target or ""),
                    target=target, chunks=body.chunks, inline=body.inline,
                    writer=tx.writer)  # as ``put`` stamps it, so that it need not copy the node
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
        names = paths.segments(path, syscall)
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


# Where a name is on the disk: the directory that holds it, that directory's canonical path,
# and the name.
DiskAt = tuple[Node, str, str]


class DiskSide:
    """The disk as a ``rules.Side``, for one call (``syscall``; errors name ``shown``),
    staging its changes in ``tx``."""

    def __init__(self, disk: Nodes, tx: Transaction, syscall: str, *shown: str) -> None:
        self.disk = disk
        self.index = disk.index
        self.content = disk.content
        self.tx = tx
        self.syscall = syscall
        self.shown = shown
        self._parents: dict[str, DiskAt] = {}  # looked up in this transaction: asked once

    def _parent_of(self, path: str) -> DiskAt:
        """``Resolver.lookup_parent`` of ``path``, once per call (its errors not kept)."""
        found = self._parents.get(path)
        if found is None:
            found = self._parents[path] = self.disk.resolver.lookup_parent(path, self.syscall)
        return found

    # ------------------------------------------------------------------ the namespace

    def enter(self) -> None:
        """The disk is always there."""

    def locate(self, path: str) -> DiskAt | None:
        """The directory that holds the last name of ``path`` (its links followed), None for
        ``/``; errors of the way name every path of the call."""
        if paths.normalize(path, self.syscall) == "/":
            return None
        try:
            return self._parent_of(path)
        except FsError as error:
            if len(self.shown) < 2:
                raise
            raise FsError.of(error.code, self.syscall, *self.shown) from None

    def check_parent(self, at: DiskAt) -> None:
        """``locate`` found the parent already."""

    def entry(self, at: DiskAt) -> Node | None:
        """The node with that name in that directory."""
        parent, _, name = at
        return self.index.child(parent, name)

    def is_empty(self, at: DiskAt) -> bool:
        """Whether the directory at ``at`` has no entries."""
        node = self.entry(at)
        return node is None or self.index.is_empty(node)

    def key(self, at: DiskAt) -> tuple[str, ...]:
        """The names of the canonical path."""
        _, parent_path, name = at
        return (*(s for s in parent_path.split("/") if s), name)

    def same(self, src: DiskAt, dst: DiskAt) -> bool:
        """One node under both names (the disk has no hard links: one place)."""
        before, after = self.entry(src), self.entry(dst)
        return before is not None and after is not None and before.id == after.id

    def check_busy(self, path: str) -> None:
        """EBUSY, naming every path of the call, when ``path`` names a recorded mount point or
        a directory above one (``Index.holds_mark``)."""
        if not self.index.marks:
            return
        try:
            parent, _, name = self._parent_of(path)
        except FsError:
            return  # the rule reports it
        node = self.index.child(parent, name)
        if node is not None and self.index.holds_mark(node):
            raise FsError.of("EBUSY", self.syscall, *self.shown)

    def writable(self, syscall: str | None = None) -> None:
        """The disk takes every change (its quota is the store's: ENOSPC at commit)."""

    def safe_point(self) -> None:
        """A cancelled call stops here: its change is dropped before the commit."""
        check(self.syscall)

    def remove(self, at: DiskAt) -> None:
        """Remove the entry and everything below it; its directory's times change."""
        parent, _, name = at
        node = self.index.child(parent, name)
        assert node is not None
        self.disk.remove_tree(node, self.tx)
        self.disk.touch_dir(self.index.get(parent.id), self.tx, now())

    def make_dir(self, at: DiskAt, mode: int) -> None:
        """A new directory."""
        parent, _, name = at
        self.disk.create(parent, name, DIRECTORY, mode, self.tx)

    def make_dirs(self, path: str, mode: int) -> None:
        """``mkdir -p``: what is missing, in this transaction."""
        self.disk.make_dirs(path, self.syscall, self.tx, path, mode)

    def make_link(self, at: DiskAt, target: str) -> None:
        """A new symlink."""
        parent, _, name = at
        self.disk.create(parent, name, SYMLINK, SYMLINK_MODE, self.tx, target=target)

    def move(self, src: DiskAt, dst: DiskAt, replaced: Node | None) -> None:
        """One record rewritten (a directory's entries go along); both directories' times
        change."""
        (src_parent, _, src_name), (dst_parent, _, dst_name) = src, dst
        node = self.index.child(src_parent, src_name)
        assert node is not None
        if replaced is not None:
            self.index.remove(replaced, self.tx)
        stamp = now()
        self.index.put(node.changed(parent=dst_parent.id, name=dst_name, ctime_ms=stamp), self.tx)
        self.disk.touch_dir(self.index.get(src_parent.id), self.tx, stamp)
        if dst_parent.id != src_parent.id:
            self.disk.touch_dir(self.index.get(dst_parent.id), self.tx, stamp)

    def rename_same(self, src: DiskAt, dst: DiskAt) -> None:
        """Renaming an entry onto itself changes nothing."""

    # ------------------------------------------------------------ content and metadata

    def make_parents(self, path: str, tx: Transaction | None = None) -> None:
        """``mkdir -p`` of the directory a write to ``path`` lands in (staged in ``tx``, by
        default the call's)."""
        self.disk.make_dirs(paths.dirname(paths.normalize(path, "open")), "open",
                            self.tx if tx is None else tx, path)

    def check_parents(self, path: str) -> None:
        """Raise what ``make_parents`` would (a file or a bad link in the way), in a
        transaction of its own that is dropped."""
        tx = Transaction()
        try:
            self.make_parents(path, tx)
        finally:
            tx.rollback()

    def open_stream(self, engine: CommitEngine, path: str, mode: int | None,
                    finish: Finish) -> WriteStream:
        """A stream whose full chunks are stored as they come; ``finish`` commits the file."""
        return DiskWriteStream(engine, path, mode, finish)

    def write(self, found: Found, data: bytes, mode: int | None,
              digests: Sequence[str] | None = None) -> None:
        """Create the file ``found`` names, or replace its content, with ``data``."""
        self.put_body(found, self.content.pack(data, self.tx, digests=digests), len(data), mode)

    def put_body(self, found: Found, body: Body, size: int, mode: int | None) -> None:
        """Create or replace the file ``found`` names with ``body`` (a file keeps its mode)."""
        if found.node is None:
            self.disk.create(found.parent, found.name, FILE,
                             DEFAULT_FILE_MODE if mode is None else mode, self.tx,
                             body=body, size=size)
            return
        stamp = now()
        self.index.put(found.node.changed(size=size, chunks=body.chunks, inline=body.inline,
                                          mtime_ms=stamp, ctime_ms=stamp), self.tx)

    async def append(self, found: Found, data: bytes) -> None:
        """Only the file's last, partial chunk is read and rewritten, whatever its size."""
        node = found.node
        assert node is not None
        check_length(node.size + len(data), "write", self.shown[0])
        keep, tail = await self._split_at(node, node.size)
        self.put_body(found, self.content.pack(tail + data, self.tx, keep),
                      node.size + len(data), None)

    async def truncate(self, found: Found, length: int) -> None:
        """Reads at most the one chunk the new end falls in. Growing a file fills the last
        chunk with zeros and then references the one all-zero chunk as many times as needed:
        no gap is ever allocated, whatever its size."""
        node, tx = found.node, self.tx
        assert node is not None
        keep, tail = await self._split_at(node, min(length, node.size))
        gap = max(0, length - node.size)
        fill = min(gap, -len(tail) % CHUNK_SIZE if keep or len(tail) else CHUNK_SIZE)
        tail += bytes(fill)
        whole, rest = divmod(gap - fill, CHUNK_SIZE)
        if whole or rest:  # tail is a whole chunk now: zero chunks, then a partial one
            keep += self.content.split(tail, tx) + (zero_chunk(tx) * whole if whole else ())
            tail = bytes(rest)
        self.put_body(found, self.content.pack(tail, tx, keep), length, None)

    async def _split_at(self, node: Node, offset: int) -> tuple[tuple[str, ...], bytes]:
        """The whole chunks before ``offset`` (kept as they are) and the bytes after them up to
        ``offset``, which need re-chunking. An inline file is all tail, read from its node."""
        if node.inline is not None:
            return (), node.inline_bytes[:offset]
        whole, partial = divmod(offset, CHUNK_SIZE)
        if not partial:
            return node.chunks[:whole], b""
        chunk = await self.content.read_chunk(node.chunks[whole])
        return node.chunks[:whole], chunk[:partial]

    def set_mode(self, found: Found, mode: int) -> None:
        """The permission bits."""
        assert found.node is not None
        self.index.put(found.node.changed(mode=mode & 0o7777, ctime_ms=now()), self.tx)

    def set_times(self, found: Found, atime_ms: float, mtime_ms: float) -> None:
        """Access and modification times."""
        assert found.node is not None
        self.index.put(found.node.changed(atime_ms=float(atime_ms), mtime_ms=float(mtime_ms),
                                          ctime_ms=now()), self.tx)

    def touch(self, found: Found) -> None:
        """Every time of the entry set to now."""
        assert found.node is not None
        stamp = now()
        self.index.put(found.node.changed(atime_ms=stamp, mtime_ms=stamp, ctime_ms=stamp), self.tx)
