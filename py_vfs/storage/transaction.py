"""One atomic mutation: the storage writes it needs and how to undo it in memory.

The index and the content layer apply their changes to memory at once and record them here; the
operations layer then commits ``ops()`` to the store in one call. If that fails, ``rollback()``
restores memory exactly, so a failed write changes nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..core.node import name_key

if TYPE_CHECKING:
    from ..core.node import Node

Op = tuple[str, str, str, object]
# A mutation: a function that stages its writes in a transaction (sync or async), its result
# the operation's.
Change = Callable[["Transaction"], Any]

# Who makes the changes started in this context (``vfs.as_writer``, the JS API's ``vfs.as``, the
# shell): None means the VFS's own default writer.
WRITER: ContextVar[str | None] = ContextVar("py_vfs_writer", default=None)
# The request id of the call running in this context (the JS API's call envelope, py_vfs/web/
# protocol.py CALL_REQUEST): recorded in the journal entry of the commit that carries its
# changes (``requests``), so a call sent again after its host went is not applied twice.
REQUEST: ContextVar[str | None] = ContextVar("py_vfs_request", default=None)


async def run_change(change: Change, tx: Transaction) -> Any:
    """Run a mutation's change function, sync or async, against ``tx``."""
    result = change(tx)
    if inspect.isawaitable(result):
        result = await result
    return result


class Transaction:
    """The writes of one mutation, and how to undo them in memory."""

    def __init__(self, writer: str | None = None) -> None:
        # Who makes this change (stamped on every node it writes and on its journal entry), and
        # the names of the operations it carries (``writeFile``...; a step or a group: several).
        self.writer = writer
        self.operations: list[str] = []
        self._undo: list[Callable[[], None]] = []
        # node id -> the node to store (None: delete its record); encoded at the commit, so that
        # a node put many times in one commit (a directory gaining entries) is encoded once.
        self._nodes: dict[str, Node | None] = {}
        self._records: dict[str, str | None] | None = None  # ``node_writes``, once encoded
        self._chunks: dict[str, bytes | None] = {}
        self._meta: dict[str, str | None] = {}
        self._log_upto: int | None = None
        # Facts about the commit the journal entry carries besides its changes ("trimmed").
        self.notes: dict[str, Any] = {}
        self.staged: dict[str, bytes] = {}
        # node id -> (the node before this transaction, the node after it): what watch events
        # and the change log are derived from.
        self.changes: dict[str, tuple[Node | None, Node | None]] = {}

    def on_rollback(self, undo: Callable[[], None]) -> None:
        """Run ``undo`` (newest first) if the transaction is rolled back."""
        self._undo.append(undo)

    def put_node(self, node: Node) -> None:
        """Store ``node``'s record under its id."""
        self._nodes[node.id] = node
        self._records = None

    def delete_node(self, node_id: str) -> None:
        """Delete the record of ``node_id``."""
        self._nodes[node_id] = None
        self._records = None

    def track(self, before: Node | None, after: Node | None) -> None:
        """Remember a node change; the first ``before`` of a node wins, the last ``after``."""
        node_id = (before or after).id  # type: ignore[union-attr]
        first = self.changes[node_id][0] if node_id in self.changes else before
        self.changes[node_id] = (first, after)

    def merge(self, inner: Transaction) -> None:
        """Fold a finished inner transaction (one operation of a step) into this one."""
        self._undo.extend(inner._undo)
        self.operations.extend(inner.operations)
        self.staged.update(inner.staged)
        self._nodes.update(inner._nodes)
        self._records = None
        self._meta.update(inner._meta)
        self.notes.update(inner.notes)
        if inner._log_upto is not None:
            self._log_upto = max(self._log_upto or 0, inner._log_upto)
        for key, data in inner._chunks.items():
            if data is None:
                self.delete_chunk(key)
            else:
                self.put_chunk(key, data)
        changes = self.changes
        for node_id, (before, after) in inner.changes.items():  # ``track``, inlined: per write
            earlier = changes.get(node_id)
            changes[node_id] = (before if earlier is None else earlier[0], after)

    @property
    def nodes_written(self) -> dict[str, Node | None]:
        """Node id -> the node stored, or None when deleted (not to be modified)."""
        return self._nodes

    @property
    def node_writes(self) -> dict[str, str | None]:
        """Node id -> its new record, or None when deleted (encoded when first asked after a
        change; not to be modified)."""
        if self._records is None:
            self._records = {node_id: None if node is None else node.to_record()
                             for node_id, node in self._nodes.items()}
        return self._records

    def put_chunk(self, key: str, data: bytes | None) -> None:
        """A chunk gained its first reference; a delete staged earlier in this step cancels out."""
        if key in self._chunks and self._chunks[key] is None:
            del self._chunks[key]
        elif data is None:
            raise AssertionError(f"chunk {key} referenced before it was staged")
        else:
            self._chunks[key] = data

    def delete_chunk(self, key: str) -> None:
        """Delete the chunk ``key``."""
        if key in self._chunks and self._chunks[key] is not None:
            del self._chunks[key]
        else:
            self._chunks[key] = None

    def put_meta(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` in ``meta``."""
        self._meta[key] = value

    def delete_meta(self, key: str) -> None:
        """Delete ``key`` from ``meta``."""
        self._meta[key] = None

    def trim_log(self, upto: int) -> None:
        """Drop the journal's entries up to revision ``upto`` (``history.py``)."""
        self._log_upto = upto

    def ops(self) -> list[Op]:
        """Storage writes, chunks first (a reader never finds a node without its content)."""
        out: list[Op] = []
        for key, data in self._chunks.items():
            out.append(("delete", "chunks", key, None) if data is None
                       else ("put", "chunks", key, data))
        for key, record in self.node_writes.items():
            out.append(("delete", "nodes", key, None) if record is None
                       else ("put", "nodes", key, record))
        out.extend(self._name_ops())
        for key, value in self._meta.items():
            out.append(("delete", "meta", key, None) if value is None
                       else ("put", "meta", key, value))
        if self._log_upto is not None:
            out.append(("delete_to", "log", self._log_upto, None))
        return out

    def _name_ops(self) -> list[Op]:
        """The ``names`` keyspace's writes for the nodes whose (directory, name) changed:
        deletes first, so a name that passes from one node to another (a rename over an
        existing file) ends up naming the new one."""
        deletes: list[Op] = []
        puts: list[Op] = []
        for node_id, (before, after) in self.changes.items():
            old, new = _place(before), _place(after)
            if old == new:
                continue
            if old is not None:
                deletes.append(("delete", "names", old, None))
            if new is not None:
                puts.append(("put", "names", new, node_id))
        return deletes + puts

    @property
    def written_chunks(self) -> dict[str, bytes]:
        """The chunks this transaction stores, by key."""
        return {k: v for k, v in self._chunks.items() if v is not None}

    @property
    def deleted_chunks(self) -> list[str]:
        """The chunks this transaction deletes."""
        return [k for k, v in self._chunks.items() if v is None]

    def rollback(self) -> None:
        """Undo every change in memory, newest first."""
        while self._undo:
            self._undo.pop()()


def _place(node: Node | None) -> str | None:
    """The ``names`` key of ``node`` (None: no node, or the root)."""
    if node is None or node.parent is None:
        return None
    return name_key(node.parent, node.name)
