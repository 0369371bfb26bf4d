"""Cancelling a call of the JS API as WebAPI answers it (the call envelope's ``cancellable``,
``WebAPI.cancel``): the call stops at its safe point with ECANCELED and leaves nothing half
done; on CPython (the e2e tier cancels from a real page, through the worker)."""

from __future__ import annotations

import asyncio
from typing import Any

import aio
import pytest

from py_vfs.vfs import VFS
from py_vfs.web.webapi import WebAPI

pytestmark = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="WebAPI.call's Tasks need a real event loop; "
                                       "tests/e2e/test_abort.py covers the worker")
RUNNER = asyncio.Runner()


def call(api: WebAPI, op: str, args: list[Any], call_id: int | None = None,
         cancel: bool = False) -> dict[str, Any]:
    """The envelope of one call; ``cancel``: the page's cancel arrives as soon as it started."""
    async def settle() -> dict[str, Any]:
        result = api.call(op, args, None, call_id)
        if cancel:
            assert api.cancel(call_id) is True
        return result if isinstance(result, dict) else await result
    return RUNNER.run(settle())


def filled() -> WebAPI:
    api = WebAPI(VFS.memory())
    for i in range(3):  # writeFile makes no parents, as Node's
        call(api, "mkdir", [f"/src/d{i}", {"recursive": True}])
    for i in range(30):
        call(api, "writeFile", [f"/src/d{i % 3}/f{i}.txt", f"needle {i}\n"])
    return api


def test_a_cancelled_grep_stops_at_its_first_safe_point():
    api = filled()
    error = call(api, "grep", ["needle", "/src"], call_id=7, cancel=True)["error"]
    # Stopped while listing the files to search, before the first of them.
    assert (error["code"], error["errno"], error["syscall"]) == ("ECANCELED", -125, "grep")
    assert error["hint"] == "stopped while listing the files"
    assert api.cancel(7) is False  # answered: its signal is gone
    found = call(api, "grep", ["needle", "/src"], call_id=8)["value"]
    assert len(found["matches"]) == 30


@pytest.mark.parametrize(("op", "args"), [("cp", ["/src", "/copy", {"recursive": True}]),
                                          ("rm", ["/src", {"recursive": True}])])
def test_a_cancelled_recursive_copy_or_removal_changes_nothing(op, args):
    api = filled()
    before = call(api, "walk", ["/"])["value"]
    revision = api.vfs.revision
    error = call(api, op, args, call_id=1, cancel=True)["error"]
    assert error["code"] == "ECANCELED"
    assert call(api, "walk", ["/"])["value"] == before and api.vfs.revision == revision
    assert "error" not in call(api, op, args, call_id=2)
    assert call(api, "walk", ["/"])["value"] != before


def test_a_call_without_an_id_cannot_be_cancelled_and_unknown_ids_are_ignored():
    api = filled()
    assert api.cancel(99) is False
    assert len(call(api, "grep", ["needle"])["value"]["matches"]) == 30


def test_a_read_starts_at_once_and_a_later_call_never_overtakes_one_waiting_to_start():
    """A call the page cannot cancel starts at once (Python 3.12 on: a read the index answers
    is done when ``call`` returns); a cancellable one starts as a task. A call made after one
    that has not started yet waits its turn, so the later write wins."""
    import sys

    api = filled()

    async def in_flight() -> list[Any]:
        read = api.call("readFile", ["/src/d0/f0.txt", "utf8"])
        assert (not isinstance(read, dict) and read.done()) == (sys.version_info >= (3, 12))
        first = api.call("writeFile", ["/o.txt", "first"], None, 5)  # cancellable: a task
        second = api.call("writeFile", ["/o.txt", "second"])
        return [r if isinstance(r, dict) else await r for r in (read, first, second)]

    read, first, second = RUNNER.run(in_flight())
    assert read == {"value": "needle 0\n"} and "error" not in first and "error" not in second
    assert call(api, "readFile", ["/o.txt", "utf8"])["value"] == "second"
