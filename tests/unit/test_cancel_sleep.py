"""Cancel-aware waiting (``cancel.sleep``, ``cancel.wait``): a wait ends as soon as the call's
signal is aborted, with ECANCELED, not at its timeout. `sleep` and `tail -f` wait so, which is
how Ctrl-C stops them. tests/pyodide/cancel.test.mjs aborts from a JS callback in Pyodide."""

from __future__ import annotations

import asyncio
import functools
import math
import threading

import aio
import helpers
import pytest

from py_vfs import VFS
from py_vfs.core import cancel
from py_vfs.shell import Shell

BOUND = 30  # seconds a test may take at worst; a wait that ignored the abort would hit it
run = functools.partial(helpers.run, bound=BOUND)


async def under(signal: cancel.Signal, coro):
    token = cancel.SIGNAL.set(signal)
    try:
        return await coro
    finally:
        cancel.SIGNAL.reset(token)


def test_an_endless_sleep_ends_with_ecanceled_when_its_signal_is_aborted():
    async def scenario():
        signal = cancel.Signal()
        sleeping = asyncio.ensure_future(under(signal, cancel.sleep(math.inf)))
        while not signal.listeners:  # the marker: the sleep is waiting
            await asyncio.sleep(0)
        signal.abort()
        with pytest.raises(OSError) as caught:
            await sleeping
        return caught.value
    error = run(scenario())
    assert (error.code, error.syscall) == ("ECANCELED", "sleep")


@pytest.mark.skipif(aio.stepping_wanted(), reason="Pyodide has no threads (and the test "
                    "driver's loop cannot be woken by one); tests/pyodide/cancel.test.mjs "
                    "aborts from JS")
def test_an_abort_from_another_thread_wakes_the_sleep():
    async def scenario():
        signal = cancel.Signal()
        sleeping = asyncio.ensure_future(under(signal, cancel.sleep(math.inf, "tail")))
        while not signal.listeners:
            await asyncio.sleep(0)
        thread = threading.Thread(target=signal.abort)
        thread.start()
        with pytest.raises(OSError) as caught:
            await sleeping
        thread.join()
        return caught.value
    assert run(scenario()).syscall == "tail"


def test_an_already_aborted_signal_fails_before_waiting():
    signal = cancel.Signal()
    signal.abort()
    with pytest.raises(OSError, match="ECANCELED"):
        run(under(signal, cancel.sleep(math.inf)))


def test_without_an_abort_a_sleep_returns_and_a_wait_says_what_ended_it():
    async def scenario():
        signal = cancel.Signal()
        await under(signal, cancel.sleep(0.01))
        done = await under(signal, cancel.wait(asyncio.sleep(0), "tail"))
        event = asyncio.Event()
        timed_out = await under(signal, cancel.wait(event.wait(), "tail", 0.01))
        await cancel.sleep(0)  # no signal at all: a plain sleep
        return done, timed_out, signal.listeners
    assert run(scenario()) == (True, False, 0)


def test_a_wait_aborted_stops_what_it_waited_for():
    async def scenario():
        signal = cancel.Signal()
        forever = asyncio.ensure_future(asyncio.Event().wait())
        waiting = asyncio.ensure_future(under(signal, cancel.wait(forever, "tail")))
        while not signal.listeners:
            await asyncio.sleep(0)
        signal.abort()
        with pytest.raises(OSError):
            await waiting
        return forever.cancelled()
    assert run(scenario()) is True


def test_ctrl_c_stops_a_sleeping_line_with_status_130_and_no_message():
    """`sleep infinity; echo after`: the abort wakes the sleep, the line ends (echo does not
    run), the status is 130 and nothing is printed, as bash does for ^C."""
    async def scenario():
        signal = cancel.Signal()
        shell = Shell(VFS.memory())
        running = asyncio.ensure_future(under(signal, shell.run("sleep infinity; echo after")))
        while not signal.listeners:
            await asyncio.sleep(0)
        signal.abort()
        return await running
    result = run(scenario())
    assert (result.stdout, result.stderr, result.code) == ("", "", 130)
