"""Copies on the disk: ``copy_file`` and ``cp``, sharing chunks instead of copying bytes.

Every decision (what a source may be, what it does at its destination) is the rules' own
(``rules.check_copy_file``, ``rules.check_cp``, ``rules.copy_action``), shared with the copies
by content; this module keeps the walk and the change: index nodes, in one transaction. A copy
that reaches into a mounted folder is made by content instead (``mount_copies.py``).
"""

from __future__ import annotations

from ..core import paths
from ..core.cancel import check
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, SYMLINK, Node
from ..disk.clock import now
from ..disk.content import Body
from ..disk.engine import CommitEngine
from ..disk.scope import require_readable
from ..mounts.table import MountTable
from ..storage.transaction import Transaction
from . import rules
from .disk_side import SYMLINK_MODE, Nodes, new_id
from .mount_copies import Copier
from .resolver import Resolver
from .sides import Concern


class Copies(Concern):
    """``copy_file`` and ``cp`` of the VFS."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Nodes,
                 table: MountTable, copier: Copier) -> None:
        super().__init__(engine, resolver, disk, table)
        self.copier = copier

    def _by_content(self, src: str, dst: str, syscall: str, *, tree: bool) -> bool:
        """Whether a copy reaches into a mounted folder, so that it copies by content
        (``mount_copies.py``): at either end (the source as the copy reads it: a file's links
        followed, a tree's not), or for a ``tree`` below either end."""
        if not self.table:
            return False
        if self.resolver.locate(src, syscall, follow=not tree).mount is not None \
                or self.resolver.locate(dst, syscall, create=True).mount is not None:
            return True
        for path, follow in ((src, False), (dst, True)) if tree else ():
            try:
                _, canonical = self.resolver.lookup(path, syscall, follow=follow)
            except FsError:
                continue
            if self.table.within(canonical):
                return True
        return False

    async def copy_file(self, src: str, dst: str) -> None:
        """``fs.copyFile``: both ends follow links, no parents are created."""
        if self._by_content(src, dst, "copyfile", tree=False):
            await self.copier.copy_file(src, dst)
            return

        def change(tx: Transaction) -> None:
            node, _ = self.resolver.lookup(src, "copyfile")
            rules.check_copy_file(node.kind, src, dst)
            self._copy_content(node, dst, tx)

        await self.engine.run(change, "copyFile")

    def _copy_content(self, node: Node, dst: str, tx: Transaction) -> None:
        """Copy a file's content to ``dst`` (followed like a write), as ``rules.copy_action``
        decides. Copies share chunks (an inline file's bytes go along in the record): only the
        new node record is written."""
        parent, name, existing = self.resolver.write_target(dst, "copyfile")
        action = rules.copy_action(node.kind, _kind(existing), dst,
                                   same=existing is not None and existing.id == node.id)
        stamp = now()
        if action == rules.CREATE:
            copy = Node(new_id(), parent.id, name, FILE, node.mode, stamp, stamp, stamp,
                        size=node.size, chunks=node.chunks, inline=node.inline)
            self.index.put(copy, tx)
            self.disk.touch_dir(self.index.get(parent.id), tx, stamp)
        elif action == rules.REPLACE and existing is not None:
            self.index.put(existing.changed(size=node.size, chunks=node.chunks, inline=node.inline,
                                            mtime_ms=stamp, ctime_ms=stamp), tx)

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """Copy ``src`` to exactly ``dst``: symlinks stay links, directories need ``recursive``
        and merge into an existing directory, as Node's ``fs.cp`` does. A directory may not go
        into itself, wherever the links in ``dst`` lead."""
        if self._by_content(src, dst, "cp", tree=True):
            await self.copier.cp(src, dst, recursive=recursive)
            return

        def change(tx: Transaction) -> None:
            node, src_path = self.resolver.lookup(src, "cp", follow=False)
            require_readable(src_path, src, "cp")
            rules.check_cp(node.kind, src_path, src, dst, recursive=recursive,
                           destination=lambda: self.resolver.destination(dst, "cp"))
            self._copy_tree(node, dst, tx)
            check("cp")  # the safe point: a cancelled copy is dropped before its commit

        await self.engine.run(change, "cp")

    def _copy_tree(self, node: Node, dst: str, tx: Transaction) -> None:
        """Copy ``node``, and everything below a directory, to ``dst``, depth first. An
        explicit stack, not recursion: a tree may be deeper than Python's recursion limit."""
        # (what to copy, its destination path, the directory of the copy that receives it)
        pending: list[tuple[Node, str, Node | None]] = [(node, dst, None)]
        while pending:
            source, target, into = pending.pop()
            directory = self._copy_entry(source, target, into, tx)
            if directory is None:
                continue
            base = paths.normalize(target, "cp") if into is None else target
            for child in reversed(self.index.entries(source)):
                pending.append((child, paths.child(base, child.name), directory))

    def _copy_entry(self, source: Node, target: str, into: Node | None,
                    tx: Transaction) -> Node | None:
        """Copy one entry to ``target`` as ``rules.copy_action`` decides; for a directory,
        the one that receives its entries (None for a file or link). Below the top, the entry
        is looked up in ``into``, the directory of the copy that receives it: a missing one is
        created there and a directory merges into an existing one by node; only a file or link
        that lands on an existing entry goes by path (a write follows a link there). So a tree
        of any depth copies, unless such a replacement lies beyond PATH_MAX (ENAMETOOLONG)."""
        found = self.index.child(into, source.name) if into is not None else None
        by_path = into is None or (found is not None and not source.is_dir)
        if by_path and source.kind == FILE:
            self._copy_content(source, target, tx)
            return None
        existing = self._existing(target) if by_path else found
        action = rules.copy_action(source.kind, _kind(existing), target,
                                   same=existing is not None and existing.id == source.id)
        if action == rules.MERGE:
            return existing
        if action == rules.SKIP:
            return None
        if action == rules.REPLACE and existing is not None:
            self.index.remove(existing, tx)
        if into is not None and found is None:
            made = self._copy_fresh(source, into, tx)
            return made if source.is_dir else None
        if source.is_dir:
            return self.disk.make_dir(target, "cp", source.mode, tx)
        self.disk.make_link(source.target or "", target, "cp", tx)
        return None

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

    def _existing(self, path: str) -> Node | None:
        """The entry at ``path`` (a final link not followed, unless by a trailing slash)."""
        try:
            node, _ = self.resolver.lookup(path, "cp", follow=False)
        except FileNotFoundError:
            return None
        return node


def _kind(node: Node | None) -> str | None:
    """What ``rules.copy_action`` is told of an entry: its kind, or None when missing."""
    return None if node is None else node.kind

