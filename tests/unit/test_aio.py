"""The synchronous coroutine driver the unit tests use in Pyodide (aio.py), checked everywhere."""

from __future__ import annotations

import asyncio
import sys

import aio
import pytest

from py_vfs import VFS


class Pending:
    """An awaitable that yields to the event loop, as a pending future does."""

    def __await__(self):
        yield "pending"
        return "resumed"


def test_asyncio_is_replaced_exactly_where_stepping_is_wanted():
    if sys.platform == "emscripten":
        assert aio.stepping_wanted()
    assert (asyncio.run is aio.run) == aio.stepping_wanted()
    assert (asyncio.Runner is aio.Runner) == aio.stepping_wanted()


def test_drive_returns_the_result_and_raises_the_error():
    async def answer():
        async with asyncio.Lock():  # uncontended: never touches a loop
            return 42

    async def boom():
        raise KeyError("x")

    assert aio.drive(answer()) == 42
    with pytest.raises(KeyError):
        aio.drive(boom())


def test_drive_refuses_a_coroutine_that_suspends():
    async def waits():
        await Pending()

    async def outer():
        return await waits()

    with pytest.raises(aio.CoroutineSuspended, match=r"outer suspended at Pending.__await__"):
        aio.drive(outer())
    with pytest.raises(aio.CoroutineSuspended):
        aio.drive(asyncio.sleep(0))
    with pytest.raises(ValueError):
        aio.drive(lambda: None)


def test_runner_shares_one_context_and_closes():
    runner = aio.Runner()
    vfs = VFS.memory()
    runner.run(vfs.write_file("/f", "1"))
    assert runner.run(vfs.read_file("/f")) == b"1"
    runner.close()
    late = vfs.read_file("/f")
    with pytest.raises(RuntimeError, match="closed"):
        runner.run(late)
    late.close()
