"""Request ids: each call that may change the disk carries one (the call envelope's ``request``),
the journal entry of the commit that carries its changes records it (``requests``), and a call
sent again after its host went (``retry``) is answered as applied when the journal has its id,
else run (py_vfs/web/retries.py, ``Journal.find_request``); on CPython (the e2e tier fails a
real host over: tests/e2e/test_shared_runtime.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aio
import pytest

from py_vfs.disk.journal import Retention
from py_vfs.storage.memory import MemoryStore
from py_vfs.storage.transaction import REQUEST
from py_vfs.vfs import VFS
from py_vfs.web.protocol import BY_NAME
from py_vfs.web.retries import MARGIN_MS
from py_vfs.web.webapi import WebAPI

pytestmark = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="WebAPI.call's Tasks need a real event loop; "
                                       "tests/pyodide/journal.test.mjs covers Pyodide, "
                                       "tests/e2e/test_shared_runtime.py the worker")
RUNNER = asyncio.Runner()


def call(api: WebAPI, op: str, args: list[Any], request: str | None = None,
         retry: float | None = None) -> dict[str, Any]:
    """The envelope of one call, on the tests' one event loop."""
    async def settle() -> dict[str, Any]:
        result = api.call(op, args, request=request, retry=retry)
        return result if isinstance(result, dict) else await result
    return RUNNER.run(settle())


def entries(vfs: VFS) -> list[dict[str, Any]]:
    """The journal's raw entries, newest first."""
    async def read() -> list[dict[str, Any]]:
        return [entry async for _, entry in vfs.history.entries_back()]
    return RUNNER.run(read())


def now_ms() -> float:
    return time.time() * 1000.0


class LatentStore(MemoryStore):
    """A memory store whose commits take a turn of the event loop, as real I/O does: writes in
    flight together then share a commit (py_vfs/disk/group_commit.py)."""

    async def commit(self, ops: list[Any]) -> None:
        await asyncio.sleep(0)
        await super().commit(ops)


def test_a_commit_records_the_request_ids_of_the_calls_it_carries():
    api = WebAPI(VFS.memory())
    call(api, "mkdir", ["/d"], request="page:1")
    call(api, "writeFile", ["/d/a", "a"])  # no request id: none recorded
    call(api, "rename", ["/d/a", "/d/b"], request="page:2")
    assert call(api, "unlink", ["/nothing"], request="page:3")["error"]["code"] == "ENOENT"
    newest = entries(api.vfs)[:3]
    assert [entry.get("requests") for entry in newest] == [["page:2"], None, ["page:1"]]


def test_a_group_commit_lists_every_member_that_succeeded_and_not_the_one_that_failed():
    async def scenario() -> list[dict[str, Any]]:
        vfs = await VFS.open(LatentStore())
        await vfs.write_file("/file", b"x")
        before = vfs.revision

        async def write(path: str, request: str) -> None:
            token = REQUEST.set(request)
            try:
                await vfs.write_file(path, b"y")
            finally:
                REQUEST.reset(token)

        outcomes = await asyncio.gather(*(write(f"/w{i}", f"page:{i}") for i in range(20)),
                                        write("/file/x", "page:bad"), return_exceptions=True)
        assert outcomes[-1].code == "ENOTDIR" and outcomes[:-1] == [None] * 20
        found = [entry async for revision, entry in vfs.history.entries_back()
                 if revision > before]
        return found

    found = asyncio.run(scenario())
    assert len(found) < 20  # grouped
    listed = [request for entry in found for request in entry.get("requests", ())]
    assert sorted(listed) == sorted(f"page:{i}" for i in range(20))


def test_find_request_answers_the_revision_none_found_or_cannot_tell():
    api = WebAPI(VFS.memory())
    start = now_ms()
    call(api, "writeFile", ["/a", "1"], request="page:1")
    revision = api.vfs.revision
    call(api, "writeFile", ["/b", "2"], request="page:2")
    history = api.vfs.history
    assert RUNNER.run(history.find_request("page:1", start - MARGIN_MS)) == revision
    # The whole journal read (it starts at revision 1): not committed.
    assert RUNNER.run(history.find_request("page:9", 0.0)) == 0
    # An entry older than the time asked ends the scan.
    time.sleep(0.005)
    later = now_ms()
    call(api, "writeFile", ["/c", "3"])
    assert RUNNER.run(history.find_request("page:1", later)) == 0


def test_a_trimmed_journal_cannot_tell():
    api = WebAPI(VFS.memory(retention=Retention(days=0, entries=2)))
    for i in range(10):
        call(api, "writeFile", [f"/f{i}", "x"], request=f"page:{i}")
    assert RUNNER.run(api.vfs.store.log_oldest()) > 1
    trims = [entry for entry in entries(api.vfs) if entry["op"] == "trim"]
    assert trims and not any("requests" in entry for entry in trims)  # py_vfs's own commits
    assert RUNNER.run(api.vfs.history.find_request("page:0", 0.0)) is None
    retried = call(api, "appendFile", ["/f0", "again"], request="page:0", retry=0.0)
    assert retried["error"]["code"] == "EIO"
    assert call(api, "readFile", ["/f0", "utf8"])["value"] == "x"


def test_a_retried_write_the_old_host_committed_is_answered_as_applied_and_not_run_again():
    store = MemoryStore()
    old = WebAPI(RUNNER.run(VFS.open(store)))
    sent = now_ms()
    assert call(old, "appendFile", ["/log", "marker\n"], request="guest:7") == {"value": None}
    # The next host: another runtime on the same disk.
    new = WebAPI(RUNNER.run(VFS.open(store)))
    revision = new.vfs.revision
    again = call(new, "appendFile", ["/log", "marker\n"], request="guest:7", retry=sent)
    assert again == {"value": None}
    assert new.vfs.revision == revision
    assert call(new, "readFile", ["/log", "utf8"])["value"] == "marker\n"


def test_a_retried_write_the_old_host_did_not_commit_runs():
    api = WebAPI(VFS.memory())
    call(api, "writeFile", ["/log", "a\n"], request="guest:1")
    again = call(api, "appendFile", ["/log", "b\n"], request="guest:2", retry=now_ms())
    assert again == {"value": None}
    assert call(api, "readFile", ["/log", "utf8"])["value"] == "a\nb\n"
    assert entries(api.vfs)[0]["requests"] == ["guest:2"]
    # Its own errors as a first run's.
    missing = call(api, "rename", ["/none", "/x"], request="guest:3", retry=now_ms())
    assert missing["error"]["code"] == "ENOENT"


def test_the_pages_later_calls_wait_for_a_retried_one():
    api = WebAPI(VFS.memory())

    async def scenario() -> None:
        retried = api.call("appendFile", ["/f", "retried"], request="g:1", retry=now_ms())
        after = api.call("writeFile", ["/f", "after"], request="g:2")
        assert not isinstance(retried, dict)
        await retried
        if not isinstance(after, dict):
            await after

    RUNNER.run(scenario())
    assert call(api, "readFile", ["/f", "utf8"])["value"] == "after"


def test_only_a_retryable_call_with_a_request_id_is_sent_again():
    api = WebAPI(VFS.memory())
    assert BY_NAME["writeFile"].retryable and not BY_NAME["shell"].retryable
    assert not BY_NAME["mkdtemp"].retryable  # it answers a name
    assert call(api, "shell", ["echo hi > /x"], request="g:1", retry=now_ms())[
        "error"]["code"] == "EINVAL"
    assert call(api, "writeFile", ["/x", "y"], retry=now_ms())["error"]["code"] == "EINVAL"
    assert call(api, "writeFile", ["/x", "y"], request="")["error"]["code"] == "EINVAL"
    assert call(api, "exists", ["/x"])["value"] is False
    for op in BY_NAME.values():  # a retry answers void: only void calls of one commit
        assert not op.retryable or (op.mutating and op.home == "python" and op.in_step)
