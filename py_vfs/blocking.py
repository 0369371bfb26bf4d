"""Synchronous calls into a VFS, for Python APIs that cannot await (fsspec, ``open()``).

The VFS's operations are coroutines, and they must all run on one event loop: a disk's commit
engine, its locks and its SQLite connection belong to the loop (and thread) that opened it.
A ``Blocking`` owns that loop and runs each call to completion on it. ``ThreadLoop`` (CPython)
runs the loop in a daemon thread of its own, and a caller blocks on ``run_coroutine_threadsafe``:
callers may be in any thread, also inside another running loop (a notebook); a call made from
the loop's own thread would wait for itself, and raises. (In Pyodide there is one thread and the
loop is the page's: a synchronous caller will block with ``pyodide.ffi.run_sync`` instead.)
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable
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
