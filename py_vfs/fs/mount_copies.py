"""Copies that reach into a mount: by content, through the public API, so every call finds its side.

The disk's own ``copy_file`` and ``cp`` share chunks between index nodes; a mounted folder has
neither, so a copy into, out of or inside a mount streams the bytes (about one chunk in memory)
and walks trees name by name. Every decision is the disk's, asked of the same functions of
``rules.py`` (``check_copy_file``, ``check_cp``, ``copy_action``), so the codes and their order
are one; what differs: a copy of a tree is not atomic (the folder has no transactions), and a
symlink cannot land in a folder (EPERM, the rules' ``holds_links``). A dry run of the whole tree
comes first, asking the same decisions, so that a conflict they can foresee (a file onto a
directory, a link into a folder) changes nothing.
"""

from __future__ import annotations

from ..core import paths
from ..core.errors import FsError
from ..core.node import FILE, Stat
from ..disk.scope import require_readable
from ..disk.streams import write_all
from . import rules
from .forwarding import protocol
from .resolver import Resolver

CopyHost = protocol(
    "CopyHost", ("stat", "lstat", "readdir", "open_read", "stream_writer", "unlink", "symlink",
                 "mkdir"),
    """The public operations a copy by content goes through (the VFS facade), so that each
    of its steps runs on the side (the disk or the folder) it touches.""", __name__)


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
        """``VFS.copy_file``: both ends follow links, no parents are created, as
        ``rules.copy_action`` decides (``dry``: decide only)."""
        source = self._stat(src, "copyfile", follow=True)
        rules.check_copy_file(source.type, src, dst)
        found = self.resolver.resolve(dst, "copyfile", create=True)
        existing = None if found.node is None else found.node.kind
        action = rules.copy_action(FILE, existing, dst,
                                   same=existing is not None and found.path == source.path)
        if dry or action == rules.SKIP:
            return
        mode = source.mode if action == rules.CREATE else None
        await write_all(self.vfs.stream_writer(found.path, mode=mode),
                        self.vfs.open_read(source.path))

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """``VFS.cp``: ``src`` to exactly ``dst``, links as links, directories merged."""
        source = self._stat(src, "cp", follow=False)
        require_readable(source.path, src, "cp")
        rules.check_cp(source.type, source.path, src, dst, recursive=recursive,
                       destination=lambda: self.resolver.destination(dst, "cp"))
        if source.is_dir:
            await self._check_tree(source, dst, fresh=False)
        await self._copy_tree(src, source, dst)

    def _action(self, source: Stat, existing: Stat | None, dst: str) -> str:
        """``rules.copy_action`` for a link or a directory ``source`` at ``dst``, where
        ``existing`` is (a final link not followed); a mounted folder holds no links."""
        return rules.copy_action(
            source.type, None if existing is None else existing.type, dst,
            same=existing is not None and existing.path == source.path,
            holds_links=lambda: self.resolver.locate_entry(dst, "cp").mount is None)

    async def _check_tree(self, source: Stat, dst: str, *, fresh: bool) -> None:
        """The dry run: every decision the copy will ask, nothing changed. Below a directory
        that does not exist yet (``fresh``) nothing is looked up at the destination, so only a
        link into a folder can fail. An explicit stack, not recursion: a tree may be deeper than
        Python's recursion limit."""
        pending = [(source, dst, fresh)]
        while pending:
            source, dst, fresh = pending.pop()
            if source.is_file:
                if not fresh:
                    await self.copy_file(source.path, dst, dry=True)
                continue
            action = self._action(source, None if fresh else self._lstat_or_none(dst), dst)
            if source.is_dir:
                dst_path = paths.normalize(dst, "cp")
                for name in reversed(self.vfs.readdir(source.path)):
                    child = paths.child(source.path, str(name))
                    pending.append((self._stat(child, "cp", follow=False),
                                    paths.child(dst_path, str(name)), action == rules.CREATE))

    async def _copy_tree(self, src: str, source: Stat, dst: str) -> None:
        """Copy depth first, each directory before its entries (an explicit stack)."""
        pending = [(src, source, dst)]
        while pending:
            src, source, dst = pending.pop()
            if source.is_file:
                await self.copy_file(src, dst)
                continue
            action = self._action(source, self._lstat_or_none(dst), dst)
            if source.is_symlink:
                if action == rules.REPLACE:
                    await self.vfs.unlink(dst)
                if action != rules.SKIP:
                    await self.vfs.symlink(source.target or "", dst)
                continue
            if action == rules.CREATE:
                await self.vfs.mkdir(dst, mode=source.mode)
            dst_path = paths.normalize(dst, "cp")
            for name in reversed(self.vfs.readdir(source.path)):
                child = paths.child(source.path, str(name))
                pending.append((child, self._stat(child, "cp", follow=False),
                                paths.child(dst_path, str(name))))
