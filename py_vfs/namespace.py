"""The namespace: mkdir, rm, rmdir, unlink, rename, symlink, readlink, realpath.

The checks of each call are the kernel's, in its order (docs/semantics.md); each mutation is one
change run by the commit engine. A path inside a mounted folder is routed to ``mounts/ops.py``.
"""

from __future__ import annotations

from dataclasses import replace

from . import paths
from .disk import DEFAULT_DIR_MODE, Disk, now
from .engine import CommitEngine
from .errors import FsError
from .limits import check_mode
from .mounts.ops import MountOps, routed
from .mounts.table import MountTable
from .node import Node
from .resolver import Resolver
from .transaction import Transaction


class Namespace:
    """The operations on names of the VFS."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Disk,
                 table: MountTable, mounted: MountOps) -> None:
        self.engine = engine
        self.resolver = resolver
        self.disk = disk
        self.index = disk.index
        self.table = table  # read by ``routed``
        self.mounted = mounted

    @routed
    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        """``mkdir(2)``, or ``mkdir -p`` with ``recursive``."""
        dir_mode = DEFAULT_DIR_MODE if mode is None else check_mode(mode, "mkdir", path)
        if recursive:
            await self.engine.run(lambda tx: self.disk.make_dirs(path, "mkdir", tx, path,
                                                                 dir_mode))
            return
        await self.engine.run(lambda tx: self.disk.make_dir(path, "mkdir", dir_mode, tx))

    @routed
    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """``rm``: a directory needs ``recursive`` unless empty; ``force``: no ENOENT."""
        def change(tx: Transaction) -> None:
            try:
                parent, _, name = self.resolver.lookup_parent(path, "rm")
            except FsError as error:
                if force and error.code == "ENOENT":
                    return
                raise
            node = self.index.child(parent, name)
            if node is None:
                if force:
                    return
                raise FsError.of("ENOENT", "rm", path)
            if paths.has_trailing_slash(path) and not node.is_dir:
                raise FsError.of("ENOTDIR", "rm", path)
            if node.is_dir and not recursive and not self.index.is_empty(node):
                raise FsError.of("ENOTEMPTY", "rm", path)
            self.disk.remove_tree(node, tx)
            self.disk.touch_dir(self.index.get(parent.id), tx, now())

        await self.engine.run(change)

    @routed
    async def rmdir(self, path: str) -> None:
        """``rmdir(2)``: an empty directory only."""
        def change(tx: Transaction) -> None:
            parent, _, name = self.resolver.lookup_parent(path, "rmdir")
            node = self.index.child(parent, name)
            if node is None:
                raise FsError.of("ENOENT", "rmdir", path)
            if not node.is_dir:
                raise FsError.of("ENOTDIR", "rmdir", path)
            if not self.index.is_empty(node):
                raise FsError.of("ENOTEMPTY", "rmdir", path)
            self.index.remove(node, tx)
            self.disk.touch_dir(self.index.get(parent.id), tx, now())

        await self.engine.run(change)

    @routed
    async def unlink(self, path: str) -> None:
        """``unlink(2)``: a file or a link (the link itself), never a directory."""
        def change(tx: Transaction) -> None:
            parent, _, name = self.resolver.lookup_parent(path, "unlink")
            node = self.index.child(parent, name)
            if node is None:
                raise FsError.of("ENOENT", "unlink", path)
            if node.is_dir:
                raise FsError.of("EISDIR", "unlink", path)
            if paths.has_trailing_slash(path):
                raise FsError.of("ENOTDIR", "unlink", path)
            self.index.remove(node, tx)
            self.disk.touch_dir(self.index.get(parent.id), tx, now())

        await self.engine.run(change)

    @routed
    async def rename(self, old: str, new: str) -> None:
        """``rename(2)``: atomic, replacing what it may replace."""
        await self.engine.run(lambda tx: self._rename(old, new, tx))

    def _rename(self, old: str, new: str, tx: Transaction) -> None:
        """``rename(2)``, its checks in the kernel's order: both parents, ``/`` (EPERM here,
        EBUSY on Linux), the source, a trailing slash on a non-directory, a directory into
        itself, a target that holds the source, a no-op onto itself, what may replace what."""
        src = self._rename_parent(old, old, new)
        dst = self._rename_parent(new, old, new)
        if src is None or dst is None:
            raise FsError.of("EPERM", "rename", old, new)
        (src_parent, src_dir, src_name), (dst_parent, dst_dir, dst_name) = src, dst
        node = self.index.child(src_parent, src_name)
        if node is None:
            raise FsError.of("ENOENT", "rename", old, new)
        if not node.is_dir and (paths.has_trailing_slash(old) or paths.has_trailing_slash(new)):
            raise FsError.of("ENOTDIR", "rename", old, new)
        src_path, dst_path = paths.child(src_dir, src_name), paths.child(dst_dir, dst_name)
        if src_path != dst_path:
            if paths.is_within(dst_path, src_path):
                raise FsError.of("EINVAL", "rename", old, new)
            if paths.is_within(src_path, dst_path):
                raise FsError.of("ENOTEMPTY", "rename", old, new)
        existing = self.index.child(dst_parent, dst_name)
        if existing is not None:
            if existing.id == node.id:
                return
            self._check_replace(node, existing, old, new)
            self.index.remove(existing, tx)
        stamp = now()
        self.index.put(replace(node, parent=dst_parent.id, name=dst_name, ctime_ms=stamp), tx)
        self.disk.touch_dir(self.index.get(src_parent.id), tx, stamp)
        if dst_parent.id != src_parent.id:
            self.disk.touch_dir(self.index.get(dst_parent.id), tx, stamp)

    def _rename_parent(self, path: str, old: str, new: str) -> tuple[Node, str, str] | None:
        """``lookup_parent`` for one end of a rename (None for ``/``); errors name both ends."""
        if paths.normalize(path, "rename") == "/":
            return None
        try:
            return self.resolver.lookup_parent(path, "rename")
        except FsError as error:
            raise FsError.of(error.code, "rename", old, new) from None

    def _check_replace(self, node: Node, existing: Node, old: str, new: str) -> None:
        if existing.is_dir and not node.is_dir:
            raise FsError.of("EISDIR", "rename", old, new)
        if node.is_dir and not existing.is_dir:
            raise FsError.of("ENOTDIR", "rename", old, new)
        if existing.is_dir and not self.index.is_empty(existing):
            raise FsError.of("ENOTEMPTY", "rename", old, new)

    @routed
    async def symlink(self, target: str, path: str) -> None:
        """``symlink(2)``: an empty target is ENOENT, an existing ``path`` (even a dangling
        link) EEXIST, and a new name with a trailing slash ENOENT, as on Linux."""
        if "\0" in target or paths.has_lone_surrogate(target):
            raise FsError.of("EINVAL", "symlink", target, path)
        if paths.too_long(target):
            raise FsError.of("ENAMETOOLONG", "symlink", target, path)
        await self.engine.run(lambda tx: self.disk.make_link(target, path, "symlink", tx))

    def readlink(self, path: str) -> str:
        """A link's target (EINVAL for anything else)."""
        node, _ = self.resolver.lookup(path, "readlink", follow=False)
        if not node.is_link:
            raise FsError.of("EINVAL", "readlink", path)
        return node.target or ""

    def realpath(self, path: str) -> str:
        """The canonical path: every link followed, ``..`` and ``.`` gone."""
        _, canonical = self.resolver.lookup(path, "realpath")
        return canonical
