"""awk beyond the conformance cases (tests/shell/cases.py, the awk-* groups recorded from GNU
awk): its bounds (a hostile regular expression, a loop without end, runaway recursion, deep
nesting, Ctrl-C) and the pieces whose output gawk cannot give for comparison."""

from __future__ import annotations

import asyncio
import functools

import helpers

from py_vfs import VFS
from py_vfs.core import cancel
from py_vfs.shell import Shell, ShellResult, limits
from py_vfs.shell.commands import awk_state
from py_vfs.shell.commands.awk_regex import compile_ere
from py_vfs.shell.pipes import Emit

run = functools.partial(helpers.run, bound=60)


def sh(*lines: str, files: dict[str, str] | None = None) -> ShellResult:
    """Run ``lines`` in one shell at / with ``files`` written first; the last result."""
    async def scenario() -> ShellResult:
        vfs = VFS.memory()
        for path, text in (files or {}).items():
            await vfs.write_file(path, text)
        shell = Shell(vfs)
        result = None
        for line in lines:
            result = await shell.run(line)
        assert result is not None
        return result
    return run(scenario())


def test_a_hostile_regex_on_a_long_line_costs_linear_work():
    line = "a" * 3000 + "b"
    result = sh("awk '/(a+)+$/ { print \"match\" } /(a|aa)*b$/ { print \"b\" }' /f",
                files={"/f": line + "\n"})
    assert (result.stdout, result.stderr, result.code) == ("b\n", "", 0)
    regex = compile_ere("(x+x+)+y")
    assert regex.search("x" * 5000) is False
    assert regex.matcher.automaton.work < 5000 * 50


def test_gsub_and_match_find_leftmost_longest_and_empty_matches():
    result = sh("awk 'BEGIN { s = \"xabcabc\"; print match(s, /(abc)+/), RLENGTH;"
                " t = \"hello\"; gsub(//, \"-\", t); print t }'")
    assert result.stdout == "2 6\n-h-e-l-l-o-\n"


def test_a_loop_without_end_stops_at_the_lines_command_budget(monkeypatch):
    monkeypatch.setattr(limits, "MAX_COMMANDS", 50)
    result = sh("awk 'BEGIN { while (1) n++ }'; echo after")
    assert result.code == 1
    assert result.stderr == "sh: commands: limit exceeded (50 run by one line)\n"
    assert result.stdout == ""


def test_runaway_recursion_is_an_error_not_a_crash():
    result = sh("awk 'function f(n) { return f(n + 1) } BEGIN { f(1) }'; echo $?")
    assert result.stdout == "2\n"
    # The limit, or Python's own stack first when the functions' bodies nest deeply.
    assert result.stderr in ("awk: fatal: function calls nested more than 100 deep\n",
                             "awk: fatal: the program nests too deeply\n")
    result = sh("awk 'function f(n) { return n >= 40 ? n : f(n + 1) } BEGIN { print f(1) }'")
    assert result.stdout == "40\n"


def test_deep_nesting_is_refused_when_parsed():
    program = "(" * 80 + "1" + ")" * 80
    result = sh(f"awk 'BEGIN {{ print {program} }}'; echo $?")
    assert result.stdout == "1\n"
    assert result.stderr == "awk: line 1: nesting deeper than 50\n"


def test_huge_arrays_and_strings_are_bounded(monkeypatch):
    monkeypatch.setattr(limits, "MAX_VALUE", 1000)
    result = sh("awk 'BEGIN { s = \"x\"; while (1) s = s s }'")
    assert result.code == 1
    assert "limit exceeded" in result.stderr


def test_ctrl_c_stops_a_busy_program():
    async def scenario() -> ShellResult:
        vfs = VFS.memory()
        shown = bytearray()

        async def show(data: bytes) -> None:
            shown.extend(data)

        signal = cancel.Signal()
        token = cancel.SIGNAL.set(signal)
        try:
            running = asyncio.ensure_future(Shell(vfs).run(
                "awk 'BEGIN { print \"started\"; fflush(); while (1) n++ }'",
                stdout=Emit(show)))
        finally:
            cancel.SIGNAL.reset(token)
        while shown != b"started\n":
            await asyncio.sleep(0.001)
        signal.abort()
        return await running
    result = run(scenario())
    assert result.code == 130


def test_reads_its_input_as_it_needs_it():
    # `yes` never ends: awk must stop reading once it exits.
    result = sh("yes | awk 'NR == 3 { print NR; exit }'")
    assert (result.stdout, result.code) == ("3\n", 0)


def test_print_to_a_pipe_and_getline_run_our_shell_in_a_subshell():
    result = sh("cd /tmp 2>/dev/null || mkdir /tmp; cd /tmp; "
                "awk 'BEGIN { system(\"cd /\"); \"pwd\" | getline d; print d;"
                " print \"x\" | \"cat > /tmp/o\"; close(\"cat > /tmp/o\");"
                " getline l < \"/tmp/o\"; print l }'; pwd")
    assert result.stdout == "/tmp\nx\n/tmp\n"


def test_uninitialized_arguments_become_arrays_through_nested_calls():
    result = sh("awk 'function inner(a) { a[\"k\"] = 1 } function outer(b) { inner(b) }"
                " BEGIN { outer(x); print length(x), x[\"k\"] }'")
    assert result.stdout == "1 1\n"


def test_errors_and_statuses():
    assert sh("awk 'BEGIN { x[1] = 1; print x }'; echo $?").stdout == "2\n"
    assert sh("awk '{ print }' /nope; echo $?").stdout == "2\n"
    assert sh("awk 'BEGIN { print'; echo $?").stdout == "1\n"
    assert sh("awk -q 1; echo $?").stdout == "2\n"
    result = sh("awk 'BEGIN { x = \"(\"; print (\"a\" ~ x) }'; echo $?")
    assert result.stdout == "2\n"
    assert result.stderr.startswith("awk: fatal: invalid regexp")


def test_long_chains_of_operators_do_not_nest():
    total = " + ".join(["1"] * 2000)
    words = " ".join(['"x"'] * 2000)
    both = " && ".join(["1"] * 2000)
    result = sh(f"awk 'BEGIN {{ print {total}; print length({words}); print {both} }}'")
    assert (result.stdout, result.stderr) == ("2000\n2000\n1\n", "")


def test_arrays_hold_at_most_the_shells_variable_budget(monkeypatch):
    monkeypatch.setattr(limits, "MAX_VARIABLES", 10_000)
    result = sh("awk 'BEGIN { while (1) a[i++] = i }'; echo after")
    assert (result.stdout, result.code) == ("", 1)
    assert result.stderr == "sh: awk: limit exceeded (arrays over 10000 characters)\n"
    # What is deleted, split over, or local to a call that returned is given back.
    result = sh("awk 'function f(n,  t) { t[n] = n; return length(t) }"
                " BEGIN { for (i = 0; i < 3000; i++) { a[i] = i; delete a[i];"
                " n = split(\"a b c\", b); s += f(i) } print s, length(a), n }'")
    assert (result.stdout, result.stderr) == ("3000 0 3\n", "")


def test_big_values_in_variables_count_toward_the_budget(monkeypatch):
    monkeypatch.setattr(limits, "MAX_VARIABLES", 10_000)
    monkeypatch.setattr(awk_state, "BIG_VALUE", 100)
    deep = sh("awk 'function f(n,  x) { x = sprintf(\"%500s\", n); return n > 0 ? f(n - 1) : 0 }"
              " BEGIN { f(50) }'")
    assert (deep.stderr, deep.code) == (
        "sh: awk: limit exceeded (variables over 10000 characters)\n", 1)
    # The same variables reassigned, and calls that returned, hold nothing more.
    fine = sh("awk 'function f(n,  x) { x = sprintf(\"%500s\", n); return n > 0 ? f(n - 1) : 0 }"
              " BEGIN { for (i = 0; i < 100; i++) { s = sprintf(\"%900s\", i); f(5) }"
              " print \"ok\" }'")
    assert (fine.stdout, fine.stderr) == ("ok\n", "")


def test_builtins_called_with_the_wrong_number_of_arguments_are_syntax_errors():
    result = sh("awk 'BEGIN { print index(\"a\") }'; echo $?")
    assert (result.stdout, result.stderr) == (
        "1\n", "awk: line 1: 1 is invalid as number of arguments for index\n")
    result = sh("awk 'BEGIN { split(\"a\", 5) }'; echo $?")
    assert result.stdout == "2\n"
