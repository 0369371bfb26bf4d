"""Shared by tests/unit and tests/e2e: a backstop behind pytest-timeout's per-test time bound.

pytest.ini bounds every test with pytest-timeout's "signal" method: at the timeout SIGALRM
raises in the test, which fails with its stack, and the run goes on. But an exception raised at
an arbitrary point can leave the code under test unable to finish: seen with tests/unit's
Hypothesis state machine, whose replay of the interrupted example then waited forever in an
event loop, with no second alarm to come. So each timed test also gets a backstop thread: if the
test is still running BACKSTOP_S after its timeout, it dumps every thread's stack and ends
pytest (pytest-timeout's "thread" method). A hang thus always ends with a stack.

Inside Pyodide (tests/pyodide/unit_suite.mjs) pytest-timeout is not installed, these hooks are
never called, and a watchdog of that runner bounds each test instead.
"""

from __future__ import annotations

import threading

import pytest

BACKSTOP_S = 60
_backstops: dict[str, threading.Timer] = {}


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings) -> None:
    """Start the backstop; returning None lets pytest-timeout set its own timer as usual."""
    if settings.method != "signal":
        return
    timer = threading.Timer(settings.timeout + BACKSTOP_S, _end_pytest, (item, settings))
    timer.name = "pytest-timeout backstop"
    timer.daemon = True
    _backstops[item.nodeid] = timer
    timer.start()


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> None:
    """Cancel the backstop; pytest-timeout then cancels its own timer."""
    timer = _backstops.pop(item.nodeid, None)
    if timer is not None:
        timer.cancel()


def _end_pytest(item: pytest.Item, settings) -> None:
    """Say why, then dump every stack and end the process (pytest-timeout's thread method)."""
    import pytest_timeout

    capture = item.config.pluginmanager.getplugin("capturemanager")
    if capture:
        capture.suspend_global_capture(item)
    item.config.get_terminal_writer().line(
        f"\n{item.nodeid}: still running {BACKSTOP_S} s after its {settings.timeout:g} s "
        "timeout: ending pytest")
    pytest_timeout.timeout_timer(item, settings)
