r"""Errors in the page fail the test: console.error and uncaught errors of every browser context.

tests/e2e/conftest.py watches every context a test can get (the browser's contexts through its
"context" event, persistent contexts when launched) with ``ConsoleErrors.watch``. Each message
is recorded for the test that is running when Playwright delivers it: a module-shared app page
therefore charges an error to the test during which it happened (or, when it is delivered late,
to the next one). At the end of each test's teardown the conftest fails the test with every
message that no ``expect_console`` marker of the test allows.

A test that causes errors on purpose declares each kind, narrowly and with its reason:

    @pytest.mark.expect_console(r"pageerror .*: Error: boom", reason="the test throws it")
    @expect_failed_load(r"/preview/x/nope\.js", 404, reason="asks for a missing file")

``pattern`` is a regular expression searched in the recorded line, which reads
``console.error (<url of the page or worker>, at <url of the source>): <text>`` or
``pageerror (<page url>): <stack>``. An expectation that matches nothing is not an error (the
message may be timing-dependent). Console warnings never fail a test, and neither does a 404 for
a favicon.ico: Chromium asks for one for every document that declares no icon (a text file, a
JSON file, a previewed site), and that is not the page's error.
"""

from __future__ import annotations

import re

import pytest

MARKER = "expect_console"
MARKER_HELP = (
    f"{MARKER}(pattern, reason): the test causes page errors or console.error messages "
    "matching the regular expression `pattern` on purpose, for `reason` "
    "(tests/e2e/console_errors.py)"
)
FAVICON_404 = re.compile(
    r", at [^)]*/favicon\.ico\): Failed to load resource: "
    r"the server responded with a status of 404 ")
MAX_SHOWN = 20  # messages shown when a test fails
MAX_CHARS = 2_000  # characters shown of one message


class ConsoleErrors:
    """console.error messages and uncaught page errors, attributed to the running test."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def watch(self, context) -> None:
        """Record every console.error and uncaught error of `context`'s pages and workers."""
        context.on("console", self._on_console)
        context.on("weberror", self._on_weberror)

    def _on_console(self, message) -> None:
        if message.type != "error":
            return
        source = message.worker.url if message.worker else message.page.url if message.page else "?"
        at = message.location.get("url")  # for a failed load: the resource
        where = f"{source}, at {at}" if at else source
        self.messages.append(f"console.error ({where}): {message.text}")

    def _on_weberror(self, web_error) -> None:
        error = web_error.error
        where = web_error.page.url if web_error.page else "?"
        self.messages.append(f"pageerror ({where}): {error.stack or error.message}")

    def take(self) -> list[str]:
        """The messages recorded since the last call (the running test's), and forget them."""
        taken, self.messages = self.messages, []
        return taken


def expect_failed_load(url: str, status: int | str, reason: str) -> pytest.MarkDecorator:
    """expect_console for Chromium's "Failed to load resource" of a resource whose URL matches
    the regular expression `url`, answered `status` (an HTTP status, or a net:: error name)."""
    answer = (f"the server responded with a status of {status} " if isinstance(status, int)
              else re.escape(status))
    return pytest.mark.expect_console(
        rf", at [^)]*{url}[^)]*\): Failed to load resource: {answer}", reason=reason)


def expectations(item: pytest.Item) -> list[re.Pattern]:
    """The patterns of `item`'s expect_console markers; every marker must give a reason."""
    patterns = []
    for marker in item.iter_markers(MARKER):
        if len(marker.args) != 1 or not marker.kwargs.get("reason"):
            raise pytest.UsageError(
                f"{item.nodeid}: write @pytest.mark.{MARKER}(pattern, reason=...)")
        patterns.append(re.compile(marker.args[0]))
    return patterns


def unexpected(item: pytest.Item, messages: list[str]) -> list[str]:
    """The messages that none of `item`'s expect_console markers allows."""
    patterns = [FAVICON_404, *expectations(item)]
    return [m for m in messages if not any(p.search(m) for p in patterns)]


def failure_text(messages: list[str]) -> str:
    """The failure message listing `messages` (the first MAX_SHOWN, each cut at MAX_CHARS)."""
    shown = [m if len(m) <= MAX_CHARS else m[:MAX_CHARS] + " [...]" for m in messages[:MAX_SHOWN]]
    more = len(messages) - len(shown)
    lines = "\n".join(f"  {m}" for m in shown) + (f"\n  ... and {more} more" if more else "")
    return (
        f"{len(messages)} unexpected console error(s) or page error(s) during this test "
        f"(declare intended ones with @pytest.mark.{MARKER}(pattern, reason=...)):\n{lines}"
    )
