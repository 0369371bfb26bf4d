"""The shell language: parsing (syntax errors with positions, unfinished input), state that a
subshell must not leak, variables and the environment, builtins, globbing with vfs.glob's
dialect, and Ctrl-C. Expected values were checked against GNU bash 5 where bash has them."""

from __future__ import annotations

import pytest

from py_vfs.core import cancel as cancel_module
from py_vfs.core.cancel import SIGNAL, Signal
from py_vfs.shell import Shell, ShellResult
from py_vfs.shell.parser import needs_more

# ------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(("text", "more"), [
    ("echo 'abc", True), ('echo "a', True), ("echo a |", True), ("echo a &&", True),
    ("if true; then", True), ("for i in 1 2; do echo $i", True), ("f() {", True),
    ("case x in", True), ("cat <<EOF\nline", True), ("echo $(ls", True), ("echo ${x", True),
    ("echo a \\", True), ("( echo", True),
    ("echo a", False), ("if true; then echo a; fi", False), ("cat <<EOF\nx\nEOF", False),
    ("echo a; fi", False),  # a syntax error is not fixed by another line
])
def test_needs_more_tells_an_unfinished_program_from_a_finished_or_broken_one(text, more):
    assert needs_more(text) is more


def test_the_arithmetic_command_and_subshells_in_subshells(sh):
    assert sh.ok("i=0; while ((i < 3)); do echo $i; ((i++)); done") == "0\n1\n2\n"
    assert sh.ok("((0)) || echo zero; ((2 > 1)) && echo more") == "zero\nmore\n"
    assert sh.ok("( (echo nested) )") == "nested\n"
    assert sh.ok("my-func() { echo dash; }; my-func") == "dash\n"
    assert needs_more("((1 +")


# What bash 5.2.15 printed (its "bash: line 1: " is our "sh: "): the error token is the
# expression from where parsing stopped (at the end: from its last token) to its end.
@pytest.mark.parametrize(("expr", "stderr"), [
    ("1 + ", 'sh: 1 + : syntax error: operand expected (error token is "+ ")\n'),
    ("*1", 'sh: *1: syntax error: operand expected (error token is "*1")\n'),
    ("1 2 3", 'sh: 1 2 3: syntax error in expression (error token is "2 3")\n'),
    ("1?:2", 'sh: 1?:2: expression expected (error token is ":2")\n'),
    ("1?2", "sh: 1?2: `:' expected for conditional expression (error token is \"2\")\n"),
    ("4/(2-2)", 'sh: 4/(2-2): division by 0 (error token is "(2-2)")\n'),
    ("2**-1+3", 'sh: 2**-1+3: exponent less than 0 (error token is "+3")\n'),
    ("1 + 08", 'sh: 1 + 08: value too great for base (error token is "08")\n'),
])
def test_arithmetic_errors_name_bashs_error_token(sh, expr, stderr):
    assert sh(f"echo $(({expr}))") == ShellResult("", stderr, 1, [], "/")


def test_plus_plus_before_a_number_is_two_signs(sh):
    assert sh.ok("echo $((++1)) $((--5)) $((-+-1))") == "1 5 1\n"


def test_a_multi_line_program_is_one_program(sh):
    program = "f() {\n  echo \"in f: $1\"\n}\nfor x in a b; do\n  f $x\ndone\n"
    assert sh.ok(program) == "in f: a\nin f: b\n"


def test_a_syntax_error_anywhere_runs_nothing(sh):
    result = sh("touch made\nif true; then echo a; fi fi")
    assert result.code == 2 and result.stdout == ""
    assert result.stderr == "sh: syntax error near unexpected token 'fi' (line 2, column 26)\n"
    assert sh.vfs.readdir("/") == []


def test_deep_nesting_is_refused_not_a_crash(sh):
    result = sh("{ " * 60 + "echo a" + "; }" * 60)
    assert result.code == 2 and "nested" in result.stderr


def test_runaway_recursion_is_an_error_not_a_crash(sh):
    result = sh("f() { f; }; f; echo after")
    assert result.code == 1 and "maximum nesting level" in result.stderr
    assert result.stdout == ""


# -------------------------------------------------------------- state and subshells


def test_a_subshell_keeps_its_cd_and_variables(sh):
    sh.ok("mkdir /d")
    assert sh.ok("x=1; (cd /d; x=2; pwd; echo $x); pwd; echo $x") == "/d\n2\n/\n1\n"
    assert sh.ok("{ cd /d; }; pwd") == "/d\n"  # a group is not a subshell
    # (pipeline stages: tests/unit/test_shell_lang_pipes.py)


def test_exit_in_a_subshell_ends_only_the_subshell(sh):
    assert sh("(exit 3); echo $?; exit 4; echo no") == ShellResult("3\n", "", 4, [], "/")


def test_cd_dash_and_oldpwd_and_home(sh):
    sh.ok("mkdir -p /a /workspace")
    assert sh.ok("cd /a; cd /; cd -; echo $OLDPWD $PWD") == "/a\n/ /a\n"
    # HOME is / when the shell starts without /workspace; a new shell on a disk that has one
    # starts with HOME=/workspace, where `cd` and `~` lead.
    fresh = Shell(sh.vfs)
    result = sh.runner.run(fresh.run("cd; pwd; echo ~"))
    assert (result.stdout, result.code) == ("/workspace\n/workspace\n", 0)


def test_variables_exported_and_not(sh):
    assert sh.ok("A=1; B=2; export B; env").count("B=2") == 1
    out = sh.ok("A=1; export B=2; env")
    assert "B=2\n" in out and "A=1" not in out and "PATH=/workspace/bin:/workspace/skills\n" in out
    assert sh.ok("C=3 env").count("C=3") == 1
    assert sh.ok("echo \"[$C]\"") == "[]\n"  # the prefix was for that command only
    assert sh.ok("printenv B PATH") == "2\n/workspace/bin:/workspace/skills\n"
    assert sh("printenv A").code == 1
    assert sh.ok("env D=4 printenv D; echo \"[$D]\"") == "4\n[]\n"
    assert sh.ok("unset B; printenv B || echo gone") == "gone\n"


def test_export_lists_and_still_exports_archives(sh):
    assert 'declare -x PATH="/workspace/bin:/workspace/skills"\n' in sh.ok("export")
    sh.ok("mkdir /t && echo hi > /t/f")
    assert sh.ok("export /t /t.zip && mkdir /u && import /t.zip /u && cat /u/f").endswith(
        "hi\n")
    # A word that looks like an assignment makes it the variable builtin: an invalid name is
    # refused (status 1, as bash), the valid ones are still exported.
    result = sh("export 1x=2 y=3; printenv y")
    assert (result.stdout, result.stderr) == ("3\n", "sh: export: `1x=2': not a valid identifier\n")


def test_set_options(sh):
    assert sh("set -e; echo a; false; echo b") == ShellResult("a\n", "", 1, [], "/")
    result = sh("set +e; set -x; echo hi 'a b'")
    assert result.stderr == "+ echo hi 'a b'\n" and result.stdout == "hi a b\n"
    assert sh("set +x") == ShellResult("", "+ set +x\n", 0, [], "/")
    assert sh.ok("set -- a b c; echo $# $2; set --; echo $#") == "3 b\n0\n"


def test_source_runs_in_this_shell_with_arguments(sh):
    sh.write("/lib.sh", "greet() { echo \"hi $1\"; }\nsourced=$1\nreturn 7\necho never\n")
    assert sh("source /lib.sh arg; echo $?; greet you; echo $sourced") == ShellResult(
        "7\nhi you\narg\n", "", 0, [], "/")
    sh.write("/stop.sh", "echo one\nexit 5\necho two\n")
    assert sh(". /stop.sh; echo after") == ShellResult("one\n", "", 5, [], "/")
    assert sh("source /nope").code == 1


def test_aliases_expand_on_later_lines(sh):
    sh.ok("alias hello='echo hello' say='echo '")
    assert sh.ok("hello world") == "hello world\n"
    # A value ending in a blank makes the next word an alias candidate too (as bash).
    assert sh.ok("say hello") == "echo hello\n"
    assert sh.ok("alias hello") == "alias hello='echo hello'\n"
    assert sh.ok("type hello if cd") == (
        "hello is aliased to `echo hello'\nif is a shell keyword\ncd is a shell builtin\n")
    sh.ok("unalias hello")
    assert sh("hello").code == 127


def test_exit_leaves_a_scoop_only_at_the_prompt(sh):
    sh.ok("scoop s")
    assert sh.shell.scoop_name == "s"
    assert sh("(exit); echo still").stdout == "still\n"
    assert sh.shell.scoop_name == "s"
    sh.ok("exit")
    assert sh.shell.scoop_name is None and sh.shell.cwd == "/"


def test_the_unknown_command_hook(sh):
    assert sh("nosuch a b") == ShellResult("", "sh: nosuch: command not found\n", 127, [], "/")


# ------------------------------------------------------------------------ test / [


@pytest.mark.parametrize(("expr", "status"), [
    ("-e /f", 0), ("-f /f", 0), ("-d /f", 1), ("-d /d", 0), ("-L /l", 0), ("-L /f", 1),
    ("-s /f", 0), ("-s /empty", 1), ("-e /nope", 1), ("-x /f", 1), ("-x /d", 0), ("-r /f", 0),
    ("-w /f", 0), ("/f -ef /l", 0), ("/f -ef /d", 1),
    ("\\( -f /f -a -d /d \\) -o -e /nope", 0), ("! -e /nope", 0), ("-z ''", 0),
    ("2 -ge 2", 0), ("a != b", 0), ("a \\< b", 0), ("x -eq 1", 2), ("-q x", 2),
])
def test_test_reads_the_disk(sh, expr, status):
    sh.ok("mkdir /d && echo x > /f && touch /empty")
    sh.runner.run(sh.vfs.symlink("/f", "/l"))
    assert sh(f"test {expr}").code == status
    assert sh(f"[ {expr} ]").code == status


# ------------------------------------------------------------------------ globbing


def test_globs_use_vfs_globs_dialect(sh):
    sh.ok("mkdir -p /g/a/b /g/.hid && touch /g/x.txt /g/y.md /g/a/z.txt /g/a/b/w.txt "
          "/g/.dot /g/.hid/h.txt /g/'odd*name'")
    sh.ok("cd /g")
    assert sh.ok("echo **/*.txt") == "a/b/w.txt a/z.txt x.txt\n"
    assert sh.ok("echo [^x]*") == "a odd*name y.md\n"
    assert sh.ok("echo [!xy]* .*") == "a odd*name .dot .hid\n"
    assert sh.ok("echo */") == "a/\n"
    assert sh.ok("echo 'odd*'*") == "odd*name\n"  # the quoted * matches only itself
    assert sh.ok("echo \"$(echo '*.txt')\" nomatch*") == "*.txt nomatch*\n"
    assert sh.ok("x='*.md'; echo $x \"$x\"") == "y.md *.md\n"
    # vfs.glob itself takes the same patterns, and a backslash escapes there too.
    assert sh.vfs.glob("/g/odd\\*name") == ["/g/odd*name"]
    assert sh.vfs.glob("/g/odd\\*") == []


def test_a_final_double_star_matches_its_directory_as_bash(sh):
    """bash 5.2.15 with globstar: the directory before a final `**` is a match too, named as
    typed (`a/`) or as a wildcard found it (`a`); vfs.glob keeps its own meaning."""
    sh.ok("mkdir -p /g/a/b && touch /g/a/z.txt /g/a/b/w.txt && cd /g")
    assert sh.ok("echo a/**") == "a/ a/b a/b/w.txt a/z.txt\n"
    assert sh.ok("echo a*/**") == "a a/b a/b/w.txt a/z.txt\n"
    assert sh.ok("echo a/**/ a/**/**") == "a/ a/b/ a a/b a/b/w.txt a/z.txt\n"
    assert sh.vfs.glob("/g/a/**") == ["/g/a/b", "/g/a/b/w.txt", "/g/a/z.txt"]


# ------------------------------------------------------------------------ Ctrl-C


def test_ctrl_c_stops_an_endless_loop_with_status_130(sh, monkeypatch):
    signal = Signal()
    turns = []

    async def host_turn():  # what the worker's yielder does: let the page's messages in
        turns.append(1)
        if len(turns) == 100:
            signal.abort()  # the cancel message arrives during this turn

    monkeypatch.setattr(cancel_module, "YIELD_MS", 0.0)
    cancel_module.set_yielder(host_turn)

    async def run() -> ShellResult:
        token = SIGNAL.set(signal)
        try:
            return await sh.shell.run("echo kept > /f; i=0; while true; do i=$((i+1)); done; "
                                      "echo never > /f")
        finally:
            SIGNAL.reset(token)

    try:
        result = sh.runner.run(run())
    finally:
        cancel_module.set_yielder(None)
    assert result.code == 130 and result.stdout == ""
    assert sh.text("/f") == "kept\n"
    assert 0 < int(sh.shell.variables.get("i") or 0) < 100  # stopped during the loop
    assert sh.ok("echo $((1+1))") == "2\n"  # the shell is usable again


# ------------------------------------------------------------------------ redirections


def test_input_redirection_and_here_documents_feed_commands(sh):
    sh.write("/lines.txt", "one\ntwo words\n")
    assert sh.ok("while read -r a b; do echo \"[$a|$b]\"; done < /lines.txt") == (
        "[one|]\n[two|words]\n")
    assert sh("cat < /nope; echo $?") == ShellResult(
        "1\n", "sh: /nope: No such file or directory\n", 0, [], "/")
    assert sh.ok("cat <<EOF <<<ignored\nfirst\nEOF\n") == "ignored\n"  # the last one wins
    # Ended by the end of the program: the body runs after bash's warning (bash 5.2.15 numbers
    # the line that ended before the body: the second here-document's begins after line 3).
    assert sh("cat <<A; cat <<B\na\nA\nb") == ShellResult(
        "a\nb\n", "sh: warning: here-document at line 3 delimited by end-of-file (wanted `B')\n",
        0, [], "/")


def test_outputs_go_where_the_redirections_say_left_to_right(sh):
    sh.ok("{ echo out; echo err >&2; } &> /both")
    assert sh.text("/both") == "out\nerr\n"
    sh.ok("{ echo more >&2; } 2>> /both")
    assert sh.text("/both") == "out\nerr\nmore\n"
    result = sh("{ echo out; echo err >&2; } 2>&1 > /only-out")
    assert (result.stdout, sh.text("/only-out")) == ("err\n", "out\n")
    assert sh("echo x > /dev/null; cat < /dev/null; echo $?") == ShellResult(
        "0\n", "", 0, [], "/")
    assert sh("echo x 3> /f").stderr == (
        "sh: 3: redirecting this file descriptor is not supported\n")


def test_cat_refuses_to_append_a_file_to_itself_as_gnu(sh):
    """GNU cat 9 (checked against it): the file its output is appended to is not read, named
    directly, through a symlink or as a `<` standard input; an empty one or a pipe is fine."""
    sh.ok("echo x > /a; : > /e; ln -s /a /l; cd /")
    result = sh("cat a >> a; cat l >> a; cat < a >> a; cat e >> e; echo $?")
    assert result.stderr == ("cat: a: input file is output file\ncat: l: input file is output "
                             "file\ncat: -: input file is output file\n")
    assert (result.stdout, sh.text("/a")) == ("0\n", "x\n")
    sh.ok("cat a | cat >> a")
    assert sh.text("/a") == "x\nx\n"


def test_expansion_limits_are_errors_not_hangs(sh):
    result = sh("echo {1..1000000}; echo after")
    assert result.code == 1 and "more than 100000 words" in result.stderr
    assert result.stdout == ""
    assert sh("echo $((2 ** 1000000000))").stdout == "0\n"  # wraps as bash's 64 bits
