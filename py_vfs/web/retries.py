"""Calls sent again after the runtime that ran them went (docs/architecture.md, "One runtime for
every tab", Failover).

A guest page whose host tab closed cannot know whether a write it had in flight was committed.
Every call that may change the disk carries a request id (the call envelope's ``request``,
protocol.CALL_REQUEST), which the commit carrying its changes records in its journal entry
(``requests``: py_vfs/disk/group_commit.py, ``transaction.REQUEST``). The page sends a call
whose whole effect is one commit and whose answer is void (``Op.retryable``) again to the next
host, with the same id and ``retry`` (protocol.CALL_RETRY): the wall time, ms since 1970, it was
first sent. Before running it, the host looks for the id in the journal entries from the newest
back to one older than that time less ``MARGIN_MS`` (``Journal.find_request``):

- found: the call was applied; it answers as it did (``{value: null}``, undefined in JS), and
  does not run again (a recursive mkdir then answers undefined, as when every directory
  existed);
- not found, and the journal reaches back that far: it was not applied; it runs now;
- the journal was trimmed past that time, or the disk has a mounted folder (a folder's changes
  are not journaled), or the call reached a restricted view (no journal of its own): it cannot
  be told, and the call fails with EIO, as every call in flight at a failover did before.

The page's calls after a retried one wait until it is answered (``Retries.idle``), so none
overtakes it while the journal is read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from .protocol import BY_NAME, error_envelope

# How far before the time a call was first sent the journal is read: the page's clock and the
# worker's are one machine's, but either may have been set back meanwhile.
MARGIN_MS = 60_000.0
# The longest request id taken (the page's are about 20 characters).
MAX_REQUEST = 100

Envelope = dict[str, Any]
# How a retried call that must run is run: WebAPI's call, past the retries' own gate.
Run = Callable[[], Any]
Convert = Callable[[Envelope], Any]


def check_request(request: object) -> str:
    """A call envelope's request id: a non-empty string of at most ``MAX_REQUEST`` characters,
    else EINVAL."""
    if not isinstance(request, str) or not 0 < len(request) <= MAX_REQUEST:
        raise FsError.of("EINVAL", "call").with_hint(
            f"a request id is a string of 1 to {MAX_REQUEST} characters, not {request!r}")
    return request


def check_retry(op: str, request: str | None, retry: object) -> float:
    """A retried call's first-sent time (ms since 1970): only a retryable operation with a
    request id may be sent again, else EINVAL."""
    found = BY_NAME.get(op)
    if found is None or not found.retryable or request is None:
        raise FsError.of("EINVAL", op).with_hint(
            f"only a call with a request id of {', '.join(RETRYABLE)} may be sent again")
    if isinstance(retry, bool) or not isinstance(retry, int | float):
        raise FsError.of("EINVAL", op).with_hint(f"retry is ms since 1970, not {retry!r}")
    return float(retry)


RETRYABLE = tuple(sorted(op.name for op in BY_NAME.values() if op.retryable))


class Retries:
    """The retried calls of one page's API over ``vfs`` (a VFS, or a restricted view), in the
    order they came."""

    def __init__(self, vfs: Any) -> None:
        self.vfs = vfs
        self._last: asyncio.Future[Any] | None = None  # the latest retried call's task

    @property
    def busy(self) -> bool:
        """True while a retried call is not answered: the page's later calls wait."""
        return self._last is not None and not self._last.done()

    async def idle(self) -> None:
        """Wait until every retried call is answered."""
        while self.busy:
            assert self._last is not None
            await asyncio.wait([self._last])

    def retry(self, op: str, request: str, sent: float, run: Run,
              out: Convert | None) -> asyncio.Future[Any]:
        """Answer the retried call ``op`` with request id ``request``, first sent at ``sent``:
        as applied when the journal has it, by ``run()`` when it has not, EIO when it cannot
        tell. A task, in the caller's context (its writer and request id)."""
        before = self._last
        task = asyncio.ensure_future(self._answer(before, op, request, sent, run, out))
        self._last = task
        return task

    async def _answer(self, before: asyncio.Future[Any] | None, op: str, request: str,
                      sent: float, run: Run, out: Convert | None) -> Any:
        if before is not None and not before.done():
            await asyncio.wait([before])
        try:
            found = await self._applied(request, sent)
        except FsError:  # the journal could not be read
            found = None
        if found is None:
            envelope = _unknown(op)
        elif found:
            envelope = {"value": None}
        else:
            result = run()
            if not isinstance(result, dict):
                return await result  # converted by its own task (``out``)
            envelope = result
        return envelope if out is None else out(envelope)

    async def _applied(self, request: str, sent: float) -> int | None:
        """``Journal.find_request``'s answer, or None when this API cannot tell."""
        history = getattr(self.vfs, "history", None)
        mounts = getattr(getattr(self.vfs, "mount_table", None), "by_path", None)
        if history is None or mounts:
            return None
        return await history.find_request(request, sent - MARGIN_MS)


def _unknown(op: str) -> Envelope:
    """The answer of a retried call whose fate cannot be told."""
    return {"error": error_envelope(
        "EIO", f"EIO: {op} was in flight when the tab running this disk's Python went, and "
               "whether it was applied cannot be told: it may or may not have been",
        syscall=op)}
