"""Copies that reach into a mount: by content, through the public API, so every call is routed.

The disk's own ``copy_file`` and ``cp`` share chunks between index nodes; a mounted folder has
neither, so a copy into, out of or inside a mount streams the bytes (about one chunk in memory)
and walks trees name by name. The checks are those of ``VFS.copy_file`` and ``VFS.cp``, with
the same codes; unlike the disk's, a copy of a tree is not atomic (the folder has no
transactions), and a symlink cannot land in a folder (EPERM). A dry run of the whole tree comes
first, so that a conflict the checks can foresee (a file onto a directory, a link into a
folder) changes nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable
from typing import Protocol

from . import paths
from .errors import FsError
from .node import DirEntry, Stat
from .resolver import Resolver
from .streams import WriteStream, write_all


class CopyHost(Protocol):
    """The public operations a copy by content goes through (the VFS facade), so that each
    of its steps is routed to the disk or the folder it touches."""

    def stat(self, path: str) -> Stat:
        """``VFS.stat``."""

    def lstat(self, path: str) -> Stat:
        """``VFS.lstat``."""

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """``VFS.readdir``."""

    def open_read(self, path: str, start: int = 0,
                  end: int | None = None) -> AsyncIterable[bytes]:
        """``VFS.open_read``."""

    def stream_writer(self, path: str, *, mode: int | None = None) -> WriteStream:
        """``VFS.stream_writer``."""

    def unlink(self, path: str) -> Awaitable[None]:
        """``VFS.unlink``."""

    def symlink(self, target: str, path: str) -> Awaitable[None]:
        """``VFS.symlink``."""

    def mkdir(self, path: str, *, recursive: bool = False,
              mode: int | None = None) -> Awaitable[None]:
        """``VFS.mkdir``."""


class Copier:
    """``copy_file`` and ``cp`` by content, for copies that reach into a mount."""

    def __init__(self, vfs: CopyHost, resolver: Resolver) -> None:
        self.vfs = vfs
        self.resolver = resolver

    def _stat(self, path: str, syscall: str, *, follow: bool) -> Stat:
        try:
            return self.vfs.stat(path) if follow else self.vfs.lstat(path)
        except FsError as error:
            again = FsError.of(error.code, syscall, path)
            raise (again.with_hint(error.hint) if error.hint else again) from None

    def _lstat_or_none(self, path: str) -> Stat | None:
        try:
            return self._stat(path, "cp", follow=False)
        except FileNotFoundError:
            return None

    async def copy_file(self, src: str, dst: str, *, dry: bool = False) -> None:
        """``VFS.copy_file``: both ends follow links, no parents are created, a new file takes
        the source's mode, a file copied onto itself stays as it is."""
        source = self._stat(src, "copyfile", follow=True)
        if source.is_dir:
            raise FsError.of("EISDIR", "copyfile", src, dst)
        found = self.resolver.resolve(dst, "copyfile", create=True)
        if found.node is not None:
            if found.node.is_dir:
                raise FsError.of("EISDIR", "copyfile", dst)
            if found.path == source.path:
                return
        if dry:
            return
        mode = source.mode if found.node is None else None
        await write_all(self.vfs.stream_writer(found.path, mode=mode),
                        self.vfs.open_read(source.path))

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """``VFS.cp``: ``src`` to exactly ``dst``, links as links, directories merged."""
        source = self._stat(src, "cp", follow=False)
        if source.is_dir:
            if not recursive:
                raise FsError.of("EISDIR", "cp", src, dst)
            if paths.is_within(self.resolver.destination(dst, "cp"), source.path):
                raise FsError.of("EINVAL", "cp", src, dst)
        if source.is_dir:
            await self._check_tree(source, dst, fresh=False)
        await self._copy_tree(src, source, dst)

    async def _check_tree(self, source: Stat, dst: str, *, fresh: bool) -> None:
        """The dry run: every check the copy will make, nothing changed. Below a directory
        that does not exist yet (``fresh``) only a link into a folder can fail. An explicit
        stack, not recursion: a tree may be deeper than Python's recursion limit."""
        pending = [(source, dst, fresh)]
        while pending:
            source, dst, fresh = pending.pop()
            if source.is_symlink:
                existing = None if fresh else self._lstat_or_none(dst)
                if existing is not None and existing.is_dir:
                    raise FsError.of("EISDIR", "cp", dst)
                if existing is None or existing.path != source.path:
                    self._refuse_link_into_mount(dst)
            elif not source.is_dir:
                if not fresh:
                    await self.copy_file(source.path, dst, dry=True)
            else:
                existing = None if fresh else self._lstat_or_none(dst)
                if existing is not None and not existing.is_dir:
                    raise FsError.of("ENOTDIR", "cp", dst)
                dst_path = paths.normalize(dst, "cp")
                for name in reversed(self.vfs.readdir(source.path)):
                    child = paths.child(source.path, str(name))
                    pending.append((self._stat(child, "cp", follow=False),
                                    paths.child(dst_path, str(name)), existing is None))

    def _refuse_link_into_mount(self, dst: str) -> None:
        if self.resolver.locate_entry(dst, "cp").mount is not None:
            raise FsError.of("EPERM", "cp", dst).with_hint(
                "a mounted folder cannot hold symbolic links")

    async def _copy_tree(self, src: str, source: Stat, dst: str) -> None:
        """Copy depth first, each directory before its entries (an explicit stack)."""
        pending = [(src, source, dst)]
        while pending:
            src, source, dst = pending.pop()
            if source.is_symlink:
                await self._copy_link(source, dst)
            elif not source.is_dir:
                await self.copy_file(src, dst)
            else:
                await self._copy_dir(source, dst)
                dst_path = paths.normalize(dst, "cp")
                for name in reversed(self.vfs.readdir(source.path)):
                    child = paths.child(source.path, str(name))
                    pending.append((child, self._stat(child, "cp", follow=False),
                                    paths.child(dst_path, str(name))))

    async def _copy_link(self, source: Stat, dst: str) -> None:
        existing = self._lstat_or_none(dst)
        if existing is not None:
            if existing.is_dir:
                raise FsError.of("EISDIR", "cp", dst)
            if existing.path == source.path:
                return
        self._refuse_link_into_mount(dst)
        if existing is not None:
            await self.vfs.unlink(dst)
        await self.vfs.symlink(source.target or "", dst)

    async def _copy_dir(self, source: Stat, dst: str) -> None:
        existing = self._lstat_or_none(dst)
        if existing is None:
            await self.vfs.mkdir(dst, mode=source.mode)
        elif not existing.is_dir:
            raise FsError.of("ENOTDIR", "cp", dst)
