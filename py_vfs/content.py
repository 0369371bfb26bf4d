"""File content as sha256-addressed chunks, with reference counts and a bounded read cache.

A file's content is the concatenation of its chunks. Identical chunks are stored once; the count of
references is derived from the node records (never stored), so it cannot drift from them.
"""

from __future__ import annotations

import hashlib
from collections import Counter, OrderedDict
from collections.abc import Iterable

from .errors import FsError
from .storage import Store
from .transaction import Transaction

CHUNK_SIZE = 512 * 1024
DEFAULT_CACHE_BYTES = 32 * 1024 * 1024


class ChunkCache:
    """Least-recently-used chunks, bounded by total bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0

    def get(self, key: str) -> bytes | None:
        data = self._items.get(key)
        if data is not None:
            self._items.move_to_end(key)
        return data

    def put(self, key: str, data: bytes) -> None:
        if len(data) > self.max_bytes:
            return
        if key in self._items:
            self._items.move_to_end(key)
            return
        self._items[key] = data
        self._bytes += len(data)
        while self._bytes > self.max_bytes:
            _, old = self._items.popitem(last=False)
            self._bytes -= len(old)

    def discard(self, key: str) -> None:
        data = self._items.pop(key, None)
        if data is not None:
            self._bytes -= len(data)


class Content:
    def __init__(self, store: Store, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.store = store
        self.refs: Counter[str] = Counter()
        self.cache = ChunkCache(cache_bytes)
        # Chunks of an open step, not yet in storage: the step's own reads must find them.
        self.pending: dict[str, bytes] = {}

    def split(self, data: bytes, tx: Transaction) -> tuple[str, ...]:
        """Cut ``data`` into chunks staged in ``tx``; stored once a node references them."""
        keys = []
        for start in range(0, len(data), CHUNK_SIZE):
            piece = bytes(data[start:start + CHUNK_SIZE])
            key = hashlib.sha256(piece).hexdigest()
            tx.staged[key] = piece
            keys.append(key)
        return tuple(keys)

    def count(self, keys: Iterable[str]) -> None:
        """Boot: count references from committed nodes, without touching storage."""
        self.refs.update(keys)

    def forget(self, keys: Iterable[str]) -> None:
        """Another tab dropped references: count them down and drop chunks nobody holds."""
        for key in keys:
            self._unref_in_memory(key)
            if key not in self.refs:
                self.cache.discard(key)

    def ref(self, keys: Iterable[str], tx: Transaction) -> None:
        for key in keys:
            self.refs[key] += 1
            if self.refs[key] == 1:
                tx.put_chunk(key, tx.staged.get(key))
            tx.on_rollback(lambda key=key: self._unref_in_memory(key))

    def unref(self, keys: Iterable[str], tx: Transaction) -> None:
        for key in keys:
            self._unref_in_memory(key)
            if key not in self.refs:
                tx.delete_chunk(key)
            tx.on_rollback(lambda key=key: self.refs.update((key,)))

    def _unref_in_memory(self, key: str) -> None:
        self.refs[key] -= 1
        if self.refs[key] <= 0:
            del self.refs[key]

    def committed(self, tx: Transaction) -> None:
        """Keep what was just written warm, and forget what was just deleted."""
        for key, data in tx.written_chunks.items():
            self.cache.put(key, data)
        for key in tx.deleted_chunks:
            self.cache.discard(key)

    async def read_chunk(self, key: str) -> bytes:
        data = self.pending.get(key) or self.cache.get(key)
        if data is None:
            data = await self.store.get("chunks", key)
            if data is None:
                raise FsError.of("EIO", "read", f"chunk {key}")
            self.cache.put(key, data)
        return data

    async def read(self, keys: Iterable[str]) -> bytes:
        return b"".join([await self.read_chunk(key) for key in keys])
