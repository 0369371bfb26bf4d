"""File content as sha256-addressed chunks, with reference counts and a bounded read cache.

A file of at most ``INLINE_MAX`` bytes has no chunks: its bytes are inline in its node record, so
writing it stores one record and reading it reads nothing (the node is in the index). Whether a
file is inline is decided afresh by every write that rewrites its last chunk (``pack``): a file
that grows past the limit becomes chunked, one truncated or rewritten down to it inline again.

A larger file's content is the concatenation of its chunks, each ``CHUNK_SIZE`` bytes except the
last, so that the chunk holding any offset is known without reading. Identical chunks are stored
once; the count of references is derived from the node records (never stored), so it cannot
drift from them.

Streams hold chunks outside any node for a while: a streaming write stores its full chunks ahead
of the one commit that creates the file, and a streaming read must keep reading the chunks of the
version it started on even if the file is replaced meanwhile. Such chunks are *pinned*; a stored
chunk that no node references is *loose*, and it is deleted only once no stream pins it.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from ..core.errors import FsError
from ..core.node import encode_inline
from ..storage import Store
from ..storage.transaction import Transaction

CHUNK_SIZE = 512 * 1024
INLINE_MAX = 2048
"""The largest file kept inline in its node record: Btrfs's default ``max_inline``. Below it a
chunk of its own costs a second record, a second key to hash and, on reading, a store round trip
for a few bytes (most source and config files are that small); above it the record, which boot
loads for every file, would grow with content that boot does not need."""
DEFAULT_CACHE_BYTES = 32 * 1024 * 1024
# A chunk a stream stored ahead of its node is marked in ``meta`` under this prefix, with the time
# it was written, until the node that references it commits (or the stream gives up).
AHEAD_PREFIX = "ahead:"
# A chunk no node references any more but the journal's history still needs (time travel) is
# marked under this prefix with ``"<revision> <length>"``: the revision that let it go, until that
# revision leaves the retention window (``history.py``).
HELD_PREFIX = "held:"
# A snapshot's node records, under this prefix and its name (``snapshots.py``).
SNAPSHOT_PREFIX = "snapshot:"
# Asked when a chunk loses its last reference: True when history keeps it (the hook stages its
# marker in the transaction); the chunk then stays stored, loose.
Keeper = Callable[[str, int, Transaction], bool]


class Body(NamedTuple):
    """A file's content as its node names it: chunk keys, or the bytes inline (base64)."""

    chunks: tuple[str, ...] = ()
    inline: str | None = None


NO_CONTENT = Body()  # a directory's, a symlink's or an empty file's


@functools.cache
def _zero() -> tuple[str, bytes]:
    data = bytes(CHUNK_SIZE)
    return hashlib.sha256(data).hexdigest(), data


def zero_chunk(tx: Transaction) -> tuple[str]:
    """The key of the all-zero chunk, staged in ``tx``: every run of zeros a file grows by
    (``truncate``) references this one chunk, stored once, instead of allocating the run."""
    key, data = _zero()
    tx.staged[key] = data
    return (key,)


class ChunkCache:
    """Least-recently-used chunks, bounded by total bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0

    def get(self, key: str) -> bytes | None:
        """A cached chunk (made the most recent), or None."""
        data = self._items.get(key)
        if data is not None:
            self._items.move_to_end(key)
        return data

    def put(self, key: str, data: bytes) -> None:
        """Keep ``data`` under ``key``, dropping the least recent chunks beyond the budget."""
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
        """Forget ``key`` (its chunk was deleted)."""
        data = self._items.pop(key, None)
        if data is not None:
            self._bytes -= len(data)


class Content:
    """The chunks of one disk: reference counts, pins, the chunks staged by a transaction,
    and the cache."""

    def __init__(self, store: Store, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.store = store
        self.refs: Counter[str] = Counter()
        self.cache = ChunkCache(cache_bytes)
        # Chunks of an open step, not yet in storage: the step's own reads must find them.
        self.pending: dict[str, bytes] = {}
        self.pins: Counter[str] = Counter()
        self.loose: set[str] = set()
        self.keeper: Keeper | None = None
        self.held: set[str] = set()  # loose chunks this VFS saw history keep (never reclaimed)

    def split(self, data: bytes, tx: Transaction,
              digests: Sequence[str] | None = None) -> tuple[str, ...]:
        """Cut ``data`` into chunks staged in ``tx``; stored once a node references them.
        ``digests``, when given, are the chunks' sha256 hex, computed by a caller that hashes
        faster than Python in wasm can (the browser's WebCrypto, about 7x faster)."""
        if digests is not None and len(digests) != -(-len(data) // CHUNK_SIZE):
            digests = None  # not this data's: hash it here
        keys = []
        for number, start in enumerate(range(0, len(data), CHUNK_SIZE)):
            piece = bytes(data[start:start + CHUNK_SIZE])
            key = digests[number] if digests else hashlib.sha256(piece).hexdigest()
            tx.staged[key] = piece
            keys.append(key)
        return tuple(keys)

    def pack(self, tail: bytes, tx: Transaction, keep: tuple[str, ...] = (),
             digests: Sequence[str] | None = None) -> Body:
        """The body of a file made of the whole chunks ``keep`` followed by ``tail``: inline when
        it is small (an empty file stays without either), else chunks staged in ``tx``
        (``digests``: the hashes of ``tail``'s chunks, see ``split``)."""
        if not keep and 0 < len(tail) <= INLINE_MAX:
            return Body(inline=encode_inline(tail))
        return Body(keep + self.split(tail, tx, digests))

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
        """One more reference to each of ``keys`` (undone with ``tx``)."""
        for key in keys:
            self.refs[key] += 1
            if self.refs[key] == 1:
                if key in self.loose:  # already stored: a stream put it there
                    self.loose.discard(key)
                    tx.on_rollback(lambda key=key: self.loose.add(key))
                else:
                    tx.put_chunk(key, tx.staged.get(key))
            tx.on_rollback(lambda key=key: self._unref_in_memory(key))

    def unref(self, keys: Sequence[str], tx: Transaction, size: int = 0) -> None:
        """One reference fewer to each of ``keys`` (the chunks of a file of ``size`` bytes); a
        chunk left without any is deleted in ``tx``, unless a stream pins it or history keeps
        it (``keeper``): then it stays, loose."""
        for number, key in enumerate(keys):
            self._unref_in_memory(key)
            if key not in self.refs:
                length = max(0, min(CHUNK_SIZE, size - number * CHUNK_SIZE))
                if self.keeper is not None and self.keeper(key, length, tx):
                    self.held.add(key)
                    tx.on_rollback(lambda key=key: self.held.discard(key))
                if self.pins[key] or key in self.held:
                    self.loose.add(key)
                    tx.on_rollback(lambda key=key: self.loose.discard(key))
                else:
                    tx.delete_chunk(key)
            tx.on_rollback(lambda key=key: self.refs.update((key,)))

    def adopt(self, keys: Iterable[str], tx: Transaction) -> None:
        """Chunks already stored that a node is about to reference again (a restore from
        history): known as loose, so that referencing them stores nothing."""
        for key in keys:
            if not self.refs[key] and key not in self.loose:
                self.loose.add(key)
                tx.on_rollback(lambda key=key: self.loose.discard(key))

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

    async def read_chunk(self, key: str, *, keep: bool = True) -> bytes:
        """One chunk, from the cache or the store; a streaming read passes ``keep=False`` so
        that a large file passing through does not push everything else out of the cache."""
        data = self.pending.get(key) or self.cache.get(key)
        if data is None:
            data = await self.store.get("chunks", key)
            if data is None:
                raise FsError.of("EIO", "read", f"chunk {key}")
            if keep:
                self.cache.put(key, data)
        return data

    # ----------------------------------------------------------------- streams

    def pin(self, keys: Iterable[str]) -> None:
        """Keep ``keys`` stored while a stream reads or writes them."""
        self.pins.update(keys)

    def unpin(self, keys: Iterable[str]) -> list[str]:
        """Release a stream's pins; returns the loose chunks nothing needs any more."""
        free = []
        for key in keys:
            self.pins[key] -= 1
            if self.pins[key] <= 0:
                del self.pins[key]
                if key in self.loose and not self.refs[key]:
                    free.append(key)
        return free

    async def store_ahead(self, data: bytes) -> str:
        """Store one full chunk of a streaming write before any node references it; the caller
        holds a pin on the returned key until the file is committed or abandoned."""
        key = hashlib.sha256(data).hexdigest()
        self.pin((key,))
        if not self.refs[key] and key not in self.loose:
            marker = ("put", "meta", AHEAD_PREFIX + key, str(int(time.time() * 1000)))
            try:
                await self.store.commit([("put", "chunks", key, data), marker])
            except BaseException:
                self.unpin((key,))
                raise
            if not self.refs[key]:
                self.loose.add(key)
        return key

    def reclaim(self, keys: Iterable[str], tx: Transaction) -> None:
        """Delete loose chunks that are still loose and unpinned when this transaction runs."""
        for key in keys:
            if key in self.loose and not self.refs[key] and not self.pins[key] \
                    and key not in self.held:
                self.loose.discard(key)
                tx.delete_chunk(key)
                tx.delete_meta(AHEAD_PREFIX + key)
                tx.on_rollback(lambda key=key: self.loose.add(key))

    async def read(self, keys: Iterable[str]) -> bytes:
        """The bytes of ``keys``, concatenated (a file's content)."""
        return b"".join([await self.read_chunk(key) for key in keys])
