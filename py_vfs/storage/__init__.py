"""The durable key-value interface every backend implements (DESIGN section 3).

Keyspaces: ``nodes`` (node id -> JSON record), ``chunks`` (sha256 hex -> bytes) and ``meta``
(name -> JSON). ``commit`` applies a batch of puts and deletes atomically and durably: when it
returns, the batch survives a crash; when it raises, none of it happened. ``keys`` lists a
keyspace without reading its values (the integrity check walks chunks one by one with it);
``estimate`` tells the room left: ``{usage, quota, available?, persisted?}`` or None.
"""

from __future__ import annotations

from typing import Protocol

from ..transaction import Op

SPACES = ("nodes", "chunks", "meta")


class Store(Protocol):
    async def get_all(self, space: str) -> list[tuple[str, object]]: ...

    async def get(self, space: str, key: str) -> object | None: ...

    async def keys(self, space: str) -> list[str]: ...

    async def estimate(self) -> dict[str, object] | None: ...

    async def commit(self, ops: list[Op]) -> None: ...

    def close(self) -> None: ...
