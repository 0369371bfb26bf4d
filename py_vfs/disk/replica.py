"""Several tabs (or processes) on one disk: the revision protocol and the change log.

Every commit that changes nodes is conditional: ``Store.commit_logged`` applies it only if the
disk is still at the revision this replica last saw, and then, in the same storage transaction,
appends a change-log entry and bumps the revision. A stale commit changes nothing; the replica
rolls its transaction back in memory, catches up from the log (or reloads every node record if it
fell further behind than the log keeps) and the caller runs the mutation again on the fresh
state. So no tab ever overwrites a change it has not seen. Format: docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable

from ..core.errors import FsError
from ..core.json_text import compact, embedded, quoted
from ..core.node import DIRECTORY, Node
from ..storage import LOG_KEEP, Store
from ..storage.transaction import Transaction
from .check import EXTRA_CHECKS, Report
from .content import Content
from .index import Index
from .watch import Event, Watchers, derive_events

# 2: the writer's name, the operation, and each changed node's record before the commit (what
# the journal reads and time travel undoes: docs/data.md).
ENTRY_VERSION = 2

# How many directory records a replica keeps for the "before" of its next commits (``_stored``):
# a writer moves between a few directories at a time (a checkout, one directory after another).
STORED_DIRECTORIES = 256


def operation_of(operations: list[str]) -> str:
    """The journal's name for a commit of ``operations``: ``step`` for a step, the operation
    when a group of several had one kind (``writeFile``), else ``batch``."""
    if not operations:
        return "init"
    if operations[0] == "step" or len(set(operations)) == 1:
        return operations[0]
    return "batch"


def encode_entry(tx: Transaction, events: list[Event],
                 record_of: Callable[[Node], str] = Node.to_record) -> str:
    """One change-log (journal) entry: who, when, what operation, the node records put and the
    node ids deleted, each changed node as it was before (null: it is new; ``record_of`` gives
    its record), and the watch events."""
    writes = tx.node_writes
    puts = {node_id: record for node_id, record in writes.items() if record is not None}
    deletes = [node_id for node_id, record in writes.items() if record is None]
    before = {}
    for node_id in writes:
        old = tx.changes[node_id][0] if node_id in tx.changes else None
        before[node_id] = None if old is None else record_of(old)
    operations = tx.operations
    steps = operations[1:] if operations[:1] == ["step"] else operations
    head = {"v": ENTRY_VERSION, "writer": tx.writer or "user", "time": time.time() * 1000.0,
            "op": operation_of(operations), "ops": steps}
    rest = {"deletes": deletes, "before": before, "events": events, **tx.notes}
    if "puts" in rest or not head.keys().isdisjoint(rest):  # a note of one of these names
        return compact({**head, "puts": puts, **rest})
    # The records are compact's own text: each is placed in the entry as ``embedded`` text,
    # not looked at again character by character (json_text.py). The same text as compact's.
    records = ",".join(f"{quoted(node_id)}:{embedded(record)}" for node_id, record in puts.items())
    return f'{compact(head)[:-1]},"puts":{{{records}}},{compact(rest)[1:]}'


def decode_entry(text: str) -> tuple[list[Node], list[str], list[Event]]:
    """A change-log entry's node records put, node ids deleted, and watch events."""
    entry = json.loads(text)
    puts = [Node.from_record(node_id, record) for node_id, record in entry["puts"].items()]
    return puts, list(entry["deletes"]), list(entry["events"])


async def check_log(store: Store, nodes: dict[str, Node], report: Report) -> None:
    """``fsck`` of the change log: its last entries (``LOG_KEEP`` of them, or all the journal
    keeps) run without a hole up to ``meta/rev``, and each one decodes."""
    stored = await store.get("meta", "rev")
    rev = int(str(stored)) if stored is not None else 0
    first = max(1, await store.log_oldest() or 1, rev - LOG_KEEP + 1)
    current, entries = await store.log_since(first - 1)
    if current != rev or entries is None:
        report.add("log", "log", f"the change log does not lead from revision {first} to {rev}")
        return
    for expected, (key, text) in enumerate(entries, start=first):
        if int(key) != expected:
            report.add("log", f"log/{key}", f"log entry {key} where {expected} was expected")
            return
        try:
            decode_entry(str(text))
        except (ValueError, KeyError, TypeError) as error:
            report.add("log", f"log/{key}", f"log entry {key} does not decode: {error}")


EXTRA_CHECKS.append(check_log)


def store_full(error: BaseException) -> bool:
    """True when ``error`` is the store refusing a commit for want of room (not an operation's
    own ENOSPC): the journal may then free room (``history.make_room``)."""
    return isinstance(error, FsError) and getattr(error, "store_full", False)


async def backoff(attempt: int) -> None:
    """Before the ``attempt``-th try of a mutation (0: the first). The first retry after a stale
    commit goes at once (the replica has just caught up); after that a random, growing pause
    keeps one busy tab from winning every race against another (starvation)."""
    if attempt >= 2:
        await asyncio.sleep(random.uniform(0, min(0.05, 0.001 * 2 ** attempt)))


class Replica:
    """This VFS's view of a shared disk: the revision it has applied, and how it moves on.

    Callers hold the VFS's mutation lock around every method (they change the index).
    """

    def __init__(self, store: Store, index: Index, content: Content, watchers: Watchers) -> None:
        self.store = store
        self.index = index
        self.content = content
        self.watchers = watchers
        self.rev = 0
        # The directories committed last (up to STORED_DIRECTORIES), with the records they were
        # stored with: a write changes its directory, so the next write into one has that
        # record as the directory's "before", not encoded anew. Files, whose records carry
        # their inline bytes, are not kept.
        self._stored: dict[str, tuple[Node, str]] = {}

    def turn(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold the store's cross-tab writer lock, if it has one (see ``Lockable``)."""
        return _Turn(getattr(self.store, "lock", None))

    async def load(self) -> list[Node]:
        """Boot: every node record and the revision they are at, from one snapshot."""
        self.rev, records = await self.store.load()
        return [Node.from_record(str(key), str(value)) for key, value in records]

    async def commit(self, tx: Transaction) -> bool:
        """Commit ``tx`` at this replica's revision. False: the disk had moved on; ``tx`` was
        rolled back and the replica has caught up, so the caller should run its change again.
        Raises (after rolling ``tx`` back) when the store failed."""
        ops = tx.ops()
        if not ops:
            return True
        # Logged even without node writes (a chunk reclaim): a chunk deletion must be checked
        # against the revision too, or it could drop a chunk another tab just referenced.
        try:
            events = derive_events(tx.changes, self._before(tx), self.index.nodes.get)
            entry = encode_entry(tx, events, self._record_of)
            rev = await self.store.commit_logged(self.rev, ops, entry)
        except BaseException as error:
            tx.rollback()
            if isinstance(error, FsError) and error.code == "ENOSPC":
                error.store_full = True  # type: ignore[attr-defined]
            raise
        if rev is None:
            tx.rollback()
            await self.catch_up()
            return False
        self.rev = rev
        self._keep_directories(tx)
        self.content.committed(tx)
        self.watchers.fire(events)
        return True

    def _keep_directories(self, tx: Transaction) -> None:
        """Remember the directories ``tx`` stored, with their records (see ``_stored``); the
        ones committed longest ago go first."""
        records = tx.node_writes
        stored = self._stored
        for node_id, node in tx.nodes_written.items():
            record = records[node_id]
            if node is not None and record is not None and node.kind == DIRECTORY:
                stored.pop(node_id, None)
                stored[node_id] = (node, record)
        while len(stored) > STORED_DIRECTORIES:
            del stored[next(iter(stored))]

    def _record_of(self, node: Node) -> str:
        """The record ``node`` is stored with (kept from the last commit if it stored it)."""
        stored = self._stored.get(node.id)
        return stored[1] if stored is not None and stored[0] is node else node.to_record()

    def _before(self, tx: Transaction) -> Callable[[str], Node | None]:
        """Node lookup in the tree as it was before ``tx`` (for the old path of a rename)."""
        def lookup(node_id: str) -> Node | None:
            if node_id in tx.changes:
                return tx.changes[node_id][0]
            return self.index.nodes.get(node_id)

        return lookup

    async def catch_up(self) -> bool:
        """Apply what other writers committed since our revision; True if there was any."""
        current, entries = await self.store.log_since(self.rev)
        if current == self.rev:
            return False
        if entries is None:
            await self._reload()
            return True
        for rev, text in entries:
            puts, deletes, events = decode_entry(text)
            self.index.apply(puts, deletes)
            self.rev = rev
            self.watchers.fire(events)
        return True

    async def _reload(self) -> None:
        """Too far behind for the log: reload every node, and derive the events by comparing."""
        old = dict(self.index.nodes)
        nodes = {node.id: node for node in await self.load()}
        changes = {node_id: (old.get(node_id), nodes.get(node_id))
                   for node_id in [*old, *(n for n in nodes if n not in old)]
                   if old.get(node_id) != nodes.get(node_id)}
        self.index.reset(list(nodes.values()))
        self.watchers.fire(derive_events(changes, old.get, nodes.get))


class _Turn:
    """``Replica.turn``: the store's writer lock (``lock``, None for a store without one), held
    while entered."""

    def __init__(self, lock: Callable[[], Awaitable[Callable[[], None]]] | None) -> None:
        self.lock = lock
        self.release: Callable[[], None] | None = None

    async def __aenter__(self) -> None:
        if self.lock is not None:
            self.release = await self.lock()

    async def __aexit__(self, *exc_info: object) -> None:
        if self.release is not None:
            self.release()
