"""Reading the tree: a directory's entries and a file's bytes, on the disk or in a mounted folder.

Listings, walks, searches and reads ask here, so that they reach into mounted folders without
knowing about them: a mount point and every virtual node are ``covered`` by the mount table,
and their children and content come from the folder's backend.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..core import paths
from ..core.cancel import check
from ..core.node import Node
from ..disk.content import Content
from ..disk.engine import CommitEngine
from ..disk.index import Index
from ..disk.streams import ReadStream
from ..mounts.streams import MountReadStream
from ..mounts.table import MountTable


class Tree:
    """The entries and content of nodes, whether the index or a folder holds them."""

    def __init__(self, index: Index, content: Content, table: MountTable,
                 engine: CommitEngine) -> None:
        self.index = index
        self.content = content
        self.table = table
        self.engine = engine

    def names(self, directory: Node) -> list[str]:
        """The sorted names in ``directory`` (the index's, or a mounted folder's listing)."""
        if self.table.covers(directory):
            return self.table.names(directory)
        return self.index.names(directory)

    def entries(self, directory: Node, *, sizes: bool = False) -> list[Node]:
        """``index.entries``, or a mounted folder's entries as virtual nodes: what walks, find,
        glob, ls, du and grep descend through. Their sizes and mtimes are there only with
        ``sizes`` (the browser reads them file by file); without, only names and kinds."""
        if self.table.covers(directory):
            return self.table.entries(directory, sizes=sizes)
        return self.index.entries(directory)

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
        if self.table.covers(node):
            return self.table.read(node)
        if node.inline is not None:
            return node.inline_bytes
        return await self.content.read(node.chunks)

    def stream(self, node: Node, start: int, end: int | None) -> ReadStream:
        """A read stream over the bytes ``[start, end)`` of a file of the disk or a folder."""
        if self.table.covers(node):
            mount, rel = self.table.of(node)
            return MountReadStream(self.engine, mount, rel, node.size, start, end)
        return ReadStream(self.engine, node.chunks, node.size, start, end,
                          inline=node.inline_bytes if node.inline is not None else None)
