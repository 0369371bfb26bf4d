"""sed's and jq's bounds on what a script or filter can make them do (docs/shell.md, the
sections of `sed` and `jq`): the pattern space, nested calls, nesting in a filter, loops."""

from __future__ import annotations

from py_vfs.shell.commands import sed_run


def test_sed_stops_when_the_hold_space_outgrows_its_bound(sh, monkeypatch):
    monkeypatch.setattr(sed_run, "MAX_SPACE", 1000)
    result = sh("seq 3 | sed ':a;H;x;G;x;ba'")
    assert (result.code, result.stderr) == (4, "sed: couldn't re-allocate memory\n")


def test_sed_branches_and_hold_space_work_on_many_lines(sh):
    assert sh("seq 2000 | sed -n ':a;N;$!ba;s/\\n/+/g;p' | wc -c").stdout.strip() == "8893"
    assert sh("seq 5 | sed -n '1!G;h;$p'").stdout == "5\n4\n3\n2\n1\n"


def test_sed_w_files_are_made_even_when_nothing_is_written(sh):
    assert sh("echo a | sed -n '/x/w never.txt'; cat never.txt; echo [$?]").stdout == "[0]\n"


def test_sed_refuses_the_e_command(sh):
    result = sh("echo a | sed e")
    assert result.code == 1 and "not supported" in result.stderr


def test_jq_bounds_recursion_and_nesting(sh):
    result = sh("jq -n 'def f: f; f'")
    # the bound on nested calls, or Python's own (Pyodide's stack may be the smaller one)
    assert result.code == 5 and "limit exceeded" in result.stderr
    deep = "[" * 300 + "]" * 300
    result = sh(f"jq -n '{deep}'")
    assert result.code == 3 and "nesting deeper than" in result.stderr


def test_jq_loops_do_not_nest_calls(sh):
    assert sh("jq -n '0 | until(. >= 20000; . + 1)'").stdout == "20000\n"
    assert sh("jq -nc '[limit(3; repeat(1))]'").stdout == "[1,1,1]\n"
    assert sh("jq -n 'first(range(1e9))'").stdout == "0\n"


def test_jq_lazy_inputs_and_formats(sh):
    assert sh("printf '1 2 3' | jq -nc 'first(inputs), [inputs]'").stdout == "1\n[2,3]\n"
    assert sh("jq -rn '[1, \"a,b\", null] | @csv'").stdout == '1,"a,b",\n'
