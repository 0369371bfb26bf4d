"""Steps: several operations that commit together (one store commit) or not at all.

``async with vfs.step() as tx:`` holds the VFS's mutation lock for the whole step, so other
callers in this process wait until it ends. Each operation on ``tx`` runs in a transaction of its
own that is folded into the step's on success (a failing operation undoes only itself, and the
step may go on). At the end the whole step is one conditional commit; if another tab committed in
the meantime, the step's operations are run again, in order, on the fresh state (their effects,
not the reads the step made, are what is replayed: see docs/semantics.md). If the body raises,
the step is rolled back in memory and nothing reaches the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import FsError
from .transaction import Transaction

if TYPE_CHECKING:
    from .vfs import VFS

T = TypeVar("T")
Change = Callable[[Transaction], Any]

# The step whose ``tx`` is running the current operation (set only around a ``tx`` call).
ACTIVE: ContextVar[Step | None] = ContextVar("py_vfs_step", default=None)
MAX_REPLAYS = 20
# Methods of the VFS that make no sense on a step's ``tx``.
_NOT_ON_TX = frozenset({"step", "watch", "sync", "close", "open", "memory"})


async def run_change(change: Change, tx: Transaction) -> Any:
    """Run a mutation's change function, sync or async, against ``tx``."""
    result = change(tx)
    if inspect.isawaitable(result):
        result = await result
    return result


def current_task() -> asyncio.Task | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop (the synchronous test driver in Pyodide)
        return None


class Step:
    """One step of one VFS; use it as ``async with``, or ``begin``/``end`` (the JS bridge)."""

    def __init__(self, vfs: VFS) -> None:
        self.vfs = vfs
        self.tx = Transaction()
        self.changes: list[Change] = []
        self.owner: asyncio.Task | None = None
        self.open = False
        self._turn = contextlib.AsyncExitStack()  # the cross-tab writer lock, held throughout

    async def begin(self, *, owned: bool = True) -> StepTx:
        """Take the mutation lock and start from the disk's latest state. ``owned``: the
        current task runs the body, so its calls on the outer VFS can be caught (EDEADLK)."""
        await self._turn.enter_async_context(self.vfs._replica.turn())  # same order as _mutate
        try:
            await self.vfs._mutex.acquire()
        except BaseException:
            await self._turn.aclose()
            raise
        try:
            await self.vfs._replica.catch_up()
        except BaseException:
            self.vfs._mutex.release()
            await self._turn.aclose()
            raise
        self.owner = current_task() if owned else None
        self.open = True
        self.vfs._step = self
        return StepTx(self.vfs, self)

    async def run(self, change: Change) -> Any:
        """One operation of the step: its own transaction, folded in when it succeeds."""
        if not self.open:
            raise FsError.of("EINVAL", "step", None)
        inner = Transaction()
        try:
            result = await run_change(change, inner)
        except BaseException:
            inner.rollback()
            raise
        self.tx.merge(inner)
        self.vfs.content.pending.update(inner.staged)
        self.changes.append(change)
        return result

    async def end(self, commit: bool) -> None:
        """Commit the step (one store commit) or roll it back; always release the lock."""
        if not self.open:
            return
        try:
            if commit:
                await self._commit()
            else:
                self.tx.rollback()
        finally:
            self.open = False
            self.vfs.content.pending.clear()
            self.vfs._step = None
            self.vfs._mutex.release()
            await self._turn.aclose()

    async def _commit(self) -> None:
        for _ in range(MAX_REPLAYS):
            if await self.vfs._replica.commit(self.tx):
                return
            await self._replay()
        raise FsError.of("EAGAIN", "step", None)

    async def _replay(self) -> None:
        """Another tab committed first: run the step's operations again on the fresh state."""
        self.tx = Transaction()
        for change in self.changes:
            inner = Transaction()
            try:
                await run_change(change, inner)
            except BaseException:
                inner.rollback()
                self.tx.rollback()
                raise
            self.tx.merge(inner)
            self.vfs.content.pending.update(inner.staged)

    async def __aenter__(self) -> StepTx:
        return await self.begin()

    async def __aexit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        await self.end(commit=kind is None)


class StepTx:
    """What a step body gets: the VFS's operations, run inside the step. Async operations are
    wrapped so the VFS routes their mutation into the step; synchronous reads (stat, readdir)
    see the step's own changes because the index already holds them."""

    def __init__(self, vfs: VFS, step: Step) -> None:
        self._vfs = vfs
        self._step = step

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in _NOT_ON_TX:
            raise AttributeError(f"{name!r} is not available inside a step")
        attribute = getattr(self._vfs, name)
        if not inspect.iscoroutinefunction(attribute):
            return attribute
        step = self._step

        async def in_step(*args: Any, **kwargs: Any) -> Any:
            token = ACTIVE.set(step)
            try:
                return await attribute(*args, **kwargs)
            finally:
                ACTIVE.reset(token)

        return in_step
