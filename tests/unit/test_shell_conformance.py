"""The shell conformance suite: every line of tests/shell/cases.py, run by our shell on the same
tree, must print what GNU bash and coreutils printed (tests/shell/expected.json).

expected.json is checked in, so this runs without bash (on CPython and inside Pyodide);
``python tests/shell/generate.py`` regenerates it after a case is added or changed (see its
docstring for how bash runs: the tree's root is ``/work`` on both sides, and ``$HOME``).

Each case builds ``cases.TREE`` at ``/work`` on a fresh memory VFS, starts a ``Shell`` there
with ``HOME=/work`` and ``TZ=UTC`` exported, runs the line with no standard input, and compares
stdout, stderr and the status exactly. The only normalization, of stderr: bash's prefix
``bash: line N: `` (``bash: -c: line N: `` for a syntax error) is our ``sh: ``. Anything else
that differs is a failure to fix; a difference we keep on purpose (documented in docs/shell.md)
goes into DIFFERENCES with our expected output and the reason.

KNOWN_FAILURES lists the cases that fail today, with a one-line reason; they run as strict
xfails, so a case that starts passing fails the run until it is removed from the list: the list
can only shrink.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from py_vfs import VFS
from py_vfs.shell import Shell
from py_vfs.shell.interpreter import ShellResult

SHELL_DIR = Path(__file__).resolve().parents[1] / "shell"


def _load_cases() -> Any:
    spec = importlib.util.spec_from_file_location("shell_conformance_cases", SHELL_DIR / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load_cases()
EXPECTED: dict[str, dict[str, Any]] = json.loads(
    (SHELL_DIR / "expected.json").read_text(encoding="utf-8"))["cases"]

# A case's own bound: a line that hangs (a pipe nobody closes) fails with this message instead
# of holding the whole run until the test's timeout.
CASE_SECONDS = 30

BASH_PREFIX = re.compile(r"^bash: (?:-c: )?line \d+: ", re.MULTILINE)

# Deliberate differences from bash, each documented in docs/shell.md: case id -> the reason and
# what our shell prints instead (only the keys that differ: stdout, stderr, status).
_SYNTAX = (
    'docs/shell.md, Syntax: a syntax error is one line naming the token, line and column')
_NOT_IN_LANGUAGE = (
    'docs/shell.md, Differences: [[ ]] is not in the language')
_NO_USERS = (
    'docs/shell.md, Differences: no users or blocks (ls -l shows user; total of sizes)')
_QUOTED = (
    'docs/shell.md, Differences: names in listings are always quoted (shell-escape)')
DIFFERENCES: dict[str, dict[str, Any]] = {
    'list-11': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token '|' (line 1, column 1)\n",
    },
    'list-13': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token ';;' (line 1, column 8)\n",
    },
    'list-14': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token '(' (line 1, column 6)\n",
    },
    'list-16': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token ';' (line 1, column 9)\n",
    },
    'flow-15': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token 'then' (line 1, column 4)\n",
    },
    'flow-17': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token 'fi' (line 1, column 15)\n",
    },
    'flow-20': {
        'reason': _SYNTAX,
        'stderr': "sh: syntax error near unexpected token 'fi' (line 1, column 1)\n",
    },
    'quoting-10': {
        'reason': _SYNTAX,
        'stderr': (
            "sh: syntax error: unexpected end of file (unterminated ' from line 1, column 6)\n"
        ),
    },
    'quoting-15': {
        'reason': _SYNTAX,
        'stderr': (
            'sh: syntax error: unexpected end of file (unterminated " from line 1, column 6)\n'
        ),
    },
    'cmdsub-12': {
        'reason': _SYNTAX,
        'stderr': (
            'sh: syntax error: unexpected end of file (unterminated $( from line 1, column 8)\n'
        ),
    },
    'test-19': {
        'reason': _NOT_IN_LANGUAGE,
        'stdout': '',
        'stderr': "sh: '[[': command not found\n",
        'status': 127,
    },
    'test-20': {
        'reason': _NOT_IN_LANGUAGE,
        'stdout': '',
        'stderr': "sh: '[[': command not found\n",
        'status': 127,
    },
    'ls-15': {
        'reason': _NO_USERS,
        'stdout': 'total 1\n-rw-r--r-- 1 user user 11 Nov 14  2023 deep.txt\n',
    },
    'ls-16': {
        'reason': _NO_USERS,
        'stdout': '-rw-r--r-- 1 user user 11 Nov 14  2023 dir/sub/deep.txt\n',
    },
    'ls-01': {
        'reason': _QUOTED,
        'stdout': (
            'a.txt\n'
            'b.txt\n'
            'bin.dat\n'
            'data.json\n'
            'dir\n'
            'empty.txt\n'
            'fruits.csv\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'script.sh\n'
            'src\n'
            'v1.txt\n'
            'v2.txt\n'
            'words.txt\n'
        ),
    },
    'ls-02': {
        'reason': _QUOTED,
        'stdout': (
            '.\n'
            '..\n'
            '.hidden\n'
            'a.txt\n'
            'b.txt\n'
            'bin.dat\n'
            'data.json\n'
            'dir\n'
            'empty.txt\n'
            'fruits.csv\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'script.sh\n'
            'src\n'
            'v1.txt\n'
            'v2.txt\n'
            'words.txt\n'
        ),
    },
    'ls-03': {
        'reason': _QUOTED,
        'stdout': (
            '.hidden\n'
            'a.txt\n'
            'b.txt\n'
            'bin.dat\n'
            'data.json\n'
            'dir\n'
            'empty.txt\n'
            'fruits.csv\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'script.sh\n'
            'src\n'
            'v1.txt\n'
            'v2.txt\n'
            'words.txt\n'
        ),
    },
    'ls-10': {
        'reason': _QUOTED,
        'stdout': (
            'words.txt\n'
            'v2.txt\n'
            'v1.txt\n'
            'src\n'
            'script.sh\n'
            'numbers.txt\n'
            'nonl.txt\n'
            "'my file.txt'\n"
            'link.txt\n'
            'lines.txt\n'
            'héllo.txt\n'
            'fruits.csv\n'
            'empty.txt\n'
            'dir\n'
            'data.json\n'
            'bin.dat\n'
            'b.txt\n'
            'a.txt\n'
        ),
    },
    'ls-11': {
        'reason': _QUOTED,
        'stdout': (
            'a.txt\n'
            'b.txt\n'
            'empty.txt\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'v1.txt\n'
            'v2.txt\n'
            'words.txt\n'
        ),
    },
    'rm-06': {
        'reason': _QUOTED,
        'stdout': (
            'a.txt\n'
            'b.txt\n'
            'bin.dat\n'
            'data.json\n'
            'empty.txt\n'
            'fruits.csv\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'script.sh\n'
            'v1.txt\n'
            'v2.txt\n'
            'words.txt\n'
        ),
    },
    'rm-10': {
        'reason': _QUOTED,
        'stdout': (
            '1\n'
            'empty.txt\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'v2.txt\n'
            'words.txt\n'
        ),
    },
    'mv-01': {
        'reason': _QUOTED,
        'stdout': (
            'b.txt\n'
            'empty.txt\n'
            'héllo.txt\n'
            'lines.txt\n'
            'link.txt\n'
            "'my file.txt'\n"
            'nonl.txt\n'
            'numbers.txt\n'
            'v1.txt\n'
            'v2.txt\n'
            'words.txt\n'
            'z.txt\n'
        ),
    },
    'mv-06': {
        'reason': _QUOTED,
        'stdout': "'your file.txt'\n",
    },
    'ls-17': {
        'reason': _QUOTED,
        'stdout': (
            'a.txt\t   b.txt      bin.dat\tdata.json      dir\t empty.txt    fruits.csv\n'
            "héllo.txt  lines.txt  link.txt\t'my file.txt'  nonl.txt  numbers.txt  script.sh\n"
            'src\t   v1.txt     v2.txt\twords.txt\n'
        ),
    },
    'tree-02': {
        'reason': _QUOTED,
        'stdout': (
            '.\n'
            '├── a.txt\n'
            '├── b.txt\n'
            '├── bin.dat\n'
            '├── data.json\n'
            '├── dir\n'
            '│\xa0\xa0 ├── c.md\n'
            '│\xa0\xa0 ├── d.py\n'
            '│\xa0\xa0 ├── empty\n'
            '│\xa0\xa0 └── sub\n'
            '│\xa0\xa0     └── deep.txt\n'
            '├── empty.txt\n'
            '├── fruits.csv\n'
            '├── héllo.txt\n'
            '├── lines.txt\n'
            '├── link.txt -> a.txt\n'
            "├── 'my file.txt'\n"
            '├── nonl.txt\n'
            '├── numbers.txt\n'
            '├── script.sh\n'
            '├── src\n'
            '│\xa0\xa0 ├── lib\n'
            '│\xa0\xa0 │\xa0\xa0 └── helpers.js\n'
            '│\xa0\xa0 ├── main.py\n'
            '│\xa0\xa0 └── util.py\n'
            '├── v1.txt\n'
            '├── v2.txt\n'
            '└── words.txt\n'
            '\n'
            '6 directories, 22 files\n'
        ),
    },
}

# Cases that fail today: case id -> why (one line), by owner (lang: the language and the shell
# builtins; text: text and data-stream commands; files: file-tree commands; a command's case
# that only fails for want of a language feature says "needs lang"). Strict xfails: remove a
# case once it passes.
KNOWN_FAILURES: dict[str, str] = {
    # lang: 0
    # text: 0
    # files: 0
}


def normalize_stderr(text: str) -> str:
    """bash's ``bash: line N: `` prefix (``bash: -c: line N: ``) is our ``sh: ``."""
    return BASH_PREFIX.sub("sh: ", text)


def expected(case: str) -> dict[str, Any]:
    """What our shell must print for ``case``: bash's output, or the documented difference."""
    bash = EXPECTED[case]
    want = {"stdout": bash["stdout"], "stderr": normalize_stderr(bash["stderr"]),
            "status": bash["status"]}
    want.update({key: value for key, value in DIFFERENCES.get(case, {}).items()
                 if key in want})
    return want


async def build_tree(vfs: VFS) -> None:
    """``cases.TREE`` at ``cases.ROOT``, with the times and modes generate.py gives it."""
    root = cases.ROOT
    await vfs.mkdir(root, mode=0o755)
    for rel, node in cases.TREE.items():
        path = f"{root}/{rel}"
        if node is None:
            await vfs.mkdir(path, mode=0o755)
        elif isinstance(node, tuple):
            await vfs.symlink(node[1], path)
        else:
            await vfs.write_file(path, node, mode=0o644)
    stamp = cases.MTIME * 1000
    for rel in sorted(cases.TREE, key=lambda r: -r.count("/")):
        if not isinstance(cases.TREE[rel], tuple):  # utimes follows links
            await vfs.utimes(f"{root}/{rel}", stamp, stamp)
    await vfs.utimes(root, stamp, stamp)


async def run_case(line: str) -> ShellResult:
    """A fresh tree and shell at ``/work``, then ``line``, bounded by CASE_SECONDS."""
    vfs = VFS.memory()
    await build_tree(vfs)
    shell = Shell(vfs)
    shell.cwd = cases.ROOT
    # As in generate.py's environment for bash: HOME is the tree, times are UTC.
    await shell.run(f"export HOME={cases.ROOT} TZ=UTC")
    try:
        return await asyncio.wait_for(shell.run(line), CASE_SECONDS)
    except TimeoutError:
        pytest.fail(f"{line!r} did not finish within {CASE_SECONDS} s")


def _params() -> list:
    params = []
    for case in cases.CASES:
        marks = []
        if case in KNOWN_FAILURES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[case]))
        params.append(pytest.param(case, id=case, marks=marks))
    return params


@pytest.mark.parametrize("case", _params())
def test_case_prints_what_bash_prints(case: str) -> None:
    line = cases.CASES[case]
    result = asyncio.run(run_case(line))  # tests/unit/aio.py in Pyodide
    got = {"stdout": result.stdout, "stderr": result.stderr, "status": result.code}
    assert got == expected(case), f"{case}: {line!r}"


def test_expected_json_holds_every_case_as_it_is_written_now() -> None:
    """A case added or edited without running generate.py would compare against nothing, or
    against another line's output."""
    assert list(EXPECTED) == list(cases.CASES), "run: python tests/shell/generate.py"
    stale = [case for case, line in cases.CASES.items() if EXPECTED[case]["line"] != line]
    assert stale == [], "lines changed since expected.json: python tests/shell/generate.py"


def test_the_suite_is_large_and_its_lists_name_real_cases() -> None:
    assert len(cases.CASES) >= 300
    assert set(cases.OWNERS) == set(cases.CASES)
    assert set(KNOWN_FAILURES) <= set(cases.CASES)
    assert set(DIFFERENCES) <= set(cases.CASES)
    assert not set(KNOWN_FAILURES) & set(DIFFERENCES), "a difference is not a failure"
    assert all(entry.get("reason") for entry in DIFFERENCES.values())
