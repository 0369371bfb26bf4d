"""The page's dock calls (py_vfs/web/dock_sync.py, WebAPI's dockSync and dockStatus) where
no dock answers: a disk without a dock, a restricted view, and each refusal of the dock as the
error vfs.sync() rejects with. With a real dock and browser: tests/e2e/test_dock_web.py."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.dock.link import Refusal
from py_vfs.web.dock_sync import _refused
from py_vfs.web.protocol import ERRNO
from py_vfs.web.webapi import WebAPI


def call(api: WebAPI, op: str, *args: Any) -> dict[str, Any]:
    async def settle() -> dict[str, Any]:
        result = api.call(op, list(args))
        return result if isinstance(result, dict) else await result
    return run(settle())


def test_a_disk_without_a_dock_has_no_status_and_says_so_on_sync():
    api = WebAPI(VFS.memory())
    assert call(api, "dockStatus") == {"value": None}
    error = call(api, "dockSync", {"confirm": True})["error"]
    assert (error["code"], error["syscall"]) == ("ENOTSUP", "sync")
    assert "openVFS({name, dock: {url, token}})" in error["message"]


def test_a_restricted_view_cannot_sync_the_disk():
    vfs = VFS.memory()
    run(vfs.mkdir("/w"))
    view = WebAPI(vfs.restrict(read=["/w"], write=["/w"]))
    assert call(view, "dockSync")["error"]["code"] == "EACCES"


@pytest.mark.parametrize(("status", "body", "code", "said"), [
    (409, {"error": "held", "deletes": 30, "nodes": 40, "share": 0.5}, "EPERM",
     "deletes 30 of the disk's 40 nodes"),
    (401, {"error": "this token is not valid (unknown or revoked)"}, "EACCES", "not valid"),
    (403, {"error": "this token is read-only: it cannot push"}, "EACCES", "read-only"),
    (400, {"error": "base is the dock revision"}, "EPROTO", "base is the dock revision"),
])
def test_each_refusal_is_a_clear_error(status, body, code, said):
    error = _refused(Refusal(status, body))
    assert error.code == code and code in ERRNO
    assert said in str(error)
