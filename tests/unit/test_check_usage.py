"""The integrity check (fsck) on disks corrupted by hand, and usage (df)."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.disk.check import EXTRA_CHECKS
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.disk.usage import human
from py_vfs.shell import Shell
from py_vfs.storage.sqlite import SQLiteStore
from py_vfs.web.envelopes import plain
from py_vfs.web.webapi import WebAPI

BIG = b"".join(bytes([i]) * CHUNK_SIZE for i in range(2)) + b"tail"  # three chunks
SMALL = "small" * 500  # one chunk: larger than INLINE_MAX, so that its copy shares the chunk


@pytest.fixture
def vfs(vfs: VFS) -> VFS:
    run(vfs.write_file("/d/big.bin", BIG))
    run(vfs.write_file("/d/small.txt", SMALL))
    run(vfs.copy_file("/d/small.txt", "/copy.txt"))  # shares its chunk
    run(vfs.symlink("d/small.txt", "/link"))
    return vfs


def kinds(vfs: VFS) -> list[tuple[str, str]]:
    return [(p.kind, p.where) for p in run(vfs.check()).problems]


def node_id(vfs: VFS, path: str) -> str:
    parent = vfs.index.root
    for name in path.strip("/").split("/"):
        child = vfs.index.child(parent, name)
        assert child is not None
        parent = child
    return parent.id


def edit_record(vfs: VFS, path: str, **changes) -> None:
    """Rewrite a node's stored record behind the VFS's back."""
    key = node_id(vfs, path)
    nodes = vfs.store.spaces["nodes"]
    nodes[key] = json.dumps({**json.loads(nodes[key]), **changes})


def test_a_healthy_disk_has_no_problems(vfs):
    report = run(vfs.check())
    assert report.ok and report.problems == []
    assert report.nodes == 6
    assert report.chunks == 4  # big.bin's three, and the one small.txt and copy.txt share
    assert report.chunk_bytes == len(BIG) + len(SMALL)
    assert report.reclaimable_chunks == 0
    assert run(VFS.memory().check()).ok


def test_a_missing_chunk_is_reported_with_the_files_that_name_it(vfs):
    key = vfs.index.child(vfs.index.root, "copy.txt").chunks[0]
    del vfs.store.spaces["chunks"][key]
    report = run(vfs.check())
    assert [(p.kind, p.where) for p in report.problems] == [("missing-chunk", f"chunks/{key}")]
    assert "/copy.txt" in report.problems[0].message
    assert "/d/small.txt" in report.problems[0].message


def test_a_chunk_whose_bytes_do_not_match_its_hash(vfs):
    key = vfs.index.child(vfs.index.root, "copy.txt").chunks[0]
    vfs.store.spaces["chunks"][key] = b"SMALL"
    assert kinds(vfs) == [("bad-hash", f"chunks/{key}")]


def test_a_file_size_that_its_chunks_do_not_add_up_to(vfs):
    edit_record(vfs, "/d/big.bin", size=len(BIG) - 1)
    assert kinds(vfs) == [("size", "/d/big.bin")]


def test_an_orphan_node_and_a_node_under_a_file(vfs):
    nodes = vfs.store.spaces["nodes"]
    record = json.loads(nodes[node_id(vfs, "/copy.txt")])
    nodes["lost"] = json.dumps({**record, "parent": "gone", "name": "lost"})
    nodes["under"] = json.dumps({**record, "parent": node_id(vfs, "/copy.txt"), "name": "x"})
    assert sorted(kinds(vfs)) == [("orphan", "nodes/lost"), ("parent", "/copy.txt/x")]


def test_a_cycle_of_directories_is_found(vfs):
    nodes = vfs.store.spaces["nodes"]
    record = json.loads(nodes[node_id(vfs, "/d")])
    nodes["c1"] = json.dumps({**record, "parent": "c2", "name": "c1"})
    nodes["c2"] = json.dumps({**record, "parent": "c1", "name": "c2"})
    assert sorted(kinds(vfs)) == [("cycle", "nodes/c1"), ("cycle", "nodes/c2")]


def test_two_entries_with_one_name_the_root_and_the_format(vfs):
    nodes = vfs.store.spaces["nodes"]
    nodes["twin"] = nodes[node_id(vfs, "/copy.txt")]
    assert kinds(vfs) == [("duplicate-name", "/copy.txt")]
    del nodes["twin"]
    vfs.store.spaces["meta"]["format"] = "99"
    del nodes["root"]
    found = kinds(vfs)
    assert ("format", "meta/format") in found and ("root", "nodes/root") in found
    assert ("orphan", "/d") in found  # its path still tells which one


def test_an_unreadable_record_is_a_problem(vfs):
    vfs.store.spaces["nodes"]["junk"] = "{not json"
    assert kinds(vfs) == [("record", "nodes/junk")]


def test_unreferenced_chunks_are_reclaimable_not_problems(vfs):
    stray = b"written by a stream that never committed"
    vfs.store.spaces["chunks"][hashlib.sha256(stray).hexdigest()] = stray
    report = run(vfs.check())
    assert report.ok
    assert (report.reclaimable_chunks, report.reclaimable_bytes) == (1, len(stray))


def test_the_check_reads_each_chunk_once_from_the_store_and_reports_progress(vfs):
    vfs.content.cache = type(vfs.content.cache)(vfs.content.cache.max_bytes)
    vfs.store.reads.clear()
    seen: list[tuple[int, int]] = []
    run(vfs.check(progress=lambda done, total: seen.append((done, total))))
    chunk_reads = [key for space, key in vfs.store.reads if space == "chunks"]
    assert sorted(chunk_reads) == sorted(vfs.store.spaces["chunks"])
    assert seen == [(i, 4) for i in range(1, 5)]
    assert vfs.content.cache.get(chunk_reads[0]) is None  # the cache could hide a bad copy


def test_extra_checks_run_with_the_stored_nodes(vfs):
    async def change_log(store, nodes, report):
        report.add("change-log", "meta/rev", f"{len(nodes)} nodes seen")

    EXTRA_CHECKS.append(change_log)
    try:
        assert kinds(vfs) == [("change-log", "meta/rev")]
    finally:
        EXTRA_CHECKS.remove(change_log)


def test_the_change_log_is_checked(vfs):
    log = vfs.store.spaces["log"]
    assert len(log) >= 4 and not run(vfs.check()).problems
    revs = sorted(log)
    log[revs[-1]] = "not json"
    assert kinds(vfs) == [("log", f"log/{revs[-1]}")]
    del log[revs[1]]
    assert [kind for kind, _ in kinds(vfs)] == ["log"]


def test_usage_counts_from_the_index_without_reading_content(vfs):
    vfs.store.reads.clear()
    usage = run(vfs.usage())
    # Only ``meta`` is read (the journal's held markers by prefix, its last trim), never a
    # chunk.
    assert vfs.store.reads == [("meta", "held:*"), ("meta", "trimmed")]
    assert (usage.files, usage.directories, usage.symlinks) == (3, 2, 1)
    assert usage.content_bytes == len(BIG) + 2 * len(SMALL)
    assert usage.stored_bytes == len(BIG) + len(SMALL)  # the copy shares its chunk
    assert usage.chunks == 4
    assert usage.quota_bytes is None and usage.persisted is None  # memory has no quota


def test_usage_of_a_sqlite_disk_reports_its_file_system(tmp_path):
    async def scenario():
        disk = await VFS.open(SQLiteStore(tmp_path / "disk.db"))
        await disk.write_file("/a", b"x" * 3000)  # chunked: larger than INLINE_MAX
        usage = await disk.usage()
        assert usage.store_bytes > 3000
        assert usage.quota_bytes >= usage.store_bytes + usage.available_bytes - 1
        assert (await disk.check()).ok
        assert await disk.store.keys("chunks") == [hashlib.sha256(b"x" * 3000).hexdigest()]
        disk.close()

    run(scenario())


def test_human_sizes_round_up_like_df():
    assert [human(n) for n in (None, 0, 1023, 1024, 1025, 10 * 1024, 5 * 1024**3)] == [
        "-", "0", "1023", "1.0K", "1.1K", "10K", "5.0G"]


def test_shell_fsck_and_df(vfs):
    shell = Shell(vfs)
    result = run(shell.run("fsck"))
    assert result.code == 0
    assert result.stdout.endswith("checked: no problems\n")
    result = run(shell.run("df -h"))
    assert result.code == 0
    assert result.stdout.splitlines()[0].split() == ["Filesystem", "Size", "Used", "Avail",
                                                     "Use%", "Mounted", "on"]
    assert "files: 3, directories: 2, symlinks: 1" in result.stdout
    assert "persisted: unknown" in result.stdout
    del vfs.store.spaces["chunks"][vfs.index.child(vfs.index.root, "copy.txt").chunks[0]]
    result = run(shell.run("fsck"))
    assert result.code == 1 and "missing-chunk" in result.stdout and "1 problem\n" in result.stdout


def test_the_js_api_gets_plain_reports(vfs):
    """What crosses to JS: the table's functions' results made plain (as ``call`` does)."""
    ops = WebAPI(vfs)._ops
    report = plain(run(ops["check"]()))
    assert report["ok"] is True and report["problems"] == [] and report["nodes"] == 6
    usage = plain(run(ops["usage"]()))
    assert usage["files"] == 3 and usage["storedBytes"] == len(BIG) + len(SMALL)
