"""Cancellation: the Python side of an ``AbortSignal``.

A ``Signal`` is marked by ``abort()``; the operation it was given to looks at it at its safe
points and stops there with ``ECANCELED`` (the JS API rejects with Node's ``AbortError``). A safe
point is a place where stopping leaves nothing half done: between two files of ``grep``, before
the commit of ``cp -r`` or ``rm -r`` (a commit that has not happened changes nothing).

The signal of the running call lives in a context variable, ``SIGNAL``, as the writer does
(``transaction.WRITER``): ``WebAPI.call`` sets it for a call the page may cancel,
``AgentTool.execute`` for its ``signal``; the code below reads it with ``checkpoint`` or
``check`` and needs no argument.

In the worker, Python runs its coroutines in microtasks (web/worker/scheduler.mjs), so the page's
cancel message, a macrotask, cannot be read while an operation is busy. ``checkpoint`` therefore
awaits ``yielder`` (a JS function whose promise settles in a macrotask, set by the worker) once
every ``YIELD_MS`` of work, whether or not the call carries a signal: a call without one (a
``vfs.shell(line)`` running `while true; do :; done`) must not freeze the worker either, so a
cancel of another call or ``close()`` gets in. Without a yielder (CPython, the Node tier) it
awaits ``asyncio.sleep(0)`` instead, so the other tasks of the loop run. A bounded cost: one
clock read per safe point, one turn of the loop per ``YIELD_MS``.

Waiting (``sleep``, ``wait``: `sleep 5`, `tail -f`) is the other way a command holds a call: it
registers a future with the signal, which ``abort()`` resolves, so the wait ends at once with
``ECANCELED`` instead of at its timeout. While it waits the event loop is idle, so in the worker
the page's cancel message gets in without a yielder.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from .errors import FsError

YIELD_MS = 8.0
# The longest single timer a wait arms: a browser's setTimeout fires at once for a delay past
# 2**31 - 1 ms (about 24.8 days), so a longer wait (`sleep infinity`) is made of such pieces.
LONGEST_TIMER = 3600.0


class Signal:
    """An abort signal: ``abort()`` marks it, and the operation holding it stops at its next
    safe point."""

    def __init__(self) -> None:
        self.aborted = False
        self._last_yield = time.monotonic()
        self._listeners: list[Callable[[], object]] = []

    def abort(self) -> None:
        """Ask the operation to stop, and tell the listeners (``on_abort``): a ``sleep`` or
        ``wait`` under this signal ends now."""
        self.aborted = True
        for listener in list(self._listeners):
            listener()

    @property
    def listeners(self) -> int:
        """How many waits and listeners wait for the abort (a test's marker that a wait began)."""
        return len(self._listeners)

    def on_abort(self, listener: Callable[[], object]) -> Callable[[], None]:
        """Call ``listener`` when the signal aborts (a wait that no safe point ends, such as a
        script's, is cancelled so); returns what removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


SIGNAL: ContextVar[Signal | None] = ContextVar("py_vfs_signal", default=None)
# When a safe point without a signal last let the loop run (calls with one keep their own).
_last_yield = [time.monotonic()]
# Set by the worker (``set_yielder``): awaiting what it returns lets pending messages in.
_yielder: list[Callable[[], Awaitable[object]]] = []


def set_yielder(yielder: Callable[[], Awaitable[object]] | None) -> None:
    """``yielder()`` returns an awaitable that settles after the host's pending events ran."""
    _yielder[:] = [] if yielder is None else [yielder]


def aborted(syscall: str, hint: str | None = None) -> FsError:
    """The error of a cancelled operation: ``ECANCELED`` (Node's ``AbortError`` in JS);
    ``hint`` says how far it got."""
    error = FsError.of("ECANCELED", syscall)
    return error.with_hint(hint) if hint else error


def check(syscall: str) -> None:
    """Raise ``ECANCELED`` if the current call's signal is aborted (never suspends)."""
    signal = SIGNAL.get()
    if signal is not None and signal.aborted:
        raise aborted(syscall)


async def checkpoint(syscall: str, done: int, total: int, unit: str) -> None:
    """A safe point after ``done`` of ``total`` ``unit`` (files...): let the event loop run (at
    most once per ``YIELD_MS``, with or without a signal), then stop with ``ECANCELED`` if the
    call's signal is aborted."""
    signal = SIGNAL.get()
    stop = signal is not None and signal.aborted
    last = _last_yield[0] if signal is None else signal._last_yield
    if not stop and (time.monotonic() - last) * 1000 >= YIELD_MS:
        await (_yielder[0]() if _yielder else asyncio.sleep(0))
        if signal is None:
            _last_yield[0] = time.monotonic()
        else:
            signal._last_yield = time.monotonic()
            stop = signal.aborted  # the cancel may have come in while the loop ran
    if stop:
        raise aborted(syscall, f"stopped after {done} of {total} {unit}")


async def wait(awaitable: Awaitable[object] | None, syscall: str,
               timeout: float | None = None) -> bool:
    """Wait for ``awaitable`` (None: for nothing) at most ``timeout`` seconds (None: no limit);
    True when it finished, False at the timeout. Raises ``ECANCELED`` as soon as the call's
    signal is aborted (also when it already was), stopping ``awaitable``."""
    check(syscall)
    signal = SIGNAL.get()
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(awaitable) if awaitable is not None else None
    woken: asyncio.Future[None] = loop.create_future()
    # Thread-safe scheduling: CPython code may abort from another thread; in Pyodide it is
    # call_soon (one thread), from the JS message handler that got the cancel.
    remove = (signal.on_abort(lambda: loop.call_soon_threadsafe(_wake, woken))
              if signal is not None else None)
    # No limit arms no timer: Pyodide's loop cannot clear a JS timer once set (a cancelled
    # one fires and does nothing), and a pending timer keeps Node from exiting.
    endless = timeout is None or math.isinf(timeout)
    deadline = 0.0 if endless else time.monotonic() + max(timeout or 0.0, 0.0)
    try:
        while True:
            left = None if endless else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            waiting = [woken] if task is None else [woken, task]
            await asyncio.wait(waiting, timeout=None if left is None else min(left, LONGEST_TIMER),
                               return_when=asyncio.FIRST_COMPLETED)
            if signal is not None and signal.aborted:
                raise aborted(syscall)
            if task is not None and task.done():
                task.result()  # its exception, if it failed
                return True
    finally:
        if remove is not None:
            remove()
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def sleep(seconds: float, syscall: str = "sleep") -> None:
    """``asyncio.sleep`` that ends early with ``ECANCELED`` when the call's signal is aborted
    (`sleep`, `tail -f` between polls); ``math.inf`` waits until then."""
    await wait(None, syscall, seconds)
