"""pytest plugin for the run of tests/unit inside Pyodide (tests/pyodide/unit_suite.mjs).

Two jobs:

- A time bound on every test, in place of pytest-timeout, which cannot work there (no
  threads, and no timer can deliver a signal while Python runs). The runner starts a Node
  worker thread as a watchdog; ``arm(ms)`` asks it to set Pyodide's interrupt buffer to SIGALRM
  after ``ms``, which Python sees between two bytecodes and hands to the handler installed
  here: the running test fails with a message, and the run goes on. The bound is the same as
  on CPython: the ``timeout`` key of pytest.ini or a test's ``@pytest.mark.timeout(seconds)``
  (both registered here, so pytest knows them without pytest-timeout).
- The outcome of every test, for the runner to compare with its list of expected skips:
  ``Outcomes.report()``.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable

import pytest


class Watchdog:
    """Fails a test that runs longer than its timeout (see the module docstring)."""

    def __init__(self, arm: Callable[[float], None]) -> None:
        self.arm = arm
        self.running: tuple[str, float, float] | None = None  # (nodeid, seconds, deadline)

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        parser.addini("timeout", "seconds a test may take (0: no bound)", default="0")
        parser.addini("timeout_method", "pytest-timeout's method; the watchdog ignores it")

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "timeout(seconds): this test's time bound")
        signal.signal(signal.SIGALRM, self._on_alarm)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.arm(0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        marker = item.get_closest_marker("timeout")
        seconds = float(marker.args[0] if marker else item.config.getini("timeout") or 0)
        if seconds > 0:
            self.running = (item.nodeid, seconds, time.monotonic() + seconds)
            self.arm(seconds * 1000)
        try:
            return (yield)
        finally:
            self.running = None
            self.arm(0)

    def _on_alarm(self, signum: int, frame) -> None:
        __tracebackhide__ = True
        # An alarm that fired as the test ended, or early, is ignored.
        if self.running is None or time.monotonic() < self.running[2]:
            return
        nodeid, seconds, _ = self.running
        self.running = None
        pytest.fail(f"Timeout (>{seconds:g} s): {nodeid} (Pyodide watchdog)")


class Outcomes:
    """Which tests were collected, passed, failed, skipped (with the reason) or failed as a
    strict xfail declares (``xfailed``: the test ran and failed as listed, like the shell
    conformance suite's KNOWN_FAILURES; one that passes fails the run). Any other xfail (a
    non-strict marker, ``run=False``, ``pytest.xfail()`` inside a test) is a skip like any
    other, reported with the reason "xfail: ...", so the runner's EXPECTED_SKIPS must list it."""

    def __init__(self) -> None:
        self.collected: list[str] = []
        self.passed: list[str] = []
        self.failed: list[str] = []
        self.skipped: dict[str, str] = {}
        self.xfailed: list[str] = []
        self.strict: set[str] = set()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]
        self.strict = strict_xfails(session.items)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:  # a module that skips itself: its tests are never collected
            self.skipped[report.nodeid] = skip_reason(report)
        elif report.failed:
            self.failed.append(report.nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and is_declared_xfail(report, self.strict):
            self.xfailed.append(report.nodeid)
        elif report.skipped:
            self.skipped[report.nodeid] = skip_reason(report)
        elif report.failed:
            self.failed.append(report.nodeid)
        elif report.when == "call":
            self.passed.append(report.nodeid)

    def report(self) -> dict:
        """{collected, passed, failed, xfailed: [nodeid], skipped: {nodeid: reason}}."""
        return {"collected": self.collected, "passed": self.passed, "failed": self.failed,
                "skipped": self.skipped, "xfailed": self.xfailed}


def strict_xfails(items: list[pytest.Item]) -> set[str]:
    """The tests marked ``xfail(strict=True)`` that run (not ``run=False``)."""
    strict = set()
    for item in items:
        marker = item.get_closest_marker("xfail")
        if marker is None or not marker.kwargs.get("run", True):
            continue
        if marker.kwargs.get("strict", item.config.getini("xfail_strict")):
            strict.add(item.nodeid)
    return strict


def is_declared_xfail(report: pytest.TestReport, strict: set[str]) -> bool:
    """The test ran and failed as its strict xfail marker says (not a skip)."""
    return hasattr(report, "wasxfail") and report.when == "call" and report.nodeid in strict


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason pytest prints for a skip (an xfail that is not a declared strict one counts as
    a skip, with its reason after "xfail: ")."""
    if hasattr(report, "wasxfail"):
        return f"xfail: {report.wasxfail}"
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")
