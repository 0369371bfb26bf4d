"""The journal: every commit's entry kept for a retention window, and the disk as it was then.

The change log (``log`` keyspace) is the journal: one entry per commit with its revision, time,
writer, operation and paths (``sync.encode_entry``), each changed node's record after the commit
(what other tabs replay) and before it (what time travel undoes). Entries stay for the retention
window: every entry younger than ``Retention.days``, and at least the last ``Retention.entries``
(whichever keeps more). Older ones are trimmed, now and then, by a commit of their own
(operation ``trim``, itself journaled).

A chunk that a commit lets go of is not deleted while the journal can still need it: it stays
stored, marked ``held:<sha256>`` with the revision that let it go and its length. Trimming the
journal up to revision R deletes the chunks held by revisions up to R that no node, snapshot or
stream needs. So the disk as it was at any revision from the oldest entry's predecessor on can be
rebuilt: the nodes of now, with the entries from now back to that revision undone
(``tree_at``). When the store runs out of room, the oldest history goes first (``make_room``):
a write fails with ENOSPC only once nothing of the journal is left to trim.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import Node
from ..storage import LOG_KEEP, Store
from ..storage.transaction import REQUEST, Transaction
from .content import HELD_PREFIX, Content
from .engine import CommitEngine
from .index import Index

SYSTEM_WRITER = "py_vfs"
"""The writer of the commits py_vfs makes on its own (trimming the journal)."""
LAST_TRIM = "trimmed"
"""``meta`` key of the last trim: ``{"revisions": [first, last], "time": ms, "reason":
"retention" | "quota"}`` (``usage()`` reports it)."""
PAGE = 500  # journal entries read per store call
DAY_MS = 24 * 60 * 60 * 1000.0
MAX_JOURNAL_LIMIT = 10_000


@dataclass(frozen=True)
class Retention:
    """How long the journal keeps its entries: those younger than ``days``, and at least the
    last ``entries`` (whichever keeps more). ``Retention(0, 0)`` keeps no history."""

    days: float = 30.0
    entries: int = 100_000

    @property
    def off(self) -> bool:
        """True when nothing is kept (no time travel, chunks deleted at once)."""
        return self.days <= 0 and self.entries <= 0


def iso(ms: float) -> str:
    """A time in ms since 1970 as the journal and the ``files`` view write it: UTC,
    ``YYYY-MM-DD HH:MM:SS.SSS`` (SQLite's own spelling)."""
    stamp = datetime.fromtimestamp(round(ms) / 1000.0, UTC)  # rounded, as SQLite's %f
    return stamp.strftime("%Y-%m-%d %H:%M:%S.") + f"{stamp.microsecond // 1000:03d}"


def parse_time(value: object, syscall: str) -> float:
    """A time given as ms since 1970 or as ISO 8601 text (``2026-06-09``, ``2026-06-09
    12:00:00``, a ``T``, a zone; no zone is UTC) -> ms since 1970; else EINVAL."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            stamp = datetime.fromisoformat(value.strip())
        except ValueError:
            pass
        else:
            if stamp.tzinfo is None:
                stamp = stamp.replace(tzinfo=UTC)
            return stamp.timestamp() * 1000.0
    raise FsError.of("EINVAL", syscall).with_hint(
        f"a time is ms since 1970 or ISO 8601 text such as 2026-06-09T12:00:00Z, not {value!r}")


def describe(revision: int, entry: dict[str, Any]) -> dict[str, Any]:
    """A journal entry as the API returns it."""
    seen: dict[str, None] = {}
    for event in entry.get("events", ()):
        for key in ("oldPath", "path"):
            if key in event:
                seen.setdefault(event[key], None)
    out = {"revision": revision, "time": iso(entry.get("time", 0.0)),
           "timeMs": entry.get("time", 0.0), "writer": entry.get("writer"),
           "operation": entry.get("op"), "operations": list(entry.get("ops", ())),
           "paths": list(seen)}
    if "trimmed" in entry:
        out["trimmed"] = entry["trimmed"]
        out["reason"] = entry.get("reason", "retention")
    return out


def _touches(entry: dict[str, Any], path: str) -> bool:
    prefix = path.rstrip("/") + "/"
    return any(p == path or p.startswith(prefix) for p in describe(0, entry)["paths"])


class Journal:
    """The journal of one VFS: retention, held chunks, reading, time travel."""

    def __init__(self, store: Store, index: Index, content: Content, engine: CommitEngine,
                 retention: Retention) -> None:
        self.store = store
        self.index = index
        self.content = content
        self.engine = engine
        self.retention = retention
        self.snapshot_chunks: Callable[[], Any] | None = None  # set by ``Snapshots``
        self._next_check = 0
        self._trimming = False
        content.keeper = self._hold
        engine.after_commit = self.after_commit
        engine.make_room = self.make_room

    def _hold(self, key: str, length: int, tx: Transaction) -> bool:
        """``Content.keeper``: a chunk let go of stays while the journal may need it."""
        if self.retention.off:
            return False
        tx.put_meta(HELD_PREFIX + key, f"{self.engine.revision + 1} {length}")
        return True

    # ------------------------------------------------------------ retention

    async def after_commit(self) -> None:
        """Now and then (every tenth of the entries kept, at most every 1000 commits), trim
        what has left the retention window."""
        if self._trimming or self.engine.revision < self._next_check:
            return
        self._trimming = True
        try:
            self._next_check = self.engine.revision + max(
                1, min(1000, self._entries_kept() // 10))
            cut = await self._cut()
            if cut is not None:
                # The trim is py_vfs's own commit, not the call's that it follows.
                token = REQUEST.set(None)
                try:
                    await self.engine.run(self.trim_change(cut), "trim", SYSTEM_WRITER)
                finally:
                    REQUEST.reset(token)
        finally:
            self._trimming = False

    def _entries_kept(self) -> int:
        """The entries kept whatever their age; without history, what tabs replay to catch up
        (``LOG_KEEP``), so that a tab a little behind need not reload."""
        return LOG_KEEP if self.retention.off else max(0, self.retention.entries)

    async def _cut(self) -> int | None:
        """The newest revision outside the retention window, or None."""
        oldest = await self.store.log_oldest()
        if oldest is None:
            return None
        last = self.engine.revision - self._entries_kept()
        cutoff = time.time() * 1000.0 - self.retention.days * DAY_MS
        cut = None
        for low in range(oldest, last + 1, PAGE):
            for revision, text in await self.store.log_entries(low, min(last, low + PAGE - 1)):
                if json.loads(text).get("time", 0.0) >= cutoff:
                    return cut
                cut = revision
        return cut

    def trim_change(self, upto: int) -> Callable[[Transaction], Any]:
        """The change that drops the journal up to revision ``upto`` and the chunks only those
        entries held (none that a node, a snapshot or a stream still needs)."""
        async def change(tx: Transaction) -> None:
            oldest = await self.store.log_oldest()
            if oldest is None or oldest > upto:
                return
            keep = set(await self.snapshot_chunks()) if self.snapshot_chunks else set()
            content = self.content
            for key, value in await self.store.get_prefix("meta", HELD_PREFIX):
                chunk = str(key)[len(HELD_PREFIX):]
                if int(str(value).split()[0]) > upto:
                    continue
                tx.delete_meta(str(key))
                if content.refs[chunk] or content.pins[chunk] or chunk in keep:
                    continue
                tx.delete_chunk(chunk)
                for bag in (content.loose, content.held):
                    if chunk in bag:
                        bag.discard(chunk)
                        tx.on_rollback(lambda chunk=chunk, bag=bag: bag.add(chunk))
            tx.trim_log(upto)
            tx.notes["trimmed"] = [oldest, upto]
            tx.notes.setdefault("reason", "retention")
            tx.put_meta(LAST_TRIM, json.dumps(
                {"revisions": [oldest, upto], "time": time.time() * 1000.0,
                 "reason": tx.notes["reason"]}, separators=(",", ":")))

        return change

    async def make_room(self) -> bool:
        """The store is full: trim the oldest half of the journal (the caller holds the
        engine's mutex). False when there is nothing left to trim."""
        oldest = await self.store.log_oldest()
        current = self.engine.revision
        if oldest is None or current - oldest < 2:
            return False
        upto = oldest + max(0, (current - oldest) // 2 - 1)
        for _ in range(10):
            tx = Transaction(SYSTEM_WRITER)
            tx.operations.append("trim")
            tx.notes["reason"] = "quota"
            await self.trim_change(upto)(tx)
            if await self.engine.commit(tx):
                return True
        return False

    # ------------------------------------------------------------ reading

    async def journal(self, *, since: object = None, until: object = None,
                      writer: str | None = None, path: str | None = None,
                      limit: int = 100) -> list[dict[str, Any]]:
        """Journal entries, newest first, filtered by time (``since``/``until``: ms or ISO
        text), writer and path (entries that touched it or anything below it)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not \
                0 <= limit <= MAX_JOURNAL_LIMIT:
            raise FsError.of("EINVAL", "journal").with_hint(
                f"limit must be an integer from 0 to {MAX_JOURNAL_LIMIT}")
        low = None if since is None else parse_time(since, "journal")
        high = None if until is None else parse_time(until, "journal")
        wanted = None if path is None else paths.normalize(path, "journal")
        found: list[dict[str, Any]] = []
        async for revision, entry in self.entries_back():
            stamp = entry.get("time", 0.0)
            if len(found) >= limit or (low is not None and stamp < low):
                break
            if high is not None and stamp > high:
                continue
            if writer is not None and entry.get("writer") != writer:
                continue
            if wanted is not None and wanted != "/" and not _touches(entry, wanted):
                continue
            found.append(describe(revision, entry))
        return found

    async def entries_back(self, down_to: int = 1) -> Any:
        """``(revision, entry)`` from the newest entry back to revision ``down_to``."""
        oldest = await self.store.log_oldest()
        if oldest is None:
            return
        high = self.engine.revision
        floor = max(oldest, down_to)
        while high >= floor:
            low = max(floor, high - PAGE + 1)
            for revision, text in reversed(await self.store.log_entries(low, high)):
                yield int(revision), json.loads(text)
            high = low - 1

    async def find_request(self, request: str, since: float) -> int | None:
        """Whether a commit carried the call with request id ``request`` (its entry's
        ``requests``, ``transaction.REQUEST``), asked of a call sent again after the runtime
        that ran it went: the revision of that entry; 0 when none did (every entry from the
        newest back to one older than ``since``, ms since 1970, was read); None when the
        journal does not reach back that far (trimmed), so it cannot tell. Under the cross-tab
        turn, caught up first: a commit another context was making is seen once it ended."""
        engine = self.engine
        async with engine.turn(), engine.mutex:
            await engine.catch_up()
            async for revision, entry in self.entries_back():
                if request in entry.get("requests", ()):
                    return revision
                if entry.get("time", 0.0) < since:
                    return 0
            oldest = await self.store.log_oldest()
        return 0 if oldest == 1 or (oldest is None and engine.revision == 0) else None

    async def journal_rows(self) -> list[tuple[Any, ...]]:
        """Every entry kept, oldest first, as rows of the ``journal`` view of ``query``:
        (revision, time_ms, writer, operation, paths as a JSON array); the view spells the
        time."""
        rows = []
        async for revision, entry in self.entries_back():
            about = describe(revision, entry)
            rows.append((revision, about["timeMs"], about["writer"],
                         about["operation"],
                         json.dumps(about["paths"], ensure_ascii=False, separators=(",", ":"))))
        rows.reverse()
        return rows

    # ------------------------------------------------------------ time travel

    async def revision_before(self, moment: object) -> int:
        """The revision the disk was at, at ``moment`` (ms or ISO text)."""
        stamp = parse_time(moment, "restore")
        async for revision, entry in self.entries_back():
            if entry.get("time", 0.0) <= stamp:
                return revision
        oldest = await self.store.log_oldest()
        return (oldest or 1) - 1

    async def tree_at(self, revision: int, syscall: str = "restore") -> dict[str, Node]:
        """Every node as it was at ``revision`` (the caller holds the engine's mutex, so the
        index is at the engine's revision): EINVAL beyond the history kept."""
        current = self.engine.revision
        if isinstance(revision, bool) or not isinstance(revision, int) or \
                not 0 <= revision <= current:
            raise FsError.of("EINVAL", syscall).with_hint(
                f"revision {revision!r} is not between 0 and the current {current}")
        nodes = dict(self.index.nodes)
        if revision == current:
            return nodes
        oldest = await self.store.log_oldest()
        if oldest is None or revision < oldest - 1:
            raise FsError.of("EINVAL", syscall).with_hint(
                f"revision {revision} is older than the history kept (from "
                f"{(oldest or current + 1) - 1} on)")
        async for number, entry in self.entries_back(revision + 1):
            if "before" not in entry:
                raise FsError.of("EINVAL", syscall).with_hint(
                    f"revision {number} was recorded without the history to undo it")
            for node_id, record in entry["before"].items():
                if record is None:
                    nodes.pop(node_id, None)
                else:
                    nodes[node_id] = Node.from_record(node_id, record)
        return nodes

    async def cost(self) -> dict[str, Any]:
        """What history costs and keeps, for ``usage()``: the chunks history alone keeps and
        their bytes, the oldest revision the journal still has (None: empty), and the last
        trim (``LAST_TRIM``'s record, or None)."""
        count = size = 0
        for key, value in await self.store.get_prefix("meta", HELD_PREFIX):
            if not self.content.refs[str(key)[len(HELD_PREFIX):]]:
                count += 1
                size += int(str(value).split()[1])
        trimmed = await self.store.get("meta", LAST_TRIM)
        return {"chunks": count, "bytes": size, "since": await self.store.log_oldest(),
                "trimmed": None if trimmed is None else json.loads(str(trimmed))}

