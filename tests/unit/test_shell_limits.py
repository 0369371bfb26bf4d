"""The budgets of a shell line and the walks input could make slow (issue 27, findings 5 and
7; docs/shell.md, "Limits"): each runaway construct ends with `sh: WHAT: limit exceeded (...)`
and status 1 (jq: its own error, status 5) and changes nothing more; a line yields to the event
loop whether or not its call carries a signal, so another task runs and a cancel gets in; grep
-R and unzip do work linear in what they walk.

No assertion here measures time: each counts what ran (outputs, lookups, turns of the loop).
The cases that made gigabytes on the main branch of the time are each preceded by a smaller
one that ended there, so that these tests fail rather than take the machine down without the
limits."""

from __future__ import annotations

import asyncio
import io
import threading
import zipfile

import aio
import pytest

from py_vfs import VFS
from py_vfs.core import cancel
from py_vfs.shell import Shell, ShellResult

BOUND = 60  # seconds: the watchdog that ends a loop no limit stopped (CPython only)


def limited(what: str, detail: str) -> str:
    return f"sh: {what}: limit exceeded ({detail})\n"


# ------------------------------------------------------------------------ stages and commands


def test_a_pipeline_bomb_stops_at_the_stage_limit_and_the_line_with_it(sh):
    # 2^11 leaves: about 4,000 stages at once, which main ran to the end (status 0).
    result = sh("f(){ [ ${#1} -lt 11 ] && { f x$1 | f x$1; }; }; f; echo after")
    assert (result.stdout, result.code) == ("", 1)
    assert result.stderr == limited("pipeline", "1024 stages running at once")
    # The bomb of the finding (2^40 stages on main: 875 MiB in 2 s, then a frozen loop).
    result = sh("f(){ f | f; }; f; echo after")
    assert (result.stdout, result.stderr, result.code) == (
        "", limited("pipeline", "1024 stages running at once"), 1)
    assert sh("echo $?; echo fine | cat").stdout == "1\nfine\n"  # a new line, a new budget


def test_the_command_limit_ends_an_endless_loop_without_a_signal(sh, monkeypatch):
    from py_vfs.shell import limits

    monkeypatch.setattr(limits, "MAX_COMMANDS", 5_000)
    result = sh("echo start; while true; do :; done; echo never")
    assert (result.stdout, result.stderr, result.code) == (
        "start\n", limited("commands", "5000 run by one line"), 1)
    assert sh("for i in 1 2 3; do :; done; echo $i").stdout == "3\n"


def test_a_line_without_a_signal_lets_another_task_of_its_loop_run(sh, monkeypatch):
    """Main never suspended a call without a signal: the other task ran after the loop."""
    monkeypatch.setattr(cancel, "YIELD_MS", 0.0)  # every safe point lets the loop run
    seen: list[str | None] = []

    async def scenario() -> ShellResult:
        line = asyncio.ensure_future(sh.shell.run("for i in {1..2000}; do :; done"))
        while not line.done():
            seen.append(sh.shell.variables.get("i"))
            await asyncio.sleep(0)
        return await line

    result = sh.runner.run(scenario())
    assert result.code == 0
    assert [value for value in seen if value not in (None, "2000")]  # ran during the loop


def test_while_true_yields_to_another_task_which_cancels_it_by_its_signal(sh):
    """`while true; do :; done` in a call with a signal and no yielder (CPython, the Node
    tier): another task of the loop gets to run while it runs (main: never) and aborts the
    signal; the line ends with status 130 and the shell works after it."""
    signal = cancel.Signal()
    ran: list[bool] = []

    async def scenario() -> ShellResult:
        async def line() -> ShellResult:
            cancel.SIGNAL.set(signal)  # in this task's own context
            return await sh.shell.run("while true; do :; done; echo never")

        running = asyncio.ensure_future(line())

        async def other() -> None:
            await asyncio.sleep(0)
            ran.append(not running.done())
            signal.abort()

        other_task = asyncio.ensure_future(other())
        result = await running
        await other_task
        return result

    watchdog = None
    if not aio.stepping_wanted():  # main never yields: end its loop so that the test fails
        watchdog = threading.Timer(BOUND, signal.abort)
        watchdog.start()
    try:
        result = sh.runner.run(scenario())
    finally:
        if watchdog is not None:
            watchdog.cancel()
    assert ran == [True]
    assert (result.stdout, result.stderr, result.code) == ("", "", 130)
    assert sh("echo again").stdout == "again\n"


# ------------------------------------------------------------------------ values


def test_a_doubling_variable_stops_at_the_value_limit_and_keeps_its_last_value(sh):
    # 27 doublings of "ab" are 2^28 characters: main held them all.
    result = sh("x=ab; for i in {1..27}; do x=$x$x; done; echo never")
    assert (result.stdout, result.code) == ("", 1)
    assert result.stderr == limited("x", "a value over 67108864 characters")
    assert sh("echo ${#x} $i").stdout == "67108864 26\n"  # the assignment changed nothing
    sh("unset x")


def test_positional_parameters_doubling_stop_at_the_word_limit(sh, monkeypatch):
    from py_vfs.shell import limits

    monkeypatch.setattr(limits, "MAX_FIELDS", 50_000)  # the default, 1 Mi, takes a minute
    result = sh("set -- a; for i in {1..30}; do set -- \"$@\" \"$@\"; done; echo never")
    assert (result.stdout, result.code) == ("", 1)
    assert result.stderr == limited("words", "more than 50000 in one command")
    assert sh("echo $# $i").stdout == "32768 16\n"


def test_variables_together_stop_at_their_limit_and_unset_gives_room_back(sh, monkeypatch):
    from py_vfs.shell import limits

    monkeypatch.setattr(limits, "MAX_VARIABLES", 1_000_000)
    assert sh("a=$(printf '%0400000d' 0); b=$a; echo ${#b}").stdout == "400000\n"
    result = sh("c=$a; echo never")
    assert (result.stdout, result.stderr, result.code) == (
        "", limited("c", "variables over 1000000 characters"), 1)
    assert sh("f(){ local d=$a; }; f").stderr == limited("d", "variables over 1000000 characters")
    assert sh("unset b; c=$a; echo ${#c}").stdout == "400000\n"


# It makes 10 million values before the limit: 11 s alone, minutes under coverage on a loaded
# 2-core machine (pytest-timeout's 120 s was met once).
@pytest.mark.timeout(480)
def test_jq_stops_at_its_value_limit(sh):
    # 12 million values: main built them (about 400 MiB) and printed the length.
    result = sh("jq -n '[range(12000000)]|length'")
    assert (result.stdout, result.code) == ("", 5)
    assert result.stderr == ("jq: error (at <unknown>): limit exceeded (a filter making more "
                             "than 10000000 values)\n")
    # The finding's line (3.7 GiB on main) is refused before it makes anything.
    assert sh("jq -n '[range(100000000)]|length'").stderr == result.stderr
    doubled = "|".join(['"ab"'] + [".+."] * 30 + ["length"])
    result = sh(f"jq -n '{doubled}'")
    assert (result.stdout, result.code) == ("", 5)
    assert "limit exceeded (a filter joining more than 268435456" in result.stderr
    nested = "|".join(["[range(100)]"] + ["[.,.,.,.]"] * 15)  # 4^15 copies written out
    assert "limit exceeded (a value of more than" in sh(f"jq -c -n '{nested}'").stderr
    assert sh("jq -c -n '[range(3)] | add, ([\"a\",\"b\"]|add), ([[1],[2]]|add)'").stdout == (
        '3\n"ab"\n[1,2]\n')


def test_printf_refuses_a_field_width_over_the_limit(sh):
    result = sh("printf '%*d' 2000000000 1; echo \"[$?]\"")
    assert result.stdout == "[1]\n"
    assert result.stderr == "sh: printf: 2000000000: limit exceeded (a field width over 67108864)\n"
    assert sh("printf '%.*f|%-*s|\\n' 2 3.14159 4 ab").stdout == "3.14|ab  |\n"


# ------------------------------------------------------------------------ walks


def test_grep_r_searches_each_real_directory_once_as_gnu_grep(sh, monkeypatch):
    """Two links to ancestors: main's walk was exponential (2^depth paths until PATH_MAX). A
    signal that a turn of the loop aborts after 5,000 safe points stands for Ctrl-C, so that
    main fails here (status 130) instead of running for ages; the fixed walk passes a handful."""
    sh("mkdir -p /w/d/e /w/d/g && cd /w && echo x > d/e/f && echo x > d/g/h"
       " && ln -s .. d/e/up1 && ln -s ../.. d/e/up2 && ln -s ../e d/g/side")
    signal = cancel.Signal()
    turns: list[int] = []

    async def host_turn() -> None:
        turns.append(1)
        if len(turns) == 5_000:
            signal.abort()

    async def grep(line: str) -> ShellResult:
        cancel.SIGNAL.set(signal)
        return await sh.shell.run(line)

    monkeypatch.setattr(cancel, "YIELD_MS", 0.0)
    cancel.set_yielder(host_turn)
    try:
        result = sh.runner.run(grep("grep -R x d"))
        quiet = sh.runner.run(grep("grep -Rs x d"))
        plain = sh.runner.run(grep("grep -r x d"))
    finally:
        cancel.set_yielder(None)
    assert (result.stdout, result.code) == ("d/e/f:x\nd/g/h:x\n", 0), result
    # GNU grep 3.x's words for a link back to a directory being searched (status unchanged);
    # d/g/side leads to d/e, searched already: skipped without a word.
    assert result.stderr == ("grep: d/e/up1: warning: recursive directory loop\n"
                             "grep: d/e/up2/d: warning: recursive directory loop\n")
    assert (quiet.stdout, quiet.stderr, quiet.code) == (result.stdout, "", 0)
    assert (plain.stdout, plain.stderr, plain.code) == (result.stdout, "", 0)
    assert len(turns) < 100


def _chain(depth: int) -> bytes:
    """A zip of `a/`, `a/a/`... `depth` deep, and a file at the bottom."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for level in range(1, depth + 1):
            archive.writestr("a/" * level, b"")
        archive.writestr("a/" * depth + "f", b"x")
    return buffer.getvalue()


def test_unzip_work_grows_with_the_names_not_the_cube_of_the_depth(monkeypatch):
    """Counted as the directory lookups the disk makes: twice as deep is four times the names
    (the archive's size), and at most five times the lookups; main's `mkdir -p` of every
    member made it eight (cubic)."""
    from py_vfs.disk.index import Index

    lookups = [0]
    child = Index.child

    def counted(self, directory, name):
        lookups[0] += 1
        return child(self, directory, name)

    monkeypatch.setattr(Index, "child", counted)

    def extract(depth: int) -> int:
        vfs = VFS.memory()
        shell = Shell(vfs)

        async def run() -> ShellResult:
            await vfs.write_file("/c.zip", _chain(depth))
            lookups[0] = 0
            return await shell.run("unzip -q /c.zip -d /out")

        result = asyncio.run(run())
        assert (result.stderr, result.code) == ("", 0)
        assert vfs.walk("/out") == ["/out" + "/a" * depth + "/f"]
        return lookups[0]

    shallow, deep = extract(40), extract(80)
    assert deep < 5 * shallow, (shallow, deep)


def test_commands_holding_their_whole_input_stop_at_a_limit(sh, monkeypatch):
    """`yes | sort` and `yes | xargs ...` held their input without end (the default limit is
    256 MiB; lowered here so that the test is quick); xargs's commands count as commands."""
    from py_vfs.shell import limits, pipes

    monkeypatch.setattr(pipes, "READ_ALL_LIMIT", 100_000)
    result = sh("yes | sort; echo $?")
    assert result.stdout == "2\n"
    assert result.stderr == ("sort: cannot read: -: File too large (input held in memory stops "
                             "at 100000 bytes)\n")
    result = sh("yes | xargs echo; echo $?")
    assert result.stdout == "1\n"
    assert result.stderr == "xargs: File too large (input held in memory stops at 100000 bytes)\n"
    monkeypatch.setattr(limits, "MAX_COMMANDS", 100)
    result = sh("seq 1000 | xargs -n1 true; echo never")
    assert (result.stdout, result.stderr, result.code) == (
        "", limited("commands", "100 run by one line"), 1)
