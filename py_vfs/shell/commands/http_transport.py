"""The HTTP transport of `curl` and `wget`: one request, its response streamed in chunks.

Two implementations stand behind ``send``: on CPython ``urllib.request`` runs in a thread of
its own (``http_urllib.py``: each blocking step awaited through ``cancel.wait``, so Ctrl-C and
the deadline end the command at once; the thread's socket timeout is the deadline too, so it
does not outlive it by much); in Pyodide the worker's ``fetch`` (``http_browser.py``), aborted
through an ``AbortController``. Failures are ``NetworkError`` with a ``kind`` the commands map
to their own statuses and messages. Redirects are followed when asked, a bounded number.

A scoop has no network unless its creator allowed it (``network`` of a restricted view,
docs/sandbox.md): ``network_refusal`` names why a command may not reach it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .. import limits
from .http_types import Deadline, Request, Response

IN_BROWSER = sys.platform == "emscripten"


def in_browser() -> bool:
    """Whether requests go through the browser's ``fetch`` (Pyodide) rather than urllib."""
    return IN_BROWSER


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


async def send(request: Request, deadline: Deadline, *, follow: bool,
               max_redirects: int, syscall: str) -> Response:
    """Send ``request``, following redirects when ``follow`` (at most ``max_redirects``);
    the last response, its body not read yet (``history``: the redirects' responses)."""
    if in_browser():
        from .http_browser import browser_send
        return await browser_send(request, deadline, follow=follow, syscall=syscall)
    from .http_urllib import urllib_send
    return await urllib_send(request, deadline, follow=follow, max_redirects=max_redirects,
                             syscall=syscall)
