"""Garbage collection: what a stream abandoned mid-way leaves is reclaimed, after its grace."""

from __future__ import annotations

from helpers import run

from py_vfs import VFS
from py_vfs.disk.content import AHEAD_PREFIX, CHUNK_SIZE
from py_vfs.disk.journal import Retention
from py_vfs.storage.memory import MemoryStore


def markers(store: MemoryStore) -> list[str]:
    return [key for key in store.spaces["meta"] if key.startswith(AHEAD_PREFIX)]


def abandoned_stream(store: MemoryStore) -> None:
    """A tab that stored two chunks of a stream and then crashed: nothing else happened."""
    async def scenario():
        vfs = await VFS.open(store)
        await vfs.write_file("/kept", bytes(CHUNK_SIZE) + b"tail")
        writer = vfs.stream_writer("/big")
        await writer.write(b"\1" * CHUNK_SIZE + b"\2" * CHUNK_SIZE + b"\3")

    run(scenario())


def test_chunks_of_a_crashed_stream_wait_out_the_grace_then_go():
    store = MemoryStore()
    abandoned_stream(store)
    vfs = run(VFS.open(store))
    assert len(store.spaces["chunks"]) == 4 and len(markers(store)) == 2
    assert run(vfs.check()).reclaimable_chunks == 2
    assert run(vfs.gc()) == 0  # within the grace period: maybe a stream still in flight
    assert len(store.spaces["chunks"]) == 4
    assert run(vfs.gc(grace_ms=0)) == 2
    assert len(store.spaces["chunks"]) == 2 and markers(store) == []
    report = run(vfs.check())
    assert report.ok and report.reclaimable_chunks == 0
    assert run(vfs.read_file("/kept")) == bytes(CHUNK_SIZE) + b"tail"


def test_referenced_and_pinned_chunks_are_never_collected():
    store = MemoryStore()
    # No history: the chunks go as soon as nothing needs them (the journal would keep them).
    vfs = run(VFS.open(store, retention=Retention(0, 0)))
    run(vfs.write_file("/a", b"\4" * (CHUNK_SIZE + 1)))

    async def scenario():
        stream = vfs.open_read("/a")
        await vfs.unlink("/a")  # the reader pins the chunks: they stay, loose
        collected = await vfs.gc(grace_ms=0)
        data = b"".join([piece async for piece in stream])
        return collected, data

    collected, data = run(scenario())
    assert collected == 0 and data == b"\4" * (CHUNK_SIZE + 1)
    assert store.spaces["chunks"] == {}  # released with the reader
