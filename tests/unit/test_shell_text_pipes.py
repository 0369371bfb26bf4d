"""The text commands in pipelines, against GNU (the lines of shell_text_cases.json with a pipe,
see test_shell_text.py), and what only a pipeline shows: colors for a terminal and not for a
pipe, grep -o on a hostile pattern fed by printf, diff -u's headers."""

from __future__ import annotations

import functools
import re

import helpers
import pytest
from test_shell_text import CASES, FILES, run_line

from py_vfs import VFS
from py_vfs.shell import Shell
from py_vfs.shell.pipes import Collect

PIPED = [case for case in CASES if "|" in case[0]]


@pytest.mark.parametrize(("line", "stdout", "stderr", "status"), PIPED,
                         ids=[case[0] for case in PIPED])
def test_the_same_as_gnu(line: str, stdout: str, stderr: str, status: int) -> None:
    assert list(run_line(line)) == [stdout, stderr, status]


def test_grep_colors_its_output_as_gnu_when_a_terminal_shows_it():
    """`--color=auto` colors only for a terminal; the sequences are GNU grep 3.8's defaults
    (GREP_COLORS ms=01;31 fn=35 ln=32 se=36), as `grep --color=always -Hn` printed them."""
    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/f.txt", FILES["f.txt"])
        shell = Shell(vfs)
        terminal = Collect(isatty=True)
        await shell.run("grep --color=auto -Hn apple f.txt", stdout=terminal)
        piped = await shell.run("grep --color=auto -Hn apple f.txt | cat", stdout=terminal)
        return terminal.text(), piped
    colored, _ = run_async(scenario())
    line = ("\x1b[35m\x1b[Kf.txt\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
            "\x1b[32m\x1b[K2\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
            "\x1b[01;31m\x1b[Kapple\x1b[m\x1b[K\n")
    assert colored.startswith(line)
    assert colored.endswith("f.txt:4:apple\n")  # through a pipe: no colors


def test_a_hostile_pattern_costs_linear_time_in_grep_and_grep_o():
    """`(a+)+$` backtracks exponentially in Python's re; grep runs it on the automaton."""
    line = "a" * 5000 + "b"
    stdout, stderr, status = run_line(f"printf '{line}\\n{'a' * 40}\\n' | grep -o -E '(a+)+$'")
    assert (stdout, stderr, status) == ("a" * 40 + "\n", "", 0)


def test_diff_u_heads_each_side_with_its_name_and_time_as_gnu():
    stdout, stderr, status = run_line("diff -u x1 x2 | head -2")
    stamp = r"\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}\n"
    assert re.fullmatch(f"--- x1{stamp}\\+\\+\\+ x2{stamp}", stdout), stdout
    assert (stderr, status) == ("", 0)


run_async = functools.partial(helpers.run, bound=60)  # a hang fails the test
