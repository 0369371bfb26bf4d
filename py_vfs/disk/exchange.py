"""A disk's side of a sync with another copy of it (the dock's replica, docs/dock.md).

What a sync engine needs of a disk, and nothing else: this disk's own journal entries (to send
them), its node records and chunks, a few ``meta`` records of the sync's own, and entries made
elsewhere applied here as commits of their own, each with its writer, time and operation (so
the journal, ``restore`` and time travel see them as they were made). The engine above (e.g.
``py_vfs.dock.replica``) speaks its protocol; the index, the content and the commit engine stay
this layer's.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ..core.node import ROOT_ID, Node
from ..storage import Store
from ..storage.transaction import Transaction
from .content import Content
from .engine import CommitEngine
from .index import Index

# How deep a pulled tree may nest before its depth stops being counted (a cycle is bounded).
MAX_DEPTH = 10_000

Fetch = Callable[[str], Awaitable[bytes]]
ConflictName = Callable[[str, str, int], str]


class Exchange:
    """One disk's side of a sync: read what it made, apply what others made."""

    def __init__(self, store: Store, index: Index, content: Content,
                 engine: CommitEngine) -> None:
        self.store = store
        self.index = index
        self.content = content
        self.engine = engine

    # ------------------------------------------------------------ reading

    @property
    def default_writer(self) -> str:
        """The writer this disk's own changes carry unless a call names another."""
        return self.engine.default_writer

    async def meta(self, key: str) -> str | None:
        """The ``meta`` record ``key`` as stored, or None."""
        value = await self.store.get("meta", key)
        return None if value is None else str(value)

    async def put_meta(self, key: str, text: str) -> None:
        """Store ``meta`` record ``key`` durably, outside the journal."""
        await self.store.commit([("put", "meta", key, text)])

    async def oldest_entry(self) -> int | None:
        """The revision of the oldest journal entry this disk still keeps, or None."""
        return await self.store.log_oldest()

    async def entries(self, low: int, high: int) -> list[tuple[Any, str]]:
        """This disk's journal entries from revision ``low`` to ``high``: (revision, JSON)."""
        return list(await self.store.log_entries(low, high))

    def records(self) -> dict[str, str]:
        """Every node of the disk as its stored record, by id (the whole tree)."""
        return {node_id: node.to_record() for node_id, node in self.index.nodes.items()}

    def node(self, node_id: str) -> Node | None:
        """The node ``node_id`` as this disk has it now, or None."""
        return self.index.nodes.get(node_id)

    def holds(self, key: str) -> bool:
        """Whether a node of this disk names chunk ``key``."""
        return bool(self.content.refs[key])

    async def chunk(self, key: str) -> bytes | None:
        """Chunk ``key``'s bytes if this disk has them (written or about to be), else None."""
        data = self.content.pending.get(key)
        if data is None:
            data = await self.store.get("chunks", key)
        return None if data is None else bytes(data)

    # ------------------------------------------------------------ applying

    @contextlib.asynccontextmanager
    async def applying(self) -> AsyncIterator[None]:
        """This disk's turn to commit, caught up with every other tab's commits first."""
        async with self.engine.turn(), self.engine.mutex:
            await self.engine.catch_up()
            yield

    async def apply(self, op: str, notes: dict[str, Any], changes: dict[str, Node | None], *,
                    keep: set[str], finals: dict[str, Node | None], chunks: dict[str, bytes],
                    fetch: Fetch, conflict_name: ConflictName,
                    meta: tuple[str, str] | None = None,
                    marker: tuple[str, str] | None = None) -> bool:
        """Commit ``changes`` (a node, or None: deleted) made elsewhere, as one journal entry
        of operation ``op`` with ``notes`` (writer, time...), inside ``applying()``.

        ``keep``: nodes changed here that the other side has not seen; never overwritten nor
        removed (one in the way of a pulled node moves to ``conflict_name(name, writer,
        mtime_ms)`` beside it). ``finals``: where the whole batch leaves each node; ``chunks``:
        bytes already fetched; ``fetch(key)`` brings one more. ``meta`` (key, text) is saved
        in the same commit, or alone with no journal entry when nothing else changes;
        ``marker`` (key, text) is written when nothing else changes, so that the entry is
        journaled still. Returns False when another tab committed first: nothing was applied,
        read what is kept again and call again."""
        tx = Transaction(None)
        tx.operations = [op]
        tx.notes.update(notes)
        wanted = {i: n for i, n in changes.items() if i not in keep}
        await self._set_nodes(tx, wanted, finals, chunks, fetch, keep, conflict_name)
        if meta is not None:
            if not tx.changes:
                tx.rollback()
                await self.put_meta(*meta)
                return True
            tx.put_meta(*meta)
        elif marker is not None and not tx.changes:
            tx.put_meta(*marker)
        return await self.engine.commit(tx)

    def _depth(self, node_id: str) -> int:
        count, node = 0, self.index.nodes.get(node_id)
        while node is not None and node.parent is not None and count < MAX_DEPTH:
            count, node = count + 1, self.index.nodes.get(node.parent)
        return count

    async def _set_nodes(self, tx: Transaction, changes: dict[str, Node | None],
                         finals: dict[str, Node | None], chunks: dict[str, bytes], fetch: Fetch,
                         keep: set[str], conflict_name: ConflictName) -> None:
        """Make the index hold ``changes`` in ``tx`` (see ``apply``)."""
        index, content = self.index, self.content
        gone = sorted((i for i, n in changes.items() if n is None and i in index.nodes),
                      key=self._depth, reverse=True)
        for node_id in gone:  # files and links first: a directory goes once its entries moved
            node = index.nodes.get(node_id)
            if node is not None and not node.is_dir:
                index.remove(node, tx)
        waiting = [n for n in changes.values() if n is not None]
        while waiting:
            later = []
            for node in waiting:
                if node.parent is not None and node.parent not in index.nodes:
                    later.append(node)
                    continue
                if index.nodes.get(node.id) == node:
                    continue
                if node.parent is not None:
                    occupant = index.child(index.nodes[node.parent], node.name)
                    if occupant is not None and occupant.id != node.id:
                        self._make_way(tx, occupant, changes, finals, keep, conflict_name)
                for key in node.chunks:
                    if not content.refs[key] and key not in content.loose and \
                            key not in tx.staged:
                        data = chunks.get(key) or await self.store.get("chunks", key)
                        if data is None:  # let go by an earlier entry of this batch
                            data = await fetch(key)
                        tx.staged[key] = bytes(data)
                index.put(node, tx)
            if len(later) == len(waiting):
                break  # their directories are not here (yet): the next pull brings them
            waiting = later
        for node_id in gone:  # deepest first
            node = index.nodes.get(node_id)
            if node is None or node.id == ROOT_ID or not node.is_dir:
                continue
            if index.children.get(node_id):
                continue  # it still holds something of this disk's (moved out ones are gone)
            index.remove(node, tx)

    def _make_way(self, tx: Transaction, occupant: Node, changes: dict[str, Node | None],
                  finals: dict[str, Node | None], keep: set[str],
                  conflict_name: ConflictName) -> None:
        """``occupant`` holds a name a pulled node takes: it goes where the other side has
        it, or (a node of this disk the other side has not seen yet, or changed here since)
        to a conflict name beside it."""
        index = self.index
        target = changes.get(occupant.id, finals.get(occupant.id, occupant))
        if target is None and occupant.id not in keep and \
                (not occupant.is_dir or not index.children.get(occupant.id)):
            index.remove(occupant, tx)
            return
        parent = index.nodes[occupant.parent]  # type: ignore[index]
        first = conflict_name(occupant.name, occupant.writer, occupant.mtime_ms)
        name, number = first, 1
        while index.child(parent, name) is not None:
            number += 1
            name = f"{first} {number}"
        index.put(occupant.changed(name=name), tx)
