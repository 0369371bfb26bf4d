"""Pipelines against bash: each line's standard output and status are what GNU bash 5
printed for it (recorded with `bash -c LINE` in an empty directory; bash is not needed to run
these tests), and standard error is empty exactly when bash's was."""

from __future__ import annotations

import asyncio

import pytest

from py_vfs import VFS
from py_vfs.shell import Shell

# (line, bash's stdout, whether bash wrote to stderr, bash's status)
PIPELINES = [
    ('false | true; echo $?',
     '0\n', False, 0),
    ('set -o pipefail; false | true; echo $?',
     '1\n', False, 0),
    ('true | false | true; echo $?',
     '0\n', False, 0),
    ('{ echo a; echo b; } | cat',
     'a\nb\n', False, 0),
    ('{ echo a b c; echo d; } | { read x y; echo "[$x][$y]"; read z; echo "[$z]"; }',
     '[a][b c]\n[d]\n', False, 0),
    ('{ echo one; echo \'two\\x\'; } | while read -r line; do echo "<$line>"; done',
     '<one>\n<two\\x>\n', False, 0),
    ('echo \'a\\ b\' | { read x; echo "$x"; }',
     'a b\n', False, 0),
    ('{ echo out; echo err >&2; } 2>&1 | cat',
     'out\nerr\n', False, 0),
    ('n=0; echo a b | while read w; do n=1; done; echo $n',
     '0\n', False, 0),
    ('cat <<EOF | cat\npiped\nEOF',
     'piped\n', False, 0),
    ('for x in 1 2; do echo $x; done | cat',
     '1\n2\n', False, 0),
    ('echo a | { cat; echo b; }',
     'a\nb\n', False, 0),
    ('set -o | while read n v; do case $n in errexit|pipefail) echo "$n $v";; esac; done',
     'errexit off\npipefail off\n', False, 0),
    ('export E=1; env | while read l; do case $l in E=*) echo "$l";; esac; done',
     'E=1\n', False, 0),
]


@pytest.mark.parametrize(("line", "stdout", "stderr", "status"), PIPELINES)
def test_a_pipeline_does_what_bash_does(line: str, stdout: str, stderr: bool,
                                        status: int) -> None:
    result = asyncio.run(Shell(VFS.memory()).run(line))
    assert (result.stdout, bool(result.stderr), result.code) == (stdout, stderr, status), result


def test_every_stage_is_a_subshell_as_in_bash_without_lastpipe() -> None:
    shell = Shell(VFS.memory())
    line = ("mkdir /d; cd /d | cat; y=in | cat; echo a | read z; echo /d | { read d; cd $d; }; "
            "pwd; echo \"[$y][$z]\"")
    result = asyncio.run(shell.run(line))
    assert (result.stdout, result.stderr, result.code) == ("/\n[][]\n", "", 0)


def test_pipefail_and_negation() -> None:
    shell = Shell(VFS.memory())
    line = "set -o pipefail; false | true || echo failed; ! false | false; echo $?"
    result = asyncio.run(shell.run(line))
    assert (result.stdout, result.code) == ("failed\n0\n", 0)
