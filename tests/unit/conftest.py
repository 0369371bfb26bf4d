"""Shared set-up of the unit tests, which run on CPython and inside Pyodide (tests/pyodide/unit).

In Pyodide under Node no event loop can block, so ``asyncio.run`` and ``asyncio.Runner`` fail
there; for the session they are replaced by the synchronous driver of ``aio.py``, which runs a
coroutine to its end and fails loudly if it ever suspends. On CPython nothing is replaced.
"""

from __future__ import annotations

import asyncio

import aio

_saved: dict[str, object] = {}


def pytest_configure(config) -> None:
    if aio.stepping_wanted() and not _saved:
        _saved.update(run=asyncio.run, Runner=asyncio.Runner)
        asyncio.run = aio.run
        asyncio.Runner = aio.Runner


def pytest_unconfigure(config) -> None:
    if _saved:
        asyncio.run = _saved.pop("run")
        asyncio.Runner = _saved.pop("Runner")


def pytest_report_header(config) -> str:
    if _saved:
        return "coroutines: stepped synchronously by tests/unit/aio.py (asyncio.run replaced)"
    return "coroutines: asyncio.run (a real event loop)"
