"""Shared set-up of the unit tests, which run on CPython and inside Pyodide
(tests/pyodide/unit_suite.mjs).

In Pyodide under Node no event loop can block, so ``asyncio.run`` and ``asyncio.Runner`` fail
there; for the session they are replaced by the synchronous driver of ``aio.py``, which runs a
coroutine to its end and fails loudly if it ever suspends. On CPython nothing is replaced.

On CPython every skip is accounted for, as the Pyodide tier does with its EXPECTED_SKIPS
(tests/pyodide/unit_suite.mjs): a skip that ``EXPECTED_SKIPS`` below does not list with that
reason, or a listed one that was collected and ran, fails the run (exit status 1) with a list.
A strict xfail that ran and failed as declared is not a skip; any other xfail is one. The
accounting is the controller's when pytest-xdist runs the tests in workers (tests/run.sh): every
report reaches it, and a strict xfail's report says so itself (``STRICT_XFAIL``), since the
controller collects nothing.

The fixtures the test files share: ``vfs`` (an empty disk in memory; a file that wants one
filled asks for ``vfs`` in its own ``vfs`` fixture), ``sh`` (a shell session,
tests/unit/shell_session.py) and ``utc`` (local time pinned to UTC).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator

import aio
import pytest
from shell_session import Session

from py_vfs import VFS

# node id (or a module's path, for a module that skips itself) -> the reason pytest reports.
# Empty: on CPython, with what `build/setup.sh --test` installs (zip, unzip, sqlite3, GNU ls),
# every test runs.
EXPECTED_SKIPS: dict[str, str] = {}

_skipped: dict[str, str] = {}
_ran: set[str] = set()
# Put on the report of a test marked as a strict xfail that runs (``pytest_runtest_makereport``).
STRICT_XFAIL = ("xfail", "strict")

_saved: dict[str, object] = {}


@pytest.fixture
def vfs() -> VFS:
    """An empty disk in memory."""
    return VFS.memory()


@pytest.fixture
def sh() -> Iterator[Session]:
    """A shell on an empty disk in memory, with its own event loop."""
    session = Session()
    yield session
    session.runner.close()


@pytest.fixture
def utc(monkeypatch) -> Iterator[None]:
    """Listings show local time; pin it to UTC so expected dates are exact."""
    if not hasattr(time, "tzset"):
        # Emscripten (Pyodide) has no time.tzset and ignores $TZ: local time is the JS
        # runtime's, which tests/pyodide/unit_suite.mjs pins to UTC (TZ=UTC before boot).
        assert [time.localtime(t).tm_gmtoff for t in (0, 1_720_000_000)] == [0, 0]
        yield
        return
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


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


def _accounting() -> bool:
    return sys.platform != "emscripten"  # Pyodide's runner has its own list


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    marker = item.get_closest_marker("xfail")
    if call.when == "call" and marker is not None and marker.kwargs.get("run", True) and \
            marker.kwargs.get("strict", item.config.getini("xfail_strict")):
        # a list of its own: the report was given the item's
        report.user_properties = [*report.user_properties, STRICT_XFAIL]
    return report


def pytest_collectreport(report) -> None:
    if report.skipped:  # a module that skips itself
        _skipped[report.nodeid] = _reason(report)


def pytest_runtest_logreport(report) -> None:
    if report.when == "call":
        _ran.add(report.nodeid)
    if not report.skipped:
        return
    if hasattr(report, "wasxfail") and report.when == "call" and \
            any(tuple(entry) == STRICT_XFAIL for entry in report.user_properties):
        return  # ran and failed as its strict xfail declares
    _skipped[report.nodeid] = _reason(report)


def _reason(report) -> str:
    if hasattr(report, "wasxfail"):
        return f"xfail: {report.wasxfail}"
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_sessionfinish(session, exitstatus) -> None:
    if not _accounting():
        return
    unexpected = {node: why for node, why in _skipped.items() if EXPECTED_SKIPS.get(node) != why}
    stale = sorted(node for node in EXPECTED_SKIPS if node in _ran)
    if not unexpected and not stale:
        return
    writer = session.config.get_terminal_writer()
    writer.line()
    for node, why in sorted(unexpected.items()):
        writer.line(f"unexpected skip (not in EXPECTED_SKIPS of tests/unit/conftest.py): "
                    f"{node}: {why}", red=True)
    for node in stale:
        writer.line(f"listed in EXPECTED_SKIPS but it ran: {node}", red=True)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
