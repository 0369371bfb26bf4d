"""The namespace: mkdir, rm, rmdir, unlink, rename, symlink, readlink, realpath.

Each call finds where its operands are (the resolver's ``locate_entry``: the disk, or a mount
and the path inside it) and applies the rule of ``rules.py`` to that side (``sides.py``): on the
disk inside one change run by the commit engine, in a folder through its backend. ``mkdir -p``
is each side's own (``make_dirs``): the disk follows links on the way, a folder has none.
"""

from __future__ import annotations

from ..core import paths
from ..core.errors import FsError
from ..disk.limits import check_mode
from . import rules
from .disk_side import DEFAULT_DIR_MODE
from .sides import Concern


class Namespace(Concern):
    """The operations on names of the VFS."""

    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        """``mkdir(2)``, or ``mkdir -p`` with ``recursive`` (a folder keeps no mode)."""
        place = self.locate_entry(path, "mkdir")
        dir_mode = DEFAULT_DIR_MODE if mode is None else check_mode(mode, "mkdir", path)
        if recursive:
            await self.apply(place, lambda side: side.make_dirs(path, dir_mode), "mkdir",
                             "mkdir", path)
            return
        await self.apply(place, lambda side: rules.mkdir(side, path, dir_mode), "mkdir",
                         "mkdir", path)

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """``rm``: a directory needs ``recursive`` unless empty; ``force``: no ENOENT."""
        def remove(side: rules.Side) -> None:
            rules.rm(side, path, recursive=recursive, force=force)
            side.safe_point()  # a cancelled removal of the disk is dropped before its commit

        await self.apply(self.locate_entry(path, "rm"), remove, "rm", "rm", path)

    async def rmdir(self, path: str) -> None:
        """``rmdir(2)``: an empty directory only."""
        await self.apply(self.locate_entry(path, "rmdir"), lambda side: rules.rmdir(side, path),
                         "rmdir", "rmdir", path)

    async def unlink(self, path: str) -> None:
        """``unlink(2)``: a file or a link (the link itself), never a directory."""
        await self.apply(self.locate_entry(path, "unlink"),
                         lambda side: rules.unlink(side, path), "unlink", "unlink", path)

    async def rename(self, old: str, new: str) -> None:
        """``rename(2)``: atomic on the disk, replacing what it may replace; EXDEV across a
        mount's boundary (after the source is known to exist)."""
        src, dst = self.locate_entry(old, "rename"), self.locate_entry(new, "rename")
        if src.mount is not dst.mount:
            try:
                self.resolver.lookup(old, "lstat", follow=False)
            except FsError as error:
                again = FsError.of(error.code, "rename", old, new)
                raise again.with_hint(error.hint) if error.hint else again from None
            raise FsError.of("EXDEV", "rename", old, new)
        await self.apply(src, lambda side: rules.rename(side, old, new), "rename", "rename",
                         old, new, places={old: src, new: dst})

    async def symlink(self, target: str, path: str) -> None:
        """``symlink(2)``: an empty target is ENOENT, an existing ``path`` (even a dangling
        link) EEXIST, and a new name with a trailing slash ENOENT, as on Linux; a mounted
        folder holds no links (EPERM)."""
        if "\0" in target or paths.has_lone_surrogate(target):
            raise FsError.of("EINVAL", "symlink", target, path)
        if paths.too_long(target):
            raise FsError.of("ENAMETOOLONG", "symlink", target, path)
        await self.apply(self.locate_entry(path, "symlink"),
                         lambda side: rules.symlink(side, target, path), "symlink", "symlink",
                         path)

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
