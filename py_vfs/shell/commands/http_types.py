"""What `curl` and `wget` hand the HTTP transport and get back: ``Request``, ``Response``,
``NetworkError``, the ``Deadline`` of a transfer, and ``split_url``."""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ...core import cancel


class NetworkError(Exception):
    """A transfer that failed: ``kind`` is one of resolve, connect, timeout, tls, browser,
    redirects, protocol, other; ``str()`` is the detail to show."""

    def __init__(self, kind: str, message: str, where: str = "") -> None:
        """``where``: for a connect failure, the host and port (``HOST port PORT``)."""
        super().__init__(message)
        self.kind = kind
        self.where = where


@dataclass
class Request:
    """What to send: ``method``, an http(s) ``url``, ``headers`` in order, a ``body``."""

    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None


@dataclass
class Response:
    """What came back: the status line, the headers in order, and the body's chunks."""

    url: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    version: str = "HTTP/1.1"
    chunks: Callable[[], AsyncIterator[bytes]] | None = None
    close: Callable[[], None] = lambda: None
    redirects: int = 0
    history: list[Response] = field(default_factory=list)  # the redirects' own responses

    def header(self, name: str) -> str | None:
        """The first header ``name`` (any case), or None."""
        lowered = name.lower()
        return next((value for key, value in self.headers if key.lower() == lowered), None)

    async def body(self) -> AsyncIterator[bytes]:
        """The body, a chunk at a time."""
        if self.chunks is not None:
            async for chunk in self.chunks():
                yield chunk


def split_url(url: str) -> urllib.parse.SplitResult:
    """``url`` parsed, ``http://`` added when it names no scheme (as curl and wget do);
    ``NetworkError`` (protocol) for another scheme or no host."""
    if "://" not in url:
        url = "http://" + url
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - a port out of range or not a number raises here
    except ValueError:
        raise NetworkError("format", "URL rejected: Malformed input to a URL function") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise NetworkError("protocol", f'Protocol "{parts.scheme}" not supported')
    if not parts.hostname:
        raise NetworkError("format", "URL rejected: No host part in the URL")
    return parts


class Deadline:
    """The time a transfer may take (``seconds`` None: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.start = time.monotonic()

    def left(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        if self.seconds is None:
            return None
        return max(self.seconds - (time.monotonic() - self.start), 0.0)

    def elapsed_ms(self) -> int:
        """Milliseconds since the transfer began."""
        return int((time.monotonic() - self.start) * 1000)

    async def wait(self, awaitable: Any, syscall: str) -> Any:
        """The result of ``awaitable``; ``NetworkError`` (timeout) past the deadline,
        ``ECANCELED`` on Ctrl-C."""
        task = asyncio.ensure_future(awaitable)
        if not await cancel.wait(task, syscall, self.left()):
            raise NetworkError("timeout", "timeout")
        return task.result()
