"""Garbage collection: delete stored chunks that no file references any more.

Chunks usually leave the store in the very commit that drops their last reference. What is left
over comes from streams: a streaming write stores its chunks before the node that names them,
so a tab closed or crashed mid-stream leaves chunks nothing references. Each of them carries a
``meta`` marker ``ahead:<sha256>`` with the time it was written. A chunk is collected when no
node references it, no stream of this VFS pins it, and its marker (if any) is older than the
grace period: a stream in flight in another tab keeps its chunks as long as that. A small file
inline in its node references no chunk, so it keeps none alive (a format-2 small file, still one
chunk until it is next written, counts like any chunked file).

It runs as a mutation, so it sees the latest state of every tab (a stale run is caught up and
run again) and nothing can reference a chunk between the decision and the delete.
"""

from __future__ import annotations

import time

from ..storage import Store
from ..storage.transaction import Transaction
from .content import AHEAD_PREFIX, HELD_PREFIX, Content

# Long enough for any stream still in flight in another tab; a crash's leftovers wait that long.
DEFAULT_GRACE_MS = 24 * 60 * 60 * 1000


async def collect(store: Store, content: Content, tx: Transaction, grace_ms: float,
                  keep: set[str] | None = None) -> int:
    """Stage the deletes in ``tx``; returns how many chunks go. ``keep``: chunks snapshots
    name; chunks the journal holds (``held:`` markers) stay too, until it is trimmed."""
    keys = await store.keys("chunks")
    markers = {key[len(AHEAD_PREFIX):]: int(value)
               for key, value in await store.get_prefix("meta", AHEAD_PREFIX)}
    held = {key[len(HELD_PREFIX):] for key, _ in await store.get_prefix("meta", HELD_PREFIX)}
    now = time.time() * 1000.0
    collected = 0
    for key in keys:
        if content.refs[key] or content.pins[key] or key in held or key in (keep or ()):
            continue
        if key in markers and now - markers[key] < grace_ms:
            continue
        tx.delete_chunk(key)
        if key in content.loose:
            content.loose.discard(key)
            tx.on_rollback(lambda key=key: content.loose.add(key))
        collected += 1
    stored, gone = set(keys), set(tx.deleted_chunks)
    for key in markers:  # a marker outlives its purpose once its chunk is referenced or gone
        if key not in stored or content.refs[key] or key in gone:
            tx.delete_meta(AHEAD_PREFIX + key)
    return collected
