"""A store in a dict: the reference backend for tests and ``VFS.memory()``."""

from __future__ import annotations

from ..transaction import Op
from . import SPACES


class MemoryStore:
    def __init__(self) -> None:
        self.spaces: dict[str, dict[str, object]] = {space: {} for space in SPACES}
        self.reads: list[tuple[str, str | None]] = []

    async def get_all(self, space: str) -> list[tuple[str, object]]:
        self.reads.append((space, None))
        return list(self.spaces[space].items())

    async def get(self, space: str, key: str) -> object | None:
        self.reads.append((space, key))
        return self.spaces[space].get(key)

    async def keys(self, space: str) -> list[str]:
        return list(self.spaces[space])

    async def estimate(self) -> dict[str, object] | None:
        """Memory has no quota to report."""
        return None

    async def commit(self, ops: list[Op]) -> None:
        for action, space, key, value in ops:
            if action == "put":
                self.spaces[space][key] = value
            else:
                self.spaces[space].pop(key, None)

    def close(self) -> None:
        pass
