"""``WebAPI.call``'s ``out``: the caller's conversion, which the call's task applies as it ends.
py_vfs/web/edge.py's ``dispatch_many`` hears of every end through it alone (no done callback
per call), so it must be called once for every outcome, a bug's included."""

from __future__ import annotations

import asyncio
from typing import Any

import aio
import pytest

from py_vfs.vfs import VFS
from py_vfs.web.webapi import WebAPI

pytestmark = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="WebAPI.call's Tasks need a real event loop")


def ends(api: WebAPI, op: str, args: list[Any]) -> list[dict[str, Any]]:
    """The envelopes ``out`` was called with for one call, once its task is over."""
    seen: list[dict[str, Any]] = []

    async def scenario() -> None:
        result = api.call(op, args, out=seen.append)
        assert not isinstance(result, dict)
        await result

    asyncio.run(scenario())
    return seen


def test_out_hears_a_value_an_error_and_a_bug_once_each(capsys):
    api = WebAPI(VFS.memory())
    assert ends(api, "writeFile", ["/f", "x"]) == [{"value": None}]
    [failed] = ends(api, "writeFile", ["/f/g", "x"])
    assert failed["error"]["code"] == "ENOTDIR"

    async def bug(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    api.vfs.write_file = bug  # type: ignore[method-assign]
    [broken] = ends(api, "writeFile", ["/h", "x"])
    assert (broken["error"]["code"], broken["error"]["message"]) == ("EIO", "a bug")
    assert "RuntimeError: a bug" in capsys.readouterr().err  # its traceback, for whoever debugs


def test_without_out_a_bug_is_the_future_s_exception():
    api = WebAPI(VFS.memory())

    async def bug(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    api.vfs.write_file = bug  # type: ignore[method-assign]

    async def scenario() -> None:
        result = api.call("writeFile", ["/h", "x"])
        with pytest.raises(RuntimeError):
            await result

    asyncio.run(scenario())
