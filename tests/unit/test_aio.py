"""The synchronous coroutine driver the unit tests use in Pyodide (aio.py), checked everywhere."""

from __future__ import annotations

import asyncio
import sys

import aio
import pytest

from py_vfs import VFS


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


def test_drive_runs_tasks_and_timers_and_refuses_what_only_js_could_settle():
    async def pipeline():  # two tasks passing items, as a shell pipeline's stages do
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)

        async def produce():
            for item in range(3):
                await queue.put(item)
            await queue.put(None)

        task = asyncio.ensure_future(produce())
        got = []
        while (item := await queue.get()) is not None:
            got.append(item)
        await task
        return got

    assert aio.drive(pipeline()) == [0, 1, 2]
    assert aio.drive(asyncio.sleep(0.001)) is None

    async def waits():
        await asyncio.get_running_loop().create_future()  # as a JS promise nobody settles

    async def outer():
        return await waits()

    with pytest.raises(aio.CoroutineSuspended, match=r"outer suspended at \S*waits \("):
        aio.drive(outer())
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
