"""Writers and the journal: who made each change, the durable history, its retention, and what
the journal's chunks cost (py_vfs/disk/writers.py, py_vfs/disk/journal.py)."""

import time
from asyncio import run

import pytest
from helpers import QuotaStore

from py_vfs.core.errors import FsError
from py_vfs.disk.journal import Retention
from py_vfs.storage.memory import MemoryStore
from py_vfs.storage.sqlite import SQLiteStore
from py_vfs.vfs import VFS

BIG = b"b" * 3000  # chunked (larger than INLINE_MAX)


def tick() -> None:
    """Let the clock move on a millisecond or two (Pyodide's is coarse): entries written on
    either side then have different times."""
    start = time.time()
    while time.time() - start < 0.002:
        pass


def writer_of(vfs: VFS, path: str) -> str | None:
    node, _ = vfs.resolver.lookup(path, "stat")
    return node.writer


def test_every_change_records_its_writer_on_the_node_and_in_the_journal():
    async def scenario():
        vfs = VFS.memory()
        agent = vfs.as_writer("agent:planner")
        await vfs.write_file("/mine.txt", b"user's")
        await agent.write_file("/theirs.txt", BIG)
        await agent.mkdir("/d")
        await agent.rename("/theirs.txt", "/d/theirs.txt")
        await vfs.chmod("/d/theirs.txt", 0o600)
        assert writer_of(vfs, "/mine.txt") == "user"
        assert writer_of(vfs, "/d") == "agent:planner"
        assert writer_of(vfs, "/d/theirs.txt") == "user"  # the chmod is the last change
        entries = await vfs.journal()
        assert [(e["writer"], e["operation"]) for e in entries] == [
            ("user", "chmod"), ("agent:planner", "rename"), ("agent:planner", "mkdir"),
            ("agent:planner", "writeFile"), ("user", "writeFile")]
        assert entries[1]["paths"][:2] == ["/theirs.txt", "/d/theirs.txt"]
        assert [e["revision"] for e in entries] == list(range(vfs.revision, vfs.revision - 5,
                                                              -1))

    run(scenario())


def test_a_step_is_one_entry_by_its_writer_listing_its_operations():
    async def scenario():
        vfs = VFS.memory(writer="tab:1")
        async with vfs.as_writer("agent:x").step() as tx:
            await tx.mkdir("/p")
            await tx.write_file("/p/a", b"a")
            await tx.symlink("a", "/p/l")
        [entry] = await vfs.journal(limit=1)
        assert (entry["writer"], entry["operation"]) == ("agent:x", "step")
        assert entry["operations"] == ["mkdir", "writeFile", "symlink"]
        assert set(entry["paths"]) >= {"/p", "/p/a", "/p/l"}
        assert {writer_of(vfs, p) for p in ("/p", "/p/a", "/p/l")} == {"agent:x"}
        await vfs.write_file("/q", b"q")
        assert writer_of(vfs, "/q") == "tab:1"  # the VFS's own default

    run(scenario())


def test_a_stream_writes_as_the_writer_that_opened_it():
    async def scenario():
        vfs = VFS.memory()
        stream = vfs.as_writer("agent:s").stream_writer("/s.bin")
        await stream.write(BIG * 300)
        await stream.close()
        assert writer_of(vfs, "/s.bin") == "agent:s"
        assert (await vfs.journal(limit=1))[0]["writer"] == "agent:s"

    run(scenario())


def test_writer_names_are_checked():
    vfs = VFS.memory()
    for bad in ("", " x", "a\nb", "x" * 65, None):
        with pytest.raises(FsError) as info:
            vfs.as_writer(bad)
        assert info.value.code == "EINVAL"


def test_the_journal_filters_by_time_writer_path_and_limit():
    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/src/a.py", b"1")
        tick()
        await vfs.as_writer("agent").write_file("/src/b.py", b"2")
        middle = (await vfs.journal(limit=1))[0]["timeMs"]
        tick()
        await vfs.write_file("/docs/x.md", b"3")
        assert ["/src/b.py" in e["paths"] or "/src/a.py" in e["paths"]
                for e in await vfs.journal(path="/src")] == [True, True]
        assert [e["writer"] for e in await vfs.journal(writer="agent")] == ["agent"]
        assert len(await vfs.journal(since=middle)) == 2
        assert len(await vfs.journal(until=middle)) == 2
        assert len(await vfs.journal(limit=1)) == 1
        assert await vfs.journal(since="2999-01-01") == []
        for bad in ({"limit": -1}, {"limit": 10**6}, {"since": "yesterday"}):
            with pytest.raises(FsError) as info:
                await vfs.journal(**bad)
            assert info.value.code == "EINVAL"

    run(scenario())


def test_the_journal_keeps_more_than_the_tabs_need_and_survives_a_reopen(tmp_path):
    async def scenario():
        vfs = await VFS.open(SQLiteStore(tmp_path / "d.db"))
        for i in range(1100):
            await vfs.write_file("/n", str(i))
        vfs.close()
        again = await VFS.open(SQLiteStore(tmp_path / "d.db"))
        entries = await again.journal(limit=10_000)
        assert len(entries) == 1101  # the root's creation, and every write
        assert (await again.read_file("/n")) == b"1099"
        assert (await again.check()).ok
        again.close()

    run(scenario())


def test_retention_trims_old_entries_and_the_chunks_only_they_held():
    async def scenario():
        vfs = VFS.memory(retention=Retention(days=0, entries=5))
        for i in range(30):
            await vfs.write_file("/f", bytes([i]) * 3000)
        # Each kept write's revision, from the journal: a trim may commit between a write's
        # answer and a read of vfs.revision (it failed so once in Pyodide).
        writes = sorted(e["revision"] for e in await vfs.journal()
                        if e["operation"] == "writeFile")
        at = {revision: 30 - len(writes) + n for n, revision in enumerate(writes)}
        oldest = min(vfs.store.spaces["log"])
        assert vfs.revision - oldest < 10
        assert any(e["operation"] == "trim" for e in await vfs.journal())
        # Only the chunks of the kept revisions remain stored.
        assert len(vfs.store.spaces["chunks"]) <= 10
        assert (await vfs.check()).ok
        with pytest.raises(FsError) as info:
            await vfs.restore(revision=2)
        assert info.value.code == "EINVAL"
        last = max(at)
        await vfs.restore(revision=last - 2)
        then = at[max(r for r in at if r <= last - 2)]  # trims fall between the writes
        assert await vfs.read_file("/f") == bytes([then]) * 3000

    run(scenario())


def test_retention_keeps_whichever_is_larger_days_or_entries():
    async def scenario():
        vfs = VFS.memory(retention=Retention(days=30, entries=5))
        for i in range(30):
            await vfs.write_file("/f", bytes([i]) * 3000)
        assert min(vfs.store.spaces["log"]) == 1  # every entry is younger than 30 days
        await vfs.restore(revision=1)
        assert await vfs.read_file("/f") == bytes([0]) * 3000

    run(scenario())


def test_history_off_deletes_chunks_at_once():
    async def scenario():
        vfs = VFS.memory(retention=Retention(days=0, entries=0))
        await vfs.write_file("/f", BIG)
        await vfs.write_file("/f", BIG + b"!")
        assert len(vfs.store.spaces["chunks"]) == 1

    run(scenario())


def test_a_full_store_trims_history_before_refusing_a_write():
    async def scenario():
        vfs = await VFS.open(QuotaStore(room=400_000))
        for i in range(40):  # each version 60 KB: history alone soon fills the room
            await vfs.write_file("/f", bytes([i]) * 60_000)
        assert await vfs.read_file("/f") == bytes([39]) * 60_000
        trims = [e for e in await vfs.journal(limit=1000) if e["operation"] == "trim"]
        assert trims, "history should have been trimmed for room"
        assert {(e["writer"], e["reason"]) for e in trims} == {("py_vfs", "quota")}
        assert (await vfs.check()).ok
        usage = await vfs.usage()
        assert usage.history_bytes < 400_000
        # usage() tells that history was cut for room, and from where it goes on.
        last = trims[0]
        assert usage.history_trimmed["reason"] == "quota"
        assert usage.history_trimmed["revisions"] == last["trimmed"]
        assert usage.history_since == last["trimmed"][1] + 1
        # With nothing left to trim, a write too large for the room is ENOSPC, and changes
        # nothing.
        with pytest.raises(FsError) as info:
            await vfs.write_file("/huge", b"h" * 500_000)
        assert info.value.code == "ENOSPC"
        assert not vfs.exists("/huge")

    run(scenario())


def test_a_step_too_large_for_the_store_is_enospc_and_writes_nothing():
    # Each refusal lets the journal trim (a trim entry of its own, which frees next to
    # nothing here), so the step is tried again and again: it ends in ENOSPC, not EAGAIN.
    async def scenario():
        vfs = await VFS.open(QuotaStore(room=400_000))
        for i in range(4):
            await vfs.write_file(f"/small{i}", bytes([i]) * 10_000)

        with pytest.raises(FsError) as info:
            async with vfs.step() as tx:
                await tx.mkdir("/upload")
                for i in range(8):
                    await tx.write_file(f"/upload/f{i}", bytes([i]) * 60_000)
        assert info.value.code == "ENOSPC"
        assert not vfs.exists("/upload")
        assert (await vfs.check()).ok

    run(scenario())


def test_another_tab_restores_a_chunk_this_tab_let_go_of():
    async def scenario():
        store = MemoryStore()
        one = await VFS.open(store)
        two = await VFS.open(store)
        await one.write_file("/f", BIG)
        revision = one.revision
        await one.write_file("/f", BIG + b"more")
        await two.restore(revision=revision)
        await one.sync()
        assert await one.read_file("/f") == BIG
        assert (await two.check()).ok

    run(scenario())


def test_usage_trim_and_gc_read_the_markers_not_the_snapshots():
    """``meta`` holds the journal's held markers and every snapshot's records (megabytes for a
    big tree): usage, trimming and garbage collection read the markers by prefix and never the
    whole keyspace."""
    async def scenario():
        store = MemoryStore()
        vfs = await VFS.open(store, retention=Retention(days=0, entries=1))
        for n in range(5):
            await vfs.write_file(f"/f{n}", f"content {n}")
        await vfs.snapshot("s")
        await vfs.write_file("/f0", "changed")
        store.reads.clear()
        await vfs.usage()
        await vfs.gc(grace_ms=0)
        await vfs.engine.run(vfs.history.trim_change(vfs.engine.revision - 1), "trim")
        return store.reads

    reads = run(scenario())
    assert ("meta", None) not in reads, reads
    assert ("meta", "held:*") in reads, reads
