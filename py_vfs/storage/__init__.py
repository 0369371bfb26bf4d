"""The durable key-value interface every backend implements (DESIGN section 3).

Keyspaces: ``nodes`` (node id -> JSON record), ``chunks`` (sha256 hex -> bytes), ``meta``
(name -> JSON), ``log`` (revision -> JSON change-log entry, see docs/architecture.md; it is
also the journal, kept for the retention window, see ``history.py``) and ``names``
(``parent id/name`` -> node id, ``node.name_key``: the directory entries of the nodes, written
with them in the same commit, so a reader resolves a path without reading every node; the
boot before Python does, web/page/early_reader.mjs).

An op is ``("put", space, key, value)``, ``("delete", space, key, None)`` or
``("delete_to", space, key, None)``: every key up to ``key`` (the journal's oldest entries).

``commit`` applies a batch of puts and deletes atomically and durably: when it returns, the batch
survives a crash; when it raises, none of it happened. ``commit_logged`` does the same for a batch
that changes nodes, but only if the disk is still at the revision the caller knows; it then also
appends the change-log entry and bumps ``meta/rev``, all in the same transaction. That check is
what keeps several tabs (or processes) on one disk from losing each other's updates.
``keys`` lists a keyspace without reading its values (the integrity check walks chunks one by
one with it); ``estimate`` tells the room left: ``{usage, quota, available?, persisted?}`` or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .transaction import Op

SPACES = ("nodes", "chunks", "meta", "log", "names")

# How far behind a tab catches up by replaying the change log: a tab further behind reloads
# every node instead (the log itself is kept much longer: it is the journal).
LOG_KEEP = 1000

Rows = list[tuple[str, object]]
LogEntries = list[tuple[int, str]]


class Store(Protocol):
    """A durable key-value store of five keyspaces (docs/architecture.md, "Storage interface")."""

    async def get_all(self, space: str) -> Rows:
        """Every ``(key, value)`` of ``space``."""

    async def get_prefix(self, space: str, prefix: str) -> Rows:
        """Every ``(key, value)`` of ``space`` whose key starts with ``prefix`` (a key range:
        the others are not read)."""

    async def get(self, space: str, key: str) -> object | None:
        """The value under ``key`` in ``space``, or None."""

    async def keys(self, space: str) -> list[str]:
        """Every key of ``space``, without the values."""

    async def estimate(self) -> dict[str, object] | None:
        """The room used and left, as far as the store knows (``usage``, ``quota``; None:
        unknown)."""

    async def commit(self, ops: list[Op]) -> None:
        """Apply ``ops`` atomically and durably: all or nothing."""

    async def load(self) -> tuple[int, Rows]:
        """The revision and every node record, read as one consistent snapshot."""
        ...

    async def commit_logged(self, base: int, ops: list[Op], entry: str) -> int | None:
        """Apply ``ops``, log ``entry`` as revision ``base + 1`` and return it; or change nothing
        and return None when the disk is no longer at revision ``base`` (stale)."""
        ...

    async def log_since(self, rev: int) -> tuple[int, LogEntries | None]:
        """The current revision and the log entries after ``rev``, oldest first; None instead of
        the entries when some were already trimmed or more than ``LOG_KEEP`` are missing (the
        caller must reload)."""
        ...

    async def log_entries(self, low: int, high: int) -> LogEntries:
        """The log entries with revisions from ``low`` to ``high``, oldest first."""
        ...

    async def log_oldest(self) -> int | None:
        """The revision of the oldest log entry kept, or None when the log is empty."""
        ...

    def close(self) -> None:
        """Release the store."""


class Lockable(Protocol):
    """A store that can also make writers of several tabs take turns (IndexedDB: Web Locks).
    Optional: without it the revision check alone keeps commits correct, but a busy tab can
    make another lose the race over and over."""

    async def lock(self) -> Callable[[], None]:
        """Wait for the writer lock shared by every tab; returns the function that releases it."""


def prefix_end(prefix: str) -> str:
    """The first key after every key that starts with ``prefix`` (a non-empty prefix): its
    last character moved one up, so ``[prefix, prefix_end(prefix))`` is exactly its keys."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def gap(rev: int, current: int, entries: LogEntries) -> bool:
    """True when ``entries`` do not lead without a hole from ``rev`` to ``current``."""
    if current == rev:
        return False
    return not entries or entries[0][0] != rev + 1 or entries[-1][0] != current
