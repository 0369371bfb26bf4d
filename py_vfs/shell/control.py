"""What interrupts the normal flow of a shell program: ``break``, ``continue``, ``return``,
``exit`` and Ctrl-C. Builtins raise them; the interpreter catches each where sh does."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from ..core import cancel

INTERRUPTED = 130  # 128 + SIGINT: the status of a line stopped by Ctrl-C


class ControlFlow(Exception):
    """Base of the shell's non-local exits."""


class LoopControl(ControlFlow):
    """``break N`` (``again`` false) or ``continue N`` (``again`` true)."""

    def __init__(self, count: int, *, again: bool) -> None:
        super().__init__(count)
        self.count = count
        self.again = again


class ReturnFrom(ControlFlow):
    """``return N``: leaves the function or sourced file with status N."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class ExitShell(ControlFlow):
    """``exit N`` (or ``set -e`` after a failure): ends the script, the subshell or the line."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Interrupted(ControlFlow):
    """The call's signal was aborted (Ctrl-C): the line stops at this safe point, status 130."""


async def cancel_point() -> None:
    """A safe point between two commands: Ctrl-C stops the line here (status 130)."""
    try:
        await cancel.checkpoint("sh", 0, 0, "commands")
    except OSError as exc:
        raise Interrupted() from exc


@contextlib.asynccontextmanager
async def interruptible() -> AsyncIterator[None]:
    """For a wait no safe point ends (a script's realm that never answers): while the block
    runs, the call's signal aborting cancels the task and the block raises ``Interrupted``.
    Without a signal (CPython's shell), nothing changes."""
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
    except Interrupted:
        # Ended by the block itself (a script blocked on its input, py_vfs/shell/python_run.py)
        # before the cancel reached the task: that cancel is rescinded.
        if task.cancelling():
            task.uncancel()
        raise
    finally:
        remove()
