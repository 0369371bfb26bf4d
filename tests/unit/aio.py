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
coroutine on ``py_vfs.core.blocking.StepLoop`` (asyncio's ``BaseEventLoop`` with no I/O), which
``run_until_complete`` can block on. Should the coroutine wait for something no Python code
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

import contextvars
import inspect
import os
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

from py_vfs.core.blocking import CoroutineSuspended, StepLoop

__all__ = ["CoroutineSuspended", "Runner", "run", "stepping_wanted"]

T = TypeVar("T")

STEP_ENV = "PYVFS_TEST_STEP_COROUTINES"


def stepping_wanted() -> bool:
    """True where a blocking event loop is unavailable (Pyodide) or the stepping is forced."""
    return sys.platform == "emscripten" or os.environ.get(STEP_ENV) == "1"


def drive(coro: Coroutine[Any, Any, T], context: contextvars.Context | None = None,
          loop: StepLoop | None = None) -> T:
    """Run ``coro`` to completion on a ``StepLoop``; raise ``CoroutineSuspended`` if it
    waits for something only the JS event loop could bring (a pending JS promise)."""
    if not inspect.iscoroutine(coro):
        raise ValueError(f"a coroutine was expected, got {coro!r}")
    own = loop is None
    loop = loop or StepLoop()
    try:
        return loop.drive(coro, context)
    finally:
        if own:
            loop.close()


def run(main: Coroutine[Any, Any, T], *, debug: bool | None = None, loop_factory: Any = None) -> T:
    """``asyncio.run`` on a ``StepLoop``: each call runs in a copy of the current context, on a
    loop of its own."""
    return drive(main)


class Runner:
    """``asyncio.Runner`` on a ``StepLoop``: every ``run`` shares one context and one loop, as
    the real one does."""

    def __init__(self, *, debug: bool | None = None, loop_factory: Any = None) -> None:
        self._context = contextvars.copy_context()
        self._steps = StepLoop()
        self._closed = False

    def run(self, coro: Coroutine[Any, Any, T], *, context: contextvars.Context | None = None) -> T:
        if self._closed:
            raise RuntimeError("Runner is closed")
        return drive(coro, self._context if context is None else context, self._steps)

    def get_loop(self) -> Any:
        """The runner's loop."""
        return self._steps.loop

    def close(self) -> None:
        if not self._closed:
            self._steps.close()
        self._closed = True

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
