"""Copies on the disk: ``copy_file`` and ``cp``, sharing chunks instead of copying bytes.

A copy that reaches into a mounted folder is routed to ``mount_ops.py`` (copies by content).
"""

from __future__ import annotations

from dataclasses import replace

from . import paths
from .content import Body
from .disk import SYMLINK_MODE, Disk, new_id, now
from .engine import CommitEngine
from .errors import FsError
from .mount_ops import MountOps, routed
from .mounts.table import MountTable
from .node import DIRECTORY, FILE, SYMLINK, Node
from .resolver import Resolver
from .transaction import Transaction


class Copies:
    """``copy_file`` and ``cp`` of the VFS."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Disk,
                 table: MountTable, mounted: MountOps) -> None:
        self.engine = engine
        self.resolver = resolver
        self.disk = disk
        self.index = disk.index
        self.table = table  # read by ``routed``
        self.mounted = mounted

    @routed
    async def copy_file(self, src: str, dst: str) -> None:
        """``fs.copyFile``: both ends follow links, no parents are created."""
        def change(tx: Transaction) -> None:
            node, _ = self.resolver.lookup(src, "copyfile")
            if node.is_dir:
                raise FsError.of("EISDIR", "copyfile", src, dst)
            self._copy_content(node, dst, tx)

        await self.engine.run(change)

    def _copy_content(self, node: Node, dst: str, tx: Transaction) -> None:
        """Copy a file's content to ``dst`` (followed like a write). Copies share chunks (an
        inline file's bytes go along in the record): only the new node record is written. A
        new file takes the source's mode, an existing one keeps its own, and a file copied onto
        itself stays as it is (libuv's copyfile, under Node's ``fs.copyFile``, does the same)."""
        parent, name, existing = self.resolver.write_target(dst, "copyfile")
        stamp = now()
        if existing is None:
            copy = Node(new_id(), parent.id, name, FILE, node.mode, stamp, stamp, stamp,
                        size=node.size, chunks=node.chunks, inline=node.inline)
            self.index.put(copy, tx)
            self.disk.touch_dir(self.index.get(parent.id), tx, stamp)
        elif existing.is_dir:
            raise FsError.of("EISDIR", "copyfile", dst)
        elif existing.id != node.id:
            self.index.put(replace(existing, size=node.size, chunks=node.chunks,
                                   inline=node.inline, mtime_ms=stamp, ctime_ms=stamp), tx)

    @routed
    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """Copy ``src`` to exactly ``dst``: symlinks stay links, directories need ``recursive``
        and merge into an existing directory, as Node's ``fs.cp`` does. A directory may not go
        into itself, wherever the links in ``dst`` lead."""
        def change(tx: Transaction) -> None:
            node, src_path = self.resolver.lookup(src, "cp", follow=False)
            if node.is_dir:
                if not recursive:
                    raise FsError.of("EISDIR", "cp", src, dst)
                if paths.is_within(self.resolver.destination(dst, "cp"), src_path):
                    raise FsError.of("EINVAL", "cp", src, dst)
            self._copy_tree(node, dst, tx)

        await self.engine.run(change)

    def _copy_tree(self, node: Node, dst: str, tx: Transaction) -> None:
        """Copy ``node``, and everything below a directory, to ``dst``, depth first. Below the
        top, each entry is looked up in the directory of the copy that receives it: a missing
        one is created there, a directory merges into an existing directory, and only a file or
        link that lands on an existing entry goes by path (a write follows a link there). So a
        tree of any depth copies, unless such a replacement lies beyond PATH_MAX
        (ENAMETOOLONG). An explicit stack, not recursion: a tree may be deeper than Python's
        recursion limit."""
        # (what to copy, its destination path, the directory of the copy that receives it)
        pending: list[tuple[Node, str, Node | None]] = [(node, dst, None)]
        while pending:
            source, target, into = pending.pop()
            existing = self.index.child(into, source.name) if into is not None else None
            if into is not None and existing is None:
                directory = self._copy_fresh(source, into, tx)
            elif source.is_dir:
                directory = self._copy_dir(source, target, existing, tx)
            elif source.is_link:
                self._copy_link(source, target, tx)
                continue
            else:
                self._copy_content(source, target, tx)
                continue
            if not source.is_dir:
                continue
            base = paths.normalize(target, "cp") if into is None else target
            for child in reversed(self.index.entries(source)):
                pending.append((child, paths.child(base, child.name), directory))

    def _copy_fresh(self, node: Node, parent: Node, tx: Transaction) -> Node:
        """A copy of ``node`` (its entries not included) under the name it has, in ``parent``,
        where nothing has that name: links stay links, files share chunks or inline bytes."""
        if node.is_dir:
            return self.disk.create(parent, node.name, DIRECTORY, node.mode, tx)
        if node.is_link:
            return self.disk.create(parent, node.name, SYMLINK, SYMLINK_MODE, tx,
                                    target=node.target)
        return self.disk.create(parent, node.name, FILE, node.mode, tx,
                                body=Body(node.chunks, node.inline), size=node.size)

    def _existing(self, path: str, syscall: str) -> Node | None:
        """The entry at ``path`` (a final link not followed, unless by a trailing slash)."""
        try:
            node, _ = self.resolver.lookup(path, syscall, follow=False)
        except FileNotFoundError:
            return None
        return node

    def _copy_link(self, node: Node, dst: str, tx: Transaction) -> None:
        """A link replaces any non-directory at ``dst``; a link copied onto itself stays."""
        existing = self._existing(dst, "cp")
        if existing is not None:
            if existing.is_dir:
                raise FsError.of("EISDIR", "cp", dst)
            if existing.id == node.id:
                return
            self.index.remove(existing, tx)
        self.disk.make_link(node.target or "", dst, "cp", tx)

    def _copy_dir(self, node: Node, dst: str, existing: Node | None, tx: Transaction) -> Node:
        """The directory a copy of ``node`` fills: ``existing`` (the entry already there, found
        by the caller below the top), else the one at ``dst``, else a new one."""
        target = existing if existing is not None else self._existing(dst, "cp")
        if target is None:
            return self.disk.make_dir(dst, "cp", node.mode, tx)
        if not target.is_dir:
            raise FsError.of("ENOTDIR", "cp", dst)
        return target
