"""Steps: several operations that commit together (one store commit) or not at all.

``async with vfs.step() as tx:`` holds the VFS's mutation lock for the whole step, so other
callers in this process wait until it ends. Each operation on ``tx`` runs in a transaction of its
own that is folded into the step's on success (a failing operation undoes only itself, and the
step may go on). At the end the whole step is one conditional commit; if another tab committed in
the meantime, the step's operations are run again, in order, on the fresh state (their effects,
not the reads the step made, are what is replayed: see docs/semantics.md). If the body raises,
the step is rolled back in memory and nothing reaches the disk.

The step drives the commit engine (``engine.py``) through its public interface only; ``StepTx``
is the explicit type of ``tx``, generated from the declared API (``surface.py``) over the
operations of a ``StepHost`` (the VFS facade).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..core.errors import FsError
from ..disk.engine import STEP_RUNNING, current_task
from ..disk.replica import store_full
from ..disk.scope import SCOPE, Scope, check_change
from ..storage.transaction import Change, Transaction, run_change
from .forwarding import forwarding, protocol
from .surface import DECLARED, Declared

if TYPE_CHECKING:
    from ..mounts.table import MountTable

MAX_REPLAYS = 20


StepHost = protocol(
    "StepHost", [op.name for op in DECLARED.values() if op.step],
    "The operations a step's ``tx`` offers, as the VFS facade implements them.", __name__,
    attributes={"engine": "CommitEngine", "mount_table": "MountTable"})


class Step:
    """One step of one VFS; use it as ``async with``, or ``begin``/``end`` (the JS bridge)."""

    def __init__(self, vfs: StepHost) -> None:
        self.vfs = vfs
        self.engine = vfs.engine
        # The step's writer is the one of the context that made it (``vfs.as_writer``...).
        self.writer = self.engine.writer()
        self.tx = self._fresh()
        self.changes: list[tuple[Change, str, Scope | None]] = []
        self.owner: asyncio.Task | None = None
        self.open = False

    async def begin(self, *, owned: bool = True) -> StepTx:
        """Take the mutation lock and start from the disk's latest state. ``owned``: the
        current task runs the body, so its calls on the outer VFS can be caught (EDEADLK)."""
        await self.engine.open_step(self)
        self.owner = current_task() if owned else None
        self.open = True
        return StepTx(self.vfs, self)

    def _fresh(self) -> Transaction:
        """The step's transaction: one journal entry, ``step``, listing its operations."""
        tx = Transaction(self.writer)
        tx.operations.append("step")
        return tx

    def _inner(self, operation: str) -> Transaction:
        tx = Transaction(self.writer)
        tx.operations.append(operation)
        return tx

    async def run(self, change: Change, operation: str) -> Any:
        """One operation of the step: its own transaction, folded in when it succeeds."""
        if not self.open:
            raise FsError.of("EINVAL", "step", None)
        inner = self._inner(operation)
        try:
            result = await run_change(change, inner)
            check_change(inner.changes, self.engine.index.nodes.get, operation)
        except BaseException:
            inner.rollback()
            raise
        self.tx.merge(inner)
        self.engine.stage(inner)
        self.changes.append((change, operation, SCOPE.get()))
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
            await self.engine.close_step()

    async def _commit(self) -> None:
        full: FsError | None = None  # the last attempt's refusal for want of room
        for attempt in range(MAX_REPLAYS):
            if attempt:
                await self._replay()
            try:
                if await self.engine.commit(self.tx):
                    return
                full = None  # another tab committed first
            except FsError as error:  # the store is full: history goes first
                if not store_full(error) or self.engine.make_room is None \
                        or not await self.engine.make_room():
                    raise
                full = error
        # A failed commit rolled the step back (the index is as before it). Room was made each
        # time and the step still did not fit: the store is full (ENOSPC), as a write is once
        # trimming frees too little; EAGAIN only after lost races.
        raise full or FsError.of("EAGAIN", "step", None)

    async def _replay(self) -> None:
        """Another tab committed first: run the step's operations again on the fresh state."""
        self.tx = self._fresh()
        for change, operation, scope in self.changes:
            inner = self._inner(operation)
            token = SCOPE.set(scope)  # the view the operation was made through
            try:
                await run_change(change, inner)
                check_change(inner.changes, self.engine.index.nodes.get, operation)
            except BaseException:
                inner.rollback()
                self.tx.rollback()
                raise
            finally:
                SCOPE.reset(token)
            self.tx.merge(inner)
            self.engine.stage(inner)

    async def __aenter__(self) -> StepTx:
        return await self.begin()

    async def __aexit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        await self.end(commit=kind is None)


@forwarding(lambda op: op.step)
class StepTx:
    """What a step body gets: the VFS's operations, run inside the step. An async operation
    runs with the step marked as running, so the commit engine folds its change into the step;
    synchronous reads (stat, readdir) see the step's own changes because the index holds them.
    Lifecycle operations (step, watch, sync, close, mount) are not offered: inside a step they
    would wait for the step itself. A ``stream_writer``'s commit at ``close`` is not part of
    the step."""

    def __init__(self, vfs: StepHost, step: Step) -> None:
        self._vfs = vfs
        self._step = step

    @property
    def mount_table(self) -> MountTable:
        """The VFS's mount table (the listing of ``readdirStats`` asks what it covers)."""
        return self._vfs.mount_table

    def _enter(self, op: Declared, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[StepHost, Any]:
        """An async operation runs with the step marked as running: the commit engine folds
        its change into the step instead of committing it."""
        return self._vfs, STEP_RUNNING.set(self._step) if op.is_async else None

    @staticmethod
    def _leave(token: Any) -> None:
        if token is not None:
            STEP_RUNNING.reset(token)
