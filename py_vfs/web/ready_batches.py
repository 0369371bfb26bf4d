"""The worker's ready callbacks run in batches: one entry from JavaScript runs many of them.

Pyodide's event loop (``pyodide.webloop.WebLoop``) hands every ready callback (``call_soon``:
a task's next step, a future's done callbacks) to JavaScript on its own: a JS function made
for it (with stack switching allowed, for JSPI), scheduled by web/worker/scheduler.mjs, which
enters Python again to run it. The entry costs more than most callbacks: in Chromium's worker
an ``await asyncio.sleep(0)`` took 85 µs, and the chain of callbacks behind one awaited
IndexedDB request pays it several times (docs/architecture.md, "Ready callbacks in batches").

``install(loop)`` makes the loop's ``call_soon`` append to a queue instead, and schedules one
entry (``drain``) when the queue was empty. A drain runs the callbacks in order, those they
make ready included, until the queue is empty or its slice (``SLICE_S`` on ``clock``) is over;
then the rest goes to the next drain, so the worker's events still get in between slices. Timers
(``call_later`` with a delay) are Pyodide's as before.

A callback may suspend its whole drain: a blocking call under JSPI (``run_sync``) switches the
stack out until its promise settles. So a drain that leaves callbacks behind it in the queue
has another drain scheduled first: whichever runs first takes them, and none waits on another's
suspension (or on an exception that left a drain).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from collections.abc import Callable
from typing import Any

SLICE_S = 0.004  # a drain's share of the worker before the events waiting get in


class ReadyBatches:
    """The ready queue of one loop: ``call_soon`` in its place, ``drain`` the one entry.

    ``schedule(entry)`` hands the entry to JavaScript (in the worker: Pyodide's
    ``scheduleCallback`` with a once-callable that may switch stacks); ``enter`` is what the
    loop does at each entry from JavaScript before a callback runs (its running loop set);
    ``clock`` measures a drain's slice, in seconds."""

    def __init__(self, loop: asyncio.AbstractEventLoop,
                 schedule: Callable[[Callable[[], None]], None], enter: Callable[[], None],
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.loop = loop
        self.schedule = schedule
        self.enter = enter
        self.clock = clock
        self.ready: deque[asyncio.Handle] = deque()
        self.scheduled = False  # a drain is scheduled and has not started
        self.entries = 0  # drains entered (the tests count them)

    def call_soon(self, callback: Callable[..., Any], *args: Any,
                  context: contextvars.Context | None = None) -> asyncio.Handle:
        """``loop.call_soon``: the callback is queued; a drain is scheduled if none is."""
        handle = asyncio.Handle(callback, args, self.loop, context=context)
        self.ready.append(handle)
        self._ensure_drain()
        return handle

    def _ensure_drain(self) -> None:
        if not self.scheduled:
            self.scheduled = True
            self.schedule(self.drain)

    def drain(self) -> None:
        """Runs the queued callbacks in order (see the module), within one slice."""
        self.scheduled = False
        if not self.ready:  # kept in case a drain stopped midway, and it did not
            return
        self.entries += 1
        self.enter()
        end = self.clock() + SLICE_S
        ready = self.ready
        while ready:
            handle = ready.popleft()
            if ready:  # if this one suspends or raises, the next drain takes the rest
                self._ensure_drain()
            if not handle.cancelled():
                self._run(handle)
            if ready and self.clock() > end:
                self._ensure_drain()
                return

    def _run(self, handle: asyncio.Handle) -> None:
        try:
            handle._run()  # asyncio's own way to run a Handle: errors go to the loop's handler
        except (SystemExit, KeyboardInterrupt) as exc:
            # As Pyodide's own callbacks do: the loop's handlers, when set, take them.
            name = "_system_exit_handler" if isinstance(exc, SystemExit) else \
                "_keyboard_interrupt_handler"
            handler = getattr(self.loop, name, None)
            if handler is None:
                raise
            handler(exc.code) if isinstance(exc, SystemExit) else handler()


def batches_of(loop: asyncio.AbstractEventLoop) -> ReadyBatches | None:
    """The ready queue ``install`` gave ``loop``, if any."""
    present = getattr(getattr(loop, "call_soon", None), "__self__", None)
    return present if isinstance(present, ReadyBatches) else None


def install(loop: asyncio.AbstractEventLoop | None = None,
            clock: Callable[[], float] = time.perf_counter) -> None:
    """Batches the ready callbacks of ``loop`` (default: the running Pyodide loop). Installing
    twice keeps the first queue (the callbacks already in it go on); ``clock`` is then set."""
    from pyodide import webloop  # Pyodide only: the module imports without it
    from pyodide.ffi import create_once_callable

    loop = loop or asyncio.get_event_loop()
    present = batches_of(loop)
    if present is not None:
        present.clock = clock
        return

    def schedule(entry: Callable[[], None]) -> None:
        # The module's name at each call: web/worker/scheduler.mjs swaps it after boot.
        webloop.scheduleCallback(create_once_callable(entry, _may_syncify=True), 0)

    def enter() -> None:
        # What Pyodide's WebLoop does before each callback it runs from JavaScript.
        loop._install_running_loop()
        loop._install_asyncgen_hooks()

    batches = ReadyBatches(loop, schedule, enter, clock)
    loop.call_soon = batches.call_soon  # type: ignore[method-assign]
    loop.call_soon_threadsafe = batches.call_soon  # type: ignore[method-assign]
