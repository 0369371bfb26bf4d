"""The in-memory index of every node: lookups by id and by (directory, name).

Every change goes through ``put`` and ``remove`` with a ``Transaction``, which records the storage
write and the undo step, and keeps content reference counts in step with the nodes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.node import DIRECTORY, ROOT_ID, Node
from ..storage.transaction import Transaction
from .content import Content


class Index:
    """Every node of the disk in memory, by id and by (directory, name), with an undo log per
    transaction."""

    def __init__(self, content: Content) -> None:
        self.content = content
        self.nodes: dict[str, Node] = {}
        self.children: dict[str, dict[str, str]] = {}
        # Called on every change, whatever its cause (a mutation, its rollback, another tab's
        # commit): the page's stat cache must drop what it holds (py_vfs/web/page_cache.py).
        self.on_change: Callable[[], None] | None = None
        # Mount points recorded on the disk (node id -> folder name), whoever made them, and
        # who follows them (the mount table): called after any change of this map, whatever its
        # cause, so a tab learns of another tab's mount and unmount with its commit.
        self.marks: dict[str, str] = {}
        self.on_marks: Callable[[], None] | None = None
        self._marks_moved = False
        # Directory paths the resolver walked, names joined by "/" without the leading one
        # (``a/b``), to the directory's id, for its next walks (py_vfs/fs/resolver.py): valid
        # while no directory moves, which is when they are all forgotten (a move, a rollback,
        # another tab's commit). A new name never changes what an existing path leads to, and
        # a directory removed is no longer in ``nodes``, where the walk looks its id up.
        self.dir_ids: dict[str, str] = {}

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
        self._follow_marks()

    def _follow_marks(self) -> None:
        if self._marks_moved:
            self._marks_moved = False
            if self.on_marks is not None:
                self.on_marks()

    def load(self, nodes: list[Node]) -> None:
        """Boot: take committed nodes as they are (no transaction, no storage writes)."""
        self.dir_ids.clear()
        for node in nodes:
            self.nodes[node.id] = node
            if node.mount is not None:
                self.marks[node.id] = node.mount
                self._marks_moved = True
            if node.is_dir:
                self.children.setdefault(node.id, {})
            self.content.count(node.chunks)
        for node in nodes:
            if node.parent is not None:
                self.children.setdefault(node.parent, {})[node.name] = node.id
        self._follow_marks()

    def reset(self, nodes: list[Node]) -> None:
        """Forget everything and load ``nodes`` (a tab that fell too far behind reloads)."""
        self.nodes.clear()
        self.children.clear()
        self._marks_moved = bool(self.marks)
        self.marks.clear()
        self.content.refs.clear()
        self.load(nodes)
        self._changed()

    @property
    def root(self) -> Node:
        """The root directory."""
        return self.nodes[ROOT_ID]

    def get(self, node_id: str) -> Node:
        """The node with ``node_id`` (KeyError when there is none)."""
        return self.nodes[node_id]

    def child(self, directory: Node, name: str) -> Node | None:
        """The entry ``name`` of ``directory``, or None."""
        node_id = self.children.get(directory.id, {}).get(name)
        return None if node_id is None else self.nodes[node_id]

    def names(self, directory: Node) -> list[str]:
        """The names in ``directory``, sorted."""
        return sorted(self.children.get(directory.id, {}))

    def entries(self, directory: Node) -> list[Node]:
        """The entries of ``directory``, sorted by name."""
        kids = self.children.get(directory.id, {})
        return [self.nodes[kids[name]] for name in sorted(kids)]

    def is_empty(self, directory: Node) -> bool:
        """Whether ``directory`` has no entries."""
        return not self.children.get(directory.id)

    def holds_mark(self, node: Node) -> bool:
        """True when ``node`` is a recorded mount point or a directory above one: removing or
        moving it would take a mounted folder out of the tree (EBUSY), in any tab."""
        for node_id in self.marks:
            current: Node | None = self.nodes.get(node_id)
            while current is not None:
                if current.id == node.id:
                    return True
                current = self.nodes.get(current.parent) if current.parent is not None else None
        return False

    def put(self, node: Node, tx: Transaction) -> Node:
        """Insert or replace ``node`` (a move is a put with a new parent or name), stamped with
        the transaction's writer."""
        if tx.writer is not None and node.writer != tx.writer:
            node = node.changed(writer=tx.writer)
        old = self.nodes.get(node.id)
        if old is not None:
            if old.kind == DIRECTORY and (old.parent != node.parent or old.name != node.name
                                          or node.kind != DIRECTORY):
                self.dir_ids.clear()  # a directory moved: the paths through it lead elsewhere
            self._unlink(old)
            if old.chunks != node.chunks:
                self.content.unref(old.chunks, tx, old.size)
        if old is None or old.chunks != node.chunks:
            self.content.ref(node.chunks, tx)
        self._link(node)
        self._changed()
        tx.put_node(node)
        tx.track(old, node)
        tx.on_rollback(lambda: self._restore(node, old))
        return node

    def remove(self, node: Node, tx: Transaction) -> None:
        """Delete ``node`` (undone with ``tx``); its chunks lose a reference."""
        self._unlink(node)
        self._changed()
        self.content.unref(node.chunks, tx, node.size)
        tx.delete_node(node.id)
        tx.track(node, None)
        tx.on_rollback(lambda: self._restore(None, node))

    def apply(self, puts: list[Node], deletes: list[str]) -> None:
        """Take changes another tab (or process) already committed: no transaction, no storage
        writes; content reference counts follow the nodes."""
        self.dir_ids.clear()
        for node_id in deletes:
            old = self.nodes.get(node_id)
            if old is not None:
                self._unlink(old)
                self.content.forget(old.chunks)
        for node in puts:
            old = self.nodes.get(node.id)
            if old is not None:
                self._unlink(old)
                self.content.forget(old.chunks)
            self.content.count(node.chunks)
            if node.parent is not None:
                self.children.setdefault(node.parent, {})
            self._link(node)
        for node_id in deletes:  # a directory removed with its entries leaves no empty map
            if node_id not in self.nodes and not self.children.get(node_id):
                self.children.pop(node_id, None)
        self._changed()

    def _link(self, node: Node) -> None:
        self.nodes[node.id] = node
        if node.mount is not None:
            self.marks[node.id] = node.mount
            self._marks_moved = True
        if node.kind == DIRECTORY:
            self.children.setdefault(node.id, {})
        if node.parent is not None:
            self.children[node.parent][node.name] = node.id

    def _unlink(self, node: Node) -> None:
        self.nodes.pop(node.id, None)
        if self.marks.pop(node.id, None) is not None:
            self._marks_moved = True
        if node.parent is not None:
            siblings = self.children.get(node.parent, {})
            if siblings.get(node.name) == node.id:
                del siblings[node.name]
        if node.kind == DIRECTORY and not self.children.get(node.id):
            self.children.pop(node.id, None)

    def _restore(self, current: Node | None, previous: Node | None) -> None:
        self.dir_ids.clear()
        if current is not None:
            self._unlink(current)
        if previous is not None:
            self._link(previous)
        self._changed()
