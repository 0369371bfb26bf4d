"""The writes of one message from the page run together: one task waits for all of them.

The page sends the calls of one turn as one message (docs/architecture.md, "Calls of one
turn"), and ``Promise.all`` over a thousand ``writeFile``s is one such message. Group commit
(py_vfs/disk/group_commit.py) commits writes in flight in one transaction, but each call still
had its own task, its own chain of coroutines and its own wait for the group: in Pyodide about
as much as the write's own change. So consecutive plain ``writeFile``s of one message (no
``flag``) by one writer form a *run*: each call's arguments are checked and its change built as
``WebAPI.call`` does (an error there answers that call at once, as there), then
``CommitEngine.run_many`` queues the changes in their order and one task awaits them and
answers each call with its own outcome. Inside the group each change is still a transaction of
its own (one that fails undoes only itself), and the journal entry records each call's request.

``WebAPI.call_many`` makes runs only where no call could wait for another: on the disk's own
API, with no folder mounted, no step open, no retried call unanswered and no call queued before
(``WebAPI.call``'s rules); a run of one is an ordinary call. A read made again in the message,
with no change between, is answered once (py_vfs/web/repeated_reads.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from ..disk.writers import check_writer
from ..vfs import VFS
from .arguments import check_call
from .envelopes import Convert, Envelope, broken, failure, outcome, started
from .options import plain_write
from .repeated_reads import RepeatedReads
from .retries import check_request

# One call of a message: its operation, arguments, writer, request id and ``out``.
Call = tuple[str, list[Any], str | None, str | None, Convert]
# A call of a run: its index in the message, arguments, writer, request id and ``out``.
Item = tuple[int, list[Any], str | None, str | None, Convert]
# ``WebAPI.call`` for one call: (op, args, writer, request, out) -> its envelope, or None when
# ``out`` gets it later.
Single = Callable[[str, list[Any], str | None, str | None, Convert], Envelope | None]

OPERATION = "writeFile"


def call_in_runs(vfs: VFS | None, calls: list[Call], single: Single,
                 waits: Callable[[], bool]) -> list[Envelope | None]:
    """``WebAPI.call_many``: the calls started in their order, runs of writes on ``vfs`` (None:
    a view's API, which makes none) together while no call ``waits``, each other call through
    ``single``. The envelope of each answered at once, None for the others."""
    answers: list[Envelope | None] = [None] * len(calls)
    run = WriteRun(vfs, single, answers) if vfs is not None else None
    reads = RepeatedReads()  # a read made again in the message is answered once
    for at, (op, args, writer, request, out) in enumerate(calls):
        if run is not None and joins_run(op, args) and not waits():
            reads.changed()
            run.add(at, args, writer, request, out)
            continue
        if run is not None:
            run.flush()
        known, key = reads.look_up(op, args, writer)
        if known is not None:
            answers[at] = known
            continue
        answers[at] = single(op, args, writer, request, out)
        reads.keep(key, answers[at])
    if run is not None:
        run.flush()
    return answers


def joins_run(op: str, args: list[Any]) -> bool:
    """Whether the call may be part of a run: a ``writeFile`` whose options give no ``flag``
    (checked in full when the run starts)."""
    if op != OPERATION:
        return False
    options = args[2] if len(args) > 2 else None
    return not (isinstance(options, dict) and options.get("flag") is not None)


class WriteRun:
    """The writes gathered so far (``add``) and their start (``flush``), into ``answers``."""

    def __init__(self, vfs: VFS, single: Single, answers: list[Envelope | None]) -> None:
        self.vfs = vfs
        self.single = single
        self.answers = answers
        self.items: list[Item] = []

    def add(self, at: int, args: list[Any], writer: str | None, request: str | None,
            out: Convert) -> None:
        """Gather the call at index ``at``; a writer other than the run's starts a new run."""
        if self.items and self.items[0][2] != writer:
            self.flush()
        self.items.append((at, args, writer, request, out))

    def flush(self) -> None:
        """Start the writes gathered (in one task, or one alone as an ordinary call)."""
        items, self.items = self.items, []
        if len(items) == 1:
            at, args, writer, request, out = items[0]
            self.answers[at] = self.single(OPERATION, args, writer, request, out)
        elif items:
            self._start(items)

    def _start(self, items: list[Item]) -> None:
        writer = items[0][2]
        try:
            writer = None if writer is None else check_writer(writer)
        except FsError as error:
            for at, *_ in items:
                self.answers[at] = failure(error)
            return
        changes: list[tuple[Any, str | None]] = []
        outs: list[Convert] = []
        for at, args, _, request, out in items:
            try:
                changes.append(self._change(args, request))
            except FsError as error:
                self.answers[at] = failure(error)
                continue
            except Exception as error:  # a bug: EIO, as WebAPI.call answers it
                self.answers[at] = broken(error)
                continue
            outs.append(out)
        if changes:
            started(self._run(changes, outs, writer))

    def _change(self, args: list[Any], request: str | None) -> tuple[Any, str | None]:
        request = None if request is None else check_request(request)
        checked = check_call(OPERATION, args)
        path, data = checked[0], checked[1]
        plain = plain_write(data, checked[2] if len(checked) > 2 else None)
        assert plain is not None  # ``joins_run`` let no flag in
        payload, mode, digests = plain
        change = self.vfs.files.write_change(path, payload, mode, digests, parents=False)
        return change, request

    async def _run(self, changes: list[tuple[Any, str | None]], outs: list[Convert],
                   writer: str | None) -> None:
        try:
            outcomes = await self.vfs.engine.run_many(changes, OPERATION, writer)
        except Exception as error:  # a bug: every call of the run hears of it
            outcomes = [(None, error)] * len(changes)
        for (result, error), out in zip(outcomes, outs, strict=True):
            out(outcome(result, error))
