"""Helpers the unit tests share (on CPython and in Pyodide): ``run`` drives one coroutine to
its end from a synchronous test.

``run`` looks ``asyncio.run`` up at each call, not at import: in Pyodide, conftest.py replaces
it for the session with tests/unit/aio.py's driver after this module may have been imported."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], bound: float | None = None) -> T:
    """``coro``'s result, on an event loop of its own (``asyncio.run``); ``bound``: fail with
    TimeoutError after that many seconds (else pytest.ini's per-test timeout bounds it)."""
    return asyncio.run(coro if bound is None else asyncio.wait_for(coro, bound))
