"""Group commit: writes in flight together share one store commit, each keeping its own fate."""

from __future__ import annotations

import asyncio

import aio
import pytest

from py_vfs import VFS, FsError
from py_vfs.storage.memory import MemoryStore
from py_vfs.storage.transaction import Op

pytestmark = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="writes in flight together need a real event loop")


class LatentStore(MemoryStore):
    """A memory store whose commits take a turn of the event loop, as any real I/O does, and
    that refuses (ENOSPC) a commit holding a chunk larger than ``room``."""

    def __init__(self, room: int = 1 << 30) -> None:
        super().__init__()
        self.batches: list[list[Op]] = []
        self.room = room

    async def commit(self, ops: list[Op]) -> None:
        await asyncio.sleep(0)
        if any(space == "chunks" and value is not None and len(value) > self.room
               for _, space, _, value in ops):
            raise FsError.of("ENOSPC", "write", None)
        self.batches.append(ops)
        await super().commit(ops)


def writes_in_flight(store: LatentStore, names: list[str], sizes: dict[str, int] | None = None):
    async def scenario():
        vfs = await VFS.open(store)
        store.batches.clear()
        sizes_ = sizes or {}
        outcomes = await asyncio.gather(
            *(vfs.write_file(name, b"x" * sizes_.get(name, 3)) for name in names),
            return_exceptions=True)
        return vfs, outcomes

    return asyncio.run(scenario())


def test_a_thousand_writes_in_flight_take_a_few_commits():
    store = LatentStore()
    names = [f"/d{i % 10}/f{i}" for i in range(1000)]
    _, outcomes = writes_in_flight(store, names)
    assert outcomes == [None] * 1000
    assert len(store.batches) <= 3
    # Each write is in the store (durable), not only in memory.
    reopened = asyncio.run(VFS.open(store))
    assert sorted(reopened.walk("/")) == sorted(names)


class TurnCountingStore(LatentStore):
    """A latent store with a cross-tab writer lock that counts the turns taken."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0
        self._held = asyncio.Lock()

    async def lock(self):
        await self._held.acquire()
        await asyncio.sleep(0)  # granted a turn of the loop later, as a Web Lock is
        self.turns += 1
        return self._held.release


def test_writes_in_flight_wait_for_the_leading_writer_instead_of_each_taking_a_turn():
    # One caller waits for the turn and commits what is queued; the others follow its round
    # rather than each taking the lock (a crossing into JS and a Web Lock turn in the browser).
    store = TurnCountingStore()
    names = [f"/d{i % 10}/f{i}" for i in range(200)]
    _, outcomes = writes_in_flight(store, names)
    assert outcomes == [None] * 200
    assert store.turns <= 3
    reopened = asyncio.run(VFS.open(store))
    assert sorted(reopened.walk("/")) == sorted(names)


def test_a_failing_write_in_a_group_fails_alone():
    store = LatentStore()
    names = ["/a", "/a/inside", "/b"]  # /a/inside: /a is a file
    vfs, outcomes = writes_in_flight(store, names)
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], FsError) and outcomes[1].code == "ENOTDIR"
    assert vfs.walk("/") == ["/a", "/b"]


def test_a_group_the_store_refuses_is_retried_one_by_one():
    store = LatentStore(room=100)
    names = ["/small1", "/big", "/small2"]
    _, outcomes = writes_in_flight(store, names, {"/big": 3000})  # a chunk: > INLINE_MAX
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], FsError) and outcomes[1].code == "ENOSPC"
    reopened = asyncio.run(VFS.open(store))
    assert reopened.walk("/") == ["/small1", "/small2"]


def test_order_of_calls_is_the_order_of_effects():
    store = LatentStore()

    async def scenario():
        vfs = await VFS.open(store)
        await asyncio.gather(vfs.write_file("/f", "1"), vfs.write_file("/f", "2"),
                             vfs.rename("/f", "/g"), vfs.write_file("/f", "3"))
        return await vfs.read_file("/g"), await vfs.read_file("/f")

    assert asyncio.run(scenario()) == (b"2", b"3")


def test_writers_never_share_a_commit():
    """Group commit groups one writer's changes only: every journal entry has one writer."""
    async def scenario():
        vfs = await VFS.open(LatentStore())
        a, b = vfs.as_writer("a"), vfs.as_writer("b")
        await asyncio.gather(*(w.write_file(f"/{w.writer}{i}", b"x")
                               for w in (a, b) for i in range(10)))
        entries = await vfs.journal()
        assert len(entries) < 20  # a writer's writes did share commits
        for entry in entries:
            names = {p[1] for p in entry["paths"] if p != "/"}
            assert names <= {entry["writer"]}
        for w in "ab":
            for i in range(10):
                node, _ = vfs.resolver.lookup(f"/{w}{i}", "stat")
                assert node.writer == w

    asyncio.run(scenario())


def test_followers_wake_once_each(monkeypatch):
    # A follower sleeps until its change is settled (or it must lead the next round), not
    # until every round ends: a wake is a task step, which Pyodide pays dearly for.
    from py_vfs.disk.group_commit import GroupCommit

    follows = 0
    follow = GroupCommit.follow

    async def counted(self, own):
        nonlocal follows
        follows += 1
        await follow(self, own)

    monkeypatch.setattr(GroupCommit, "follow", counted)
    store = LatentStore()
    names = [f"/d{i % 10}/f{i}" for i in range(300)]
    _, outcomes = writes_in_flight(store, names)
    assert outcomes == [None] * 300
    assert len(store.batches) <= 3
    assert follows <= len(names) + 2  # was two per follower: one per round it saw end


@pytest.mark.parametrize("cancelled", [0, 1, 5])
def test_a_cancelled_caller_strands_no_follower(cancelled):
    # Caller 0 leads the first round; 1 is the first follower, the one woken to lead the next.
    # Whichever is cancelled, the others still commit (a cancelled caller's own change may or
    # may not have been committed, as before).
    store = LatentStore()

    async def scenario():
        vfs = await VFS.open(store)
        tasks = [asyncio.ensure_future(vfs.write_file(f"/f{i}", b"x")) for i in range(8)]
        for _ in range(3):
            await asyncio.sleep(0)
        tasks[cancelled].cancel()
        done = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
        return vfs, done

    vfs, outcomes = asyncio.run(scenario())
    assert [o for i, o in enumerate(outcomes) if i != cancelled] == [None] * 7
    present = set(vfs.walk("/"))
    assert {f"/f{i}" for i in range(8) if i != cancelled} <= present


def test_a_follower_cancelled_just_as_it_was_woken_to_lead_passes_the_lead_on(monkeypatch):
    # The round's end wakes one follower only, to lead the next: should its caller be cancelled
    # before it runs, the next follower leads instead of every one sleeping forever.
    from py_vfs.disk.group_commit import GroupCommit

    tasks: dict[int, asyncio.Task] = {}
    follow, next_leader = GroupCommit.follow, GroupCommit.next_leader
    cancelled: list[int] = []

    def recording(self, own):
        tasks[id(own)] = asyncio.current_task()
        return follow(self, own)

    def then_cancel(self):
        next_leader(self)
        woken = [w for w in self._queue if w.wake is not None and w.wake.done()]
        if woken and not cancelled:
            cancelled.append(id(woken[0]))
            tasks[id(woken[0])].cancel()

    monkeypatch.setattr(GroupCommit, "follow", recording)
    monkeypatch.setattr(GroupCommit, "next_leader", then_cancel)

    async def scenario():
        vfs = await VFS.open(LatentStore())
        writes = [asyncio.ensure_future(vfs.write_file(f"/f{i}", b"x")) for i in range(6)]
        outcomes = await asyncio.wait_for(asyncio.gather(*writes, return_exceptions=True), 10)
        return vfs, outcomes

    vfs, outcomes = asyncio.run(scenario())
    assert len(cancelled) == 1
    assert sum(isinstance(o, asyncio.CancelledError) for o in outcomes) == 1
    assert outcomes.count(None) == 5
    assert len(vfs.walk("/")) >= 5
