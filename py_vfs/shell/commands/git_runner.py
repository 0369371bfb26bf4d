"""How `git` runs dulwich, which is synchronous and uses ``os`` and ``open``, on the VFS.

The work runs with Python's own file API bound to the VFS the command works on
(``py_vfs.pyhost``, every path the VFS's: ``vfs_roots=("/",)``, so git never reads or writes
the host's files). A synchronous call must wait for the VFS's event loop: in the page it blocks
with JSPI (``PageRunner``); on CPython the VFS's loop is the shell's own thread, so the work runs
in a worker thread whose calls are sent to the shell's loop (``ShellLoopRunner``). Where neither
can block (Pyodide without JSPI) `git` says so and fails.

Ctrl-C (the call's cancel signal, or the command's task cancelled) sets a flag every VFS call
looks at first: the work stops at its next call with ``Stopped`` (status 130).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ... import pyhost
from ...core import blocking, cancel
from ...pyhost.binding import BOUND
from ..context import Context

T = TypeVar("T")


class Stopped(BaseException):
    """The run was interrupted (Ctrl-C): raised at the work's next VFS call. A BaseException,
    so that no ``except Exception`` in dulwich swallows it."""


class _Stop:
    """The flag a run's calls look at: set by Ctrl-C (the signal, or the task cancelled)."""

    def __init__(self) -> None:
        self.signal = cancel.SIGNAL.get()
        self.stopped = False

    def check(self) -> None:
        """Raise ``Stopped`` when the run was interrupted."""
        if self.stopped or (self.signal is not None and self.signal.aborted):
            self.stopped = True
            raise Stopped()


def _closed(awaitable: Awaitable[Any]) -> None:
    if inspect.iscoroutine(awaitable):
        awaitable.close()


class ShellLoopRunner(blocking.Blocking):
    """CPython: the work's thread sends each call to the shell's loop and waits for it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stop: _Stop) -> None:
        self.loop = loop
        self.stop = stop

    def run(self, awaitable: Awaitable[T]) -> T:
        """``awaitable``'s result, run on the shell's loop (with no binding: the VFS's own code
        sees the runtime's file API); ``Stopped`` once the run was interrupted."""
        try:
            self.stop.check()
        except Stopped:
            _closed(awaitable)
            raise
        token = BOUND.set(None)  # the task copies this context: it must not be bound
        try:
            future = asyncio.run_coroutine_threadsafe(_coroutine(awaitable), self.loop)
        finally:
            BOUND.reset(token)
        result = future.result()
        self.stop.check()
        return result


class PageGitRunner(pyhost.PageRunner):
    """The page: JSPI's ``block_on``, each call checking the run's stop flag first."""

    def __init__(self, stop: _Stop) -> None:
        self.stop = stop

    def run(self, awaitable: Awaitable[T]) -> T:
        """``awaitable``'s result, this Python call suspended on it; ``Stopped`` once the run
        was interrupted."""
        try:
            self.stop.check()
        except Stopped:
            _closed(awaitable)
            raise
        result = super().run(awaitable)
        self.stop.check()
        return result


async def _coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable


class Bound:
    """What the work gets: ``call`` (an awaitable run to its end on the VFS's loop), the
    shell's ``ctx`` (its env, cwd), and ``out``/``err`` writing to the command's streams."""

    def __init__(self, ctx: Context, runner: blocking.Blocking) -> None:
        self.ctx = ctx
        self.runner = runner

    def call(self, awaitable: Awaitable[T]) -> T:
        """``awaitable``'s result (made for the VFS's loop), the work blocked on it."""
        return self.runner.run(awaitable)

    def out(self, text: str | bytes) -> None:
        """Write to standard output (waiting while a pipe's reader is behind)."""
        if text:
            self.call(self.ctx.stdout.write(text))

    def err(self, text: str) -> None:
        """Write ``text`` (whole lines) to standard error."""
        if text:
            self.call(self.ctx.stderr.write(text))


def can_run() -> bool:
    """Whether a synchronous git can wait for the VFS here (CPython: a thread; the page: JSPI)."""
    return sys.platform != "emscripten" or blocking.can_block()


async def run_bound(ctx: Context, work: Callable[[Bound], T]) -> T:
    """``work(bound)`` with Python's file API on the VFS, its result; ``Stopped`` when Ctrl-C
    interrupted it (the work is over by then)."""
    stop = _Stop()
    # Python caches its temporary folder the first time it is asked for it: asked inside the
    # bound run, it would be a folder of the disk, which the process would then use as its own.
    tempfile.gettempdir()
    if sys.platform == "emscripten":
        bound = Bound(ctx, PageGitRunner(stop))
        with pyhost.session(pyhost.Binding(bound.runner, ctx.cwd, vfs_roots=("/",))):
            return work(bound)
    bound = Bound(ctx, ShellLoopRunner(asyncio.get_running_loop(), stop))
    context = contextvars.copy_context()
    done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    loop = asyncio.get_running_loop()

    def settle(ok: bool, value: Any) -> None:
        if done.done():
            return
        if ok:
            done.set_result(value)
        else:
            done.set_exception(value)

    def in_thread() -> None:
        try:
            with pyhost.session(pyhost.Binding(bound.runner, ctx.cwd, vfs_roots=("/",))):
                value = work(bound)
        except BaseException as exc:  # handed to the shell's task, whatever it is
            loop.call_soon_threadsafe(settle, False, exc)
        else:
            loop.call_soon_threadsafe(settle, True, value)

    thread = threading.Thread(target=context.run, args=(in_thread,), name="py_vfs-git",
                              daemon=True)
    thread.start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        stop.stopped = True  # the thread ends at its next call; wait for it to
        while not done.done():
            await asyncio.sleep(0.005)
        raise
