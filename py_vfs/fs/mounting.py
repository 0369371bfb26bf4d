"""The mount operations of ``VFS``: mount, restore_mount, unmount, mounts, mount_info,
reconnect (the table itself is ``table.py``; reads reach into folders through ``tree.py``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import Node
from ..disk.engine import CommitEngine
from ..disk.index import Index
from ..mounts.backend import Backend
from ..mounts.table import ACTIVE, WAITING, Mount, MountTable
from ..storage.transaction import Transaction
from .resolver import Resolver

# ``mkdir -p`` of a mount point that does not exist yet (the VFS's own ``mkdir``).
MakeDirs = Callable[[str], Awaitable[None]]


class Mounting:
    """Mounting and unmounting folders of one VFS."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, index: Index,
                 table: MountTable, make_dirs: MakeDirs) -> None:
        self.engine = engine
        self.resolver = resolver
        self.index = index
        self.mount_table = table
        self.make_dirs = make_dirs

    # ---------------------------------------------------------------- the table

    async def mount(self, path: str, backend: Backend, *, read_only: bool = False
                    ) -> dict[str, Any]:
        """Mount ``backend`` at ``path``: an empty directory (created when missing), not ``/``,
        not inside another mount. Nothing is read from the folder now."""
        canonical, node = await self._mount_point(path, "mount", fresh=True)
        await self._mark(node.id, backend.name, canonical, fresh=True)
        mount = Mount(canonical, node.id, backend, read_only)
        self.mount_table.add(mount)
        return mount.info()

    async def restore_mount(self, path: str, backend: Backend, *, read_only: bool = False,
                            granted: bool = True) -> dict[str, Any]:
        """Bring back a mount kept from an earlier session (the browser keeps the handles):
        active when access is still granted, else waiting for ``reconnect``."""
        existing = self.mount_table.by_path.get(paths.normalize(path, "mount"))
        if existing is not None:
            self.mount_table.discard(existing)
        canonical, node = await self._mount_point(path, "mount", fresh=False)
        await self._mark(node.id, backend.name, canonical, fresh=False)
        mount = Mount(canonical, node.id, backend, read_only, ACTIVE if granted else WAITING)
        self.mount_table.add(mount)
        return mount.info()

    async def unmount(self, path: str) -> dict[str, Any]:
        """Remove the mount at ``path``; the empty mount point stays, the folder is untouched.
        EBUSY while a stream on it is open."""
        mount = self._mount_at(path, "umount")
        if mount.streams:
            raise FsError.of("EBUSY", "umount", path)
        info = mount.info()
        await self._mark(mount.node_id, None, mount.path, fresh=False)
        self.mount_table.discard(mount)
        return info

    async def reconnect(self, path: str, backend: Backend | None = None, *,
                        read_only: bool | None = None) -> dict[str, Any]:
        """Make a waiting mount active again, once the browser granted access (the page asks
        the user); ``backend`` replaces the old one when given, and attaches a mount the disk
        records but this VFS did not make (ENOENT without it: no folder to attach)."""
        mount = self._mount_at(path, "mount")
        if backend is None and mount.backend is None:
            raise FsError.of("ENOENT", "mount", path).with_hint(
                "this tab has no folder for the mount: give the folder to reconnect")
        if backend is not None:
            mount.backend = backend
        if read_only is not None:
            mount.read_only = read_only
        mount.state = ACTIVE
        return mount.info()

    def mounts(self) -> list[dict[str, Any]]:
        """Every mount: path, folder name, readOnly, state ("active" or "waiting")."""
        return [self.mount_table.by_path[p].info() for p in sorted(self.mount_table.by_path)]

    def mount_info(self, path: str) -> dict[str, Any]:
        """The mount at ``path`` (EINVAL if it is not a mount point)."""
        return self._mount_at(path, "mount").info()

    def _mount_at(self, path: str, syscall: str) -> Mount:
        place = self.resolver.locate(path, syscall)
        if place.mount is None or place.rel:
            raise FsError.of("EINVAL", syscall, path).with_hint("not a mount point")
        return place.mount

    async def _mount_point(self, path: str, syscall: str, *, fresh: bool) -> tuple[str, Node]:
        """The directory to mount on, created when missing; for a new mount it must be empty
        (ENOTEMPTY) and not a mount point already (EEXIST)."""
        if paths.normalize(path, syscall) == "/":
            raise FsError.of("EBUSY", syscall, path)
        place = self.resolver.locate(path, syscall)
        if place.mount is not None:
            if not place.rel:
                raise FsError.of("EEXIST", syscall, path)
            raise FsError.of("EINVAL", syscall, path).with_hint(
                f"{place.mount.path} is a mounted folder: mounts do not nest")
        try:
            node, canonical = self.resolver.lookup(path, syscall)
        except FileNotFoundError:
            await self.make_dirs(path)
            node, canonical = self.resolver.lookup(path, syscall)
        if not node.is_dir:
            raise FsError.of("ENOTDIR", syscall, path)
        if fresh and not self.index.is_empty(node):
            raise FsError.of("ENOTEMPTY", syscall, path)
        return canonical, node

    async def _mark(self, node_id: str, name: str | None, path: str, *, fresh: bool) -> None:
        """Record on the disk that a folder named ``name`` is mounted on the directory
        ``node_id`` (None: no longer), in one commit, so every tab routes its paths alike."""
        known = self.index.nodes.get(node_id)
        if not fresh and known is not None and known.mount == name:
            return  # recorded already (a restore, a second tab): no commit, no lock

        def change(tx: Transaction) -> None:
            node = self.index.nodes.get(node_id)
            if node is None or not node.is_dir:
                raise FsError.of("ENOENT", "mount", path)
            if fresh and not self.index.is_empty(node):
                raise FsError.of("ENOTEMPTY", "mount", path)
            if node.mount != name:
                self.index.put(node.changed(mount=name), tx)

        await self.engine.run(change, "mount" if name is not None else "unmount")
