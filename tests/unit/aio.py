"""Run the core's coroutines to completion from synchronous tests, on CPython and in Pyodide.

The unit tests call ``asyncio.run(coro)`` or an ``asyncio.Runner``. On CPython that is a real
event loop. In Pyodide under Node it cannot be: the only loop is Pyodide's ``WebLoop`` over the
JS event loop, and blocking on it needs JSPI stack switching, which Node 20 lacks. In Pyodide
314 (Python 3.14.2) ``asyncio.run(coro)`` and ``loop.run_until_complete(coro)`` raise
``RuntimeError: WebAssembly stack switching not supported in this JavaScript runtime`` and
``asyncio.Runner().run(coro)`` raises ``RuntimeError: Runner.run() cannot be called from a
running event loop``.

On the memory store the core never truly suspends: each ``await`` ends in a coroutine that
returns without yielding to a loop (``MemoryStore``'s methods, an uncontended
``asyncio.Lock``). So ``drive`` runs a coroutine by stepping it once with ``send(None)``, which
runs it to its end. Should it yield instead (it awaited a pending future, ``asyncio.sleep``, a
contended lock...), ``drive`` closes it and raises ``CoroutineSuspended`` naming where it
stopped: such a test needs a real event loop and must not pass by accident.

``conftest.py`` installs ``run`` and ``Runner`` as ``asyncio.run`` and ``asyncio.Runner`` for
the session in Pyodide (``sys.platform == "emscripten"``), or on CPython when the environment
has ``PYVFS_TEST_STEP_COROUTINES=1`` (to reproduce a Pyodide failure); otherwise the tests use
the real ``asyncio``. So a unit test drives coroutines with ``asyncio.run`` or an
``asyncio.Runner``; ``loop.run_until_complete`` on a loop of its own cannot work in Pyodide (the
loop is a ``WebLoop`` and raises the error above).
"""

from __future__ import annotations

import contextvars
import inspect
import os
import sys
from collections.abc import Coroutine
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


def drive(coro: Coroutine[Any, Any, T], context: contextvars.Context | None = None) -> T:
    """Run ``coro`` to completion without an event loop; raise if it ever suspends."""
    if not inspect.iscoroutine(coro):
        raise ValueError(f"a coroutine was expected, got {coro!r}")
    context = contextvars.copy_context() if context is None else context
    try:
        yielded = context.run(coro.send, None)
    except StopIteration as done:
        return done.value
    where = _where(coro)
    coro.close()
    raise CoroutineSuspended(
        f"{coro.__qualname__} suspended at {where} on {yielded!r}: it needs a real event "
        "loop, which tests/unit/aio.py does not provide (no blocking loop in Pyodide/Node)"
    )


def run(main: Coroutine[Any, Any, T], *, debug: bool | None = None, loop_factory: Any = None) -> T:
    """``asyncio.run`` without a loop: each call runs in a copy of the current context."""
    return drive(main)


class Runner:
    """``asyncio.Runner`` without a loop: every ``run`` shares one context, as the real one does."""

    def __init__(self, *, debug: bool | None = None, loop_factory: Any = None) -> None:
        self._context = contextvars.copy_context()
        self._closed = False

    def run(self, coro: Coroutine[Any, Any, T], *, context: contextvars.Context | None = None) -> T:
        if self._closed:
            raise RuntimeError("Runner is closed")
        return drive(coro, self._context if context is None else context)

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
