"""The HTTP transport in Pyodide: the worker's ``fetch`` (``js.fetch`` through pyodide.ffi).

Every request carries an ``AbortController``'s signal: Ctrl-C (the call's cancel signal) and
the deadline abort it, and the body's reader with it. The browser follows redirects itself
(``redirect: "follow"``, its own bound of 20); without ``follow`` a redirect stays opaque
(``redirect: "manual"``: the browser shows neither its status nor its Location), so it comes
back as status 0. A ``TypeError`` from ``fetch`` is what the browser gives for CORS refusals
and for being offline alike: it becomes a ``NetworkError`` of kind ``browser``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ...core import cancel
from .http_types import Deadline, NetworkError, Request, Response

BROWSER_REFUSED = "the browser refused the request (CORS, or offline)"


async def browser_send(request: Request, deadline: Deadline, *, follow: bool,
                       syscall: str) -> Response:
    """``request`` through ``fetch``: the response, its body read as ``body()`` iterates."""
    from js import AbortController, Object, fetch
    from pyodide.ffi import JsException, to_js

    controller = AbortController.new()
    init: dict[str, Any] = {"method": request.method,
                            "headers": [[name, value] for name, value in request.headers],
                            "signal": controller.signal,
                            "redirect": "follow" if follow else "manual"}
    if request.body is not None:
        init["body"] = to_js(request.body)
    options = to_js(init, dict_converter=Object.fromEntries)

    async def guarded(awaitable: Any) -> Any:
        try:
            return await deadline.wait(awaitable, syscall)
        except BaseException as exc:
            controller.abort()
            if isinstance(exc, JsException):
                raise _failure(exc) from exc
            raise

    answer = await guarded(fetch(request.url, options))
    headers = [(str(pair[0]), str(pair[1])) for pair in answer.headers.entries()]
    status, reason = int(answer.status), str(answer.statusText)
    if str(answer.type) == "opaqueredirect":
        status, reason = 0, "redirect (not followed: the browser hides it)"
    stream = answer.body

    async def chunks() -> AsyncIterator[bytes]:
        if stream is None:
            return
        reader = stream.getReader()
        while True:
            cancel.check(syscall)
            piece = await guarded(reader.read())
            if piece.done:
                return
            yield bytes(piece.value.to_bytes())

    return Response(str(answer.url) or request.url, status, reason, headers, "HTTP/1.1",
                    chunks, controller.abort, int(bool(answer.redirected)))


def _failure(exc: Any) -> NetworkError:
    """The ``NetworkError`` of a rejected ``fetch``."""
    name = getattr(exc, "name", "") or type(exc).__name__
    if name == "AbortError":
        return NetworkError("timeout", "timeout")
    if name == "TypeError" or "TypeError" in str(exc):
        return NetworkError("browser", BROWSER_REFUSED)
    return NetworkError("other", str(exc))
