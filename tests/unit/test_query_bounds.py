"""What one SQL statement may cost (issue 27, finding 3): besides its step budget, a wall-clock
deadline (ETIMEDOUT), the call's cancel signal (ECANCELED), a cap on one value (EINVAL) and one
on the bytes of its rows (EFBIG); after each, the next statement runs as usual. No time is
measured: a deadline test sets the deadline in the past."""

from __future__ import annotations

import pytest

from py_vfs import VFS, FsError
from py_vfs.core.cancel import SIGNAL, Signal
from py_vfs.data import query as query_module
from py_vfs.data.query import MAX_VALUE_BYTES, query

# Rows without end; each of them cheap.
ENDLESS = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
# 1,000 rows of the costly expression: a few steps a row, well inside the step budget,
# yet about 30 ms a row (30 s in all) without a deadline.
COSTLY = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
          "SELECT length(hex(randomblob(8000000))) FROM n")


def refused(vfs: VFS, sql: str) -> FsError:
    with pytest.raises(FsError) as caught:
        query(vfs, sql)
    assert caught.value.syscall == "query"
    return caught.value


def still_answers(vfs: VFS) -> None:
    assert query(vfs, "SELECT count(*), 1 + 1 FROM files").rows == [(0, 2)]


def test_a_statement_past_its_deadline_is_etimedout(vfs, monkeypatch):
    monkeypatch.setattr(query_module, "MAX_SECONDS", -1.0)  # already past: no waiting
    for sql in (COSTLY, ENDLESS + "SELECT count(*) FROM n"):
        error = refused(vfs, sql)
        assert error.code == "ETIMEDOUT" and error.errno != 0
        assert "deadline of -1 s" in str(error)
    monkeypatch.undo()
    still_answers(vfs)
    assert query_module.MAX_SECONDS > 0


class AbortedAfter(Signal):
    """A signal that turns aborted at its ``reads``-th look: the abort lands in the middle of
    a statement, as the page's cancel or a Ctrl-C does, with no thread and no timing."""

    def __init__(self, reads: int) -> None:
        self.reads = reads
        super().__init__()

    @property
    def aborted(self) -> bool:
        self.reads -= 1
        return self.reads < 0

    @aborted.setter
    def aborted(self, value: bool) -> None:
        if value:
            self.reads = 0


def test_a_cancelled_call_stops_its_statement_with_ecanceled(vfs):
    signal = AbortedAfter(50)
    token = SIGNAL.set(signal)
    try:
        # Without the signal the first runs to its step budget (EINVAL) and the costly one
        # to its deadline: each stops at the abort, at most 5,000 SQLite steps in.
        for sql, reads in ((ENDLESS + "SELECT count(*) FROM n", 50), (COSTLY, 1)):
            signal.reads = reads
            error = refused(vfs, sql)
            assert error.code == "ECANCELED"
            assert signal.reads < 0  # it was looked at until it said aborted
    finally:
        SIGNAL.reset(token)
    still_answers(vfs)


class CtrlC(Signal):
    """Looking at it raises KeyboardInterrupt inside the progress handler, where Ctrl-C of
    the command-line shell lands while a statement runs (SQLite drops the exception and stops
    the statement)."""

    @property
    def aborted(self) -> bool:
        raise KeyboardInterrupt

    @aborted.setter
    def aborted(self, value: bool) -> None:
        pass


def test_ctrl_c_landing_in_the_progress_handler_is_ecanceled_not_einval(vfs):
    token = SIGNAL.set(CtrlC())
    try:
        error = refused(vfs, ENDLESS + "SELECT count(*) FROM n")
    finally:
        SIGNAL.reset(token)
    assert error.code == "ECANCELED" and "interrupted" in str(error)
    still_answers(vfs)


def test_a_value_over_its_cap_is_einval(vfs):
    error = refused(vfs, f"SELECT zeroblob({MAX_VALUE_BYTES + 1})")
    assert error.code == "EINVAL" and f"past {MAX_VALUE_BYTES} bytes" in str(error)
    assert query(vfs, f"SELECT length(zeroblob({MAX_VALUE_BYTES}))").rows == [(MAX_VALUE_BYTES,)]
    still_answers(vfs)


def test_rows_over_the_result_cap_are_efbig_before_they_are_all_made(vfs):
    assert query_module.MAX_RESULT_BYTES == 64 * 1024 * 1024
    # The case: 10,000 values of 16 MB would be 160 GB; at most a few are ever held.
    sql = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) "
           "SELECT zeroblob(16000000) FROM n")
    error = refused(vfs, sql)
    assert error.code == "EFBIG" and "over 67108864 bytes" in str(error)
    # Many small rows count too, and a row's text as UTF-8.
    error = refused(vfs, ENDLESS + "SELECT printf('%.*c', 100000, 'é') FROM n LIMIT 400")
    assert error.code == "EFBIG"
    assert len(query(vfs, ENDLESS + "SELECT printf('%.*c', 100000, 'é') FROM n LIMIT 300",
                     limit=1000).rows) == 300
    still_answers(vfs)


def test_the_result_cap_can_be_set_lower(vfs, monkeypatch):
    monkeypatch.setattr(query_module, "MAX_RESULT_BYTES", 1000)
    assert refused(vfs, ENDLESS + "SELECT i FROM n LIMIT 100").code == "EFBIG"
    assert len(query(vfs, ENDLESS + "SELECT i FROM n LIMIT 30").rows) == 30  # 24 bytes a row
