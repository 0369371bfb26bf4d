"""The envelope a call's outcome crosses to JS in: ``{"value": ...}`` or ``{"error": {...}}``.

Errors cross as data (py_vfs/web/protocol.py's ``error_envelope``) and the page rebuilds them as
Node-style ``Error``s; values cross as plain data (a ``Stat`` as a dict). ``settle`` turns an
awaited call into its envelope, ``started`` runs it as a task that starts at once.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from ..core.node import DirEntry, Stat
from ..disk.check import Report
from ..disk.usage import Usage
from ..fs.search import GrepResult
from .protocol import error_envelope

Envelope = dict[str, Any]
# What a caller turns an envelope into (``WebAPI.call``'s ``out``).
Convert = Callable[[Envelope], Any]


def started(coro: Any) -> asyncio.Future[Any]:
    """``coro`` as a task that starts at once (``eager_start``, Python 3.12 on; 3.11: a task
    scheduled as usual): a call that needs no I/O is done when this returns, with no turn of
    the event loop, which in Pyodide costs more than such a call's own work (docs/
    architecture.md). It starts in the worker's entry into Python, which is not a promising
    one: nothing that blocks with JSPI may run there (py_vfs/web/webapi.py, ``_MAY_BLOCK``)."""
    if sys.version_info >= (3, 12):
        return asyncio.Task(coro, loop=asyncio.get_event_loop(), eager_start=True)
    return asyncio.ensure_future(coro)


async def settle(awaitable: Any, out: Convert | None = None) -> Any:
    """The envelope of ``awaitable``'s outcome (or ``out`` of it). With ``out``, a failure
    other than an ``FsError`` (a bug) is an EIO envelope too (``broken``); without, it
    propagates."""
    try:
        envelope = {"value": plain(await awaitable)}
    except FsError as error:
        envelope = failure(error)
    except Exception as error:
        if out is None:
            raise
        envelope = broken(error)
    return envelope if out is None else out(envelope)


def outcome(result: Any, error: BaseException | None) -> Envelope:
    """The envelope of an outcome already known: ``result``, or ``error`` (an ``FsError``'s
    own, any other's EIO)."""
    if error is None:
        return {"value": plain(result)}
    return failure(error) if isinstance(error, FsError) else broken(error)


def broken(error: BaseException) -> Envelope:
    """The EIO envelope of a call that raised something other than an ``FsError`` (a bug):
    the traceback goes to stderr (the worker's console), the message to the caller."""
    traceback.print_exception(error)
    return {"error": error_envelope("EIO", str(error) or type(error).__name__)}


def failure(error: FsError, message: str | None = None) -> Envelope:
    """The envelope of ``error`` (its code, its message or ``message``, syscall, paths and
    hint)."""
    return {"error": error_envelope(error.code, message or str(error), syscall=error.syscall,
                                    path=error.filename, dest=error.dest, hint=error.hint)}


def plain(value: Any) -> Any:
    """Results as plain data: Stat and DirEntry become dicts, so JS builds its own objects."""
    if isinstance(value, Stat | DirEntry | GrepResult | Report | Usage):
        return value.to_dict()
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
