"""Synchronous calls into a VFS, for Python APIs that cannot await (fsspec, ``open()``).

The VFS's operations are coroutines, and they must all run on one event loop: a disk's commit
engine, its locks and its SQLite connection belong to the loop (and thread) that opened it.
A ``Blocking`` owns that loop and runs each call to completion on it. ``ThreadLoop`` (CPython)
runs the loop in a daemon thread of its own, and a caller blocks on ``run_coroutine_threadsafe``:
callers may be in any thread, also inside another running loop (a notebook); a call made from
the loop's own thread would wait for itself, and raises. (In Pyodide there is one thread and the
loop is the page's: ``can_block`` says whether a synchronous caller may block with
``block_on``, ``pyodide.ffi.run_sync``, instead.)
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from typing import Any, TypeVar

from .errors import FsError

T = TypeVar("T")


async def _settle(function: Callable[..., Any], args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> Any:
    """Calls ``function`` on the loop and awaits its result when it is awaitable."""
    result = function(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


class Blocking:
    """Runs calls of one VFS, synchronous or not, to completion on the VFS's event loop."""

    def call(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` on the loop; its result, awaited when it is awaitable."""
        return self.run(_settle(function, args, kwargs))

    def run(self, awaitable: Awaitable[T]) -> T:
        """Blocks until ``awaitable`` (made for this loop) has finished; its result."""
        raise NotImplementedError

    def close(self) -> None:
        """Stops the loop; later calls fail."""


class ThreadLoop(Blocking):
    """An event loop in a daemon thread of its own (CPython)."""

    def __init__(self, name: str = "py_vfs-blocking") -> None:
        self._loop = asyncio.new_event_loop()
        started = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self._loop)
            started.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=serve, name=name, daemon=True)
        self._thread.start()
        started.wait()

    def run(self, awaitable: Awaitable[T]) -> T:
        """Blocks the calling thread until ``awaitable`` has finished on the loop's thread."""
        if threading.current_thread() is self._thread:
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            raise RuntimeError("a blocking VFS call was made from its own event loop's thread: "
                               "await the VFS's coroutine there instead")
        if self._loop.is_closed():
            raise FsError.of("EBADF", "call").with_hint("the file system was closed")
        future: Future[T] = asyncio.run_coroutine_threadsafe(_awaited(awaitable), self._loop)
        return future.result()

    def close(self) -> None:
        """Stops the loop and its thread."""
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


async def _awaited(awaitable: Awaitable[T]) -> T:
    """``awaitable`` as a coroutine (``run_coroutine_threadsafe`` takes only coroutines)."""
    return await awaitable


def can_block() -> bool:
    """True in Pyodide when the running call may block on a coroutine (``block_on``): the
    runtime has WebAssembly stack switching (JSPI, as Chromium does) and Python was entered
    through a promising call, as the worker enters every call. False on CPython."""
    if sys.platform != "emscripten":
        return False
    from pyodide.ffi import can_run_sync

    return bool(can_run_sync())


def block_on(awaitable: Awaitable[T]) -> T:
    """Where ``can_block()``: suspends this Python call (not the page, whose event loop goes on
    running other tasks, the ones that settle ``awaitable`` among them) until ``awaitable`` has
    finished; its result."""
    from pyodide.ffi import run_sync

    return run_sync(awaitable)


class PageLoop(Blocking):
    """The page's own event loop, on which its disk runs (Pyodide in the page's worker): a call
    suspends the Python stack with JSPI (``block_on``) while the page's loop runs the VFS's
    tasks. Where that is impossible (``can_block()`` false: no JSPI, or Python was not entered
    through a promising call) it raises ``EAGAIN`` (BlockingIOError's errno) at once."""

    def run(self, awaitable: Awaitable[T]) -> T:
        """``awaitable``'s result, this Python call suspended until it has finished."""
        if not can_block():
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            raise FsError.of("EAGAIN", "call").with_hint(
                "a synchronous call into the page's disk must wait for the page's event loop, "
                "which only a script run by the shell's python or vfs.runPython can do (in a "
                "browser with JSPI); elsewhere await the VFS's coroutines")
        done, value = block_on(_outcome(awaitable))
        if not done:
            raise value
        return value


async def _outcome(awaitable: Awaitable[T]) -> tuple[bool, Any]:
    """``(True, result)`` or ``(False, the exception)``: an error raised inside ``run_sync``'s
    task would also be printed on stderr by the page's loop, as if nobody had handled it."""
    try:
        return True, await awaitable
    except BaseException as error:  # re-raised in the caller, whatever it is
        return False, error


class CoroutineSuspended(RuntimeError):
    """The coroutine waits for something no Python code will do (a JS promise): a
    ``StepLoop`` cannot wait for the JS event loop."""


class _Selector:
    """A ``StepLoop``'s selector: there is no I/O to wait for, only timers (``asyncio.sleep``)."""

    def select(self, timeout: float | None) -> list[Any]:
        if timeout is None:  # nothing ready, no timer: only the JS event loop could go on
            raise CoroutineSuspended("the coroutine waits for something no Python code will do")
        if timeout > 0:
            time.sleep(timeout)
        return []


class _Loop(asyncio.BaseEventLoop):
    """A pure-Python event loop without I/O: tasks, futures, callbacks and timers, run
    synchronously by ``run_until_complete``."""

    def __init__(self) -> None:
        super().__init__()
        self._selector = _Selector()

    def _process_events(self, event_list: list[Any]) -> None:
        return None

    def _write_to_self(self) -> None:
        return None


@contextlib.contextmanager
def aside() -> Iterator[None]:
    """In Pyodide the page's loop (``WebLoop``) counts as running while Python runs, and
    asyncio refuses to run a loop inside another: it is set aside while a ``StepLoop`` runs."""
    outer = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(outer)


def _where(coro: Any) -> str:
    """Where a suspended coroutine stopped: the innermost awaited coroutine and its line."""
    while True:
        inner = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        if inner is None or not (inspect.iscoroutine(inner) or inspect.isgenerator(inner)):
            break
        coro = inner
    frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
    name = getattr(coro, "__qualname__", repr(coro))
    return name if frame is None else f"{name} ({frame.f_code.co_filename}:{frame.f_lineno})"


class StepLoop(Blocking):
    """An event loop without I/O, stepped by the calling thread itself: every call runs to
    completion on it, or raises ``CoroutineSuspended`` naming where it waits for JS."""

    def __init__(self) -> None:
        self.loop = _Loop()

    def run(self, awaitable: Awaitable[T]) -> T:
        """Runs ``awaitable`` to completion on the loop, in the calling thread."""
        if self.loop.is_closed():
            raise FsError.of("EBADF", "call").with_hint("the file system was closed")
        coro = awaitable if inspect.iscoroutine(awaitable) else _awaited(awaitable)
        return self.drive(coro)

    def drive(self, coro: Any, context: Any = None) -> Any:
        """``coro`` run as a task of the loop (in ``context``, a contextvars.Context), to the
        end; ``CoroutineSuspended`` when it waits for something only JS could bring."""
        task = self.loop.create_task(coro, context=context)
        try:
            with aside():
                return self.loop.run_until_complete(task)
        except CoroutineSuspended as exc:
            where = _where(coro)
            task.cancel()
            # Its cleanup runs now, not inside the next, unrelated call (if it too waits for
            # JS, it is left pending); whatever it raises, this call reports where it waited.
            with aside(), contextlib.suppress(Exception, asyncio.CancelledError):
                self.loop.run_until_complete(task)
            raise CoroutineSuspended(
                f"{coro.__qualname__} suspended at {where}: {exc}; it needs the JS event loop, "
                "which a StepLoop cannot run (py_vfs/core/blocking.py)") from None

    def close(self) -> None:
        """What ``asyncio.run`` does at the end: cancels what is left, finishes async
        generators, closes the loop."""
        if self.loop.is_closed():
            return
        tasks = asyncio.all_tasks(self.loop)
        for task in tasks:
            task.cancel()
        with aside(), contextlib.suppress(CoroutineSuspended):
            if tasks:  # their finally blocks run, as under asyncio.run
                self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()
