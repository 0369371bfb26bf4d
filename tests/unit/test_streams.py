"""Streaming reads and writes: ranges, atomicity, pinned chunks and what the store holds after."""

from __future__ import annotations

import hashlib
import sys
import tracemalloc

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.disk.content import AHEAD_PREFIX, CHUNK_SIZE
from py_vfs.disk.journal import Retention
from py_vfs.storage.memory import MemoryStore
from py_vfs.storage.sqlite import SQLiteStore


def pattern(size: int, seed: int = 0) -> bytes:
    """Bytes that differ chunk to chunk, so no two chunks deduplicate by accident."""
    block = hashlib.sha256(str(seed).encode()).digest()
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(block + counter.to_bytes(8, "little")).digest()
        counter += 1
    return bytes(out[:size])


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def vfs(store) -> VFS:
    # These tests are about when a stream's chunks leave the store: without history, which
    # would keep them for time travel (tests/unit/test_history.py).
    return run(VFS.open(store, cache_bytes=0, retention=Retention(0, 0)))


async def collect(stream) -> list[bytes]:
    return [piece async for piece in stream]


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def stored_chunks(store: MemoryStore) -> set[str]:
    return set(store.spaces["chunks"])


def referenced_chunks(store: MemoryStore) -> set[str]:
    vfs = run(VFS.open(store))
    return set(vfs.content.refs)


def ahead_markers(store: MemoryStore) -> list[str]:
    return [key for key in store.spaces["meta"] if key.startswith(AHEAD_PREFIX)]


def test_write_stream_from_pieces_of_any_size_reads_back(vfs, store):
    data = pattern(2 * CHUNK_SIZE + 12345)
    run(vfs.write_stream("/new/dir/big.bin", pieces(data, 100_000)))
    assert run(vfs.read_file("/new/dir/big.bin")) == data
    assert vfs.stat("/new/dir/big.bin").size == len(data)
    assert stored_chunks(store) == referenced_chunks(store)
    assert ahead_markers(store) == []


def test_write_stream_from_an_async_iterable_and_str(vfs):
    async def source():
        yield "héllo "
        yield b"world"

    run(vfs.write_stream("/a.txt", source(), mode=0o600))
    assert run(vfs.read_file("/a.txt", "utf-8")) == "héllo world"
    assert vfs.stat("/a.txt").mode == 0o600


def test_the_file_appears_only_when_the_stream_ends(vfs, store):
    async def scenario():
        writer = vfs.stream_writer("/f.bin")
        await writer.write(pattern(CHUNK_SIZE + 10))
        assert not vfs.exists("/f.bin")
        # The full chunk is already durable, marked as written ahead of its node.
        assert len(stored_chunks(store)) == 1 and len(ahead_markers(store)) == 1
        await writer.close()
        return vfs.stat("/f.bin").size

    assert run(scenario()) == CHUNK_SIZE + 10
    assert ahead_markers(store) == []


def test_a_failing_source_leaves_the_old_file_and_no_chunks(vfs, store):
    old = pattern(1000, seed=1)
    run(vfs.write_file("/f.bin", old))
    before = stored_chunks(store)

    def source():
        yield pattern(3 * CHUNK_SIZE, seed=2)
        raise RuntimeError("source broke")

    with pytest.raises(RuntimeError):
        run(vfs.write_stream("/f.bin", source()))
    assert run(vfs.read_file("/f.bin")) == old
    assert stored_chunks(store) == before
    assert ahead_markers(store) == []


def test_stream_errors_come_before_any_data_is_taken(vfs):
    run(vfs.mkdir("/d"))
    run(vfs.write_file("/file", "x"))
    consumed = []

    def source():
        consumed.append(1)
        yield b"x"

    for path, code in [("/d", "EISDIR"), ("/file/x", "ENOTDIR"), ("/bad\0", "EINVAL")]:
        with pytest.raises(FsError) as info:
            run(vfs.write_stream(path, source()))
        assert info.value.code == code
    assert consumed == []


def test_open_read_ranges_match_slices(vfs):
    data = pattern(2 * CHUNK_SIZE + 7)
    run(vfs.write_file("/f", data))
    cases = [(0, None), (5, 17), (CHUNK_SIZE - 3, CHUNK_SIZE + 3), (CHUNK_SIZE, None),
             (0, 10**12), (len(data), None), (len(data) + 5, None), (10, 5)]
    for start, end in cases:
        got = run(collect(vfs.open_read("/f", start, end)))
        assert b"".join(got) == data[start:end], (start, end)
        assert all(0 < len(piece) <= CHUNK_SIZE for piece in got)


def test_open_read_errors(vfs):
    run(vfs.mkdir("/d"))
    run(vfs.write_file("/f", "x"))
    for args, code in [(("/missing",), "ENOENT"), (("/d",), "EISDIR"),
                       (("/f", -1), "EINVAL"), (("/f/",), "ENOTDIR")]:
        with pytest.raises(FsError) as info:
            vfs.open_read(*args)
        assert info.value.code == code


def test_a_reader_keeps_its_version_while_the_file_is_replaced(vfs, store):
    old = pattern(2 * CHUNK_SIZE, seed=3)
    run(vfs.write_file("/f", old))
    old_keys = stored_chunks(store)

    async def scenario():
        stream = vfs.open_read("/f")
        first = await anext(stream)
        await vfs.write_file("/f", b"new")
        await vfs.rm("/f")
        assert old_keys <= stored_chunks(store)  # pinned: still there for the reader
        rest = [piece async for piece in stream]
        return first + b"".join(rest)

    assert run(scenario()) == old
    assert not old_keys & stored_chunks(store)  # released at the end: reclaimed
    assert stored_chunks(store) == referenced_chunks(store)


def test_closing_a_reader_early_releases_its_chunks(vfs, store):
    run(vfs.write_file("/f", pattern(2 * CHUNK_SIZE, seed=4)))

    async def scenario():
        stream = vfs.open_read("/f")
        await anext(stream)
        await vfs.unlink("/f")
        assert stored_chunks(store)
        await stream.aclose()

    run(scenario())
    assert stored_chunks(store) == set()


def test_append_and_truncate_read_only_the_last_chunk(vfs, store):
    data = pattern(3 * CHUNK_SIZE + 100, seed=5)
    run(vfs.write_file("/f", data))
    keys = list(vfs.content.refs)
    store.reads.clear()
    run(vfs.append_file("/f", b"tail"))
    assert [key for space, key in store.reads if space == "chunks"] == [keys[-1]]
    assert run(vfs.read_file("/f")) == data + b"tail"

    store.reads.clear()
    run(vfs.truncate("/f", CHUNK_SIZE + 5))
    assert [key for space, key in store.reads if space == "chunks"] == [keys[1]]
    assert run(vfs.read_file("/f")) == data[:CHUNK_SIZE + 5]

    run(vfs.truncate("/f", 2 * CHUNK_SIZE + 3))
    assert run(vfs.read_file("/f")) == data[:CHUNK_SIZE + 5] + bytes(CHUNK_SIZE - 2)
    assert stored_chunks(store) == referenced_chunks(store)


@pytest.mark.skipif(sys.platform == "emscripten",
                    reason="Pyodide's files live in memory (MEMFS): the 200 MiB disk itself "
                           "would fill wasm memory; the browser measures it in the e2e tier")
def test_200_mib_stream_through_a_disk_file_holds_a_few_chunks(tmp_path):
    """The issue asks to measure this; tracemalloc is deterministic, so the bound is safe to
    assert: peak Python memory while writing and reading 200 MiB stays under four chunks
    (measured: 1.7 MiB writing, 1.2 MiB reading, with 512 KiB chunks)."""
    size = 200 * 1024 * 1024
    piece = 64 * 1024

    def source():
        for offset in range(0, size, piece):
            yield hashlib.sha256(offset.to_bytes(8, "little")).digest() * (piece // 32)

    async def scenario():
        vfs = await VFS.open(SQLiteStore(tmp_path / "disk.db"))
        tracemalloc.start()
        try:
            await vfs.write_stream("/big.bin", source())
            write_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            digest, total = hashlib.sha256(), 0
            async for chunk in vfs.open_read("/big.bin"):
                digest.update(chunk)
                total += len(chunk)
            read_peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            vfs.close()
        expected = hashlib.sha256()
        for data in source():
            expected.update(data)
        return write_peak, read_peak, total, digest.digest() == expected.digest()

    write_peak, read_peak, total, same = run(scenario())
    assert total == size and same
    assert write_peak < 4 * CHUNK_SIZE, write_peak
    assert read_peak < 4 * CHUNK_SIZE, read_peak


def test_webapi_held_counts_open_streams_and_their_pins_until_closed(vfs):
    """The diagnostic the browser tests read (``vfs.diagnostics()``): a preview body or JS read
    stream left open shows as a stream pinning its chunks, and closing it gives them back."""
    from py_vfs.web.webapi import WebAPI

    async def scenario():
        api = WebAPI(vfs)
        await vfs.write_file("/three.bin", pattern(2 * CHUNK_SIZE + 1))
        before = api.held()
        opened = api.call("openRead", ["/three.bin"])  # synchronous: an envelope
        during = api.held()
        await api._ops["closeStream"](opened["value"])  # what call() runs, without a Future
        return before, during, api.held()

    before, during, after = run(scenario())
    assert before == after == {"streams": 0, "pinnedChunks": 0}
    assert during == {"streams": 1, "pinnedChunks": 3}
