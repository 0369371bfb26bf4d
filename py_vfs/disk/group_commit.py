"""Group commit: mutations that wait for the lock at the same time commit in one transaction.

A storage commit costs far more than the change it carries (an IndexedDB transaction is about a
millisecond; staging a small write in memory, microseconds). When many writes are in flight at
once (``Promise.all`` over a thousand ``writeFile``), the first to get the lock takes every change
queued so far, runs each in a transaction of its own (so one that fails undoes only itself and
gets its own error), folds the successful ones into one transaction and commits that once. Every
caller resolves only after the commit, so each write is still durable when it resolves, and the
order of changes is the order of the calls.

If the store rejects the group (ENOSPC, say), the members are committed again one by one, so a
write that would fit alone is not failed by a neighbour that does not.

One caller at a time *leads*: it waits for the cross-tab turn and commits. The others follow:
they sleep instead of each asking for the turn (a crossing into JS and a Web Lock turn per write,
for nothing when the leader took their change). A follower is woken once its change is settled,
or, when a round ends with changes still queued, the first follower still queued is woken to
lead the next round: so the followers of a thousand writes in flight wake once each, not once
per round.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from typing import Any

from ..core.errors import FsError
from ..storage.transaction import REQUEST, Change, Transaction
from .clock import one_time
from .replica import Replica, backoff
from .scope import SCOPE, check_change

MAX_ATTEMPTS = 50


class Waiter:
    """One queued mutation (its change, the operation's name, its writer, the caller's request
    id: ``request``, else the context's) and, once its group committed (or it failed), its
    outcome."""

    def __init__(self, change: Change, operation: str, writer: str,
                 request: str | None = None) -> None:
        self.change = change
        self.operation = operation
        self.writer = writer
        self.scope = SCOPE.get()  # the caller's restricted view, if any: its change runs in it
        # The caller's request id, if any: the entry records it.
        self.request = request if request is not None else REQUEST.get()
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.wake: asyncio.Future[None] | None = None  # its caller's, once it followed a round

    def settle(self, result: Any = None, error: BaseException | None = None) -> None:
        """Record the outcome: the caller's result, or the error it gets (a following caller
        is woken)."""
        self.done, self.result, self.error = True, result, error
        self.rouse()

    def rouse(self) -> None:
        """Wake the caller if it follows a round."""
        wake = self.wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def outcome(self) -> Any:
        """The change's result, or raise its error."""
        if self.error is not None:
            raise self.error
        return self.result


class GroupCommit:
    """The queue of mutations of one VFS. Callers hold the VFS's mutation lock (and the
    cross-tab turn) around ``commit_pending`` (``engine.py``)."""

    def __init__(self, replica: Replica) -> None:
        self.replica = replica
        self._queue: list[Waiter] = []
        self._round = False  # True while a caller leads a round

    @property
    def leading(self) -> bool:
        """True while a caller leads a round (waits for the turn, or commits)."""
        return self._round

    def follow(self, own: Waiter) -> asyncio.Future[None]:
        """What to await while another caller leads: done when ``own`` is settled, or when it
        is the first change still queued as a round ends (its caller should then lead). A
        Future, not a coroutine: one frame less each time the caller wakes."""
        own.wake = asyncio.get_running_loop().create_future()
        return own.wake

    def lead(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Lead a round: the others follow until it ends, however it ends."""
        # A class rather than an asynccontextmanager generator, as ``Replica.turn``: every write
        # enters both (one enter and exit: 0.6 against 4.2 µs in Pyodide, 0.4 against 1.9 on
        # CPython 3.11).
        return _Round(self)

    def next_leader(self) -> None:
        """A round ended: wake the first follower whose change is still queued, to lead the
        next (the callers of changes settled were woken as they were settled)."""
        for waiter in self._queue:
            if waiter.wake is not None and not waiter.wake.done():
                waiter.rouse()
                return

    def pass_on(self) -> None:
        """A follower stops following (its caller was cancelled, perhaps just after it was
        woken to lead): when no round is under way, the next follower leads instead."""
        if not self._round:
            self.next_leader()

    def enqueue(self, change: Change, operation: str, writer: str,
                request: str | None = None) -> Waiter:
        """Queue ``change`` for the next group; the waiter tells its outcome."""
        waiter = Waiter(change, operation, writer, request)
        self._queue.append(waiter)
        return waiter

    async def commit_pending(self, own: Waiter) -> None:
        """Commit the changes queued up to ``own`` or beyond, as long as they have one writer
        (a commit is one journal entry, with one writer); the rest wait for their own callers.
        Should the caller be interrupted (cancelled), the changes of the others go back to the
        queue for the next caller; its own is dropped."""
        first = self._queue[0].writer if self._queue else own.writer
        size = next((i for i, w in enumerate(self._queue) if w.writer != first),
                    len(self._queue))
        batch, self._queue = self._queue[:size], self._queue[size:]
        try:
            await self._commit(batch)
        except BaseException:
            self._queue[:0] = [w for w in batch if not w.done and w is not own]
            raise

    async def _commit(self, batch: list[Waiter]) -> None:
        """Run and commit ``batch``; when another tab committed first, catch up and run it
        again, and re-check errors the same way, so no error comes from a stale view."""
        stale = 0  # commits refused because another writer got in first
        for _ in range(MAX_ATTEMPTS):
            if stale:
                await backoff(stale)
            group, outcomes = await self._run(batch)
            if any(isinstance(error, FsError) for _, error in outcomes):
                # An error is only trusted from a current view: a writer without a cross-process
                # lock (two CPython processes on one SQLite file) may have moved the disk on,
                # even deleted a chunk this run read, since we last caught up.
                group.rollback()
                if await self.replica.catch_up():
                    continue
                group, outcomes = await self._run(batch)
            try:
                committed = await self.replica.commit(group)
            except BaseException as error:  # the store failed; ``group`` is rolled back
                await self._fail(batch, error)
                return
            if committed:
                for waiter, (result, error) in zip(batch, outcomes, strict=True):
                    waiter.settle(result, error)
                return
            stale += 1
        for waiter in batch:
            waiter.settle(error=FsError.of("EAGAIN", "write", None))

    async def _run(self, batch: list[Waiter]) -> tuple[Transaction, list[tuple[Any, Any]]]:
        # The changes of a round carry one time (``clock.py``): a folder written in many times
        # is stamped once.
        with one_time():
            return await self._run_changes(batch)

    async def _run_changes(self, batch: list[Waiter]) -> tuple[Transaction, list[tuple[Any, Any]]]:
        # The first change that succeeds is the group, and the others are merged into it (one
        # writer for all): a group of one, all a sequential writer makes, merges nothing.
        group: Transaction | None = None
        outcomes: list[tuple[Any, Any]] = []
        for waiter in batch:
            tx = Transaction(waiter.writer)
            tx.operations.append(waiter.operation)
            token = SCOPE.set(waiter.scope)
            try:
                result = waiter.change(tx)  # ``run_change``, one coroutine less per change
                if result is not None and inspect.isawaitable(result):  # a write's is None
                    result = await result
                check_change(tx.changes, self.replica.index.nodes.get, waiter.operation)
            except Exception as error:  # the caller of this change gets it
                tx.rollback()
                outcomes.append((None, error))
                continue
            except BaseException:
                tx.rollback()
                if group is not None:
                    group.rollback()
                raise
            finally:
                SCOPE.reset(token)
            if group is None:
                group = tx
            else:
                group.merge(tx)
            outcomes.append((result, None))
        if group is None:
            return Transaction(batch[0].writer), outcomes
        requests = [waiter.request for waiter, (_, error) in zip(batch, outcomes, strict=True)
                    if waiter.request is not None and error is None]
        if requests:  # the journal entry says which calls it applied (``REQUEST``)
            group.notes["requests"] = requests
        return group, outcomes

    async def _fail(self, batch: list[Waiter], error: BaseException) -> None:
        if len(batch) == 1:
            batch[0].settle(error=error)
            return
        for waiter in batch:
            await self._commit([waiter])


class _Round:
    """``GroupCommit.lead``: while it is entered, a round is under way."""

    def __init__(self, group: GroupCommit) -> None:
        self.group = group

    async def __aenter__(self) -> None:
        self.group._round = True

    async def __aexit__(self, *exc_info: object) -> None:
        self.group._round = False
        self.group.next_leader()
