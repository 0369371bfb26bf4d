"""The namespace: mkdir, rm, rmdir, unlink, rename, symlink, readlink, realpath.

Each call finds where its operands are (the resolver's ``locate_entry``: the disk, or a mount
and the path inside it) and applies the rule of ``rules.py`` to that side: on the disk inside one
change run by the commit engine, in a folder through its backend. Only ``mkdir -p`` of a folder
(``MountOps.make_dirs``) is the folder's own.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core import paths
from ..core.cancel import check
from ..core.errors import FsError
from ..disk.limits import check_mode
from ..mounts.side import MountSide, side_of
from ..mounts.table import DISK, Place
from . import rules
from .mount_ops import Concern
from .nodes import DEFAULT_DIR_MODE, DiskSide


class Namespace(Concern):
    """The operations on names of the VFS."""

    def _place(self, path: str, syscall: str) -> Place:
        """Where the last name of ``path`` lives; with no mounts, on the disk at once."""
        return self.resolver.locate_entry(path, syscall) if self.table else DISK

    async def _on_disk(self, rule: Callable[[DiskSide], None], syscall: str,
                       *shown: str) -> None:
        """Apply ``rule`` to the disk, as one change run by the commit engine."""
        await self.engine.run(lambda tx: rule(DiskSide(self.disk, tx, syscall, *shown)), syscall)

    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        """``mkdir(2)``, or ``mkdir -p`` with ``recursive``."""
        place = self._place(path, "mkdir")
        if place.mount is not None:  # a folder keeps no mode
            if recursive:
                self.mounted.make_dirs(place, path)
            else:
                rules.mkdir(side_of(place, "mkdir", path), path, DEFAULT_DIR_MODE)
            return
        dir_mode = DEFAULT_DIR_MODE if mode is None else check_mode(mode, "mkdir", path)
        if recursive:
            await self.engine.run(lambda tx: self.disk.make_dirs(path, "mkdir", tx, path,
                                                                 dir_mode), "mkdir")
            return
        await self._on_disk(lambda side: rules.mkdir(side, path, dir_mode), "mkdir", path)

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """``rm``: a directory needs ``recursive`` unless empty; ``force``: no ENOENT."""
        place = self._place(path, "rm")
        if place.mount is not None:
            rules.rm(side_of(place, "rm", path), path, recursive=recursive, force=force)
            return
        self._check_not_busy(path, "rm")

        def remove(side: DiskSide) -> None:
            rules.rm(side, path, recursive=recursive, force=force)
            check("rm")  # the safe point: a cancelled removal is dropped before its commit

        await self._on_disk(remove, "rm", path)

    async def rmdir(self, path: str) -> None:
        """``rmdir(2)``: an empty directory only."""
        place = self._place(path, "rmdir")
        if place.mount is not None:
            rules.rmdir(side_of(place, "rmdir", path), path)
            return
        self._check_not_busy(path, "rmdir")
        await self._on_disk(lambda side: rules.rmdir(side, path), "rmdir", path)

    async def unlink(self, path: str) -> None:
        """``unlink(2)``: a file or a link (the link itself), never a directory."""
        place = self._place(path, "unlink")
        if place.mount is not None:
            rules.unlink(side_of(place, "unlink", path), path)
            return
        await self._on_disk(lambda side: rules.unlink(side, path), "unlink", path)

    async def rename(self, old: str, new: str) -> None:
        """``rename(2)``: atomic on the disk, replacing what it may replace; EXDEV across a
        mount's boundary (after the source is known to exist)."""
        src, dst = self._place(old, "rename"), self._place(new, "rename")
        if src.mount is None and dst.mount is None:
            if self.table:
                self._check_not_busy(old, "rename", old, new)
                self._check_not_busy(new, "rename", old, new)
            await self._on_disk(lambda side: rules.rename(side, old, new), "rename", old, new)
            return
        if src.mount is not dst.mount:
            try:
                self.resolver.lookup(old, "lstat", follow=False)
            except FsError as error:
                again = FsError.of(error.code, "rename", old, new)
                raise again.with_hint(error.hint) if error.hint else again from None
            raise FsError.of("EXDEV", "rename", old, new)
        places = {old: src.rel, new: dst.rel}
        rules.rename(MountSide(src.mount, places, "rename", old, old, new), old, new)

    async def symlink(self, target: str, path: str) -> None:
        """``symlink(2)``: an empty target is ENOENT, an existing ``path`` (even a dangling
        link) EEXIST, and a new name with a trailing slash ENOENT, as on Linux; a mounted
        folder holds no links (EPERM)."""
        if "\0" in target or paths.has_lone_surrogate(target):
            raise FsError.of("EINVAL", "symlink", target, path)
        if paths.too_long(target):
            raise FsError.of("ENAMETOOLONG", "symlink", target, path)
        place = self._place(path, "symlink")
        if place.mount is not None:
            rules.symlink(side_of(place, "symlink", path, target, path), target, path)
            return
        await self._on_disk(lambda side: rules.symlink(side, target, path), "symlink", path)

    def _check_not_busy(self, path: str, syscall: str, *shown: str) -> None:
        """EBUSY (naming ``shown``, else ``path``) when the disk entry ``path`` names is a mount
        point or holds one: removing or replacing it would drop a folder out of the tree, or
        (``rm -r``) delete inside it."""
        if not self.table:
            return
        try:
            parent, parent_path, name = self.resolver.lookup_parent(path, syscall)
        except FsError:
            return  # the rule reports it
        node = self.index.child(parent, name)
        if node is not None and node.is_dir and self.table.within(paths.child(parent_path, name)):
            raise FsError.of("EBUSY", syscall, *(shown or (path,)))

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
