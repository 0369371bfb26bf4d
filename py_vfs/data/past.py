"""The disk as it was: a read-only view of one past state (a snapshot, a revision, a moment).

``Snapshots.tree`` gives the nodes of a state; ``PastDisk`` answers reads over them with the one
resolver (``fs/resolver.py``) on an index of their own, and reads content from the disk's
chunks (history keeps the chunks its entries name: ``disk/journal.py``). Nothing here writes: a
past disk has no write method, and the page's ``vfs.at(state)`` offers reads only.

``Past`` keeps the trees of the last few revisions asked for: a revision's tree never changes,
so a timeline that browses one folder after another (the workbench) replays the journal once,
not at every click. A snapshot is read again each time (one record), the disk now never kept.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import DirEntry, Node, Stat
from ..disk.content import Content
from ..disk.engine import CommitEngine
from ..disk.index import Index
from ..disk.journal import Journal
from ..fs.metadata import stat_of
from ..fs.resolver import Resolver
from ..mounts.table import MountTable
from .snapshots import Snapshots, State, Tree

# Past revisions whose trees are kept (each is one Node per file of the disk then).
KEPT_TREES = 4


class PastDisk:
    """The disk as it was at ``revision`` (None: a snapshot's or the present's tree, frozen),
    read only. Its methods are the disk's reads, with the disk's errors: ``read_file``,
    ``readdir``, ``stat``, ``lstat``, ``readlink``, ``exists``, ``realpath``."""

    def __init__(self, nodes: Tree, content: Content, revision: int | None) -> None:
        self.revision = revision
        self._content = content
        # An index of its own (its reference counts too: nothing of the disk's moves); a mount
        # point of then is a plain directory here, its folder not being part of the history.
        self._index = Index(Content(content.store))
        self._index.load([node.changed(mount=None) if node.mount is not None else node
                          for node in nodes.values()])
        self._resolver = Resolver(self._index, MountTable(self._index))

    def _file(self, path: str) -> Node:
        node, _ = self._resolver.lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "read", path)
        return node

    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        """The file's content then (text with ``encoding``)."""
        node = self._file(path)
        if node.inline is not None:
            data = node.inline_bytes
        else:
            data = b"".join([await self._content.read_chunk(key, keep=False)
                             for key in node.chunks])
        return data.decode(encoding) if encoding else data

    def stat(self, path: str) -> Stat:
        """``stat`` then (links followed)."""
        node, canonical = self._resolver.lookup(path, "stat")
        return stat_of(node, canonical)

    def lstat(self, path: str) -> Stat:
        """``lstat`` then (a final link not followed)."""
        node, canonical = self._resolver.lookup(path, "lstat", follow=False)
        return stat_of(node, canonical)

    def readlink(self, path: str) -> str:
        """A link's target then (EINVAL for anything else)."""
        node, _ = self._resolver.lookup(path, "readlink", follow=False)
        if not node.is_link:
            raise FsError.of("EINVAL", "readlink", path)
        return node.target or ""

    def realpath(self, path: str) -> str:
        """The canonical path then."""
        return self._resolver.lookup(path, "realpath")[1]

    def exists(self, path: str) -> bool:
        """Whether ``path`` led somewhere then."""
        return self._resolver.exists(path)

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """The names in a directory then, sorted (``with_types``: as ``DirEntry``)."""
        node, canonical = self._resolver.lookup(path, "scandir")
        if not node.is_dir:
            raise FsError.of("ENOTDIR", "scandir", path)
        if not with_types:
            return self._index.names(node)
        return [DirEntry(child.name, paths.child(canonical, child.name), child.kind)
                for child in self._index.entries(node)]


class Past:
    """``vfs.at(state)``: past disks, the trees of recent revisions kept."""

    def __init__(self, snapshots: Snapshots, history: Journal, content: Content,
                 engine: CommitEngine) -> None:
        self._snapshots = snapshots
        self._history = history
        self._content = content
        self._engine = engine
        self._trees: OrderedDict[int, Tree] = OrderedDict()

    async def at(self, state: State) -> PastDisk:
        """The disk as it was in ``state`` (as in ``diff``): EINVAL for a revision beyond the
        history kept, ENOENT for a snapshot that does not exist."""
        async with self._engine.mutex:
            await self._engine.catch_up()
            revision = await self._revision_of(state)
            if revision is None:
                return PastDisk(await self._snapshots.tree(state, "at"), self._content, None)
            tree = self._trees.get(revision)
            if tree is None or not await self._still_kept(revision):
                tree = await self._history.tree_at(revision, "at")
                self._trees[revision] = tree
                while len(self._trees) > KEPT_TREES:
                    self._trees.popitem(last=False)
            self._trees.move_to_end(revision)
            return PastDisk(tree, self._content, revision)

    async def _revision_of(self, state: Any) -> int | None:
        """The revision a state names (None: a snapshot, or the disk now)."""
        if isinstance(state, dict) and "before" in state:
            return await self._history.revision_before(state["before"])
        if isinstance(state, dict) and "revision" in state:
            state = state["revision"]
        if isinstance(state, int) and not isinstance(state, bool) \
                and state != self._engine.revision:
            return state
        return None

    async def _still_kept(self, revision: int) -> bool:
        """Whether the history still reaches ``revision`` (a trim may have cut it since)."""
        oldest = await self._content.store.log_oldest()
        return oldest is not None and revision >= oldest - 1
