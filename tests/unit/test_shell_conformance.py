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
import sys
import time
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
DIFFERENCES: dict[str, dict[str, Any]] = {}

# Cases that fail today: case id -> why (one line), by owner (lang: the language and the shell
# builtins; text: text and data-stream commands; files: file-tree commands; a command's case
# that only fails for want of a language feature says "needs lang"). Strict xfails: remove a
# case once it passes.
KNOWN_FAILURES: dict[str, str] = {
    # lang: 217
    'quoting-09': "stdout: ours '$a\\\\tb', bash 'a\\tb'",
    'quoting-10': 'ours: sh: syntax error: unterminated quote',
    'quoting-11': "ours: sh: 'x=a  b': command not found",
    'quoting-15': 'ours: sh: syntax error: unterminated quote',
    'quoting-16': "ours: sh: 'X=a:b:c': command not found",
    'vars-01': "ours: sh: 'X=1': command not found",
    'vars-02': "stdout: ours '${UNSET:-default} ${UNSET-dflt2}', bash 'default dflt2'",
    'vars-03': "ours: sh: 'X=': command not found",
    'vars-04': "stdout: ours '${X:=assigned}', bash 'assigned'",
    'vars-05': "ours: sh: 'X=val': command not found",
    'vars-06': "ours: sh: 'X=hello': command not found",
    'vars-07': "ours: sh: 'F=archive.tar.gz': command not found",
    'vars-08': "ours: sh: 'X=abcabc': command not found",
    'vars-09': "stdout: ours '$HOME', bash '/work'",
    'vars-10': "stdout: ours '/ /dir', bash '/work /work/dir'",
    'vars-11': "stdout: ours '$PWD', bash '/work/dir'",
    'vars-12': "stdout: ours '$OLDPWD', bash '/work/dir'",
    'vars-13': "stdout: ours '/work/dir', bash '/work'",
    'vars-14': "stderr: ours 'cd: -: No such file or directory\\n', bash 'sh: cd: OLDPWD not ...",
    'vars-15': "ours: sh: 'X=1': command not found",
    'vars-16': "stdout: ours None, bash 'hi'",
    'vars-17': "ours: sh: 'GREETING=hi': command not found",
    'vars-18': 'needs lang: $? is not expanded',
    'vars-19': "stdout: ours None, bash 'X=1'",
    'vars-20': 'ours: sh: env: command not found',
    'vars-21': 'ours: sh: printenv: command not found',
    'vars-22': 'ours: sh: set: command not found',
    'vars-23': 'needs lang: $? is not expanded',
    'vars-24': "ours: sh: 'X=$?': command not found",
    'vars-25': 'ours: sh: set: command not found',
    'vars-26': 'ours: sh: set: command not found',
    'vars-27': 'ours: sh: set: command not found',
    'vars-28': 'ours: sh: set: command not found',
    'vars-29': 'ours: sh: unset: command not found',
    'vars-30': "ours: sh: 'A=1': command not found",
    'vars-31': "stdout: ours '${X:-quoted default}', bash 'quoted default'",
    'vars-32': "ours: sh: 'x=3': command not found",
    'vars-33': "stdout: ours '$UNDEFINED_VAR end', bash 'end'",
    'vars-34': "stdout: ours '$#', bash '0'",
    'vars-35': 'needs lang: $? is not expanded',
    'vars-36': 'needs lang: $? is not expanded',
    'vars-37': "ours: sh: 'X=outer': command not found",
    'vars-38': 'needs lang: $? is not expanded',
    'arith-01': "ours: sh: '(' is not supported",
    'arith-02': "ours: sh: '(' is not supported",
    'arith-03': "ours: sh: '(' is not supported",
    'arith-04': "ours: sh: '(' is not supported",
    'arith-05': "ours: sh: '(' is not supported",
    'arith-06': "ours: sh: '(' is not supported",
    'arith-07': "ours: sh: '(' is not supported",
    'arith-08': "ours: sh: '(' is not supported",
    'arith-09': "ours: sh: '(' is not supported",
    'arith-10': "ours: sh: '(' is not supported",
    'arith-11': "ours: sh: '(' is not supported",
    'arith-12': "ours: sh: '(' is not supported",
    'arith-13': "ours: sh: '(' is not supported",
    'arith-14': "ours: sh: '(' is not supported",
    'cmdsub-01': "stdout: ours '[$(echo hi)]', bash '[hi]'",
    'cmdsub-02': "ours: sh: '(' is not supported",
    'cmdsub-03': "ours: sh: '(' is not supported",
    'cmdsub-04': "stdout: ours '$(echo a; echo b)', bash 'a'",
    'cmdsub-05': "stdout: ours '`echo back tick`', bash 'back tick'",
    'cmdsub-06': "ours: sh: '(' is not supported",
    'cmdsub-07': "ours: sh: '(' is not supported",
    'cmdsub-08': "ours: sh: '(' is not supported",
    'cmdsub-09': "ours: sh: '(' is not supported",
    'cmdsub-10': 'needs lang: $? is not expanded',
    'cmdsub-11': "ours: sh: '(' is not supported",
    'cmdsub-12': "ours: sh: '(' is not supported",
    'glob-05': "stdout: ours 'a.txt', bash 'b.txt'",
    'glob-12': "stdout: ours '**/*.txt', bash 'a.txt b.txt dir/sub/deep.txt empty.txt ...",
    'glob-13': "stdout: ours 'dir/c.md dir/d.py dir/empty dir/sub', bash 'dir/ dir/c.md dir/d....",
    'glob-16': "stdout: ours 'dir/ src/', bash 'dir/ dir/empty/ dir/sub/ src/ src/lib/'",
    'glob-21': 'ours: sh: for: command not found',
    'glob-22': "ours: sh: 'X=*.csv': command not found",
    'glob-24': "stdout: ours '*.{txt,csv}', bash 'a.txt b.txt empty.txt héllo.txt lines.t...",
    'brace-01': "stdout: ours '{a,b,c}', bash 'a b c'",
    'brace-02': "stdout: ours 'x{1,2}y', bash 'x1y x2y'",
    'brace-03': "stdout: ours '{1..5}', bash '1 2 3 4 5'",
    'brace-04': "stdout: ours '{a..e}', bash 'a b c d e'",
    'brace-05': "stdout: ours '{5..1}', bash '5 4 3 2 1'",
    'brace-06': "stdout: ours '{1..10..3}', bash '1 4 7 10'",
    'brace-07': "stdout: ours '{a,b}{1,2}', bash 'a1 a2 b1 b2'",
    'brace-08': "stdout: ours '{a,{b,c}}', bash 'a b c'",
    'brace-10': "stdout: ours '{x,y}', bash 'x'",
    'brace-11': "stdout: ours '{01..03}', bash '01 02 03'",
    'brace-12': "stdout: ours 'a{,b}', bash 'a ab'",
    'heredoc-01': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-02': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-03': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-04': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-05': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-06': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-07': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-08': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-09': "ours: sh: input redirection ('<<') is not supported",
    'heredoc-10': "ours: sh: input redirection ('<<') is not supported",
    'redir-03': "ours: sh: input redirection ('<') is not supported",
    'redir-04': "ours: sh: input redirection ('<') is not supported",
    'redir-09': "ours: sh: background jobs ('&') are not supported",
    'redir-13': 'needs lang: $? is not expanded',
    'redir-14': "ours: sh: input redirection ('<') is not supported",
    'redir-17': 'needs lang: $? is not expanded',
    'redir-18': "ours: sh: '{': command not found",
    'redir-19': "ours: sh: '(' is not supported",
    'redir-20': "ours: sh: '(' is not supported",
    'redir-22': "stderr: ours '', bash 'cat: a.txt: input file is output file\\n'",
    'redir-23': "stderr: ours 'sh: /dev/null: No such file or directory\\n', bash 'x\\n'",
    'pipe-06': 'needs lang: $? is not expanded',
    'pipe-07': 'needs lang: $? is not expanded',
    'pipe-08': 'needs lang: $? is not expanded',
    'pipe-09': 'needs lang: $? is not expanded',
    'pipe-10': 'needs lang: $? is not expanded',
    'pipe-11': 'needs lang: $? is not expanded',
    'pipe-12': 'needs lang: $? is not expanded',
    'pipe-15': 'needs lang: $? is not expanded',
    'pipe-16': 'needs lang: $? is not expanded',
    'list-04': "stderr: ours 'cd: nope: No such file or directory\\n', bash 'sh: cd: nope: No...",
    'list-05': 'needs lang: $? is not expanded',
    'list-06': "stderr: ours 'exit: not in a scoop\\n', bash ''",
    'list-07': "stdout: ours 'after', bash None",
    'list-08': "stderr: ours 'exit: not in a scoop\\n', bash ''",
    'list-09': "ours: sh: '(' is not supported",
    'list-10': 'ours: sh: set: command not found',
    'list-11': "ours: sh: syntax error near unexpected token '|'",
    'list-13': "ours: sh: syntax error near unexpected token ';'",
    'list-14': "ours: sh: '(' is not supported",
    'list-16': "ours: sh: syntax error near unexpected token ';'",
    'flow-01': 'ours: sh: if: command not found',
    'flow-02': 'ours: sh: if: command not found',
    'flow-03': 'ours: sh: if: command not found',
    'flow-04': 'ours: sh: if: command not found',
    'flow-05': 'ours: sh: for: command not found',
    'flow-06': 'ours: sh: for: command not found',
    'flow-07': "ours: sh: '(' is not supported",
    'flow-08': 'ours: sh: for: command not found',
    'flow-09': "ours: sh: '(' is not supported",
    'flow-10': "ours: sh: '(' is not supported",
    'flow-11': 'ours: sh: for: command not found',
    'flow-12': "ours: sh: input redirection ('<') is not supported",
    'flow-13': 'ours: sh: while: command not found',
    'flow-14': "ours: sh: input redirection ('<') is not supported",
    'flow-15': 'ours: sh: if: command not found',
    'flow-16': 'ours: sh: for: command not found',
    'flow-17': 'ours: sh: if: command not found',
    'flow-18': 'ours: sh: for: command not found',
    'flow-19': 'needs lang: $? is not expanded',
    'flow-20': 'ours: sh: fi: command not found',
    'flow-21': 'ours: sh: for: command not found',
    'flow-22': "ours: sh: '(' is not supported",
    'flow-23': "ours: sh: input redirection ('<') is not supported",
    'flow-24': "ours: sh: '{': command not found",
    'case-01': "ours: sh: ')' is not supported",
    'case-02': "ours: sh: ')' is not supported",
    'case-03': "ours: sh: ')' is not supported",
    'case-04': "ours: sh: ')' is not supported",
    'case-05': "ours: sh: ')' is not supported",
    'case-06': "ours: sh: ')' is not supported",
    'case-07': 'ours: sh: case: command not found',
    'case-08': "ours: sh: ')' is not supported",
    'func-01': "ours: sh: '(' is not supported",
    'func-02': 'ours: sh: function: command not found',
    'func-03': "ours: sh: '(' is not supported",
    'func-04': "ours: sh: '(' is not supported",
    'func-05': "ours: sh: '(' is not supported",
    'func-06': "ours: sh: '(' is not supported",
    'func-07': "ours: sh: '(' is not supported",
    'func-08': "ours: sh: '(' is not supported",
    'func-09': 'ours: sh: source: command not found',
    'func-10': 'ours: sh: .: command not found',
    'func-11': 'needs lang: $? is not expanded',
    'func-12': "ours: sh: '(' is not supported",
    'func-13': 'ours: sh: local: command not found',
    'func-14': 'ours: sh: return: command not found',
    'func-15': "ours: sh: '(' is not supported",
    'func-16': "ours: sh: '(' is not supported",
    'test-01': 'needs lang: $? is not expanded',
    'test-02': 'ours: sh: test: command not found',
    'test-03': 'needs lang: $? is not expanded',
    'test-04': 'needs lang: $? is not expanded',
    'test-05': 'needs lang: $? is not expanded',
    'test-06': "ours: sh: '[': command not found",
    'test-07': 'needs lang: $? is not expanded',
    'test-08': "ours: sh: '[': command not found",
    'test-09': "ours: sh: '[': command not found",
    'test-10': "ours: sh: '[': command not found",
    'test-11': "ours: sh: '[': command not found",
    'test-12': 'needs lang: $? is not expanded',
    'test-13': "ours: sh: '[': command not found",
    'test-14': 'needs lang: $? is not expanded',
    'test-15': 'needs lang: $? is not expanded',
    'test-16': 'needs lang: $? is not expanded',
    'test-17': 'needs lang: $? is not expanded',
    'test-18': 'needs lang: $? is not expanded',
    'test-19': "ours: sh: '[[': command not found",
    'test-20': "ours: sh: '[[': command not found",
    'test-21': "ours: sh: '[': command not found",
    'test-22': 'needs lang: $? is not expanded',
    'test-23': 'needs lang: $? is not expanded',
    'test-24': 'needs lang: $? is not expanded',
    'builtin-01': 'needs lang: $? is not expanded',
    'builtin-02': 'needs lang: $? is not expanded',
    'builtin-03': 'needs lang: $? is not expanded',
    'builtin-04': 'ours: sh: type: command not found',
    'builtin-05': 'needs lang: $? is not expanded',
    'builtin-06': 'ours: sh: type: command not found',
    'builtin-07': "ours: sh: '(' is not supported",
    'builtin-08': 'ours: sh: alias: command not found',
    'builtin-09': 'needs lang: $? is not expanded',
    'builtin-10': 'ours: sh: eval: command not found',
    'builtin-12': "stderr: ours 'cd: nope: No such file or directory\\n', bash 'sh: cd: nope:...",
    'builtin-13': "stderr: ours 'cd: a.txt: Not a directory\\n', bash 'sh: cd: a.txt: Not a d...",
    'builtin-14': "stdout: ours '/', bash '/work'",
    'builtin-17': "stderr: ours 'cd: too many arguments\\n', bash 'sh: cd: too many arguments\\n'",
    'builtin-20': 'needs lang: $? is not expanded',
    'builtin-21': 'needs lang: $? is not expanded',
    'builtin-22': 'needs lang: $? is not expanded',
    # text: 93
    'cat-03': 'needs lang: $? is not expanded',
    'cat-05': "ours: cat: invalid option -- 'n'",
    'cat-09': 'needs lang: $? is not expanded',
    'cat-10': "ours: cat: invalid option -- 'n'",
    'cat-11': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'printf-08': "stderr: ours 'printf: abc: invalid number\\n', bash 'sh: printf: abc: inval...",
    'grep-06': 'needs lang: $? is not expanded',
    'grep-22': 'needs lang: $? is not expanded',
    'grep-23': 'needs lang: $? is not expanded',
    'grep-24': 'needs lang: $? is not expanded',
    'grep-32': 'needs lang: $? is not expanded',
    'grep-33': 'needs lang: $? is not expanded',
    'grep-37': 'needs lang: $? is not expanded',
    'head-07': 'needs lang: $? is not expanded',
    'head-09': 'needs lang: $? is not expanded',
    'head-11': 'stderr: ours "head: invalid number of lines: \'x\'\\nTry \'hea..., bash "he...',
    'tail-09': 'needs lang: $? is not expanded',
    'wc-05': "ours: sh: input redirection ('<') is not supported",
    'wc-09': 'needs lang: $? is not expanded',
    'sort-11': 'needs lang: $? is not expanded',
    'uniq-08': 'needs lang: $? is not expanded',
    'tr-05': "ours: sh: input redirection ('<') is not supported",
    'tr-07': 'stderr: ours "tr: missing operand after \'a\'\\nTry \'tr --hel..., bash "tr: ...',
    'tee-02': "stdout: ours 'gamma', bash 'more'",
    'tee-03': 'needs lang: $? is not expanded',
    'xargs-01': 'ours: sh: xargs: command not found',
    'xargs-02': 'ours: sh: xargs: command not found',
    'xargs-03': 'ours: sh: xargs: command not found',
    'xargs-04': 'ours: sh: xargs: command not found',
    'xargs-05': 'ours: sh: xargs: command not found',
    'xargs-06': 'ours: sh: xargs: command not found',
    'xargs-07': 'ours: sh: xargs: command not found',
    'xargs-08': 'needs lang: $? is not expanded',
    'xargs-09': 'ours: sh: xargs: command not found',
    'xargs-10': 'ours: sh: xargs: command not found',
    'sed-01': 'ours: sh: sed: command not found',
    'sed-02': 'ours: sh: sed: command not found',
    'sed-03': 'ours: sh: sed: command not found',
    'sed-04': 'ours: sh: sed: command not found',
    'sed-05': 'ours: sh: sed: command not found',
    'sed-06': 'ours: sh: sed: command not found',
    'sed-07': 'ours: sh: sed: command not found',
    'sed-08': 'ours: sh: sed: command not found',
    'sed-09': 'ours: sh: sed: command not found',
    'sed-10': 'ours: sh: sed: command not found',
    'sed-11': 'ours: sh: sed: command not found',
    'sed-12': 'ours: sh: sed: command not found',
    'sed-13': 'ours: sh: sed: command not found',
    'sed-14': 'ours: sh: sed: command not found',
    'sed-15': 'ours: sh: sed: command not found',
    'sed-16': 'ours: sh: sed: command not found',
    'sed-17': 'ours: sh: sed: command not found',
    'sed-18': 'ours: sh: sed: command not found',
    'sed-19': 'ours: sh: sed: command not found',
    'sed-20': 'ours: sh: sed: command not found',
    'sed-21': 'needs lang: $? is not expanded',
    'sed-22': 'ours: sh: sed: command not found',
    'sed-23': 'ours: sh: sed: command not found',
    'sed-24': 'ours: sh: sed: command not found',
    'diff-01': 'needs lang: $? is not expanded',
    'diff-03': 'needs lang: $? is not expanded',
    'diff-04': 'needs lang: $? is not expanded',
    'cmp-01': 'needs lang: $? is not expanded',
    'cmp-02': 'needs lang: $? is not expanded',
    'cmp-04': 'needs lang: $? is not expanded',
    'cmp-06': 'needs lang: $? is not expanded',
    'seq-07': 'needs lang: $? is not expanded',
    'base64-05': "stdout: ours '', bash None",
    'base64-06': 'needs lang: $? is not expanded',
    'base64-07': 'needs lang: $? is not expanded',
    'sum-05': 'needs lang: $? is not expanded',
    'sum-08': 'needs lang: $? is not expanded',
    'xxd-05': "ours: xxd: invalid option -- 'l'",
    'xxd-06': 'needs lang: $? is not expanded',
    'jq-01': 'ours: sh: jq: command not found',
    'jq-02': 'ours: sh: jq: command not found',
    'jq-03': 'ours: sh: jq: command not found',
    'jq-04': 'ours: sh: jq: command not found',
    'jq-05': 'ours: sh: jq: command not found',
    'jq-06': 'ours: sh: jq: command not found',
    'jq-07': 'ours: sh: jq: command not found',
    'jq-08': 'ours: sh: jq: command not found',
    'jq-09': 'ours: sh: jq: command not found',
    'jq-10': 'needs lang: $? is not expanded',
    'jq-11': 'ours: sh: jq: command not found',
    'jq-12': 'ours: sh: jq: command not found',
    'jq-13': 'ours: sh: jq: command not found',
    'jq-14': 'ours: sh: jq: command not found',
    'jq-15': 'ours: sh: jq: command not found',
    'misc-07': 'needs lang: $? is not expanded',
    'misc-08': "ours: date: invalid option -- 'r'",
    'misc-09': "ours: date: invalid option -- 'r'",
    'misc-11': 'needs lang: $? is not expanded',
    # files: 57
    'ls-01': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'ls-02': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'ls-03': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'ls-07': 'needs lang: $? is not expanded',
    'ls-10': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'ls-11': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'ls-15': "ls -l: owner 'user' (bash: the generating user, root)",
    'ls-16': "ls -l: owner 'user' (bash: the generating user, root)",
    'ls-17': "ours: ls: invalid option -- 'x'",
    'mkdir-03': 'needs lang: $? is not expanded',
    'mkdir-04': 'needs lang: $? is not expanded',
    'mkdir-05': 'needs lang: $? is not expanded',
    'mkdir-06': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'rmdir-02': 'needs lang: $? is not expanded',
    'rmdir-05': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'touch-03': 'needs lang: $? is not expanded',
    'touch-06': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'rm-02': 'needs lang: $? is not expanded',
    'rm-03': 'needs lang: $? is not expanded',
    'rm-04': 'needs lang: $? is not expanded',
    'rm-06': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'rm-08': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'rm-10': 'needs lang: $? is not expanded',
    'rm-12': 'needs lang: $? is not expanded',
    'cp-03': 'needs lang: $? is not expanded',
    'cp-05': 'needs lang: $? is not expanded',
    'cp-06': 'needs lang: $? is not expanded',
    'cp-07': 'needs lang: $? is not expanded',
    'cp-08': 'needs lang: $? is not expanded',
    'cp-10': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'cp-11': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'cp-13': 'needs lang: $? is not expanded',
    'mv-01': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'mv-03': 'needs lang: $? is not expanded',
    'mv-04': 'needs lang: $? is not expanded',
    'mv-06': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'mv-08': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'mv-09': 'usage error without GNU\'s line "Try \'CMD --help\' for more information."',
    'mv-10': 'needs lang: $? is not expanded',
    'ln-02': 'needs lang: $? is not expanded',
    'ln-03': 'needs lang: $? is not expanded',
    'readlink-02': 'needs lang: $? is not expanded',
    'readlink-04': 'needs lang: $? is not expanded',
    'readlink-10': 'needs lang: $? is not expanded',
    'stat-05': 'needs lang: $? is not expanded',
    'chmod-04': 'needs lang: $? is not expanded',
    'chmod-06': 'needs lang: $? is not expanded',
    'chmod-08': "ours: sh: '[': command not found",
    'du-03': 'needs lang: $? is not expanded',
    'tree-02': "names quoted when piped ('my file.txt'); GNU ls quotes only on a terminal",
    'tree-04': "stdout: ours '│   └── helpers.js', bash '│\\xa0\\xa0 └── helpers.js'",
    'tree-05': 'needs lang: $? is not expanded',
    'find-17': 'ours: sh: xargs: command not found',
    'find-18': 'needs lang: $? is not expanded',
    'archive-03': "ours: unzip: invalid option -- 'p'",
    'archive-05': 'needs lang: $? is not expanded',
    'archive-09': 'needs lang: $? is not expanded',
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
    # What generate.py puts in bash's environment; ignored while `export` does not exist.
    await shell.run(f"export HOME={cases.ROOT} TZ=UTC")
    try:
        return await asyncio.wait_for(shell.run(line), CASE_SECONDS)
    except TimeoutError:
        pytest.fail(f"{line!r} did not finish within {CASE_SECONDS} s")


def run_sync(coro: Any) -> Any:
    """Run ``coro`` to its end. On CPython: ``asyncio.run``. In Pyodide under Node no event loop
    can block (tests/unit/aio.py), and a pipeline needs one (its stages run as tasks), so the
    coroutine runs on ``_PlainLoop``, asyncio's own loop with nothing to select on."""
    if sys.platform != "emscripten":
        return asyncio.run(coro)
    outer = asyncio.events._get_running_loop()  # Pyodide's WebLoop counts as running
    asyncio.events._set_running_loop(None)
    loop = _PlainLoop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()
        asyncio.events._set_running_loop(outer)


class _NoSelector:
    """The selector of a loop without file descriptors: waiting is sleeping until a timer."""

    def select(self, timeout: float | None) -> list:
        if timeout:
            time.sleep(timeout)
        return []

    def close(self) -> None:
        pass


class _PlainLoop(asyncio.BaseEventLoop):
    """asyncio's event loop with no I/O to watch (Pyodide has no socketpair for the
    selector loop's wake-up pipe, and the shell on a memory VFS does no I/O)."""

    def __init__(self) -> None:
        super().__init__()
        self._selector = _NoSelector()

    def _process_events(self, event_list: list) -> None:
        pass

    def _write_to_self(self) -> None:
        pass


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
    result = run_sync(run_case(line))
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
