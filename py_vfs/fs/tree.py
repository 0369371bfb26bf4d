"""Reading the tree: a directory's entries and a file's bytes, on the disk or in a mounted folder.

Listings, walks, searches and reads ask here, so that they reach into mounted folders without
knowing about them. A node is read by its side: a mount point and every virtual node are
``covered`` by the mount table, and their children and content come from the folder's backend
(``FolderReader``); every other node is the index's (``DiskReader``). Both answer the same few
questions, so the walks are written once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Protocol

from ..core import paths
from ..core.cancel import check
from ..core.node import Node
from ..disk.content import Content
from ..disk.engine import CommitEngine
from ..disk.index import Index
from ..disk.streams import ReadStream
from ..mounts.streams import MountReadStream
from ..mounts.table import MountTable


class Reader(Protocol):
    """What a walk or a read asks of the side that holds a node."""

    def names(self, directory: Node) -> list[str]:
        """The sorted names in ``directory``."""

    def entries(self, directory: Node, *, sizes: bool = False) -> list[Node]:
        """The children of ``directory``, sorted by name."""

    async def read(self, node: Node) -> bytes:
        """A file's whole content."""

    def stream(self, node: Node, start: int, end: int | None) -> ReadStream:
        """A read stream over the bytes ``[start, end)`` of a file."""

    def content_text(self, node: Node) -> str:
        """What names a file's bytes exactly (hashed into ``Tree.content_id``)."""


class DiskReader:
    """Nodes of the index: entries from the index, bytes from their record or chunks."""

    def __init__(self, index: Index, content: Content, engine: CommitEngine) -> None:
        self.index = index
        self.content = content
        self.engine = engine

    def names(self, directory: Node) -> list[str]:
        """The index's names."""
        return self.index.names(directory)

    def entries(self, directory: Node, *, sizes: bool = False) -> list[Node]:
        """The index's entries (which carry their sizes always)."""
        return self.index.entries(directory)

    async def read(self, node: Node) -> bytes:
        """From the record (inline) or the chunks."""
        if node.inline is not None:
            return node.inline_bytes
        return await self.content.read(node.chunks)

    def stream(self, node: Node, start: int, end: int | None) -> ReadStream:
        """Over the version current now (its chunks pinned)."""
        return ReadStream(self.engine, node.chunks, node.size, start, end,
                          inline=node.inline_bytes if node.inline is not None else None)

    def content_text(self, node: Node) -> str:
        """Its size and chunk keys, or its inline bytes (base64 names them exactly)."""
        if node.inline is not None:
            return f"{node.size}:inline:{node.inline}"
        return f"{node.size}:{','.join(node.chunks)}"


class FolderReader:
    """Mount points and virtual nodes: entries and bytes asked of the folder's backend."""

    def __init__(self, table: MountTable, engine: CommitEngine) -> None:
        self.table = table
        self.engine = engine

    def names(self, directory: Node) -> list[str]:
        """The folder's listing (none while the mount waits)."""
        return self.table.names(directory)

    def entries(self, directory: Node, *, sizes: bool = False) -> list[Node]:
        """Virtual nodes; their sizes and mtimes only with ``sizes`` (the browser reads them
        file by file)."""
        return self.table.entries(directory, sizes=sizes)

    async def read(self, node: Node) -> bytes:
        """Read now, never cached."""
        return self.table.read(node)

    def stream(self, node: Node, start: int, end: int | None) -> ReadStream:
        """One chunk's range at a time, read live."""
        mount, rel = self.table.of(node)
        return MountReadStream(self.engine, mount, rel, node.size, start, end)

    def content_text(self, node: Node) -> str:
        """A folder's file has no chunks: its size and mtime."""
        return f"{node.size}:{node.mtime_ms}"


class Tree:
    """The entries and content of nodes, whether the index or a folder holds them."""

    def __init__(self, index: Index, content: Content, table: MountTable,
                 engine: CommitEngine) -> None:
        self.table = table
        self.disk = DiskReader(index, content, engine)
        self.folders = FolderReader(table, engine)

    def side(self, node: Node) -> Reader:
        """The reader of the side that holds ``node``."""
        return self.folders if self.table.covers(node) else self.disk

    def names(self, directory: Node) -> list[str]:
        """The sorted names in ``directory`` (the index's, or a mounted folder's listing)."""
        return self.side(directory).names(directory)

    def entries(self, directory: Node, *, sizes: bool = False) -> list[Node]:
        """``index.entries``, or a mounted folder's entries as virtual nodes: what walks, find,
        glob, ls, du and grep descend through. Their sizes and mtimes are there only with
        ``sizes`` (the browser reads them file by file); without, only names and kinds."""
        return self.side(directory).entries(directory, sizes=sizes)

    def descendants(self, directory: Node, directory_path: str, *,
                    sizes: bool = False) -> Iterator[tuple[str, Node]]:
        """Every entry below ``directory``, depth first, in sorted order (``sizes``: the
        nodes of mounted folders carry sizes too, which costs a call per file there). An
        explicit stack, not recursion: a tree may be deeper than Python's recursion limit.
        Each directory is a safe point of a cancellable call: listing a mounted folder waits
        for the browser, which lets the page's cancel in (py_vfs/core/cancel.py)."""
        stack = [(directory_path, iter(self.entries(directory, sizes=sizes)))]
        while stack:
            parent_path, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                continue
            child_path = paths.child(parent_path, child.name)
            yield child_path, child
            if child.is_dir:
                check("scandir")
                stack.append((child_path, iter(self.entries(child, sizes=sizes))))

    async def read(self, node: Node) -> bytes:
        """A file's whole content, from its record (inline), its chunks or its folder."""
        return await self.side(node).read(node)

    def stream(self, node: Node, start: int, end: int | None) -> ReadStream:
        """A read stream over the bytes ``[start, end)`` of a file of the disk or a folder."""
        return self.side(node).stream(node, start, end)

    def content_id(self, node: Node) -> str:
        """A name for a file's bytes, without reading them: the preview's ETag, which changes
        exactly when the content does."""
        return hashlib.sha256(self.side(node).content_text(node).encode()).hexdigest()[:32]
