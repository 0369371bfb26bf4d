"""Run the core's coroutines to completion from synchronous tests, on CPython and in Pyodide.

The unit tests call ``asyncio.run(coro)`` or an ``asyncio.Runner``. On CPython that is a real
event loop. In Pyodide under Node it cannot be: the only loop is Pyodide's ``WebLoop`` over the
JS event loop, and blocking on it needs JSPI stack switching, which Node 20 lacks. In Pyodide
314 (Python 3.14.2) ``asyncio.run(coro)`` and ``loop.run_until_complete(coro)`` raise
``RuntimeError: WebAssembly stack switching not supported in this JavaScript runtime`` and
``asyncio.Runner().run(coro)`` raises ``RuntimeError: Runner.run() cannot be called from a
running event loop``.

On the memory store the core waits for nothing but Python code and time: ``MemoryStore``'s
methods, locks, the tasks of a shell pipeline's stages, ``asyncio.sleep``. So ``drive`` runs a
coroutine on a small event loop of its own (``_Loop``: asyncio's ``BaseEventLoop`` with no I/O),
which ``run_until_complete`` can block on. Should the coroutine wait for something no Python code
will settle (a JS promise), the loop would wait forever: it raises ``CoroutineSuspended`` naming
where the coroutine stopped instead, so such a test fails loudly and never passes by accident.

``conftest.py`` installs ``run`` and ``Runner`` as ``asyncio.run`` and ``asyncio.Runner`` for
the session in Pyodide (``sys.platform == "emscripten"``), or on CPython when the environment
has ``PYVFS_TEST_STEP_COROUTINES=1`` (to reproduce a Pyodide failure); otherwise the tests use
the real ``asyncio``. So a unit test drives coroutines with ``asyncio.run`` or an
``asyncio.Runner``; ``loop.run_until_complete`` on a loop it makes itself cannot work in Pyodide
(that loop is a ``WebLoop`` and raises the error above).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import sys
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

STEP_ENV = "PYVFS_TEST_STEP_COROUTINES"


def stepping_wanted() -> bool:
    """True where a blocking event loop is unavailable (Pyodide) or the stepping is forced."""
    return sys.platform == "emscripten" or os.environ.get(STEP_ENV) == "1"


class CoroutineSuspended(RuntimeError):
    """The coroutine yielded to an event loop, which the synchronous driver does not have."""


def _innermost(coro: Any) -> Any:
    """The coroutine (or generator) at the bottom of the ``await`` chain of a suspended one."""
    while True:
        inner = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        if inner is None or not (inspect.iscoroutine(inner) or inspect.isgenerator(inner)):
            return coro
        coro = inner


def _where(coro: Any) -> str:
    inner = _innermost(coro)
    frame = getattr(inner, "cr_frame", None) or getattr(inner, "gi_frame", None)
    name = getattr(inner, "__qualname__", repr(inner))
    if frame is None:
        return name
    return f"{name} ({frame.f_code.co_filename}:{frame.f_lineno})"


class _Selector:
    """The loop's selector: there is no I/O to wait for, only timers (``asyncio.sleep``)."""

    def select(self, timeout: float | None) -> list[Any]:
        if timeout is None:  # nothing ready, no timer: only the JS event loop could go on
            raise CoroutineSuspended("the coroutine waits for something no Python code will do")
        if timeout > 0:
            time.sleep(timeout)
        return []


class _Loop(asyncio.BaseEventLoop):
    """A pure-Python event loop without I/O: tasks, futures, callbacks and timers, run
    synchronously by ``run_until_complete``. Pyodide's own loop (``WebLoop``) cannot block in
    Node; this one can, because all it waits for is Python code (the memory store) and time."""

    def __init__(self) -> None:
        super().__init__()
        self._selector = _Selector()

    def _process_events(self, event_list: list[Any]) -> None:
        return None

    def _write_to_self(self) -> None:
        return None


def drive(coro: Coroutine[Any, Any, T], context: contextvars.Context | None = None,
          loop: asyncio.AbstractEventLoop | None = None) -> T:
    """Run ``coro`` to completion on a loop of this module; raise ``CoroutineSuspended`` if it
    waits for something only the JS event loop could bring (a pending JS promise)."""
    if not inspect.iscoroutine(coro):
        raise ValueError(f"a coroutine was expected, got {coro!r}")
    own = loop is None
    loop = loop or _Loop()
    task = loop.create_task(coro, context=context)
    try:
        with _aside():
            return loop.run_until_complete(task)
    except CoroutineSuspended as exc:
        where = _where(coro)
        task.cancel()
        raise CoroutineSuspended(
            f"{coro.__qualname__} suspended at {where}: {exc}; it needs the JS event loop, "
            "which tests/unit/aio.py cannot run (no blocking loop in Pyodide/Node)") from None
    finally:
        if own:
            _close(loop)


@contextlib.contextmanager
def _aside() -> Iterator[None]:
    """In Pyodide the WebLoop counts as running while Python runs, and asyncio refuses to run a
    loop inside another: it is set aside while one of this module's loops runs."""
    outer = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(outer)


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """What ``asyncio.run`` does at the end: cancel what is left, finish async generators."""
    for task in asyncio.all_tasks(loop):
        task.cancel()
    with _aside(), contextlib.suppress(CoroutineSuspended):
        loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


def run(main: Coroutine[Any, Any, T], *, debug: bool | None = None, loop_factory: Any = None) -> T:
    """``asyncio.run`` on a loop of this module: each call runs in a copy of the current
    context, on a loop of its own."""
    return drive(main)


class Runner:
    """``asyncio.Runner`` on a loop of this module: every ``run`` shares one context and one
    loop, as the real one does."""

    def __init__(self, *, debug: bool | None = None, loop_factory: Any = None) -> None:
        self._context = contextvars.copy_context()
        self._loop = _Loop()
        self._closed = False

    def run(self, coro: Coroutine[Any, Any, T], *, context: contextvars.Context | None = None) -> T:
        if self._closed:
            raise RuntimeError("Runner is closed")
        return drive(coro, self._context if context is None else context, self._loop)

    def get_loop(self) -> asyncio.AbstractEventLoop:
        """The runner's loop."""
        return self._loop

    def close(self) -> None:
        if not self._closed:
            _close(self._loop)
        self._closed = True

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
