"""Scripts from the disk on CPython: $PATH lookup, `which`, `python` and executable `.py`
files in pipelines, their argv, env, cwd and exit statuses; `.jsh` needs the page's worker
(tests/e2e/test_scripts.py) and says so here."""

from __future__ import annotations

import asyncio
import errno
import sys

import pytest
from helpers import run
from shell_session import outcome as sh

from py_vfs import VFS
from py_vfs.core.cancel import SIGNAL, Signal
from py_vfs.shell import Shell

UPPER = ("#!/usr/bin/env python3\nimport sys\nfor line in sys.stdin:\n"
         "    sys.stdout.write(line.upper())\n")
ARGS = "#!/usr/bin/env python3\nimport sys\nprint(sys.argv[1:], cwd, env.get('PATH', '-'))\n"
NEEDS_LOOP = ("a script awaiting a sleep needs a real event loop; "
              "tests/e2e/test_scripts.py interrupts one in the page")


@pytest.fixture
def shell():
    vfs = VFS.memory()

    async def setup():
        await vfs.mkdir("/workspace/bin", recursive=True)
        for path, text in (("/workspace/bin/upper.py", UPPER), ("/workspace/bin/args", ARGS)):
            await vfs.write_file(path, text)
            await vfs.chmod(path, 0o755)
        await vfs.write_file("/workspace/bin/plain.py", "print('plain')\n")  # no x bit
        await vfs.write_file("/workspace/bin/notes", "just text\n")
        await vfs.chmod("/workspace/bin/notes", 0o755)
    run(setup())
    return Shell(vfs)


def test_a_script_in_path_runs_by_name_in_a_pipeline(shell):
    assert sh(shell, "echo hi | upper | cat") == ("HI\n", "", 0)


def test_a_script_gets_its_argv_the_cwd_and_the_default_path(shell):
    run(shell.vfs.mkdir("/w"))
    out, err, code = sh(shell, "cd /w && args 'a b' c")
    assert (err, code) == ("", 0)
    # The shell exports its default PATH: the whole disk's has no /shared/bin (docs/scripts.md).
    assert out == "['a b', 'c'] /w /workspace/bin:/workspace/skills\n"


def test_a_script_runs_by_path_too(shell):
    assert sh(shell, "cd /workspace && echo x | ./bin/upper.py") == ("X\n", "", 0)
    assert sh(shell, "echo y | /workspace/bin/upper.py") == ("Y\n", "", 0)


def test_missing_and_unrunnable_names_fail_as_bash(shell):
    assert sh(shell, "nosuch") == ("", "sh: nosuch: command not found\n", 127)
    assert sh(shell, "./nosuch") == ("", "sh: ./nosuch: No such file or directory\n", 127)
    assert sh(shell, "/workspace") == ("", "sh: /workspace: Is a directory\n", 126)
    assert sh(shell, "plain") == ("", "sh: plain: Permission denied\n", 126)
    # An executable text file without a #! line is a shell script, as bash runs it.
    assert sh(shell, "notes") == ("", "sh: just: command not found\n", 127)


def test_builtins_shadow_scripts_and_which_tells(shell):
    run(shell.vfs.write_file("/workspace/bin/echo.jsh", "process.exit(9)"))
    assert sh(shell, "echo shadowed") == ("shadowed\n", "", 0)
    assert sh(shell, "which echo upper") == (
        "echo: shell built-in command\n/workspace/bin/upper.py\n", "", 0)
    assert sh(shell, "which -a echo") == (
        "echo: shell built-in command\n/workspace/bin/echo.jsh\n", "", 0)
    assert sh(shell, "which upper nosuch") == (
        "/workspace/bin/upper.py\n", "", 1)


def test_type_t_names_each_kind_in_one_word(shell):
    sh(shell, "alias ll=ls; f() { :; }")
    assert sh(shell, "type -t ll if f cd upper; echo $?") == (
        "alias\nkeyword\nfunction\nbuiltin\nfile\n0\n", "", 0)
    # Unknown: nothing printed, status 1 (as bash).
    assert sh(shell, "type -t nosuch") == ("", "", 1)
    assert sh(shell, "type upper") == ("upper is /workspace/bin/upper.py\n", "", 0)


def test_python_file_and_code_with_argv_and_exit_codes(shell):
    run(shell.vfs.write_file("/s.py", "import sys\nprint(sys.argv)\nsys.exit(int(sys.argv[1]))\n"))
    assert sh(shell, "python /s.py 4") == ("['/s.py', '4']\n", "", 4)
    assert sh(shell, "python -c 'import sys; print(sys.argv)' a b") == ("['-c', 'a', 'b']\n", "", 0)
    assert sh(shell, "python -c 'raise SystemExit(\"bye\")'") == ("", "bye\n", 1)
    assert sh(shell, "python -c pass && echo ok") == ("ok\n", "", 0)
    out, err, code = sh(shell, "python /nope.py")
    assert (out, code) == ("", 2)
    # The platform's errno, as CPython prints it (44 on Emscripten).
    assert err == (f"python: can't open file '/nope.py': [Errno {errno.ENOENT}] "
                   "No such file or directory\n")


def test_an_uncaught_exception_prints_the_scripts_traceback_and_status_1(shell):
    run(shell.vfs.write_file("/bad.py", "def f():\n    raise ValueError('boom')\nf()\n"))
    out, err, code = sh(shell, "python /bad.py")
    assert (out, code) == ("", 1)
    assert err.startswith("Traceback (most recent call last):\n  File \"/bad.py\", line 3")
    assert "    raise ValueError('boom')\n" in err  # the source line, read from the VFS
    assert err.endswith("ValueError: boom\n")
    assert "python_run" not in err  # the runner's own frames are not shown
    out, err, code = sh(shell, "python -c 'x ='")
    assert (out, code) == ("", 1)
    assert "SyntaxError" in err


def test_python_reads_the_pipeline_and_the_vfs_with_top_level_await(shell):
    run(shell.vfs.write_file("/data.txt", "from the disk\n"))
    code = ("import sys\ndata = await vfs.read_file('/data.txt')\n"
            "print(sys.stdin.read().strip(), data.decode().strip(), sep=' + ')\n"
            "await vfs.write_file(cwd + '/out.txt', b'made')")
    assert sh(shell, f"echo piped | python -c \"{code}\"") == ("piped + from the disk\n", "", 0)
    assert run(shell.vfs.read_file("/out.txt")) == b"made"


def test_a_script_reads_code_from_stdin_and_binary_streams_work(shell):
    assert sh(shell, "echo 'print(6*7)' | python") == ("42\n", "", 0)
    code = "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read()[::-1])"
    assert sh(shell, f"echo -n abc | python -c '{code}'") == ("cba", "", 0)


def test_python_with_no_script_says_interactive_is_not_there_yet(shell):
    out, err, code = sh(shell, "python")
    assert (out, code) == ("", 2)
    assert "interactive Python needs a terminal" in err


def test_scripts_write_to_their_own_stage_and_sys_is_restored(shell):
    before = (sys.stdin, sys.stdout, sys.stderr, sys.argv)
    line = "python -c 'print(1); import sys; print(2, file=sys.stderr)' | python -c " \
           "'import sys; print(len(sys.stdin.read()))'"
    assert sh(shell, line) == ("2\n", "2\n", 0)
    assert (sys.stdin, sys.stdout, sys.stderr, sys.argv) == before


def test_globals_are_fresh_each_run(shell):
    assert sh(shell, "python -c 'x = 1'") == ("", "", 0)
    out, err, code = sh(shell, "python -c 'print(x)'")
    assert (out, code) == ("", 1)
    assert err.endswith("NameError: name 'x' is not defined\n")


def test_a_jsh_script_needs_the_browser_on_cpython(shell):
    run(shell.vfs.write_file("/workspace/bin/hello.jsh", "console.log('hi')"))
    out, err, code = sh(shell, "hello")
    assert (out, code) == ("", 126)
    assert err.startswith("sh: hello: cannot execute: .jsh scripts need a JavaScript realm")


@pytest.mark.skipif(sys.platform == "emscripten", reason=NEEDS_LOOP)
def test_the_calls_signal_interrupts_a_script_at_its_awaits(shell):
    """Ctrl-C (the call's signal) cancels what the script awaits: status 130, its output up to
    its last await kept, and sys is the process's own again."""
    code = ("print('started', flush=True)\nawait vfs.write_file('/started', b'1')\n"
            "import asyncio\nawait asyncio.sleep(3600)\nprint('never')")

    async def scenario():
        signal = Signal()
        token = SIGNAL.set(signal)
        try:
            running = asyncio.ensure_future(shell.run(f'python -c "{code}"'))
        finally:
            SIGNAL.reset(token)
        for _ in range(3000):
            if shell.vfs.exists("/started"):
                break
            await asyncio.sleep(0.01)
        assert shell.vfs.exists("/started"), "the script never wrote its marker"
        signal.abort()
        return await asyncio.wait_for(running, 30)

    before = (sys.stdin, sys.stdout, sys.stderr)
    result = run(scenario())
    assert (result.stdout, result.stderr, result.code) == ("started\n", "", 130)
    assert (sys.stdin, sys.stdout, sys.stderr) == before
