"""Metadata and listings: what stat reports, chmod, utimes, touch, readdir, scandir, walk, du.

Reads are synchronous: the index is in memory, and JS calls into synchronous Python are far
cheaper than async ones. The mutations are rules written once over a side (``sides.py``): one
change run by the commit engine on the disk, one call of its backend in a mounted folder.
"""

from __future__ import annotations

from ..core import paths
from ..core.errors import FsError
from ..core.node import SYMLINK, DirEntry, Node, Stat
from ..disk.engine import CommitEngine
from ..disk.limits import check_mode, check_time
from ..mounts.table import MountTable
from .disk_side import Nodes, link_size
from .resolver import Resolver
from .sides import Concern, FileSide
from .tree import Tree


def stat_of(node: Node, canonical: str) -> Stat:
    """What ``stat`` reports of ``node`` found at ``canonical``: a directory's size is 4096
    (``Node.stat_size``), a link's its target's length in bytes, as Linux reports (records
    written before that counted characters, so it is taken from the target itself)."""
    kind = node.kind
    size = link_size(node.target or "") if kind == SYMLINK else node.stat_size
    return Stat(type=kind, size=size, mode=node.mode,
                mtime_ms=node.mtime_ms, ctime_ms=node.ctime_ms, atime_ms=node.atime_ms,
                name=paths.basename(canonical), path=canonical, target=node.target,
                ino=node.ino)


class Metadata(Concern):
    """The metadata operations and listings of the VFS."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Nodes, tree: Tree,
                 table: MountTable) -> None:
        super().__init__(engine, resolver, disk, table)
        self.tree = tree

    async def chmod(self, path: str, mode: int) -> None:
        """``chmod(2)``: the permission bits (links followed; a folder keeps none)."""
        mode = check_mode(mode, "chmod", path)
        place = self.locate(path, "chmod")

        def rule(side: FileSide) -> None:
            found = self.resolver.resolve_from(place, path, "chmod")
            side.writable()
            side.set_mode(found, mode)

        await self.apply(place, rule, "chmod", "chmod", path)

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        """``utimes``: access and modification times, in milliseconds."""
        atime_ms = check_time(atime_ms, "utime", path)
        mtime_ms = check_time(mtime_ms, "utime", path)
        place = self.locate(path, "utime")

        def rule(side: FileSide) -> None:
            found = self.resolver.resolve_from(place, path, "utime")
            side.writable()
            side.set_times(found, atime_ms, mtime_ms)

        await self.apply(place, rule, "utimes", "utime", path)

    async def touch(self, path: str) -> None:
        """Create an empty file, or set an existing one's times to now (``touch``). Located as
        the entry is first looked up (not as a file to create): ``/m/`` of a mount point is the
        folder's root, not a disk path."""
        place = self.locate(path, "utime")

        def rule(side: FileSide) -> None:
            try:
                found = self.resolver.resolve_from(place, path, "utime")
            except FsError:  # nothing there (or no way there): a file to create, as open()
                side.write(self.write_target(side, place, path, parents=False), b"", None)
                return
            side.writable()
            side.touch(found)

        await self.apply(place, rule, "touch", "utime", path)

    # ----------------------------------------------------------------- listing

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """The names in a directory, sorted (``with_types``: as ``DirEntry``)."""
        node, canonical = self.resolver.lookup(path, "scandir")
        if not node.is_dir:
            raise FsError.of("ENOTDIR", "scandir", path)
        if not with_types:
            return self.tree.names(node)
        return [DirEntry(child.name, paths.child(canonical, child.name), child.kind)
                for child in self.tree.entries(node)]

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """The canonical path of the directory ``path`` and its entries by name, as nodes, for
        callers that want every entry's metadata at once (the JS API's stat cache). The node of
        a mount point, and a mounted folder's entries, are not what lstat reports
        (``mount_table.covers`` tells them): their stat comes from the folder."""
        node, canonical = self.resolver.lookup(path, "scandir")
        if not node.is_dir:
            raise FsError.of("ENOTDIR", "scandir", path)
        return canonical, self.tree.entries(node)

    def walk(self, path: str = "/") -> list[str]:
        """Every non-directory below ``path`` (links not followed), sorted by path."""
        node, canonical = self.resolver.lookup(path, "scandir")
        if not node.is_dir:
            return [canonical]
        return sorted(p for p, child in self.tree.descendants(node, canonical)
                      if not child.is_dir)

    def du(self, path: str = "/") -> int:
        """Bytes of file content at or below ``path`` (links count their own size)."""
        node, canonical = self.resolver.lookup(path, "scandir", follow=False)
        if not node.is_dir:
            return node.size
        # The sizes the traversal already has: a mounted folder is listed once per directory,
        # not asked once per file.
        return sum(child.size for _, child in self.tree.descendants(node, canonical, sizes=True)
                   if not child.is_dir)
