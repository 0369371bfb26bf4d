"""The commit engine: the one way a change reaches the disk.

Every mutation of the disk, every step, every streamed file's commit and every garbage collection
goes through one ``CommitEngine`` and its public interface:

- ``mutex``: serializes this VFS's changes, catch-ups and steps (a change sees the committed
  result of the previous one);
- ``turn()``: the cross-tab writer lock of the store, when it has one (always taken before the
  mutex, by changes and steps alike);
- ``run(change)``: run a change (a function of a ``Transaction``, sync or async) and commit its
  writes as one conditional storage transaction, grouped with the changes queued meanwhile
  (``group_commit.py``), run again on the fresh state when another tab committed first
  (``disk/replica.py``); inside a step, the change joins the step instead;
- ``open_step``/``close_step``/``commit``/``stage``: what a step (``step.py``) needs to hold the
  disk for its whole body and commit once at its end.

Nothing outside this module touches the replica, the group-commit queue or the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from ..core.errors import FsError
from ..core.node import Node
from ..storage import Store
from ..storage.transaction import WRITER, Change, Transaction
from .content import Content
from .group_commit import GroupCommit, Waiter
from .index import Index
from .replica import Replica, store_full
from .watch import Watchers

T = TypeVar("T")
MAX_ROOM_TRIES = 20  # times the journal is asked to free room for one change


class OpenStep(Protocol):
    """What the engine knows of a running step: who runs its body, and how a change joins it."""

    owner: asyncio.Task | None

    async def run(self, change: Change, operation: str) -> Any:
        """Run ``change`` as one operation of the step (named ``operation``)."""


# The step whose ``tx`` is running the current operation (set only around a ``tx`` call): a
# change made under it joins the step, and a mounted folder (which has no transactions) refuses.
STEP_RUNNING: ContextVar[OpenStep | None] = ContextVar("py_vfs_step", default=None)


def current_task() -> asyncio.Task | None:
    """The running task, or None outside an event loop (the synchronous driver in Pyodide)."""
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


class CommitEngine:
    """The mutex, the cross-tab turn, group commit and the step in progress of one VFS."""

    def __init__(self, store: Store, index: Index, content: Content,
                 watchers: Watchers) -> None:
        self.index = index
        self.content = content
        self._replica = Replica(store, index, content, watchers)
        self._group = GroupCommit(self._replica)
        self._lock: asyncio.Lock | None = None
        self._step: OpenStep | None = None
        self._step_turn = contextlib.AsyncExitStack()
        # Who writes when neither the call nor its context says (``VFS(writer=...)``).
        self.default_writer = "user"
        # Set by the journal (``history.py``): run after a change committed (trimming now and
        # then), and asked, under the mutex, to free room when the store is full.
        self.after_commit: Callable[[], Awaitable[None]] | None = None
        self.make_room: Callable[[], Awaitable[bool]] | None = None

    @property
    def mutex(self) -> asyncio.Lock:
        """Serializes this VFS's mutations, catch-ups and steps (created on first use, so a VFS
        can be built outside an event loop)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @property
    def revision(self) -> int:
        """The disk revision this VFS has applied."""
        return self._replica.rev

    def turn(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold the store's cross-tab writer lock, if it has one."""
        return self._replica.turn()

    async def load(self) -> list[Node]:
        """Boot: every node record, and the revision they are at."""
        return await self._replica.load()

    async def commit(self, tx: Transaction) -> bool:
        """One conditional commit of ``tx`` (the caller holds the mutex). False: another tab
        committed first; ``tx`` was rolled back and the index caught up."""
        return await self._replica.commit(tx)

    async def catch_up(self) -> bool:
        """Apply what other tabs committed (the caller holds the mutex); True if anything."""
        return await self._replica.catch_up()

    def writer(self, writer: str | None = None) -> str:
        """Who a change started now is made by: ``writer`` if given, else the one of this
        context (``transaction.WRITER``), else the VFS's default."""
        return writer or WRITER.get() or self.default_writer

    async def run(self, change: Change, operation: str, writer: str | None = None) -> Any:
        """Run ``change`` against the index and commit its writes as one storage transaction;
        the journal records it as ``operation`` (``writeFile``...) by ``writer`` (default: see
        ``writer()``).

        If the commit fails, the index is rolled back and the error propagates unchanged. An
        async ``change`` may read content (append, truncate) while no other mutation can
        interleave. Inside a step the change joins the step instead. When another tab committed
        first, the change is rolled back and run again on the caught-up index; an error is
        re-checked the same way, so no error comes from a view older than the disk.
        """
        step = STEP_RUNNING.get()
        if step is not None and step is self._step:
            return await step.run(change, operation)
        self.refuse_deadlock("write")
        for attempt in range(MAX_ROOM_TRIES + 1):
            waiter = self._group.enqueue(change, operation, self.writer(writer))
            try:
                await self._settled(waiter)
                result = waiter.outcome()
            except FsError as error:
                # The store is full: history goes first; ENOSPC once none is left to trim.
                if not store_full(error) or attempt == MAX_ROOM_TRIES or not await self._room():
                    raise
                continue
            if self.after_commit is not None:
                await self.after_commit()
            return result
        raise AssertionError("unreachable")

    async def run_many(self, changes: list[tuple[Change, str | None]], operation: str,
                       writer: str | None = None) -> list[tuple[Any, BaseException | None]]:
        """Run several changes, each with its caller's request id (or None), as ``run`` runs
        one, queued together in their order: each its own transaction within the group (one
        that fails undoes only itself), so each gets its own outcome, ``(result, None)`` or
        ``(None, error)``. One coroutine waits for all of them: what the writes of one message
        from the page cost (py_vfs/web/write_runs.py) is their changes, not a task and a
        wait each. Not inside a step (its caller runs one change at a time)."""
        self.refuse_deadlock("write")
        who = self.writer(writer)
        outcomes: list[tuple[Any, BaseException | None]] = [(None, None)] * len(changes)
        todo = list(range(len(changes)))
        for attempt in range(MAX_ROOM_TRIES + 1):
            waiters = [self._group.enqueue(changes[i][0], operation, who, changes[i][1])
                       for i in todo]
            if not waiters:
                break
            # Queued together with one writer, they are committed in the same round: once
            # the last is settled, the others are (and each wait below returns at once).
            for waiter in reversed(waiters):
                await self._settled(waiter)
            full = []
            for i, waiter in zip(todo, waiters, strict=True):
                outcomes[i] = (waiter.result, waiter.error)
                if waiter.error is not None and store_full(waiter.error):
                    full.append(i)
            # The store is full: history goes first; ENOSPC once none is left to trim.
            if not full or attempt == MAX_ROOM_TRIES or not await self._room():
                break
            todo = full
        if self.after_commit is not None and any(error is None for _, error in outcomes):
            await self.after_commit()
        return outcomes

    async def _settled(self, waiter: Waiter) -> None:
        """Until ``waiter``'s change is committed or failed. The cross-tab turn first: while
        waiting for it, announced commits of other tabs are applied (``sync`` takes only the
        mutex), so the commit is rarely stale. Whoever gets the lock commits every change
        queued by then: often this one was already committed by an earlier caller's group.
        A group has one writer: behind another writer's changes, this one may need a turn of
        its own. While another caller leads a round, this one follows it (its change is
        probably in that round's group) instead of queueing for the turn too: it wakes when
        its change is settled, or when it is the first still queued after a round."""
        while not waiter.done:
            if self._group.leading:
                try:
                    await self._group.follow(waiter)
                except BaseException:  # cancelled, perhaps just as it was to lead
                    self._group.pass_on()
                    raise
                continue
            async with self._group.lead(), self._replica.turn(), self.mutex:
                if not waiter.done:
                    await self._group.commit_pending(waiter)

    async def _room(self) -> bool:
        """Ask the journal to free room (under the turn and the mutex)."""
        if self.make_room is None:
            return False
        async with self._replica.turn(), self.mutex:
            return await self.make_room()

    def refuse_deadlock(self, syscall: str) -> None:
        """The body of ``async with vfs.step()`` calling ``vfs`` instead of ``tx`` would wait
        for its own step forever: EDEADLK instead."""
        if self._step is not None and self._step.owner is not None \
                and self._step.owner is current_task():
            raise FsError.of("EDEADLK", syscall, None)

    async def sync(self) -> bool:
        """Catch up now with what other tabs or processes committed; True if anything changed."""
        self.refuse_deadlock("sync")
        async with self.mutex:
            return await self._replica.catch_up()

    async def reclaim(self, keys: list[str]) -> None:
        """Delete chunks that only a finished stream still held."""
        if keys:
            await self.run(lambda tx: self.content.reclaim(keys, tx), "reclaim")

    # ------------------------------------------------------------------ steps

    async def open_step(self, step: OpenStep) -> None:
        """Hold the turn and the mutex for ``step`` and start it from the disk's latest state
        (the same order as ``run``); released by ``close_step``."""
        await self._step_turn.enter_async_context(self._replica.turn())
        try:
            await self.mutex.acquire()
        except BaseException:
            await self._step_turn.aclose()
            raise
        try:
            await self._replica.catch_up()
        except BaseException:
            self.mutex.release()
            await self._step_turn.aclose()
            raise
        self._step = step

    def stage(self, tx: Transaction) -> None:
        """A step's operation succeeded: its staged chunks stay readable until the commit."""
        self.content.pending.update(tx.staged)

    async def close_step(self) -> None:
        """The step is over (committed or rolled back): release the mutex and the turn."""
        self.content.pending.clear()
        self._step = None
        self.mutex.release()
        await self._step_turn.aclose()
