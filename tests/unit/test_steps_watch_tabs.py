"""Steps, watch events, and several VFS instances (tabs, processes) on one disk."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap

import aio
import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.disk.content import INLINE_MAX
from py_vfs.disk.journal import Retention
from py_vfs.storage import LOG_KEEP
from py_vfs.storage.memory import MemoryStore
from py_vfs.storage.sqlite import SQLiteStore


def snapshot(store: MemoryStore) -> dict:
    return json.loads(json.dumps({space: {str(k): repr(v) for k, v in rows.items()}
                                  for space, rows in store.spaces.items()}))


def tree(vfs: VFS) -> dict[str, tuple]:
    """Every path with its kind, size and content reference (what two views must agree on)."""
    out = {}

    def visit(node, path):
        for child in vfs.index.entries(node):
            child_path = f"{path.rstrip('/')}/{child.name}"
            out[child_path] = (child.kind, child.size, child.chunks, child.target)
            if child.is_dir:
                visit(child, child_path)

    visit(vfs.index.root, "/")
    return out


async def two_tabs(store=None, **options):
    store = store or MemoryStore()
    return store, await VFS.open(store, **options), await VFS.open(store, **options)


# --------------------------------------------------------------------------- steps


def test_a_step_commits_once_and_its_operations_see_each_other():
    async def scenario():
        store, vfs, other = await two_tabs()
        before = store.commits
        async with vfs.step() as tx:
            await tx.write_file("/s/a.txt", "A")
            assert await tx.read_file("/s/a.txt") == b"A"
            await tx.rename("/s/a.txt", "/s/b.txt")
            assert tx.readdir("/s") == ["b.txt"]
            await tx.append_file("/s/b.txt", "B")
        assert store.commits == before + 1
        assert await vfs.read_file("/s/b.txt") == b"AB"
        await other.sync()
        assert await other.read_file("/s/b.txt") == b"AB"

    run(scenario())


def test_a_step_that_raises_leaves_memory_and_store_exactly_as_before():
    async def scenario():
        store, vfs, _ = await two_tabs()
        await vfs.write_file("/keep/x", "x" * 100)
        stored, memory, revision = snapshot(store), tree(vfs), vfs.revision
        refs = dict(vfs.content.refs)
        with pytest.raises(RuntimeError):
            async with vfs.step() as tx:
                await tx.write_file("/keep/x", "changed")
                await tx.write_file("/new/y", "y")
                await tx.rm("/keep", recursive=True)
                raise RuntimeError("halfway")
        assert snapshot(store) == stored
        assert tree(vfs) == memory
        assert dict(vfs.content.refs) == refs
        assert vfs.revision == revision
        assert await vfs.read_file("/keep/x") == b"x" * 100
        reopened = await VFS.open(store)
        assert tree(reopened) == memory

    run(scenario())


def test_a_failing_operation_inside_a_step_undoes_only_itself():
    async def scenario():
        _, vfs, _ = await two_tabs()
        async with vfs.step() as tx:
            await tx.mkdir("/d")
            with pytest.raises(FsError) as info:
                await tx.mkdir("/d")
            assert info.value.code == "EEXIST"
            await tx.write_file("/d/f", "1")
        assert vfs.readdir("/d") == ["f"]

    run(scenario())


def test_a_step_replays_its_operations_when_another_tab_committed_first():
    async def scenario():
        _, vfs, other = await two_tabs()
        async with vfs.step() as tx:
            await tx.write_file("/r/mine", "1")
            await other.write_file("/r/theirs", "2")  # another tab, while the step is open
            await tx.append_file("/r/theirs", "+")
            with pytest.raises(FileNotFoundError):
                await tx.read_file("/r/theirs2")
        assert sorted(vfs.readdir("/r")) == ["mine", "theirs"]
        assert await vfs.read_file("/r/theirs") == b"2+"
        await other.sync()
        assert tree(other) == tree(vfs)

    run(scenario())


@pytest.mark.skipif(aio.stepping_wanted(), reason="needs a real event loop (the current task)")
def test_calling_the_outer_vfs_inside_a_step_is_edeadlk():
    async def scenario():
        vfs = await VFS.open(MemoryStore())
        async with vfs.step() as tx:
            await tx.write_file("/a", "1")
            with pytest.raises(FsError) as info:
                await vfs.write_file("/b", "2")
            assert info.value.code == "EDEADLK"
        assert vfs.readdir("/") == ["a"]

    run(scenario())


# --------------------------------------------------------------------------- watch


def events_of(vfs: VFS, path: str = "/", recursive: bool = True) -> list[dict]:
    seen: list[dict] = []
    vfs.watch(path, seen.append, recursive=recursive)
    return seen


@pytest.mark.parametrize(("operation", "expected"), [
    (lambda v: v.write_file("/w/new", "1"), [("create", "/w/new", "file")]),
    (lambda v: v.write_file("/w/f", "2"), [("modify", "/w/f", "file")]),
    (lambda v: v.append_file("/w/f", "2"), [("modify", "/w/f", "file")]),
    (lambda v: v.mkdir("/w/d2"), [("create", "/w/d2", "directory")]),
    (lambda v: v.rm("/w/d", recursive=True),
     [("delete", "/w/d/g", "file"), ("delete", "/w/d", "directory")]),
    (lambda v: v.unlink("/w/f"), [("delete", "/w/f", "file")]),
    (lambda v: v.chmod("/w/d", 0o700), [("modify", "/w/d", "directory")]),
    (lambda v: v.symlink("f", "/w/l"), [("create", "/w/l", "symlink")]),
    (lambda v: v.copy_file("/w/f", "/w/c"), [("create", "/w/c", "file")]),
])
def test_each_operation_reports_its_events(operation, expected):
    async def scenario():
        vfs = await VFS.open(MemoryStore())
        await vfs.write_file("/w/f", "1")
        await vfs.write_file("/w/d/g", "1")
        seen = events_of(vfs)
        await operation(vfs)
        assert [(e["type"], e["path"], e["kind"]) for e in seen] == expected

    run(scenario())


def test_rename_reports_old_and_new_path_and_a_replaced_target():
    async def scenario():
        vfs = await VFS.open(MemoryStore())
        await vfs.write_file("/a/x", "1")
        await vfs.write_file("/b/y", "2")
        seen = events_of(vfs)
        await vfs.rename("/a/x", "/b/y")
        assert seen == [{"type": "delete", "path": "/b/y", "kind": "file"},
                        {"type": "rename", "path": "/b/y", "oldPath": "/a/x", "kind": "file"}]

    run(scenario())


def test_watch_scope_non_recursive_recursive_and_unsubscribe():
    async def scenario():
        vfs = await VFS.open(MemoryStore())
        await vfs.mkdir("/p/q", recursive=True)
        flat = events_of(vfs, "/p", recursive=False)
        deep = events_of(vfs, "/p", recursive=True)
        on_file: list[dict] = []
        unsubscribe = vfs.watch("/p/f", on_file.append)
        await vfs.write_file("/p/f", "1")
        await vfs.write_file("/p/q/g", "1")
        unsubscribe()
        await vfs.write_file("/p/f", "2")
        assert [e["path"] for e in flat] == ["/p/f", "/p/f"]
        assert [e["path"] for e in deep] == ["/p/f", "/p/q/g", "/p/f"]
        assert [e["type"] for e in on_file] == ["create"]

    run(scenario())


def test_a_step_fires_each_event_once_at_commit_and_none_when_it_fails():
    async def scenario():
        vfs = await VFS.open(MemoryStore())
        seen = events_of(vfs)
        async with vfs.step() as tx:
            await tx.write_file("/s/f", "1")
            await tx.write_file("/s/f", "2")
            await tx.write_file("/s/tmp", "t")
            await tx.unlink("/s/tmp")
            assert seen == []
        assert [(e["type"], e["path"]) for e in seen] == [("create", "/s"), ("create", "/s/f")]
        seen.clear()
        with pytest.raises(ValueError):
            async with vfs.step() as tx:
                await tx.write_file("/s/g", "1")
                raise ValueError
        assert seen == []

    run(scenario())


def test_the_other_tab_fires_the_same_events_when_it_catches_up():
    async def scenario():
        _, vfs, other = await two_tabs()
        mine, theirs = events_of(vfs), events_of(other)
        await vfs.write_file("/t/a", "1")
        await vfs.rename("/t", "/u")
        assert theirs == []
        await other.sync()
        assert theirs == mine and len(mine) == 3

    run(scenario())


# ------------------------------------------------------------------------ several tabs


def test_two_tabs_interleaving_lose_no_entry_and_converge():
    async def scenario():
        _, a, b = await two_tabs()
        for i in range(30):
            await a.write_file(f"/shared/a{i}", f"a{i}")
            await b.write_file(f"/shared/b{i}", f"b{i}")
            await (a if i % 2 else b).write_file("/shared/both", f"{i}")
            await b.append_file("/shared/log", f"b{i};")
            await a.append_file("/shared/log", f"a{i};")
        await a.sync()
        await b.sync()
        assert tree(a) == tree(b)
        assert len(a.readdir("/shared")) == 62
        log = (await a.read_file("/shared/log")).decode()
        assert log == "".join(f"b{i};a{i};" for i in range(30))
        assert await b.read_file("/shared/both") == b"29"

    run(scenario())


def test_an_error_from_a_stale_view_is_checked_against_the_disk_first():
    async def scenario():
        _, a, b = await two_tabs()
        await a.mkdir("/m")
        await b.mkdir("/m/n", recursive=True)  # b has not seen /m: it catches up, no EEXIST
        await a.rm("/m", recursive=True)
        await b.write_file("/m/n/f", "x")  # b's /m is gone on disk: parents are created again
        await a.sync()
        assert a.readdir("/m/n") == ["f"]

    run(scenario())


def test_a_tab_further_behind_than_the_log_reloads_and_still_gets_events(monkeypatch):
    monkeypatch.setattr("py_vfs.storage.memory.LOG_KEEP", 3)

    async def scenario():
        _, a, b = await two_tabs()
        await b.write_file("/old", "o")
        await a.sync()
        seen = events_of(a)
        for i in range(6):
            await b.write_file(f"/f{i}", str(i))
        await b.unlink("/old")
        assert await a.sync()
        assert tree(a) == tree(b)
        assert ("create", "/f5") in [(e["type"], e["path"]) for e in seen]
        assert ("delete", "/old") in [(e["type"], e["path"]) for e in seen]

    run(scenario())
    assert LOG_KEEP >= 100


def test_shared_chunks_are_not_lost_when_one_tab_deletes_what_another_copies():
    async def scenario():
        store, a, b = await two_tabs()
        same = b"same bytes" * 300  # one chunk: larger than INLINE_MAX
        await a.write_file("/src", same)
        await b.copy_file("/src", "/copy")
        await a.unlink("/src")  # a must see b's copy before dropping the last reference it knows
        assert await a.read_file("/copy") == same
        assert len(store.spaces["chunks"]) == 1

    run(scenario())


class RacingStore(MemoryStore):
    """A disk without a cross-process lock: another writer commits while a chunk is being read,
    as a second CPython process on one SQLite file can."""

    def __init__(self) -> None:
        super().__init__()
        self.interleave: list = []  # coroutine functions, one run before each chunk read

    async def get(self, space: str, key: str) -> object | None:
        if space == "chunks" and self.interleave:
            await self.interleave.pop(0)()
        return await super().get(space, key)


def test_an_error_from_a_chunk_another_writer_just_replaced_is_retried_not_reported():
    async def scenario():
        # Without history: the journal would keep the replaced chunk, and nothing would fail.
        store, a, b = await two_tabs(RacingStore(), retention=Retention(0, 0))
        base = "a" * (INLINE_MAX + 1)  # chunked, so that each append reads its last chunk
        await a.write_file("/shared", base)
        await b.sync()
        await b.append_file("/shared", "b")  # a's view of /shared is now stale
        # Each of a's next two reads finds its chunk already replaced by one more append of b.
        store.interleave = [lambda: b.append_file("/shared", "d"),
                            lambda: b.append_file("/shared", "e")]
        await a.append_file("/shared", "c")
        assert not store.interleave
        assert await a.read_file("/shared") == (base + "bdec").encode()
        await b.sync()
        assert await b.read_file("/shared") == (base + "bdec").encode()

    run(scenario())


def test_two_vfs_on_one_sqlite_file_keep_each_others_entries(tmp_path):
    disk = tmp_path / "disk.db"

    async def scenario():
        a = await VFS.open(SQLiteStore(disk))
        b = await VFS.open(SQLiteStore(disk))
        for i in range(10):
            await a.write_file(f"/d/a{i}", "a")
            await b.write_file(f"/d/b{i}", "b")
        await a.sync()
        assert len(a.readdir("/d")) == 20
        a.close()
        b.close()
        again = await VFS.open(SQLiteStore(disk))
        assert len(again.readdir("/d")) == 20
        assert again.revision == 21  # the root, then one commit per write
        again.close()

    run(scenario())


@pytest.mark.skipif(sys.platform == "emscripten", reason="Emscripten (Pyodide) has no processes")
def test_two_processes_writing_one_sqlite_file_concurrently_lose_nothing(tmp_path):
    disk = tmp_path / "disk.db"
    run(VFS.open(SQLiteStore(disk))).close()
    writer = textwrap.dedent("""
        import asyncio, sys
        from py_vfs import VFS
        from py_vfs.storage.sqlite import SQLiteStore
        async def main(tag):
            vfs = await VFS.open(SQLiteStore(sys.argv[1]))
            for i in range(60):
                await vfs.write_file(f"/p/{tag}{i}", tag)
                await vfs.append_file("/p/shared", tag)
        asyncio.run(main(sys.argv[2]))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", writer, str(disk), tag]) for tag in "xy"]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]

    async def check():
        vfs = await VFS.open(SQLiteStore(disk))
        assert len(vfs.readdir("/p")) == 121
        shared = (await vfs.read_file("/p/shared")).decode()
        assert sorted(shared) == sorted("x" * 60 + "y" * 60)
        vfs.close()

    run(check())


@pytest.mark.skipif(aio.stepping_wanted(), reason="needs a real event loop")
def test_concurrent_tasks_on_two_tabs_with_a_slow_store_converge():
    class SlowStore(MemoryStore):
        async def commit_logged(self, base, ops, entry):
            await asyncio.sleep(0)  # let the other tab run between check and... nothing: atomic
            return await super().commit_logged(base, ops, entry)

    async def scenario():
        _, a, b = await two_tabs(SlowStore())

        async def writer(vfs, tag):
            for i in range(40):
                await vfs.write_file(f"/c/{tag}{i}", tag)
                await vfs.append_file("/c/shared", tag)

        await asyncio.gather(writer(a, "a"), writer(b, "b"))
        await a.sync()
        await b.sync()
        assert tree(a) == tree(b)
        assert len(a.readdir("/c")) == 81
        assert sorted((await a.read_file("/c/shared")).decode()) == sorted("a" * 40 + "b" * 40)

    run(scenario())
