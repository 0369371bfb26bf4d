"""Mutations under mount points, and the decorator that routes the VFS's mutations to them.

Every mutating method of the operations (``files``, ``namespace``, ``copies``, ``metadata``) is
decorated with ``routed``: when any mount exists, the method of the same name here runs first.
It locates the operands without touching a backend (``Resolver.locate``); when all of them stay
on the disk it answers ``ON_DISK`` and the disk code runs as if mounts did not exist. Otherwise
it performs the operation in the folder itself.

The POSIX rules are checked here, with the same codes and in the same order as the disk code in
``namespace.py``, ``files.py`` and ``copies.py``, by asking the backend first (``stat``,
``list``) and only then making the one change: the backends stay small and both answer alike. A
folder has no transactions, so a change that takes several backend calls (``mkdir -p``, a
directory rename in the browser, a copy of a tree) is not atomic there; every check is made
before the first change, so a refused operation changes nothing.
"""

from __future__ import annotations

import functools
import inspect
import secrets
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from .. import paths
from ..errors import FsError
from ..index import Index
from ..limits import check_length, check_mode, check_time
from ..node import Node
from ..resolver import Resolver
from ..streams import as_chunk
from .backend import DIRECTORY, Entry, Rel
from .checks import missing_dirs, require_parent, stat_or_none
from .copies import Copier
from .streams import MountWriteStream
from .table import DISK, Mount, MountTable, Place, translated

F = TypeVar("F", bound=Callable[..., Any])

ON_DISK: Any = object()  # "all operands are on the disk: run the disk's own code"


class Routed(Protocol):
    """An operations object whose methods ``routed`` wraps: its mount table, and the
    ``MountOps`` that answers for mounted paths."""

    table: MountTable
    mounted: MountOps


def routed(method: F) -> F:
    """Let ``MountOps`` handle the call first whenever the VFS has mounts (with none, the
    table is empty and the disk's code runs at once)."""
    name = method.__name__
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def run_async(self: Routed, *args: Any, **kwargs: Any) -> Any:
            if self.table:
                result = await getattr(self.mounted, name)(*args, **kwargs)
                if result is not ON_DISK:
                    return result
            return await method(self, *args, **kwargs)

        return run_async  # type: ignore[return-value]

    @functools.wraps(method)
    def run(self: Routed, *args: Any, **kwargs: Any) -> Any:
        if self.table:
            result = getattr(self.mounted, name)(*args, **kwargs)
            if result is not ON_DISK:
                return result
        return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


class MountOps:
    """The mutations of ``VFS`` for operands inside mounts (same names, same arguments)."""

    def __init__(self, resolver: Resolver, index: Index, table: MountTable,
                 copier: Copier) -> None:
        self.resolver = resolver
        self.index = index
        self.table = table
        self.copier = copier

    # ------------------------------------------------------------------ content

    async def write_file(self, path: str, data: Any, *, mode: int | None = None,
                         digests: Any = None) -> Any:
        """``digests`` (of disk chunks) mean nothing to a folder."""
        place = self.resolver.locate(path, "open", create=True)
        if place.mount is None:
            return ON_DISK
        payload = as_chunk(data)
        if place.mount.active and place.rel:  # write_file checks the way before the name
            missing_dirs(place.mount, place.rel[:-1], "open", path)
        writer = self.stream_writer(path, mode=mode)
        await writer.write(payload)
        await writer.close()
        return None

    async def append_file(self, path: str, data: Any) -> Any:
        place = self.resolver.locate(path, "open", create=True)
        if place.mount is None:
            return ON_DISK
        mount, rel, payload = place.mount, place.rel, as_chunk(data)
        mount.check_writable("open", path)
        if not rel:
            raise FsError.of("EISDIR", "open", path)
        with translated("open", path):
            require_parent(mount, rel)
            if place.must_be_dir:
                raise FsError.of("EISDIR", "open", path)
            entry = stat_or_none(mount, rel)
            if entry is not None and entry.kind == DIRECTORY:
                raise FsError.of("EISDIR", "open", path)
            if entry is not None and not payload:  # appending nothing changes nothing
                return None
            writer = mount.backend.open_writer(rel, keep=entry is not None)
            try:
                writer.write(payload)
            except BaseException:
                writer.abort()
                raise
            writer.close()
        return None

    async def truncate(self, path: str, length: int = 0) -> Any:
        length = check_length(length, "open", path)
        place = self.resolver.locate(path, "open")
        if place.mount is None:
            return ON_DISK
        mount, rel, entry = self._existing(path, "open")
        if entry.is_dir:
            raise FsError.of("EISDIR", "open", path)
        mount.check_writable("open", path)
        with translated("open", path):
            mount.backend.truncate(rel, length)
        return None

    def stream_writer(self, path: str, *, mode: int | None = None) -> Any:
        if mode is not None:
            check_mode(mode, "open", path)
        place = self.resolver.locate(path, "open", create=True)
        if place.mount is None:
            return ON_DISK
        return MountWriteStream(place, path)  # a folder keeps no mode

    # ---------------------------------------------------------------- namespace

    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> Any:
        place = self.resolver.locate_entry(path, "mkdir")
        if place.mount is None:
            return ON_DISK
        mount, rel = place.mount, place.rel
        mount.check_active("mkdir", path)
        if recursive:
            plan = missing_dirs(mount, rel, "mkdir", path, last_exists_error="EEXIST")
        else:
            with translated("mkdir", path):
                if stat_or_none(mount, rel) is not None:
                    raise FsError.of("EEXIST", "mkdir", path)
                require_parent(mount, rel)
            plan = [rel]
        if plan:
            mount.check_writable("mkdir", path)
        with translated("mkdir", path):
            for directory in plan:
                mount.backend.mkdir(directory)
        return None

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> Any:
        place = self.resolver.locate_entry(path, "rm")
        if place.mount is None:
            self._check_not_busy(path, "rm")
            return ON_DISK
        mount, rel = place.mount, place.rel
        mount.check_active("rm", path)
        with translated("rm", path):
            entry = stat_or_none(mount, rel)
            if entry is None:
                if force:
                    return None
                raise FsError.of("ENOENT", "rm", path)
            if place.must_be_dir and entry.kind != DIRECTORY:
                raise FsError.of("ENOTDIR", "rm", path)
            if entry.kind == DIRECTORY and not recursive and mount.backend.list(rel):
                raise FsError.of("ENOTEMPTY", "rm", path)
            mount.check_writable("rm", path)
            mount.backend.remove(rel)
        return None

    async def rmdir(self, path: str) -> Any:
        place = self.resolver.locate_entry(path, "rmdir")
        if place.mount is None:
            self._check_not_busy(path, "rmdir")
            return ON_DISK
        mount, rel = place.mount, place.rel
        mount.check_active("rmdir", path)
        with translated("rmdir", path):
            if mount.backend.stat(rel).kind != DIRECTORY:
                raise FsError.of("ENOTDIR", "rmdir", path)
            if mount.backend.list(rel):
                raise FsError.of("ENOTEMPTY", "rmdir", path)
            mount.check_writable("rmdir", path)
            mount.backend.remove(rel)
        return None

    async def unlink(self, path: str) -> Any:
        place = self.resolver.locate_entry(path, "unlink")
        if place.mount is None:
            return ON_DISK
        mount, rel = place.mount, place.rel
        mount.check_active("unlink", path)
        with translated("unlink", path):
            if mount.backend.stat(rel).kind == DIRECTORY:
                raise FsError.of("EISDIR", "unlink", path)
            if place.must_be_dir:
                raise FsError.of("ENOTDIR", "unlink", path)
            mount.check_writable("unlink", path)
            mount.backend.remove(rel)
        return None

    async def rename(self, old: str, new: str) -> Any:
        src = self.resolver.locate_entry(old, "rename")
        dst = self.resolver.locate_entry(new, "rename")
        if src.mount is None and dst.mount is None:
            self._check_not_busy(old, "rename", old, new)
            self._check_not_busy(new, "rename", old, new)
            return ON_DISK
        if src.mount is not dst.mount:
            try:
                self.resolver.lookup(old, "lstat", follow=False)
            except FsError as error:
                again = FsError.of(error.code, "rename", old, new)
                raise again.with_hint(error.hint) if error.hint else again from None
            raise FsError.of("EXDEV", "rename", old, new)
        assert src.mount is not None
        src.mount.check_active("rename", old)
        with translated("rename", old, new):
            self._rename_within(src.mount, src, dst, old, new)
        return None

    def _rename_within(self, mount: Mount, src: Place, dst: Place, old: str, new: str) -> None:
        """``Namespace._rename``'s checks in its order, then one move (the old entry at ``new``, an
        empty directory, goes first: a folder cannot move onto a directory)."""
        require_parent(mount, src.rel)
        require_parent(mount, dst.rel)
        entry = mount.backend.stat(src.rel)
        if entry.kind != DIRECTORY and (src.must_be_dir or dst.must_be_dir):
            raise FsError.of("ENOTDIR", "rename", old, new)
        if src.rel != dst.rel:
            if dst.rel[:len(src.rel)] == src.rel:
                raise FsError.of("EINVAL", "rename", old, new)
            if src.rel[:len(dst.rel)] == dst.rel:
                raise FsError.of("ENOTEMPTY", "rename", old, new)
        existing = stat_or_none(mount, dst.rel)
        if existing is not None:
            if src.rel == dst.rel:
                return
            if mount.backend.same_entry(src.rel, dst.rel):
                self._rename_same_entry(mount, src.rel, dst.rel, old)
                return
            self._check_replace(mount, entry, existing, dst.rel, old, new)
        mount.check_writable("rename", old)
        if existing is not None and existing.kind == DIRECTORY:
            mount.backend.remove(dst.rel)
        mount.backend.move(src.rel, dst.rel)

    @staticmethod
    def _rename_same_entry(mount: Mount, src: Rel, dst: Rel, old: str) -> None:
        """Two names of one entry: on a case-insensitive host ``a`` and ``A`` (removing the
        "existing" ``A`` would remove ``a`` itself), elsewhere two hard links. Names that differ
        only in case are renamed through a free temporary name, so that the host takes the new
        spelling; hard links are left as they are, as POSIX rename(2) does."""
        mount.check_writable("rename", old)
        if src[-1].casefold() != dst[-1].casefold():
            return
        temp = (*src[:-1], f".pyvfs-rename-{secrets.token_hex(8)}")
        mount.backend.move(src, temp)
        mount.backend.move(temp, dst)

    @staticmethod
    def _check_replace(mount: Mount, entry: Entry, existing: Entry, rel: Rel, old: str,
                       new: str) -> None:
        if existing.kind == DIRECTORY and entry.kind != DIRECTORY:
            raise FsError.of("EISDIR", "rename", old, new)
        if entry.kind == DIRECTORY and existing.kind != DIRECTORY:
            raise FsError.of("ENOTDIR", "rename", old, new)
        if existing.kind == DIRECTORY and mount.backend.list(rel):
            raise FsError.of("ENOTEMPTY", "rename", old, new)

    def _check_not_busy(self, path: str, syscall: str, *shown: str) -> None:
        """EBUSY (naming ``shown``, else ``path``) when the disk entry ``path`` names is a mount
        point or holds one: removing or replacing it would drop a folder out of the tree, or
        (``rm -r``) delete inside it."""
        try:
            parent, parent_path, name = self.resolver.lookup_parent(path, syscall)
        except FsError:
            return  # the disk's own code reports it
        node = self.index.child(parent, name)
        if node is not None and node.is_dir and self.table.within(paths.child(parent_path, name)):
            raise FsError.of("EBUSY", syscall, *(shown or (path,)))

    # ------------------------------------------------------------------- copies

    async def copy_file(self, src: str, dst: str) -> Any:
        if (self.resolver.locate(src, "copyfile").mount is None
                and self.resolver.locate(dst, "copyfile", create=True).mount is None):
            return ON_DISK
        await self.copier.copy_file(src, dst)
        return None

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> Any:
        if not self._cp_needs_copier(src, dst):
            return ON_DISK
        await self.copier.cp(src, dst, recursive=recursive)
        return None

    def _cp_needs_copier(self, src: str, dst: str) -> bool:
        """The disk's ``cp`` copies nodes of the index; a tree that reaches into a mount (at
        either end, or below either end) needs copying by content."""
        if self.resolver.locate(src, "cp", follow=False).mount is not None:
            return True
        if self.resolver.locate(dst, "cp", create=True).mount is not None:
            return True
        for path, follow in ((src, False), (dst, True)):
            try:
                _, canonical = self.resolver.lookup(path, "cp", follow=follow)
            except FsError:
                continue
            if self.table.within(canonical):
                return True
        return False

    # -------------------------------------------------------------------- links

    async def symlink(self, target: str, path: str) -> Any:
        place = self.resolver.locate_entry(path, "symlink")
        if place.mount is None or "\0" in target or paths.too_long(target):
            return ON_DISK  # the disk code reports a bad target first
        mount, rel = place.mount, place.rel
        mount.check_active("symlink", path)
        if not target:
            raise FsError.of("ENOENT", "symlink", target, path)
        with translated("symlink", target, path):
            require_parent(mount, rel)
            if stat_or_none(mount, rel) is not None:
                raise FsError.of("EEXIST", "symlink", target, path)
        if place.must_be_dir:
            raise FsError.of("ENOENT", "symlink", target, path)
        raise FsError.of("EPERM", "symlink", target, path).with_hint(
            "a mounted folder cannot hold symbolic links")

    # ----------------------------------------------------------------- metadata

    async def chmod(self, path: str, mode: int) -> Any:
        """A folder keeps no permission bits: the mode is checked and dropped."""
        check_mode(mode, "chmod", path)
        if self.resolver.locate(path, "chmod").mount is None:
            return ON_DISK
        mount, _, _ = self._existing(path, "chmod")
        mount.check_writable("chmod", path)
        return None

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> Any:
        atime_ms = check_time(atime_ms, "utime", path)
        mtime_ms = check_time(mtime_ms, "utime", path)
        if self.resolver.locate(path, "utime").mount is None:
            return ON_DISK
        mount, rel, _ = self._existing(path, "utime")
        mount.check_writable("utime", path)
        with translated("utime", path):
            mount.backend.set_times(rel, float(atime_ms), float(mtime_ms))
        return None

    async def touch(self, path: str) -> Any:
        place = self.resolver.locate(path, "utime", create=True)
        if place.mount is None:
            return ON_DISK
        mount, rel = place.mount, place.rel
        mount.check_active("utime", path)
        with translated("utime", path):
            entry = stat_or_none(mount, rel) if rel else Entry("", DIRECTORY)
            if entry is not None and (entry.kind == DIRECTORY or not place.must_be_dir):
                mount.check_writable("utime", path)
                mount.backend.touch(rel)
                return None
        with translated("open", path):
            require_parent(mount, rel)
        if place.must_be_dir:
            raise FsError.of("EISDIR", "open", path)
        mount.check_writable("open", path)
        with translated("open", path):
            mount.backend.open_writer(rel).close()
        return None

    def _existing(self, path: str, syscall: str) -> tuple[Mount, Rel, Node]:
        """The mounted entry ``path`` leads to (links followed), looked up as the disk looks up
        its own: ENOENT, ENOTDIR for a trailing slash on a file, EACCES while waiting."""
        node, _ = self.resolver.lookup(path, syscall)
        mount, rel = self.table.of(node)
        return mount, rel, node


__all__ = ["DISK", "ON_DISK", "MountOps", "routed"]
