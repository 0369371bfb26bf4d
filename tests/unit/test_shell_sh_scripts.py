"""Shell scripts as commands beyond what the conformance cases compare with bash: the scoop's
confinement, the cone's guard, Ctrl-C and `timeout` through the cancellation (no busy wait),
the nesting bound, the `#!` reader, `time`'s formats and `trap`'s listing."""

from __future__ import annotations

import asyncio
import sys
import time

from helpers import run
from shell_session import outcome as sh

from py_vfs import VFS
from py_vfs.core.cancel import SIGNAL, Signal
from py_vfs.shell import Shell
from py_vfs.shell.pipes import BytesInput
from py_vfs.shell.shebang import interpreter
from py_vfs.shell.timing import Stopwatch


def _shell() -> Shell:
    vfs = VFS.memory()
    run(vfs.mkdir("/workspace/bin", recursive=True))
    shell = Shell(vfs)
    shell.cwd = "/workspace"
    return shell


def _write(shell: Shell, path: str, text: str, mode: int = 0o755) -> None:
    run(shell.vfs.write_file(path, text))
    run(shell.vfs.chmod(path, mode))


def test_a_script_in_a_scoop_sees_and_changes_what_the_scoop_does_and_no_more():
    shell = _shell()
    _write(shell, "/workspace/secret.txt", "cone only\n", 0o644)
    assert sh(shell, "scoop a")[2] == 0
    direct = sh(shell, "cat /workspace/secret.txt; echo x > /workspace/made; echo $?")
    assert sh(shell, "rm -f /workspace/made")[2] == 0
    assert sh(shell, "sh -c 'cat /workspace/secret.txt; echo x > /workspace/made; echo $?'") \
        == direct
    _write(shell, "/scoops/a/workspace/s.sh", "#!/bin/sh\ncat /workspace/secret.txt\n")
    assert sh(shell, "./s.sh") == sh(shell, "cat /workspace/secret.txt")
    # exit in a script ends the script: the scoop stays.
    assert run(shell.run("sh -c 'exit 3'; echo $?")).stdout == "3\n"
    assert run(shell.run("true")).scoop == "a"
    sh(shell, "exit")
    assert run(shell.vfs.read_file("/workspace/secret.txt")) == b"cone only\n"


def test_the_cone_does_not_run_by_name_a_shell_script_a_scoop_wrote():
    shell = _shell()
    assert sh(shell, "scoop a")[2] == 0
    line = "mkdir -p /shared/bin && cat > /shared/bin/evil && chmod 755 /shared/bin/evil"
    result = run(shell.run(line, stdin=BytesInput("#!/bin/sh\necho owned\n")))
    assert result.code == 0
    assert sh(shell, "evil") == ("owned\n", "", 0)  # in the scoop, /shared/bin is its own
    sh(shell, "exit")
    out, err, code = sh(shell, "PATH=/shared/bin:$PATH evil")
    assert (out, code) == ("", 127) and "a scoop can write it" in err
    out, err, code = sh(shell, "/shared/bin/evil")
    assert (out, code) == ("", 126) and "a scoop can write it" in err


def test_a_script_has_its_own_scope_and_sees_only_exported_variables():
    shell = _shell()
    _write(shell, "/workspace/s.sh", "echo \"[$A][$B]\"; A=changed; f() { :; }; cd /; alias x=y\n")
    assert sh(shell, "A=1; export B=2; f() { echo f; }; sh s.sh; echo $A $PWD; f; alias") == (
        "[][2]\n1 /workspace\nf\n", "", 0)


def test_a_script_that_calls_itself_is_bounded():
    shell = _shell()
    _write(shell, "/workspace/r.sh", "./r.sh\n")
    out, err, _ = sh(shell, "./r.sh; echo $?")
    assert err == "sh: maximum nesting level exceeded (24)\n"
    assert out == "1\n"


def test_a_script_read_from_standard_input_leaves_its_commands_nothing_to_read():
    shell = _shell()
    result = run(shell.run("sh -s a b", stdin=BytesInput("echo $# $1; cat; echo end\n")))
    assert (result.stdout, result.code) == ("2 a\nend\n", 0)


def _interrupted_after(shell: Shell, line: str, seconds: float) -> tuple[int, float]:
    async def go() -> tuple[int, float]:
        signal = Signal()
        SIGNAL.set(signal)
        asyncio.get_running_loop().call_later(seconds, signal.abort)
        start = time.monotonic()
        result = await shell.run(line)
        return result.code, time.monotonic() - start
    return run(go(), 20)


def test_ctrl_c_stops_a_script_and_the_line():
    shell = _shell()
    code, took = _interrupted_after(shell, "sh -c 'while :; do :; done'; echo no", 0.2)
    assert code == 130 and took < 10


def test_ctrl_c_stops_a_command_under_timeout():
    shell = _shell()
    code, took = _interrupted_after(shell, "timeout 30 sleep 30; echo no", 0.2)
    assert code == 130 and took < 10


def test_timeout_waits_on_a_timer_not_a_busy_loop():
    shell = _shell()
    cpu, start = time.process_time(), time.monotonic()
    assert sh(shell, "timeout 0.5 sleep 10; echo $?") == ("124\n", "", 0)
    assert 0.4 < time.monotonic() - start < 8
    if sys.platform != "emscripten":  # wasm's process_time is not the CPU's
        assert time.process_time() - cpu < 0.4


def test_timeout_stops_a_busy_script_at_its_next_safe_point():
    shell = _shell()
    assert sh(shell, "timeout 0.2 sh -c 'while :; do :; done'; echo $?") == ("124\n", "", 0)
    assert sh(shell, "timeout -s INT --preserve-status 0.2 sleep 5; echo $?") == ("130\n", "", 0)


def test_the_shebang_reader():
    assert interpreter("/s", b"#!/bin/sh\necho").kind == "sh"
    assert interpreter("/s", b"#! /bin/bash -e\n").args == ["-e"]
    assert interpreter("/s", b"#!/usr/bin/env bash\n").kind == "sh"
    assert interpreter("/s", b"#!/usr/bin/env -S bash -e -u\n").args == ["-e", "-u"]
    assert interpreter("/s", b"#!/usr/bin/python3.12\n").kind == "python"
    assert interpreter("/s", b"#!/usr/bin/env node\n").kind == "jsh"
    assert interpreter("/s.py", b"print(1)\n").kind == "python"
    assert interpreter("/s.jsh", b"console.log(1)\n").kind == "jsh"
    assert interpreter("/s", b"echo hi\n").kind == "sh"
    binary = interpreter("/s", b"\x7fELF\x00\x01\n")
    assert (binary.kind, binary.status) == (None, 126)
    unknown = interpreter("/s", b"#!/usr/bin/perl\n")
    assert (unknown.kind, unknown.status, unknown.raw) == (None, 127, False)
    env = interpreter("/s", b"#!/usr/bin/env ruby\n")
    assert (env.status, env.raw, env.error) == (
        127, True, "/usr/bin/env: 'ruby': No such file or directory")


def test_time_formats():
    watch = Stopwatch()
    watch.start -= 61.25
    text = watch.report(None, posix=False)
    assert text.startswith("\nreal\t1m1.25") and text.count("\n") == 4
    assert watch.report(None, posix=True).startswith("real 61.2")
    assert watch.report("%0R|%%|%lU", posix=False).startswith("61|%|0m")
    assert watch.report("", posix=False) == ""


def test_trap_lists_signals_by_name_and_refuses_unknown_ones():
    shell = _shell()
    assert sh(shell, "trap 'echo a' SIGTERM 0 err int; trap") == (
        "trap -- 'echo a' EXIT\ntrap -- 'echo a' SIGINT\ntrap -- 'echo a' SIGTERM\n"
        "trap -- 'echo a' ERR\n", "", 0)
    assert sh(shell, "trap - EXIT INT TERM ERR; trap -p; trap x NOPE") == (
        "", "sh: trap: NOPE: invalid signal specification\n", 1)
    assert sh(shell, "trap -l")[0].startswith("1) SIGHUP\n2) SIGINT\n")
    # The session at the prompt does not end: its EXIT trap is kept, not run.
    assert sh(shell, "trap 'echo bye' EXIT; echo hi") == ("hi\n", "", 0)


def test_an_exit_in_an_err_trap_ends_the_shell():
    shell = _shell()
    assert sh(shell, "sh -c 'trap \"exit 9\" ERR; false; echo no'; echo $?") == ("9\n", "", 0)
