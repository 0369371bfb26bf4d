"""The JS API's writers and history calls as WebAPI answers them (the call envelope's writer,
journal, snapshot, diff, restore), on CPython."""

from __future__ import annotations

import asyncio
from typing import Any

import aio
import pytest

from py_vfs.vfs import VFS
from py_vfs.web.webapi import WebAPI


def call(api: WebAPI, op: str, args: list[Any], writer: str | None = None) -> dict[str, Any]:
    """The envelope of one call, awaited when the operation is asynchronous; every call of a
    test runs on one event loop, as the worker's do (a step spans several calls)."""
    async def settle() -> dict[str, Any]:
        result = api.call(op, args, writer)
        return result if isinstance(result, dict) else await result
    return RUNNER.run(settle())


RUNNER = asyncio.Runner()
# WebAPI.call answers an asynchronous operation with a Task, which only a real event loop runs
# (tests/unit/aio.py steps bare coroutines, not Tasks); in Pyodide the same calls, through
# edge.dispatch, are tested by tests/pyodide/journal.test.mjs.
pytestmark = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="WebAPI.call's Tasks need a real event loop; "
                                       "tests/pyodide/journal.test.mjs covers Pyodide")


def test_each_call_is_made_by_the_writer_its_envelope_names_and_streams_and_steps_too():
    api = WebAPI(VFS.memory())
    call(api, "writeFile", ["/a", "one"], "agent:a")
    call(api, "writeFile", ["/u", "two"])
    stream = call(api, "openWrite", ["/s"], "agent:s")["value"]
    call(api, "writeChunk", [stream, b"streamed"], "agent:s")
    call(api, "finishWrite", [stream], "agent:s")
    step = call(api, "stepBegin", [], "agent:t")["value"]
    call(api, "stepOp", [step, "writeFile", "/t", "in a step"], "agent:t")
    call(api, "stepEnd", [step, True], "agent:t")
    journal = call(api, "journal", [{"limit": 10}])["value"]
    assert [(entry["writer"], entry["paths"][0]) for entry in journal] == [
        ("agent:t", "/t"), ("agent:s", "/s"), ("user", "/u"), ("agent:a", "/a")]
    only = call(api, "journal", [{"writer": "agent:s"}])["value"]
    assert [entry["paths"][0] for entry in only] == ["/s"]


def test_a_bad_writer_is_refused_and_the_call_is_not_made():
    api = WebAPI(VFS.memory())
    error = call(api, "writeFile", ["/x", "no"], " spaced ")["error"]
    assert error["code"] == "EINVAL" and error["syscall"] == "writer"
    assert call(api, "exists", ["/x"])["value"] is False


def test_snapshot_diff_and_restore_by_name_revision_and_path():
    api = WebAPI(VFS.memory())
    call(api, "mkdir", ["/d"])
    call(api, "writeFile", ["/d/f", "v1"])
    call(api, "writeFile", ["/g", "outside"])
    assert call(api, "snapshot", ["s1"])["value"]["name"] == "s1"
    revision = call(api, "journal", [{"limit": 1}])["value"][0]["revision"]
    call(api, "writeFile", ["/d/f", "v2"])
    call(api, "rename", ["/g", "/h"])
    changes = call(api, "diff", ["s1"])["value"]
    assert sorted((c["change"], c["path"], c.get("oldPath")) for c in changes) == [
        ("modified", "/d/f", None), ("renamed", "/h", "/g")]
    assert call(api, "diff", [{"revision": revision}, "s1"])["value"] == []
    done = call(api, "restore", ["s1", {"path": "/d"}])["value"]
    assert done["revision"] == call(api, "journal", [{"limit": 1}])["value"][0]["revision"]
    assert call(api, "readFile", ["/d/f", "utf8"])["value"] == "v1"
    assert call(api, "exists", ["/h"])["value"] is True  # outside the path: left as it is
    call(api, "restore", [{"revision": revision}])
    assert call(api, "exists", ["/g"])["value"] is True
    assert [s["name"] for s in call(api, "snapshots", [])["value"]] == ["s1"]
    call(api, "deleteSnapshot", ["s1"])
    assert call(api, "deleteSnapshot", ["s1"])["error"]["code"] == "ENOENT"
    assert call(api, "diff", ["s1"])["error"]["code"] == "ENOENT"
