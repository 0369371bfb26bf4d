"""Helpers the unit tests share (on CPython and in Pyodide): ``run`` drives one coroutine to
its end from a synchronous test; ``QuotaStore`` is a memory store with an origin's quota.

``run`` looks ``asyncio.run`` up at each call, not at import: in Pyodide, conftest.py replaces
it for the session with tests/unit/aio.py's driver after this module may have been imported."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from py_vfs.core.errors import FsError
from py_vfs.storage.memory import MemoryStore

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], bound: float | None = None) -> T:
    """``coro``'s result, on an event loop of its own (``asyncio.run``); ``bound``: fail with
    TimeoutError after that many seconds (else pytest.ini's per-test timeout bounds it)."""
    return asyncio.run(coro if bound is None else asyncio.wait_for(coro, bound))


class QuotaStore(MemoryStore):
    """A memory store holding at most ``room`` bytes of chunks and journal: a commit that would
    pass it fails with ENOSPC, as a full IndexedDB origin does."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room

    def _used(self) -> int:
        return sum(len(v) for v in self.spaces["chunks"].values()) + sum(
            len(v) for v in self.spaces["log"].values())

    async def commit_logged(self, base, ops, entry):
        grows = sum(len(op[3]) for op in ops if op[0] == "put" and op[1] == "chunks")
        frees = sum(len(self.spaces["chunks"].get(op[2], b"")) for op in ops
                    if op[0] == "delete" and op[1] == "chunks")
        trims = sum(len(v) for k, v in self.spaces["log"].items()
                    for op in ops if op[0] == "delete_to" and k <= op[2])
        if self._used() + grows + len(entry) - frees - trims > self.room:
            raise FsError.of("ENOSPC", "write", None)
        return await super().commit_logged(base, ops, entry)
