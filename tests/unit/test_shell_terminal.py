"""The terminal's Python side on CPython: the history file and `!` expansion, the `history`
command, Tab completion, the interactive `shell` call (streamed output, continuation, Ctrl-C)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.core.cancel import SIGNAL, Signal
from py_vfs.shell import Shell, history_file
from py_vfs.shell.complete import COMMAND_SOURCES, complete
from py_vfs.shell.history_file import HISTFILESIZE, HistoryError, history_of
from py_vfs.web.webapi import WebAPI


@pytest.fixture
def vfs(vfs):
    run(vfs.mkdir("/workspace"))
    return vfs


def interactive(api: WebAPI, line: str, **options) -> dict:
    return run(api.shell_ops.run(line, {"interactive": True, **options}))


def quiet(api: WebAPI) -> None:
    """What the quiet interval after the lines does: write them to the history file."""
    run(api.shell_ops.history.flush())


# --- history -----------------------------------------------------------------------------


def test_lines_go_to_the_history_file_and_a_new_shell_reads_them(vfs):
    api = WebAPI(vfs)
    interactive(api, "echo one")
    interactive(api, "echo two")
    interactive(api, "echo two")  # the same line again is kept once (ignoredups)
    interactive(api, "   ")  # blank: not recorded
    quiet(api)
    assert run(vfs.read_file("/workspace/.history")) == b"echo one\necho two\n"
    later = WebAPI(vfs)  # a reload, or another tab starting later
    assert interactive(later, "")["history"] == ["echo one", "echo two"]
    assert interactive(later, "history")["stdout"] == (
        "    1  echo one\n    2  echo two\n    3  history\n")


def test_a_burst_of_lines_is_written_in_one_commit_after_the_quiet_interval(vfs, monkeypatch):
    monkeypatch.setattr(history_file, "FLUSH_DELAY", 0.05)
    api = WebAPI(vfs)
    with asyncio.Runner() as runner:  # one event loop, as in the worker
        before = vfs.engine.revision
        for line in ("echo one", "ls /", "echo two"):
            runner.run(api.shell_ops.run(line, {"interactive": True}))
        assert vfs.engine.revision == before  # no commit before (or for) a line
        assert interactive(api, "")["history"] == ["echo one", "ls /", "echo two"]
        runner.run(asyncio.sleep(0.2))
    assert vfs.engine.revision == before + 1
    assert run(vfs.read_file("/workspace/.history")) == b"echo one\nls /\necho two\n"


def test_the_history_lives_in_slash_without_workspace():
    disk = VFS.memory()
    api = WebAPI(disk)
    interactive(api, "true")
    quiet(api)
    assert run(disk.read_file("/.history")) == b"true\n"


def test_bang_events_expand_and_echo_the_line(vfs):
    api = WebAPI(vfs)
    interactive(api, "echo alpha")
    interactive(api, "echo beta gamma")
    result = interactive(api, "!!")
    assert (result["stdout"], result["echo"]) == ("echo beta gamma\nbeta gamma\n",
                                                  "echo beta gamma")
    assert interactive(api, "!1")["stdout"] == "echo alpha\nalpha\n"
    assert interactive(api, "!-2")["stdout"] == "echo beta gamma\nbeta gamma\n"
    assert interactive(api, "!ech")["stdout"] == "echo beta gamma\nbeta gamma\n"
    assert interactive(api, "echo !$")["stdout"] == "echo gamma\ngamma\n"
    assert interactive(api, "echo '!!' \\!x a!=b")["stdout"] == "!! !x a!=b\n"
    assert interactive(api, "history 2")["stdout"] == (
        "    6  echo '!!' \\!x a!=b\n    7  history 2\n")


def test_an_unknown_event_runs_nothing(vfs):
    api = WebAPI(vfs)
    result = interactive(api, "!nothing && touch /x")
    assert (result["stderr"], result["code"]) == ("sh: !nothing: event not found\n", 1)
    assert not vfs.exists("/x")
    assert result["history"] == []


def test_history_c_and_bad_arguments(vfs):
    shell = Shell(vfs)
    run(history_of(shell).add("ls"))
    run(history_of(shell).flush())
    assert run(shell.run("history x")).stderr == "sh: history: x: numeric argument required\n"
    assert run(shell.run("history -z")).code == 2
    assert run(shell.run("history -c")).code == 0
    assert run(shell.run("history")).stdout == ""
    assert run(vfs.read_file("/workspace/.history")) == b"ls\n"  # the file keeps its lines


def test_the_file_is_bounded(vfs):
    shell = Shell(vfs)

    async def many():
        for number in range(HISTFILESIZE * 2):
            await history_of(shell).add(f"echo {number}")
            await history_of(shell).flush()

    run(many())
    lines = run(vfs.read_file("/workspace/.history")).decode().splitlines()
    assert HISTFILESIZE <= len(lines) <= HISTFILESIZE * 3 // 2
    assert lines[-1] == f"echo {HISTFILESIZE * 2 - 1}"
    assert len(history_of(shell).entries) == HISTFILESIZE


def test_expansion_errors_name_the_event(vfs):
    shell = Shell(vfs)
    with pytest.raises(HistoryError, match="!!: event not found"):
        history_of(shell).expand("!!")


# --- the interactive call ------------------------------------------------------------------


def test_an_open_quote_asks_for_more_and_the_whole_text_runs(vfs):
    api = WebAPI(vfs)
    assert interactive(api, "echo 'a") == {"more": True}
    result = interactive(api, "echo 'a\nb'")
    assert result["stdout"] == "a\nb\n"


def test_output_streams_to_emit_as_written(vfs):
    api = WebAPI(vfs)
    pieces = []
    result = run(api.shell_ops.run("echo hi; cat /nope", {"stream": True, "isatty": True},
                                   lambda stream, data: pieces.append((stream, data))))
    assert (result["stdout"], result["stderr"], result["code"]) == ("", "", 1)
    assert pieces[0] == ("stdout", b"hi\n")
    assert pieces[-1][0] == "stderr" and b"/nope" in pieces[-1][1]


def test_a_cancelled_line_stops_with_status_130(vfs):
    api = WebAPI(vfs)
    signal = Signal()

    async def scenario():
        token = SIGNAL.set(signal)
        try:
            signal.abort()
            return await api.shell_ops.run("touch /a; touch /b")
        finally:
            SIGNAL.reset(token)

    assert run(scenario())["code"] == 130
    assert not vfs.exists("/b")


def test_an_interrupted_line_has_status_130(vfs):
    shell = Shell(vfs)
    signal = Signal()
    signal.abort()

    async def scenario():
        token = SIGNAL.set(signal)
        try:
            return await shell.run("true; touch /c")
        finally:
            SIGNAL.reset(token)

    assert run(scenario()).code == 130
    assert not vfs.exists("/c")


# --- completion ------------------------------------------------------------------------------


@pytest.fixture
def tree(vfs):
    async def build():
        await vfs.mkdir("/w/my dir", recursive=True)
        await vfs.write_file("/w/my file.txt", "x")
        await vfs.write_file("/w/other", "x")
        await vfs.write_file("/w/.hidden", "x")
        await vfs.symlink("/w/my dir", "/w/link")

    run(build())
    shell = Shell(vfs)
    shell.cwd = "/w"
    return shell


def test_commands_complete_in_command_position(tree):
    assert complete(tree, "hist", 4).candidates == ["history "]
    assert complete(tree, "ls | gre", 8).start == 5
    found = complete(tree, "echo x && mkd", 13)  # mk: mkdir and mktemp
    assert found.candidates == ["mkdir "] and found.start == 10


def test_command_sources_are_a_list_others_extend(tree):
    COMMAND_SOURCES.append(lambda shell: ["zzmine"])
    try:
        assert complete(tree, "zz", 2).candidates == ["zzmine "]
    finally:
        COMMAND_SOURCES.pop()


def test_paths_are_quoted_and_directories_end_with_a_slash(tree):
    found = complete(tree, "cat my", 6)
    assert (found.start, found.candidates, found.names) == (
        4, ["my\\ dir/", "my\\ file.txt "], ["my dir/", "my file.txt"])
    assert complete(tree, "cat 'my f", 9).candidates == ["'my file.txt' "]
    assert complete(tree, 'cat "my d', 9).candidates == ['"my dir/']
    assert complete(tree, "cat my\\ f", 9).candidates == ["my\\ file.txt "]
    assert complete(tree, "cat /w/o", 8).candidates == ["/w/other "]
    assert complete(tree, "cd li", 5).candidates == ["link/"]  # a link to a directory


def test_hidden_names_only_when_asked_and_nothing_for_a_missing_folder(tree):
    assert ".hidden " not in complete(tree, "cat ", 4).candidates
    assert complete(tree, "cat .h", 6).candidates == [".hidden "]
    assert complete(tree, "cat /nope/x", 11).candidates == []


def test_variables_complete_after_a_dollar(tree):
    asyncio.run(tree.run("HOSTNAME=x; export HOST_KIND=y"))  # a shell variable and an exported one
    assert complete(tree, "echo $HO", 8).candidates == ["$HOME ", "$HOSTNAME ", "$HOST_KIND "]
    assert complete(tree, "echo ${PW", 9).candidates == ["${PWD} "]


# --- python -m py_vfs shell ------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "emscripten", reason="Emscripten (Pyodide) has no processes")
def test_the_command_line_shell_keeps_history_and_expands_events(tmp_path):
    disk = str(tmp_path / "disk.sqlite")
    typed = "echo a\n!!\necho 'x\ny'\n!zz\n"
    first = subprocess.run([sys.executable, "-m", "py_vfs", "shell", "--disk", disk],
                           input=typed, capture_output=True, text=True, timeout=60, check=False)
    assert "echo a\na\n" in first.stdout  # !! echoed, then run
    assert "x\ny\n" in first.stdout  # the open quote continued on the next line
    assert "sh: !zz: event not found" in first.stderr
    again = subprocess.run([sys.executable, "-m", "py_vfs", "shell", "--disk", disk, "-c",
                            "history"], capture_output=True, text=True, timeout=60, check=False)
    assert again.stdout.splitlines()[:2] == ["    1  echo a", "    2  echo 'x"]


def test_two_tabs_append_in_turn_and_a_later_start_reads_both_in_order(vfs):
    first, second = WebAPI(vfs), WebAPI(vfs)
    for api, line in ((first, "echo from-first"), (second, "echo from-second"),
                      (first, "echo first-again")):
        interactive(api, line)
        quiet(api)
    # Each tab's own list (bash's model): the other tab's lines come at its next start.
    assert interactive(first, "")["history"] == ["echo from-first", "echo first-again"]
    assert interactive(WebAPI(vfs), "")["history"] == [
        "echo from-first", "echo from-second", "echo first-again"]


def test_typed_input_reaches_the_command_as_it_asks(vfs):
    api = WebAPI(vfs)
    typed = [b"hello\n", b"world\n", None]
    asked = []

    async def read():
        asked.append(len(asked))
        return typed.pop(0)

    result = run(api.shell_ops.run("cat", {}, None, read))
    assert (result["stdout"], result["code"], len(asked)) == ("hello\nworld\n", 0, 3)
