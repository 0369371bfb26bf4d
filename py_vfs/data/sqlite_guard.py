"""Bounds on what SQLite may spend for us: a step budget, a wall-clock deadline and the call's
cancel signal, all checked by SQLite's progress handler (``Guard``); and the settings that open
a database someone else made (``harden``: a received disk image).

The progress handler runs every ``PROGRESS_EVERY`` virtual-machine instructions of a statement;
when it says stop, SQLite ends the statement with "interrupted" and the connection is usable
again. ``Guard.stopped`` then says why, and ``Guard.error`` is the FsError to raise: EINVAL for
the step budget, ETIMEDOUT for the deadline, ECANCELED for the signal. A single instruction is
not interrupted (a function call runs to its end), so what one instruction can cost is bounded
by the length limit of the values it works on (``SQLITE_LIMIT_LENGTH``).

``harden`` is SQLite's own advice for databases of unknown origin: ``trusted_schema=OFF`` (SQL
in the schema may call no function with side effects), defensive mode (no writes to the schema
or to shadow tables, even by us), ``cell_size_check`` (damaged b-tree pages caught when read) and
no memory-mapped I/O. Defensive mode is set through ``Connection.setconfig``, which Python has
from 3.12 on: on 3.11 it is skipped (``harden`` returns False), the other settings still hold.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from ..core.cancel import SIGNAL, Signal, aborted
from ..core.errors import FsError

PROGRESS_EVERY = 100
"""Instructions between two calls of the progress handler: few enough that a deadline or a
cancel is seen within a few rows of costly functions (``hex(randomblob(8e6))`` is ~30 ms a
call), many enough that the handler costs nothing measurable (100,000 calls for 10M steps)."""

STEPS, DEADLINE, CANCELLED = "steps", "deadline", "cancelled"


class Guard:
    """A progress handler that stops a statement past ``steps`` instructions (None: no
    budget), past ``seconds`` of wall-clock time since ``start()``, or once the call's cancel
    signal (``cancel.SIGNAL``, read when the guard is made) is aborted."""

    def __init__(self, syscall: str, *, seconds: float, steps: int | None = None,
                 signal: Signal | None = None) -> None:
        self.syscall = syscall
        self.seconds = seconds
        self.steps = steps
        self.signal = signal if signal is not None else SIGNAL.get()
        self.stopped: str | None = None
        self._done = 0
        self._deadline = time.monotonic() + seconds

    def install(self, db: sqlite3.Connection) -> None:
        """Make this the progress handler of ``db`` (and start the clock)."""
        self.start()
        db.set_progress_handler(self._progress, PROGRESS_EVERY)

    def start(self) -> None:
        """Start counting a new statement: its steps from 0, its deadline from now."""
        self._done = 0
        self._deadline = time.monotonic() + self.seconds
        self.stopped = None

    def _progress(self) -> int:
        # Never raises: an exception here would be SQLite's to report, not ours.
        self._done += PROGRESS_EVERY
        if self.steps is not None and self._done > self.steps:
            self.stopped = STEPS
        elif self.signal is not None and self.signal.aborted:
            self.stopped = CANCELLED
        elif time.monotonic() > self._deadline:
            self.stopped = DEADLINE
        return 1 if self.stopped else 0

    def stopping(self, error: Exception, what: str = "the statement") -> FsError | None:
        """The FsError of ``error``, SQLite's, when it ended a statement this guard stopped;
        also ECANCELED for an "interrupted" statement the guard did not stop: its handler was
        interrupted itself (Ctrl-C's KeyboardInterrupt of the command-line shell lands in the
        handler, and SQLite drops it and stops the statement). None for other errors."""
        if self.stopped:
            return self.error(what)
        if isinstance(error, sqlite3.OperationalError) and str(error) == "interrupted":
            return aborted(self.syscall, f"{what} was interrupted")
        return None

    def error(self, what: str = "the statement") -> FsError:
        """The error of a statement this guard stopped (``stopped`` is set)."""
        if self.stopped == CANCELLED:
            return aborted(self.syscall, f"{what} was stopped")
        if self.stopped == DEADLINE:
            return FsError.of("ETIMEDOUT", self.syscall).with_hint(
                f"{what} ran past its deadline of {self.seconds:g} s and was stopped")
        return FsError.of("EINVAL", self.syscall).with_hint(
            f"{what} ran past its budget of {self.steps} SQLite steps and was stopped")


class GuardedConnection(sqlite3.Connection):
    """A connection whose every ``execute`` restarts its guard's clock: the deadline is per
    statement (``sqlite3.connect(..., factory=GuardedConnection)``, then ``guard``)."""

    guard: Guard | None = None
    defensive = False  # whether ``harden`` could set defensive mode on it

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        """``Connection.execute``, the guard restarted first."""
        if self.guard is not None:
            self.guard.start()
        return super().execute(sql, parameters)


DEFENSIVE = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
"""The defensive-mode option of ``setconfig`` (Python 3.12+), or None."""


def harden(db: sqlite3.Connection) -> bool:
    """Settings for a database someone else made (see the module docstring). True when
    defensive mode is on; False where this Python cannot set it (3.11: no ``setconfig``)."""
    db.execute("PRAGMA trusted_schema = OFF")
    db.execute("PRAGMA cell_size_check = ON")
    db.execute("PRAGMA mmap_size = 0")
    if DEFENSIVE is None or not hasattr(db, "setconfig"):
        return False
    db.setconfig(DEFENSIVE, True)
    return bool(db.getconfig(DEFENSIVE))
