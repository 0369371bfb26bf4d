"""A store in a dict: the reference backend for tests and ``VFS.memory()``.

Two VFS instances may share one ``MemoryStore``: they then behave like two tabs on one disk.
"""

from __future__ import annotations

from . import LOG_KEEP, SPACES, LogEntries, Rows, gap
from .transaction import Op


class MemoryStore:
    """A ``Store`` in dicts: nothing persists; two VFSes on one ``MemoryStore`` behave as two
    tabs."""

    def __init__(self) -> None:
        self.spaces: dict[str, dict] = {space: {} for space in SPACES}
        self.reads: list[tuple[str, str | None]] = []
        self.commits = 0

    async def get_all(self, space: str) -> Rows:
        """``Store.get_all``."""
        self.reads.append((space, None))
        return list(self.spaces[space].items())

    async def get_prefix(self, space: str, prefix: str) -> Rows:
        """``Store.get_prefix``."""
        self.reads.append((space, prefix + "*"))
        return [(key, value) for key, value in self.spaces[space].items()
                if isinstance(key, str) and key.startswith(prefix)]

    async def get(self, space: str, key: str) -> object | None:
        """``Store.get``."""
        self.reads.append((space, key))
        return self.spaces[space].get(key)

    async def keys(self, space: str) -> list[str]:
        """``Store.keys``."""
        return list(self.spaces[space])

    async def estimate(self) -> dict[str, object] | None:
        """Memory has no quota to report."""
        return None

    async def commit(self, ops: list[Op]) -> None:
        """``Store.commit``."""
        self.commits += 1
        for action, space, key, value in ops:
            if action == "put":
                self.spaces[space][key] = value
            elif action == "delete_to":
                for old in [k for k in self.spaces[space] if k <= key]:
                    del self.spaces[space][old]
            else:
                self.spaces[space].pop(key, None)

    @property
    def rev(self) -> int:
        """The disk's revision."""
        return int(self.spaces["meta"].get("rev", 0))

    async def load(self) -> tuple[int, Rows]:
        """``Store.load``."""
        self.reads.append(("nodes", None))
        return self.rev, list(self.spaces["nodes"].items())

    async def commit_logged(self, base: int, ops: list[Op], entry: str) -> int | None:
        """``Store.commit_logged``."""
        if self.rev != base:
            return None
        rev = base + 1
        log = self.spaces["log"]
        await self.commit([*ops, ("put", "meta", "rev", str(rev))])
        log[rev] = entry
        return rev

    async def log_since(self, rev: int) -> tuple[int, LogEntries | None]:
        """``Store.log_since``."""
        current = self.rev
        entries = await self.log_entries(rev + 1, min(current, rev + LOG_KEEP))
        return current, None if gap(rev, current, entries) else entries

    async def log_entries(self, low: int, high: int) -> LogEntries:
        """``Store.log_entries``."""
        log = self.spaces["log"]
        return [(key, log[key]) for key in range(max(low, 1), high + 1) if key in log]

    async def log_oldest(self) -> int | None:
        """``Store.log_oldest``."""
        return min(self.spaces["log"], default=None)

    def close(self) -> None:
        """``Store.close``."""
        pass
