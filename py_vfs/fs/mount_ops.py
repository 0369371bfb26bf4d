"""Content, metadata and copies under mount points, and the decorator that routes them there.

The mutating methods of ``files``, ``metadata`` and ``copies`` are decorated with ``routed``:
when any mount exists, the method of the same name here runs first. It locates the operands
without touching a backend (``Resolver.locate``); when all of them stay on the disk it answers
``ON_DISK`` and the disk code runs as if mounts did not exist. Otherwise it performs the
operation in the folder itself. (The namespace calls need no routing of this kind: their rules
are written once, ``rules.py``, and applied to a ``MountSide``; only ``mkdir -p`` is here.)

The POSIX rules of content and metadata are checked here with the same codes and in the same
order as the disk code in ``files.py`` and ``metadata.py`` (the copies, handed to
``mount_copies.py``, ask the decisions of ``rules.py`` as the disk's do), by asking the backend
first (``stat``, ``list``) and only then making the one change: the backends stay small and
both answer alike. A folder has no transactions, so a change that takes several backend calls
(``mkdir -p``, a copy of a tree) is not atomic there; every check is made before the first
change, so a refused operation changes nothing.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.errors import FsError
from ..core.node import Node
from ..disk.limits import check_length, check_mode, check_time
from ..disk.streams import as_chunk
from ..mounts.backend import DIRECTORY, Entry, Rel
from ..mounts.checks import missing_dirs, require_parent, stat_or_none
from ..mounts.streams import MountWriteStream
from ..mounts.table import DISK, Mount, MountTable, Place, translated
from .mount_copies import Copier
from .resolver import Resolver

if TYPE_CHECKING:
    from ..disk.engine import CommitEngine
    from .nodes import Disk

F = TypeVar("F", bound=Callable[..., Any])

ON_DISK: Any = object()  # "all operands are on the disk: run the disk's own code"


class Concern:
    """One concern of the VFS facade (files, namespace, metadata, copies): the commit engine,
    the resolver and the disk it works with, and what ``routed`` reads: the mount table and the
    ``MountOps`` that answers for mounted paths."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Disk,
                 table: MountTable, mounted: MountOps) -> None:
        self.engine = engine
        self.resolver = resolver
        self.disk = disk
        self.index = disk.index
        self.table = table
        self.mounted = mounted


def routed(method: F) -> F:
    """Let ``MountOps`` handle the call first whenever the VFS has mounts (with none, the
    table is empty and the disk's code runs at once)."""
    name = method.__name__
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def run_async(self: Concern, *args: Any, **kwargs: Any) -> Any:
            if self.table:
                result = await getattr(self.mounted, name)(*args, **kwargs)
                if result is not ON_DISK:
                    return result
            return await method(self, *args, **kwargs)

        return run_async  # type: ignore[return-value]

    @functools.wraps(method)
    def run(self: Concern, *args: Any, **kwargs: Any) -> Any:
        if self.table:
            result = getattr(self.mounted, name)(*args, **kwargs)
            if result is not ON_DISK:
                return result
        return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


class MountOps:
    """The mutations of ``VFS`` for operands inside mounts (same names, same arguments)."""

    def __init__(self, resolver: Resolver, table: MountTable, copier: Copier) -> None:
        self.resolver = resolver
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
        """``VFS.append_file`` inside a folder (``ON_DISK`` for a disk path)."""
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
        """``VFS.truncate`` inside a folder (``ON_DISK`` for a disk path)."""
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
        """``VFS.stream_writer`` inside a folder (``ON_DISK`` for a disk path)."""
        if mode is not None:
            check_mode(mode, "open", path)
        place = self.resolver.locate(path, "open", create=True)
        if place.mount is None:
            return ON_DISK
        return MountWriteStream(place, path)  # a folder keeps no mode

    # ---------------------------------------------------------------- namespace

    def make_dirs(self, place: Place, path: str) -> None:
        """``mkdir -p`` inside a folder: what is missing, outermost first (the one rule of the
        namespace a folder answers on its own: it has no links to follow on the way)."""
        assert place.mount is not None
        mount, rel = place.mount, place.rel
        mount.check_active("mkdir", path)
        plan = missing_dirs(mount, rel, "mkdir", path, last_exists_error="EEXIST")
        if plan:
            mount.check_writable("mkdir", path)
        with translated("mkdir", path):
            for directory in plan:
                mount.backend.mkdir(directory)

    # ------------------------------------------------------------------- copies

    async def copy_file(self, src: str, dst: str) -> Any:
        """``VFS.copy_file`` by content when either end is in a folder (else ``ON_DISK``)."""
        if (self.resolver.locate(src, "copyfile").mount is None
                and self.resolver.locate(dst, "copyfile", create=True).mount is None):
            return ON_DISK
        await self.copier.copy_file(src, dst)
        return None

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> Any:
        """``VFS.cp`` by content when the copy reaches into a folder (else ``ON_DISK``)."""
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
        """``VFS.utimes`` inside a folder (``ON_DISK`` for a disk path)."""
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
        """``VFS.touch`` inside a folder (``ON_DISK`` for a disk path)."""
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
