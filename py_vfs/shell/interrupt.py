"""Interrupting a script: the call's signal (Ctrl-C, ``vfs.shell(line, {signal})``) aborting
cancels what the script's command awaits, and the command ends with status 130."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from py_vfs import cancel

INTERRUPTED = 130  # 128 + SIGINT, as bash reports a command stopped by Ctrl-C


class Interrupted(Exception):
    """The call's signal aborted while a script ran (Ctrl-C): the script ends with 130."""


@contextlib.asynccontextmanager
async def interruptible() -> AsyncIterator[None]:
    """While the block runs, the call's signal aborting cancels the task (whatever the block
    awaits: a script's output, a realm that never answers) and the block raises
    ``Interrupted``. Without a signal (CPython's shell), nothing changes."""
    signal = cancel.SIGNAL.get()
    task = asyncio.current_task() if signal is not None else None
    if signal is None or task is None:
        yield
        return
    if signal.aborted:
        raise Interrupted()
    remove = signal.on_abort(task.cancel)
    try:
        yield
    except asyncio.CancelledError:
        if not signal.aborted:
            raise
        task.uncancel()
        raise Interrupted() from None
    finally:
        remove()
