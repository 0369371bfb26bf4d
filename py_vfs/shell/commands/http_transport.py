"""The HTTP transport of `curl` and `wget`: one request, its response streamed in chunks.

Two implementations stand behind ``send``: on CPython ``urllib.request`` runs in a thread of
its own (each blocking step awaited through ``cancel.wait``, so Ctrl-C and the deadline end the
command at once; the thread's socket timeout is the deadline too, so it does not outlive it by
much); in Pyodide the worker's ``fetch`` (``http_browser.py``), aborted through an
``AbortController``. Failures are ``NetworkError`` with a ``kind`` the commands map to their own
statuses and messages. Redirects are followed here (``follow``), at most ``max_redirects``.

A scoop has no network unless its creator allowed it (``network`` of a restricted view,
docs/sandbox.md): ``network_refusal`` names why a command may not reach it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ...core import cancel
from .. import limits

CHUNK = 64 * 1024  # what one read of a body takes at most
REDIRECTS = (301, 302, 303, 307, 308)
IN_BROWSER = sys.platform == "emscripten"
# A socket left without a deadline still gives up after this long (the thread must end).
IDLE_TIMEOUT = 300.0


class NetworkError(Exception):
    """A transfer that failed: ``kind`` is one of resolve, connect, timeout, tls, browser,
    redirects, protocol, other; ``str()`` is the detail to show."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


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


class TooLarge(Exception):
    """A body over the shell's ``MAX_DOWNLOAD`` bytes: the transfer stopped there."""


async def copy_body(response: Response, write: Callable[[bytes], Any],
                    deadline: Deadline, syscall: str) -> int:
    """Hand ``response``'s body to ``write`` a chunk at a time (awaited), within the deadline
    and ``limits.MAX_DOWNLOAD``; the bytes received. ``TooLarge`` past the limit."""
    received = 0
    chunks = response.body().__aiter__()
    try:
        while True:
            try:
                chunk = await deadline.wait(chunks.__anext__(), syscall)
            except StopAsyncIteration:
                return received
            received += len(chunk)
            if received > limits.MAX_DOWNLOAD:
                raise TooLarge(f"{limits.MAX_DOWNLOAD} bytes")
            await write(chunk)
    finally:
        response.close()


def network_refusal(vfs: Any) -> str | None:
    """Why the shell on ``vfs`` may not reach the network (a scoop opened without it), or
    None when it may."""
    if getattr(vfs, "network", True):
        return None
    writer = getattr(vfs, "writer", None) or ""
    if writer.startswith("scoop:"):
        return (f"scoop '{writer.removeprefix('scoop:')}' has no network access "
                "(its creator did not allow it)")
    return "this view has no network access (its creator did not allow it)"


def split_url(url: str) -> urllib.parse.SplitResult:
    """``url`` parsed, ``http://`` added when it names no scheme (as curl and wget do);
    ``NetworkError`` (protocol) for another scheme or no host."""
    if "://" not in url:
        url = "http://" + url
    parts = urllib.parse.urlsplit(url)
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


async def send(request: Request, deadline: Deadline, *, follow: bool,
               max_redirects: int, syscall: str) -> Response:
    """Send ``request``, following redirects when ``follow`` (at most ``max_redirects``);
    the last response, its body not read yet (``history``: the redirects' responses)."""
    if IN_BROWSER:
        from .http_browser import browser_send
        return await browser_send(request, deadline, follow=follow, syscall=syscall)
    history: list[Response] = []
    while True:
        response = await deadline.wait(_in_thread(_open, request, deadline.left()), syscall)
        location = response.header("location")
        if not follow or response.status not in REDIRECTS or location is None:
            response.redirects, response.history = len(history), history
            return response
        response.close()
        if len(history) >= max_redirects:
            raise NetworkError("redirects", f"Maximum ({max_redirects}) redirects followed")
        history.append(response)
        request = _redirected(request, response.status, location)


def _redirected(request: Request, status: int, location: str) -> Request:
    """The request a redirect asks for: a POST becomes a GET after 301, 302 and 303."""
    url = urllib.parse.urljoin(request.url, location)
    split_url(url)
    if (status == 303 and request.method != "HEAD") or \
            (status in (301, 302) and request.method == "POST"):
        headers = [(k, v) for k, v in request.headers
                   if k.lower() not in ("content-type", "content-length")]
        return Request("GET", url, headers, None)
    return Request(request.method, url, request.headers, request.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx comes back as it is; ``send`` follows it (or not)


_OPENER: list[urllib.request.OpenerDirector] = []  # made at the first request


def _opener() -> urllib.request.OpenerDirector:
    if not _OPENER:
        _OPENER.append(urllib.request.build_opener(_NoRedirect))
    return _OPENER[0]


def _open(request: Request, timeout: float | None) -> Response:
    """One request with urllib, in a thread: its response (an HTTP error status is one too)."""
    sent = urllib.request.Request(request.url, data=request.body, method=request.method)
    for name, value in request.headers:
        sent.add_header(name, value)
    try:
        raw: Any = _opener().open(sent, timeout=IDLE_TIMEOUT if timeout is None else timeout)
    except urllib.error.HTTPError as exc:
        raw = exc
    except urllib.error.URLError as exc:
        raise _failure(exc.reason, request.url) from exc
    except (OSError, ValueError) as exc:
        raise _failure(exc, request.url) from exc
    status = raw.status if hasattr(raw, "status") and raw.status else raw.code
    version = {10: "HTTP/1.0", 11: "HTTP/1.1"}.get(getattr(raw, "version", 11), "HTTP/1.1")
    read = getattr(raw, "read1", None) or raw.read

    async def chunks() -> AsyncIterator[bytes]:
        while True:
            try:
                chunk = await _in_thread(read, CHUNK)
            except (OSError, ValueError) as exc:
                raise _failure(exc, request.url) from exc
            if not chunk:
                return
            yield chunk

    return Response(request.url, status, raw.reason or "", list(raw.headers.items()), version,
                    chunks, raw.close)


def _failure(reason: object, url: str) -> NetworkError:
    """The ``NetworkError`` of a socket failure."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if isinstance(reason, socket.gaierror):
        return NetworkError("resolve", f"Could not resolve host: {host}")
    if isinstance(reason, TimeoutError | socket.timeout):
        return NetworkError("timeout", "timeout")
    if isinstance(reason, ssl.SSLCertVerificationError):
        return NetworkError("tls", f"SSL certificate problem: {reason.verify_message}")
    if isinstance(reason, ssl.SSLError):
        return NetworkError("tls", f"SSL connect error: {reason}")
    if isinstance(reason, ConnectionRefusedError):
        return NetworkError("connect", f"Failed to connect to {host} port {port}: "
                                       "Connection refused")
    if isinstance(reason, OSError):
        return NetworkError("connect", f"Failed to connect to {host} port {port}: "
                                       f"{reason.strerror or reason}")
    return NetworkError("other", str(reason))


def _in_thread(call: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """``call(*args)`` in a daemon thread of its own: a future of its result. The thread may
    outlive a cancelled wait, until its socket's timeout at most."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            outcome: tuple[Any, BaseException | None] = (call(*args), None)
        except BaseException as exc:
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=run, daemon=True, name="py_vfs-http").start()
    return future
