"""The HTTP transport on CPython: ``urllib.request``, each blocking step in a daemon thread
awaited through ``Deadline.wait`` (so Ctrl-C and the deadline end the wait at once; the socket's
timeout is the deadline too, so the thread does not outlive it by much). Redirects are followed
here, one request at a time, a bounded number."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable
from typing import Any

from .http_types import Deadline, NetworkError, Request, Response, split_url

CHUNK = 64 * 1024  # what one read of a body takes at most
REDIRECTS = (301, 302, 303, 307, 308)
# A socket left without a deadline still gives up after this long (the thread must end).
IDLE_TIMEOUT = 300.0


async def urllib_send(request: Request, deadline: Deadline, *, follow: bool,
                      max_redirects: int, syscall: str) -> Response:
    """Send ``request``, following redirects when ``follow`` (at most ``max_redirects``);
    the last response, its body not read yet (``history``: the redirects' responses)."""
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
        return NetworkError("connect", "Connection refused", f"{host} port {port}")
    if isinstance(reason, OSError):
        return NetworkError("connect", str(reason.strerror or reason), f"{host} port {port}")
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
