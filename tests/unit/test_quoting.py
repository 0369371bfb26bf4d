"""Names reach the terminal quoted as GNU ls quotes them (``--quoting-style=shell-escape``), so
a name cannot erase lines, retitle the window or type an answer into the prompt; compared with
the real GNU ls where there is one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.shell import Shell
from py_vfs.shell.format import quote_arg, quote_name

# What GNU ls 9.1 printed for these names (LC_ALL=C.UTF-8 ls --quoting-style=shell-escape).
GNU_LS = {
    "plain": "plain", "a b": "'a b'", "it's": '"it\'s"', "a\x1bb": "'a'$'\\033''b'",
    "tab\there": "'tab'$'\\t''here'", "new\nline": "'new'$'\\n''line'", 'dq"x': "'dq\"x'",
    "dollar$x": "'dollar$x'", "star*": "'star*'", "é-utf8": "é-utf8", "~tilde": "'~tilde'",
    "x~": "x~", "#hash": "'#hash'", "a#b": "a#b", "=eq": "'=eq'", "-dash": "-dash",
    "del\x7f": "'del'$'\\177'", "c1\x85x": "'c1'$'\\302\\205''x'", "back\\slash": "'back\\slash'",
    "bang!": "'bang!'", "brace{a}": "brace{a}", "%pct": "%pct", "^caret": "'^caret'",
    "a:b": "a:b", "@at": "@at", "{": "'{'", "q'b c": '"q\'b c"',
    "\x1b]0;title\x07": "''$'\\033'']0;title'$'\\a'",
}
TITLE = "evil\x1b]0;owned\x07\x1b[2Jname"  # retitles the window, then clears the screen


@pytest.mark.parametrize(("name", "shown"), GNU_LS.items())
def test_names_are_quoted_as_gnu_ls_quotes_them(name, shown):
    assert quote_name(name) == shown


def test_messages_always_quote_as_coreutils_does():
    assert quote_arg("plain") == "'plain'"
    assert quote_arg("it's") == '"it\'s"'
    assert quote_arg("a\x1bb") == "'a'$'\\033''b'"
    # coreutils 9.1 prints '''both'\'''$'\a' here (a leading '' too many: a gnulib bug fixed
    # since); both mean the same to a shell.
    assert quote_arg("both'\a") == "'both'\\'''$'\\a'"


def gnu_ls() -> str | None:
    ls = shutil.which("ls")
    if sys.platform == "emscripten" or ls is None:
        return None
    version = subprocess.run([ls, "--version"], capture_output=True, text=True, timeout=10)
    return ls if "GNU coreutils" in version.stdout else None


@pytest.mark.skipif(gnu_ls() is None, reason="needs GNU ls in a process (not in Pyodide)")
def test_the_same_as_the_real_gnu_ls(tmp_path):
    names = [name for name in GNU_LS if not name.startswith("-")] + [TITLE, "x\u2028y"]
    for name in names:
        (tmp_path / name).touch()
    for name in names:
        real = subprocess.run(
            [gnu_ls(), "--quoting-style=shell-escape", "-d", "--", name], cwd=tmp_path,
            capture_output=True, timeout=10, env={**os.environ, "LC_ALL": "C.UTF-8"})
        assert real.stdout.decode() == quote_name(name) + "\n", name


@pytest.fixture
def shell() -> Shell:
    vfs = VFS.memory()
    run(vfs.write_file(f"/d/{TITLE}", "x"))
    run(vfs.symlink(TITLE, f"/d/link-{TITLE}"))
    return Shell(vfs)


@pytest.mark.parametrize("line", [
    "ls d", "ls -l d", "ls d/*", "tree d", "stat d/*", "cd d; open *", "cat d/nope-\x1b[2J",
    "rm d/nope-\x1b[2J", "mkdir d/*", "cp d/nope-\x1b[2J x", "mv d/nope-\x1b[2J x",
    "ls -\x1b[2J", "no-such-\x1b[2J-command", "cat d > d/e*/f", "cd d/link-*", "touch d/e*/x",
])
def test_no_control_character_reaches_the_terminal(shell, line):
    result = run(shell.run(line))
    shown = result.stdout + result.stderr
    assert shown.strip(), result
    assert not any(char in shown for char in "\x1b\x07\x85"), shown
    if line in ("ls d", "ls -l d", "tree d"):
        assert quote_name(TITLE) in shown
