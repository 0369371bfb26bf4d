"""The writes of one message run together (py_vfs/web/write_runs.py, ``WebAPI.call_many``):
each call keeps its own outcome, writer, request id and place in the order of effects, and a
full store frees room for them as it does for one write."""

from __future__ import annotations

import asyncio
from typing import Any

import aio
import pytest
from helpers import QuotaStore

from py_vfs.vfs import VFS
from py_vfs.web.webapi import WebAPI

pytestmark = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="WebAPI.call_many's Tasks need a real event loop")


class LatentStore(QuotaStore):
    """A store with a quota (``room`` bytes of chunks and journal) whose commits take a turn
    of the event loop, as real I/O does; it counts them and keeps each one's operations."""

    def __init__(self, room: int = 1 << 40) -> None:
        super().__init__(room)
        self.commits = 0
        self.logged: list[list[Any]] = []

    async def commit_logged(self, base: int, ops: list[Any], entry: str) -> int | None:
        self.logged.append(list(ops))
        await asyncio.sleep(0)
        rev = await super().commit_logged(base, ops, entry)
        self.commits += 1
        return rev


Call = tuple[str, list[Any], str | None, str | None]


async def many(api: WebAPI, calls: list[Call]) -> list[dict[str, Any]]:
    """Every call's envelope, in the calls' order, once all have ended."""
    ended: dict[int, dict[str, Any]] = {}
    done = asyncio.get_running_loop().create_future()

    def out_of(at: int) -> Any:
        def out(envelope: dict[str, Any]) -> None:
            assert at not in ended, "one answer per call"
            ended[at] = envelope
            if len(ended) == len(calls) and not done.done():
                done.set_result(None)
        return out

    answers = api.call_many([(op, args, writer, request, out_of(at))
                             for at, (op, args, writer, request) in enumerate(calls)])
    for at, envelope in enumerate(answers):
        if envelope is not None:
            out_of(at)(envelope)
    await asyncio.wait_for(done, 10)
    return [ended[at] for at in range(len(calls))]


def write(path: str, data: Any, options: Any = None, writer: str | None = None,
          request: str | None = None) -> Call:
    return ("writeFile", [path, data] + ([options] if options is not None else []), writer,
            request)


def test_each_write_of_a_run_has_its_own_outcome_and_a_failure_changes_nothing():
    async def scenario() -> None:
        store = LatentStore()
        api = WebAPI(await VFS.open(store))
        vfs = api.vfs
        await vfs.mkdir("/d")
        await vfs.write_file("/file", b"a file")
        commits = store.commits
        calls = [write(f"/d/f{i}", f"v{i}") for i in range(50)]
        calls[10] = write("/file/x", "x")  # ENOTDIR: its folder is a file
        calls[20] = write("/missing/x", "x")  # ENOENT: writeFile makes no folders
        calls[30] = write("/d/f30", 7)  # EINVAL: answered before anything runs
        calls[40] = write("/file", "no", {"flag": "wx"})  # EEXIST, by the flag's own rule
        calls[45] = write("/d/f45", b"\x00\xff", {"mode": 0o600})
        calls[46] = write("/d/f46", "aGk=", {"encoding": "base64"})
        ends = await many(api, calls)
        assert ends[10]["error"]["code"] == "ENOTDIR"
        assert ends[20]["error"]["code"] == "ENOENT"
        assert ends[30]["error"]["code"] == "EINVAL"
        assert ends[40]["error"]["code"] == "EEXIST"
        failed = {10, 20, 30, 40}
        assert all(end == {"value": None} for at, end in enumerate(ends) if at not in failed)
        assert await vfs.read_file("/file") == b"a file"
        assert not vfs.exists("/missing") and not vfs.exists("/d/f30")
        assert await vfs.read_file("/d/f0", "utf-8") == "v0"
        assert await vfs.read_file("/d/f45") == b"\x00\xff"
        assert vfs.stat("/d/f45").mode & 0o777 == 0o600
        assert await vfs.read_file("/d/f46") == b"hi"
        assert len(vfs.readdir("/d")) == 46  # f10, f20, f30 and f40 were not written there
        assert store.commits - commits <= 4, "the writes in flight share commits"
        assert (await vfs.check()).ok

    asyncio.run(scenario())


def test_the_changes_of_a_message_take_effect_in_the_order_of_its_calls():
    async def scenario() -> None:
        api = WebAPI(await VFS.open(LatentStore()))
        vfs = api.vfs
        ends = await many(api, [
            write("/a", "1"), write("/b", "1"), write("/a", "2"),
            ("rename", ["/a", "/c"], None, None),
            write("/a", "3"), write("/b", "2"),
        ])
        assert ends == [{"value": None}] * 6
        assert [await vfs.read_file(p, "utf-8") for p in ("/a", "/b", "/c")] == ["3", "2", "2"]

    asyncio.run(scenario())


def test_a_run_keeps_each_call_s_writer_and_request_id():
    async def scenario() -> None:
        api = WebAPI(await VFS.open(LatentStore()))
        vfs = api.vfs
        before = vfs.revision
        ends = await many(api, [
            write("/u1", "x", request="page:1"), write("/u2", "x", request="page:2"),
            write("/a1", "x", writer="agent:run", request="page:3"),
            write("/a2", "x", writer="agent:run"),
            write("/u3", "x", request="page:5"),
            write("/bad", "x", writer=" agent", request="page:6"),  # EINVAL: a space first
            write("/u4", "x", request=""),  # EINVAL: a request id is never empty
        ])
        assert [end.get("value", end.get("error", {}).get("code")) for end in ends] == \
            [None, None, None, None, None, "EINVAL", "EINVAL"]
        rows = (await vfs.query("SELECT path, writer FROM files ORDER BY path")).rows
        assert [tuple(row) for row in rows] == [
            ("/a1", "agent:run"), ("/a2", "agent:run"), ("/u1", "user"), ("/u2", "user"),
            ("/u3", "user")]
        entries = [entry async for revision, entry in vfs.history.entries_back()
                   if revision > before]
        listed = sorted(request for entry in entries for request in entry.get("requests", ()))
        assert listed == ["page:1", "page:2", "page:3", "page:5"]
        assert {entry["writer"] for entry in entries} == {"user", "agent:run"}

    asyncio.run(scenario())


def test_a_full_store_frees_room_for_a_run_and_refuses_only_what_cannot_fit():
    async def scenario() -> None:
        api = WebAPI(await VFS.open(LatentStore(room=600_000)))
        vfs = api.vfs
        for i in range(8):  # history fills most of the room
            await vfs.write_file("/old", bytes([i]) * 60_000)
        ends = await many(api, [write(f"/n{i}", bytes([i]) * 30_000) for i in range(4)]
                          + [write("/huge", b"h" * 700_000)])
        assert [end.get("value", end.get("error", {}).get("code")) for end in ends] == \
            [None, None, None, None, "ENOSPC"]
        assert [await vfs.read_file(f"/n{i}") for i in range(4)] == \
            [bytes([i]) * 30_000 for i in range(4)]
        assert not vfs.exists("/huge")
        trims = [e for e in await vfs.journal(limit=1000) if e["operation"] == "trim"]
        assert trims, "history was trimmed for the run's room"
        assert (await vfs.check()).ok

    asyncio.run(scenario())


def test_the_writes_of_one_commit_carry_one_time_and_their_folder_is_stored_once():
    async def scenario() -> None:
        store = LatentStore()
        api = WebAPI(await VFS.open(store))
        vfs = api.vfs
        await vfs.mkdir("/d")
        folder = vfs.stat("/d")
        await asyncio.sleep(0.002)  # a clock of millisecond steps (Pyodide's) has moved on
        calls = [write(f"/d/f{i}", f"v{i}") for i in range(40)]
        calls[7] = write("/d/f7/x", "x")  # ENOENT: its own failure undoes only itself
        commits = len(store.logged)
        ends = await many(api, calls)
        assert [at for at, end in enumerate(ends) if "error" in end] == [7]
        group = store.logged[commits:]
        assert len(group) == 1, "the run is one commit"
        folder_id = vfs.resolver.resolve("/d", "stat").node.id
        puts = [op for op in group[0] if op[0] == "put" and op[1] == "nodes"]
        assert sum(op[2] == folder_id for op in puts) == 1
        times = {vfs.stat(f"/d/f{i}").mtime_ms for i in range(40) if i != 7}
        assert len(times) == 1, "one commit, one time"
        after = vfs.stat("/d")
        assert after.mtime_ms == after.ctime_ms == times.pop() > folder.mtime_ms
        await asyncio.sleep(0.002)
        await vfs.write_file("/d/later", "x")  # a later commit has a later time
        assert vfs.stat("/d").mtime_ms > after.mtime_ms
        assert vfs.stat("/d/later").mtime_ms == vfs.stat("/d").mtime_ms
        assert (await vfs.check()).ok

    asyncio.run(scenario())


def test_a_read_made_again_in_a_message_is_answered_once_unless_a_change_came_between():
    async def scenario() -> None:
        api = WebAPI(await VFS.open(LatentStore()))
        vfs = api.vfs
        await vfs.mkdir("/d")
        await vfs.write_file("/d/f", "x")
        counted = {"lstat": 0, "scandir": 0}

        def counting(name: str) -> Any:
            real = getattr(vfs, name)

            def call(*args: Any) -> Any:
                counted[name] += 1
                return real(*args)
            return call

        for name in counted:
            setattr(vfs, name, counting(name))
        listed = ("readdirStats", ["/d"], None, None)
        ends = await many(api, [
            ("lstat", ["/d/f"], None, None), ("lstat", ["/d/f"], None, None), listed, listed,
            ("readFile", ["/d/f", "utf8"], None, None), listed,  # a read changes nothing
            ("lstat", ["/d/f"], "agent:a", None),  # another writer's read is its own
            ("lstat", ["/d/g"], None, None), write("/d/g", "y"), ("lstat", ["/d/g"], None, None),
            listed, ("rename", ["/d/f", "/d/h"], None, None), ("lstat", ["/d/f"], None, None),
            ("readdirStats", ["/d", {"siblings": True}], None, None),
            ("readdirStats", ["/d", {"siblings": 1}], None, None),
        ])
        assert ends[0] is ends[1] and ends[0]["value"]["size"] == 1
        assert ends[2] is ends[3] is ends[5]
        assert ends[4] == {"value": "x"}
        assert ends[6]["value"]["size"] == 1
        assert ends[7]["error"]["code"] == "ENOENT"
        # A change in flight may or may not be applied when a later call of the message runs
        # (as before: calls in flight are concurrent), but the read after it is made again.
        assert ends[14]["error"]["code"] == "EINVAL", "an option of another type is another read"
        # lstat: /d/f, the other writer's, /d/g before and after the write, /d/f after the
        # rename; listings: /d, again after the write, and with its siblings (/d's and its
        # parent's, where they are looked for).
        assert counted == {"lstat": 5, "scandir": 4}

    asyncio.run(scenario())
