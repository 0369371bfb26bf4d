"""Small files inline in their node record: what is stored, what is read, and the format upgrade.

Each test counts what the ``MemoryStore`` holds and reads: an inline file stores no chunk, and
reading it reads nothing from the store (its bytes came with the node record at boot).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.core.node import DIRECTORY, FILE, ROOT_ID, Node
from py_vfs.disk.content import AHEAD_PREFIX, CHUNK_SIZE, INLINE_MAX
from py_vfs.disk.journal import Retention
from py_vfs.hosts.preview import PreviewRequest, respond
from py_vfs.mounts import LocalBackend
from py_vfs.shell import Shell
from py_vfs.storage.memory import MemoryStore

SMALL = bytes(range(256)) * 4  # 1 KiB, every byte value: base64 must carry any of them
BIG = b"b" * (INLINE_MAX + 1)


@pytest.fixture
def vfs() -> VFS:
    # Chunks are counted as a file moves between inline and chunked: without history, which
    # would keep the old ones for time travel (tests/unit/test_history.py).
    return VFS.memory(retention=Retention(0, 0))


def chunks(vfs: VFS) -> dict:
    return vfs.store.spaces["chunks"]


def record(vfs: VFS, path: str) -> dict:
    node, _ = vfs.resolver.lookup(path, "open")
    return json.loads(vfs.store.spaces["nodes"][node.id])


def chunk_reads(vfs: VFS) -> int:
    return sum(1 for space, _ in vfs.store.reads if space == "chunks")


def is_inline(vfs: VFS, path: str) -> bool:
    stored = record(vfs, path)
    return "inline" in stored and "chunks" not in stored


# ------------------------------------------------------------------ writes


def test_a_small_file_is_stored_in_its_record_and_read_without_the_store(vfs):
    run(vfs.write_file("/a.bin", SMALL))
    assert chunks(vfs) == {} and is_inline(vfs, "/a.bin")
    assert record(vfs, "/a.bin")["size"] == len(SMALL)
    vfs.store.reads.clear()
    assert run(vfs.read_file("/a.bin")) == SMALL
    assert vfs.store.reads == []


def test_the_threshold_is_inline_max_and_empty_files_have_neither(vfs):
    run(vfs.write_file("/edge", b"e" * INLINE_MAX))
    run(vfs.write_file("/over", BIG))
    run(vfs.write_file("/empty", b""))
    assert is_inline(vfs, "/edge")
    assert "inline" not in record(vfs, "/over") and len(record(vfs, "/over")["chunks"]) == 1
    assert set(record(vfs, "/empty")) & {"inline", "chunks"} == set()
    assert len(chunks(vfs)) == 1
    assert run(vfs.read_file("/empty")) == b""


def test_appends_stay_inline_then_grow_into_a_chunk_reading_nothing(vfs):
    run(vfs.write_file("/log", b"x" * 1000))
    vfs.store.reads.clear()
    run(vfs.append_file("/log", b"y" * 1000))
    assert is_inline(vfs, "/log") and chunks(vfs) == {} and vfs.store.reads == []
    run(vfs.append_file("/log", b"z" * 100))
    assert not is_inline(vfs, "/log") and len(chunks(vfs)) == 1
    assert run(vfs.read_file("/log")) == b"x" * 1000 + b"y" * 1000 + b"z" * 100
    assert chunk_reads(vfs) == 0  # the chunk just written stayed warm


def test_truncate_moves_a_file_between_chunks_and_inline(vfs):
    run(vfs.write_file("/t", BIG))
    run(vfs.truncate("/t", 10))
    assert is_inline(vfs, "/t") and chunks(vfs) == {}  # the chunk went with its last user
    assert run(vfs.read_file("/t")) == b"b" * 10
    run(vfs.truncate("/t", INLINE_MAX + 10))
    assert not is_inline(vfs, "/t") and len(chunks(vfs)) == 1
    assert run(vfs.read_file("/t")) == b"b" * 10 + bytes(INLINE_MAX)
    run(vfs.write_file("/t", b"short again"))
    assert is_inline(vfs, "/t") and chunks(vfs) == {}


def test_a_write_stream_that_ends_small_stores_no_chunk(vfs):
    run(vfs.write_stream("/s", [b"ab", "cd", b""]))
    assert is_inline(vfs, "/s") and chunks(vfs) == {}
    assert [k for k in vfs.store.spaces["meta"] if k.startswith(AHEAD_PREFIX)] == []
    run(vfs.write_stream("/s", [b"q" * CHUNK_SIZE, b"tail"]))
    assert not is_inline(vfs, "/s") and len(chunks(vfs)) == 2
    assert run(vfs.read_file("/s")) == b"q" * CHUNK_SIZE + b"tail"


def test_copies_carry_the_bytes_in_their_own_record(vfs):
    run(vfs.write_file("/src/a", SMALL))
    commits = vfs.store.commits
    run(vfs.copy_file("/src/a", "/b"))
    run(vfs.cp("/src", "/dst", recursive=True))
    assert vfs.store.commits == commits + 2 and chunks(vfs) == {}
    assert is_inline(vfs, "/b") and is_inline(vfs, "/dst/a")
    run(vfs.write_file("/b", b"changed"))
    assert run(vfs.read_file("/src/a")) == SMALL and run(vfs.read_file("/dst/a")) == SMALL


def test_shell_commands_write_and_read_inline_files(vfs):
    shell = Shell(vfs)
    assert run(shell.run("echo hello > /h.txt")).code == 0
    assert run(shell.run("echo world >> /h.txt")).code == 0
    assert is_inline(vfs, "/h.txt") and chunks(vfs) == {}
    assert run(shell.run("cp /h.txt /copy.txt")).code == 0
    assert is_inline(vfs, "/copy.txt") and chunks(vfs) == {}
    assert run(shell.run("cat /copy.txt")).stdout == "hello\nworld\n"


def test_a_step_writes_inline_files_in_its_one_commit(vfs):
    async def scenario():
        async with vfs.step() as tx:
            await tx.write_file("/one", b"1")
            await tx.append_file("/one", b"2")
            assert await tx.read_file("/one") == b"12"

    run(scenario())
    assert is_inline(vfs, "/one") and chunks(vfs) == {}


# ------------------------------------------------------------------ reads


def test_read_streams_over_an_inline_file_match_slices_and_read_nothing(vfs):
    run(vfs.write_file("/r", SMALL))
    vfs.store.reads.clear()

    async def read(start, end):
        return b"".join([piece async for piece in vfs.open_read("/r", start, end)])

    for start, end in [(0, None), (10, 20), (1000, None), (5, 5), (2000, 3000), (0, 1)]:
        assert run(read(start, end)) == SMALL[start:end]
    assert vfs.store.reads == []


def test_preview_serves_ranges_and_an_etag_that_follows_the_bytes(vfs):
    run(vfs.write_file("/site/a.txt", "aaaa"))
    first = vfs.content_id("/site/a.txt")
    run(vfs.write_file("/site/a.txt", "bbbb"))  # same size, other bytes
    second = vfs.content_id("/site/a.txt")
    run(vfs.write_file("/site/b.txt", "bbbb"))
    assert first != second == vfs.content_id("/site/b.txt")

    async def body(request):
        response = await respond(vfs, request)
        rest = b"".join([p async for p in response.stream]) if response.stream else b""
        return response.status, response.headers.get("etag"), response.body + rest

    status, etag, data = run(body("/site/a.txt"))
    assert (status, data) == (200, b"bbbb") and second in etag
    assert run(body(PreviewRequest("/site/a.txt", range="bytes=1-2")))[::2] == (206, b"bb")


def test_grep_finds_text_in_inline_files(vfs):
    run(vfs.write_file("/g/one.txt", "alpha\nbeta\n"))
    run(vfs.write_file("/g/two.txt", "gamma\nbeta\n"))
    found = run(vfs.grep("beta", "/g"))
    assert [(m["path"], m["line"]) for m in found.matches] == [("/g/one.txt", 2),
                                                               ("/g/two.txt", 2)]


def test_a_reopened_disk_reads_inline_files_without_touching_chunks():
    store = MemoryStore()

    async def scenario():
        first = await VFS.open(store)
        await first.write_file("/small", SMALL)
        await first.write_file("/large", BIG)
        again = await VFS.open(store)
        store.reads.clear()
        assert await again.read_file("/small") == SMALL
        assert store.reads == []
        assert await again.read_file("/large") == BIG
        assert [space for space, _ in store.reads] == ["chunks"]

    run(scenario())


def test_another_tab_gets_the_bytes_with_the_change_log_entry():
    store = MemoryStore()

    async def scenario():
        a, b = await VFS.open(store), await VFS.open(store)
        await a.write_file("/shared", b"from a")
        assert await b.sync()
        store.reads.clear()
        assert await b.read_file("/shared") == b"from a"
        assert store.reads == []
        await b.append_file("/shared", b", then b")
        await a.sync()
        assert await a.read_file("/shared") == b"from a, then b"

    run(scenario())


def test_copies_into_a_mounted_folder_and_back(vfs, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    run(vfs.mount("/mnt", LocalBackend(str(folder))))
    run(vfs.write_file("/small.txt", SMALL))
    run(vfs.copy_file("/small.txt", "/mnt/small.txt"))
    assert Path(folder / "small.txt").read_bytes() == SMALL
    (folder / "from-host.txt").write_bytes(b"host bytes")
    run(vfs.cp("/mnt/from-host.txt", "/back.txt"))
    assert is_inline(vfs, "/back.txt") and chunks(vfs) == {}
    assert run(vfs.read_file("/back.txt")) == b"host bytes"


# ------------------------------------------------------------------ fsck, df, gc


def test_check_usage_and_gc_count_inline_bytes_and_no_chunks(vfs):
    run(vfs.write_file("/a", SMALL))
    run(vfs.copy_file("/a", "/b"))
    run(vfs.write_file("/c", BIG))
    report = run(vfs.check())
    assert report.ok and (report.inline_files, report.inline_bytes) == (2, 2 * len(SMALL))
    assert report.chunks == 1
    usage = run(vfs.usage())
    assert (usage.files, usage.chunks, usage.inline_files) == (3, 1, 2)
    assert usage.stored_bytes == len(BIG) + 2 * len(SMALL)  # each record holds its own copy
    assert run(vfs.gc(grace_ms=0)) == 0
    assert run(vfs.read_file("/a")) == SMALL


def edit(vfs: VFS, path: str, **changes) -> None:
    node, _ = vfs.resolver.lookup(path, "open")
    nodes = vfs.store.spaces["nodes"]
    nodes[node.id] = json.dumps({**json.loads(nodes[node.id]), **changes})


def kinds(vfs: VFS) -> list[tuple[str, str]]:
    return sorted((p.kind, p.where) for p in run(vfs.check()).problems)


def test_check_finds_broken_inline_records(vfs):
    for name in ("size", "base64", "both"):
        run(vfs.write_file(f"/{name}", b"12345"))
    run(vfs.mkdir("/dir"))
    run(vfs.write_file("/big", BIG))
    edit(vfs, "/size", size=6)
    edit(vfs, "/base64", inline="not base64!")
    edit(vfs, "/both", chunks=record(vfs, "/big")["chunks"])
    edit(vfs, "/dir", inline="MTIz")
    assert kinds(vfs) == [("inline", "/base64"), ("inline", "/both"), ("inline", "/dir"),
                          ("size", "/size")]


# ------------------------------------------------------------------ format


def format_2_disk() -> tuple[MemoryStore, bytes]:
    """A disk as format-2 code wrote it: a small file is one chunk named by its record."""
    store = MemoryStore()
    now = 1732212345678.5
    root = Node(ROOT_ID, None, "", DIRECTORY, 0o755, now, now, now)
    data = b"written by format 2"
    key = hashlib.sha256(data).hexdigest()
    small = Node("00000000000000aa", ROOT_ID, "old.txt", FILE, 0o644, now, now, now,
                 size=len(data), chunks=(key,))
    store.spaces["nodes"] = {ROOT_ID: root.to_record(), small.id: small.to_record()}
    store.spaces["chunks"] = {key: data}
    store.spaces["meta"] = {"format": "2", "rev": "0"}
    return store, data


def test_a_format_2_disk_upgrades_in_place_and_its_chunked_small_files_read():
    store, data = format_2_disk()

    async def scenario():
        vfs = await VFS.open(store, retention=Retention(0, 0))
        assert store.spaces["meta"]["format"] == "4"
        assert store.spaces["names"] == {f"{ROOT_ID}/old.txt": "00000000000000aa"}
        assert await vfs.read_file("/old.txt") == data  # still its chunk: both forms read
        assert (await vfs.check()).ok
        await vfs.append_file("/old.txt", b", appended by format 3")
        assert is_inline(vfs, "/old.txt") and store.spaces["chunks"] == {}
        assert await vfs.read_file("/old.txt") == data + b", appended by format 3"

    run(scenario())


def test_a_newer_format_is_refused():
    store, _ = format_2_disk()
    store.spaces["meta"]["format"] = "5"
    with pytest.raises(FsError) as info:
        run(VFS.open(store))
    assert info.value.code == "EIO"
