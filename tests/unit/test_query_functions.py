"""``instr``, ``replace`` and two-argument ``trim``/``ltrim``/``rtrim`` of a query are
linear-time replacements of SQLite's (data/query_functions.py): one call is one step, which no
deadline interrupts, and SQLite's cost the product of their arguments' lengths (issue 27,
finding 3). Here they answer as SQLite's do, value for value, and the inputs that make SQLite's
run for minutes come back at once (no time is measured: the test's own bound would end them)."""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from py_vfs import VFS
from py_vfs.data import query_functions
from py_vfs.data.query import MAX_VALUE_BYTES, query

VALUES = [None, "", "a", "abc", "aXbXc", "bab", "é", "aé☃b", "☃☃", "a\x00b", "\x00a", " a ",
          b"", b"a", b"ab\x00", b"caf\xc3\xa9", 0, 1, -5, 12, 1.5, 0.1, 3.0, 1e20, -2.5e-7,
          "aaaa", "aa", "x" * 150 + "y", "x" * 300 + "y" + "x" * 10, "é" * 120 + "☃"]


@pytest.fixture(scope="module")
def vfs() -> VFS:
    return VFS.memory()


@pytest.fixture(scope="module")
def native() -> sqlite3.Connection:
    return sqlite3.connect(":memory:")


def same(vfs: VFS, native: sqlite3.Connection, sql: str, args: tuple) -> None:
    expected = native.execute(sql, args).fetchall()
    assert query(vfs, sql, args).rows == expected, (sql, args)


def test_instr_answers_as_sqlites_own(vfs, native):
    for args in itertools.product(VALUES, repeat=2):
        same(vfs, native, "SELECT instr(?, ?)", args)


def test_replace_answers_as_sqlites_own(vfs, native):
    for args in itertools.product(VALUES, ["a", "aa", "", "X", "é", "\x00", b"b", 1, None,
                                           "x" * 150],
                                  ["", "zz", "☃", None, 7]):
        same(vfs, native, "SELECT replace(?, ?, ?)", args)


@pytest.mark.parametrize("name", ["trim", "ltrim", "rtrim"])
def test_trim_with_characters_answers_as_sqlites_own(vfs, native, name):
    sets = ["", "a", "ab", " ", "é☃", "abcdefghijklmnopqrstuvwxyzé☃ ", None, 1, b"a"]
    for args in itertools.product(VALUES, sets):
        same(vfs, native, f"SELECT {name}(?, ?)", args)
    same(vfs, native, f"SELECT {name}(' x ')", ())  # one argument: SQLite's own, untouched


def test_the_query_connection_uses_the_linear_versions(vfs, monkeypatch):
    called = []
    original = query_functions.Functions.instr

    def instr(self, haystack, needle):
        called.append((haystack, needle))
        return original(self, haystack, needle)

    monkeypatch.setattr(query_functions.Functions, "instr", instr)
    assert query(vfs, "SELECT instr('abc', 'c')").rows == [(3,)]
    assert called == [("abc", "c")]


MIB = 1 << 20


@pytest.mark.parametrize("sql, args, expected", [
    # SQLite 3.40's own, measured: 33 s, 40 s; then about 5 hours (1 Mi characters, each
    # compared with a set of 1 Mi, the match last) and 10 minutes.
    ("SELECT instr(zeroblob(?), zeroblob(?) || x'01')", (MIB, MIB // 2), 0),
    ("SELECT length(replace(printf('%.*c', ?, 'a'), printf('%.*c', ?, 'a') || 'b', 'z'))",
     (MIB, MIB // 2), MIB),
    ("SELECT length(trim(printf('%.*c', ?, 'a'), printf('%.*c', ?, 'b') || 'a'))",
     (MIB, MIB), 0),
    ("SELECT length(rtrim(printf('%.*c', ?, 'a'), ?))",
     (MIB, "".join(map(chr, range(0x100, 0x100 + 50_000))) + "a"), 0),
])
def test_inputs_that_make_sqlites_versions_run_for_minutes_come_back(vfs, sql, args, expected):
    assert query(vfs, sql, args).rows == [(expected,)]


def test_a_replace_that_would_grow_past_the_value_cap_is_einval(vfs):
    from py_vfs import FsError

    with pytest.raises(FsError) as caught:
        query(vfs, "SELECT replace(printf('%.*c', ?, 'a'), 'a', printf('%.*c', 20, 'b'))",
              (MAX_VALUE_BYTES // 10,))
    assert caught.value.code == "EINVAL" and "grew past" in str(caught.value)
    assert query(vfs, "SELECT replace('aa', 'a', 'bb')").rows == [("bbbb",)]
