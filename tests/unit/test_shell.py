"""The shell as a terminal user sees it: what each line prints, returns and leaves on disk."""

from __future__ import annotations

import re

import pytest
from shell_session import Session, fail

from py_vfs.shell import ShellResult

LONG_LINE = re.compile(
    r"^(?P<mode>[-dl][-rwx]{9}) 1 user user +(?P<size>\d+) "
    r"(?P<date>[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}) (?P<name>.+)$"
)


# ------------------------------------------------------------------ the issue


def test_the_session_from_the_issue(sh, utc):
    assert sh.ok("mkdir -p /workspace/site && cd /workspace/site") == ""
    assert sh.shell.cwd == "/workspace/site"
    html = '<h1>hello</h1><link rel="stylesheet" href="style.css">'
    assert sh.ok(f"echo '{html}' > index.html") == ""
    assert sh.ok("echo 'h1 { color: rgb(200, 0, 0) }' > style.css") == ""

    lines = sh.ok("ls -la").splitlines()
    assert lines[0].startswith("total ")
    rows = [LONG_LINE.match(line) for line in lines[1:]]
    assert all(rows), lines
    assert [(r["mode"], r["name"]) for r in rows] == [
        ("drwxr-xr-x", "."), ("drwxr-xr-x", ".."),
        ("-rw-r--r--", "index.html"), ("-rw-r--r--", "style.css"),
    ]
    assert int(rows[2]["size"]) == len(html) + 1
    assert lines[3].startswith("-rw-r--r-- 1 user user ")

    assert sh.ok("cat index.html") == html + "\n"
    result = sh("open index.html")
    assert result.stdout == f"index.html -> {result.open_urls[0]}\n"
    assert sh.opened(result) == [("/workspace/site/index.html", "file", "index.html")]
    assert (result.code, result.stderr, result.cwd) == (0, "", "/workspace/site")
    assert sh.text("/workspace/site/style.css") == "h1 { color: rgb(200, 0, 0) }\n"


# -------------------------------------------------------------------- parsing


@pytest.mark.parametrize("line", ["", "   ", "\t", "# just a comment", "  # indented comment"])
def test_empty_lines_and_comments_do_nothing(sh, line):
    assert sh(line) == ShellResult("", "", 0, [], "/")


@pytest.mark.parametrize(("line", "printed"), [
    ("echo a   b\tc", "a b c"),
    ("echo 'a   $x \\n \"q\"'", 'a   $x \\n "q"'),
    ('echo "a \\"b\\" \\\\ \\$x \\`y\\` \\n"', 'a "b" \\ $x `y` \\n'),
    ("echo a\\ b \\' \\\\ \\\"", "a b ' \\ \""),
    ("echo 'a'\"b\"c", "abc"),
    ("echo '' x", " x"),
    ('echo "" x', " x"),
    ("echo a # b c", "a"),
    ("echo a#b '#c' \\#d", "a#b #c #d"),
    ("echo $HOME '$HOME'", "/ $HOME"),
])
def test_quoting_follows_sh(sh, line, printed):
    assert sh.ok(line) == printed + "\n"


def test_quoted_operators_are_plain_words(sh):
    assert sh.ok("echo '>' '>>' '&&' \"||\" ';' \\| '2>&1'") == "> >> && || ; | 2>&1\n"
    assert sh.vfs.readdir("/") == []


def test_a_quoted_glob_is_not_expanded(sh):
    sh.ok("touch a.txt b.txt")
    assert sh.ok("echo '*.txt' \"*.txt\" \\*.txt '*'.txt") == "*.txt *.txt *.txt *.txt\n"
    # Only the quoted characters lose their meaning, as in sh.
    assert sh.ok("echo *'.txt' \"a\"*") == "a.txt b.txt a.txt\n"


@pytest.mark.parametrize(("line", "where"), [
    ("echo 'abc", "' from line 1, column 6"), ('echo "abc', '" from line 1, column 6'),
    ("echo ok; echo 'x", "' from line 1, column 15"), ("echo \"a\\\"", '" from line 1, column 6'),
])
def test_an_unterminated_quote_is_a_syntax_error_and_runs_nothing(sh, line, where):
    assert sh(line) == ShellResult(
        "", f"sh: syntax error: unexpected end of file (unterminated {where})\n", 2, [], "/")


@pytest.mark.parametrize(("line", "message"), [
    ("&& echo a", "sh: syntax error near unexpected token '&&' (line 1, column 1)\n"),
    ("echo a ;; echo b", "sh: syntax error near unexpected token ';;' (line 1, column 8)\n"),
    ("echo a || || echo b", "sh: syntax error near unexpected token '||' (line 1, column 11)\n"),
    ("echo a &&", "sh: syntax error: unexpected end of file\n"),
    ("echo a >", "sh: syntax error: unexpected end of file\n"),
    ("echo a > && echo b", "sh: syntax error near unexpected token '&&' (line 1, column 10)\n"),
    ("echo a\necho b; fi", "sh: syntax error near unexpected token 'fi' (line 2, column 9)\n"),
    ("if true; then echo a; done", "sh: syntax error near unexpected token 'done' "
                                   "(line 1, column 23)\n"),
    ("echo a\n(", "sh: syntax error: unexpected end of file\n"),
])
def test_syntax_errors_exit_2_and_run_nothing(sh, line, message):
    assert sh(line) == ShellResult("", message, 2, [], "/")


def test_background_jobs_are_refused_and_nothing_runs(sh):
    result = sh("echo a; sleep 1 &")
    assert result == ShellResult(
        "", "sh: background jobs ('&') are not supported (line 1, column 17)\n", 2, [], "/")


def test_a_trailing_semicolon_is_allowed(sh):
    assert sh.ok("echo a;") == "a\n"


def test_newlines_separate_commands(sh):
    assert sh.ok("echo a\necho b\n\necho c &&\necho d") == "a\nb\nc\nd\n"


# ------------------------------------------------------------------ operators


@pytest.mark.parametrize(("line", "stdout", "code"), [
    ("true && echo yes", "yes\n", 0),
    ("false && echo no", "", 1),
    ("false || echo fallback", "fallback\n", 0),
    ("true || echo no", "", 0),
    ("false && echo a || echo b", "b\n", 0),
    ("true || echo a && echo b", "b\n", 0),
    ("false; echo always", "always\n", 0),
    ("echo first; false", "first\n", 1),
    ("true && false || false && echo no", "", 1),
])
def test_and_or_lists_follow_sh(sh, line, stdout, code):
    result = sh(line)
    assert (result.stdout, result.code) == (stdout, code)


def test_a_failing_command_stops_an_and_chain(sh):
    result = sh("cat nope && echo unreachable")
    assert (result.stdout, result.code) == ("", 1)
    assert result.stderr == "cat: nope: No such file or directory\n"


def test_output_of_several_commands_is_concatenated(sh):
    result = sh("echo out1; cat nope; echo out2")
    assert result.stdout == "out1\nout2\n"
    assert result.stderr == "cat: nope: No such file or directory\n"
    assert result.code == 0


# -------------------------------------------------------------- redirections


def test_redirect_writes_the_output_to_a_file(sh):
    assert sh.ok("echo hi > f") == ""
    assert sh.text("/f") == "hi\n"


def test_redirect_without_blanks(sh):
    sh.ok("echo a>f")
    sh.ok("echo b>>f")
    assert sh.text("/f") == "a\nb\n"


def test_redirect_truncates_and_append_appends(sh):
    sh.ok("echo one > f")
    sh.ok("echo two > f")
    assert sh.text("/f") == "two\n"
    sh.ok("echo three >> f")
    sh.ok("echo four >> new")
    assert sh.text("/f") == "two\nthree\n"
    assert sh.text("/new") == "four\n"


def test_any_command_can_be_redirected(sh):
    sh.ok("mkdir d && touch d/a d/b")
    sh.ok("ls d > listing")
    sh.ok("ls d >> listing")
    assert sh.text("/listing") == "a\nb\na\nb\n"


def test_redirect_target_is_relative_to_cwd_and_may_be_quoted(sh):
    sh.ok("mkdir d && cd d && echo x > 'my file'")
    assert sh.text("/d/my file") == "x\n"


def test_redirect_into_a_missing_directory_fails_without_creating_it(sh):
    result = sh("echo hi > nope/f")
    fail(result, 1, "sh: nope/f: No such file or directory\n")
    assert not sh.vfs.exists("/nope")


def test_redirect_onto_a_directory_fails_and_skips_the_command(sh):
    sh.ok("mkdir d")
    result = sh("echo hi > d && echo after")
    fail(result, 1, "sh: d: Is a directory\n")
    assert result.stdout == ""


def test_a_failing_command_still_creates_its_redirect_target(sh):
    result = sh("cat nope > f")
    fail(result, 1, "cat: nope: No such file or directory\n")
    assert sh.read("/f") == b""


def test_stderr_redirects(sh):
    result = sh("cat nope 2> err")
    assert (result.stdout, result.stderr, result.code) == ("", "", 1)
    assert sh.text("/err") == "cat: nope: No such file or directory\n"
    result = sh("echo out; cat nope > both 2>&1")
    assert (result.stdout, result.stderr) == ("out\n", "")
    assert sh.text("/both") == "cat: nope: No such file or directory\n"


def test_digits_before_a_redirect_name_a_descriptor_only_when_attached(sh):
    assert sh.ok("echo a 2>f") == "a\n"
    assert sh.read("/f") == b""
    assert sh.ok("echo a 2 > g") == ""
    assert sh.text("/g") == "a 2\n"


def test_binary_content_survives_cat_and_redirect(sh):
    data = bytes(range(256)) * 4
    sh.write("/img.bin", data)
    sh.ok("cat img.bin > copy.bin")
    assert sh.read("/copy.bin") == data


def test_ambiguous_redirect(sh):
    sh.ok("touch a.txt b.txt")
    fail(sh("echo x > *.txt"), 1, "sh: *.txt: ambiguous redirect\n")


# ------------------------------------------------------------------- globbing


def test_glob_expands_sorted_matches(sh):
    sh.ok("touch b.txt a.txt c.md")
    assert sh.ok("echo *.txt") == "a.txt b.txt\n"
    assert sh.ok("echo ?.md [ab].txt") == "c.md a.txt b.txt\n"


def test_a_glob_without_match_stays_literal(sh):
    result = sh("cat *.nothing")
    fail(result, 1, "cat: '*.nothing': No such file or directory\n")  # GNU quotes it too


def test_hidden_files_need_an_explicit_dot(sh):
    sh.ok("touch .hidden visible")
    assert sh.ok("echo *") == "visible\n"
    assert sh.ok("echo .*") == ".hidden\n"


def test_glob_walks_directories_and_keeps_the_typed_prefix(sh):
    sh.ok("mkdir -p site/a site/b other && touch site/a/index.html site/b/index.html site/x")
    assert sh.ok("echo site/*/index.html") == "site/a/index.html site/b/index.html\n"
    assert sh.ok("echo /site/*") == "/site/a /site/b /site/x\n"
    assert sh.ok("echo site/*/") == "site/a/ site/b/\n"
    assert sh.ok("cd site/a && echo ../*") == "../a ../b ../x\n"


def test_glob_feeds_commands(sh):
    sh.ok("touch a.txt b.txt keep.md")
    sh.ok("rm *.txt")
    assert sh.vfs.readdir("/") == ["keep.md"]


def test_tilde_is_home_the_root_without_a_workspace(sh):
    sh.ok("mkdir d && cd d")
    assert sh.ok("cd ~ && pwd") == "/\n"
    assert sh.ok("echo ~/x '~' a~") == "/x ~ a~\n"


# ---------------------------------------------------------- help, pwd, echo


def test_help_lists_every_command(sh):
    out = sh.ok("help")
    for name in ("help", "pwd", "cd", "ls", "cat", "echo", "mkdir", "rm", "rmdir", "mv", "cp",
                 "touch", "stat", "tree", "open"):
        assert re.search(rf"^  {name}\b[^\n]*  \S", out, re.MULTILINE), name


def test_unknown_command(sh):
    result = sh("frobnicate x")
    assert result == ShellResult("", "sh: frobnicate: command not found\n", 127, [], "/")
    result = sh("frobnicate || echo handled")
    assert (result.stdout, result.code) == ("handled\n", 0)


@pytest.mark.parametrize(("line", "printed"), [
    ("echo", "\n"),
    ("echo a b", "a b\n"),
    ("echo -n a b", "a b"),
    ("echo -n -nn a", "a"),
    ("echo -x -- a", "-x -- a\n"),
    ("echo a -n", "a -n\n"),
])
def test_echo(sh, line, printed):
    assert sh.ok(line) == printed


def test_clear_writes_the_terminal_escape(sh):
    assert sh.ok("clear") == "\x1b[H\x1b[2J"


# ------------------------------------------------------------------------ cd


def test_cd_persists_across_runs(sh):
    assert sh.ok("pwd") == "/\n"
    sh.ok("mkdir -p a/b")
    result = sh("cd a/b")
    assert result.cwd == "/a/b"
    assert sh.ok("pwd") == "/a/b\n"
    assert sh.ok("cd .. && pwd") == "/a\n"
    assert sh.ok("cd && pwd") == "/\n"
    assert sh.ok("cd /a/b && cd ../.. && pwd") == "/\n"


def test_relative_paths_resolve_against_cwd(sh):
    sh.ok("mkdir d && cd d && echo x > f && mkdir sub && touch sub/g")
    assert sh.text("/d/f") == "x\n"
    assert sh.ok("cd sub && cat ../f && ls") == "x\ng\n"


def test_cd_errors(sh):
    sh.ok("touch f && mkdir d")
    fail(sh("cd /nope"), 1, "sh: cd: /nope: No such file or directory\n")
    fail(sh("cd f"), 1, "sh: cd: f: Not a directory\n")
    fail(sh("cd d d"), 1, "sh: cd: too many arguments\n")
    assert sh.shell.cwd == "/"


def test_cd_follows_a_symlink_to_a_directory(sh):
    sh.ok("mkdir -p real/inner")
    sh.symlink("/real", "/link")
    assert sh.ok("cd link && ls") == "inner\n"


# ------------------------------------------------------------------------ ls


def test_ls_lists_names_sorted_one_per_line(sh):
    sh.ok("touch b a C .hidden && mkdir dir")
    assert sh.ok("ls") == "C\na\nb\ndir\n"
    assert sh.ok("ls -1") == "C\na\nb\ndir\n"


def test_ls_of_an_empty_directory_prints_nothing(sh):
    sh.ok("mkdir empty")
    assert sh.ok("ls empty") == ""


def test_ls_a_adds_dot_entries_and_hidden_names(sh):
    sh.ok("touch .hidden shown")
    assert sh.ok("ls -a") == ".\n..\n.hidden\nshown\n"


def test_ls_long_format(sh, utc):
    sh.write("/a.txt", "hello")
    sh.ok("mkdir d")
    sh.symlink("a.txt", "/link")
    for path in ("/a.txt", "/d"):
        sh.set_mtime(path, "2024-01-02 03:04")
    lines = sh.ok("ls -l").splitlines()
    # GNU ls 9.1: sizes as wide as the widest, the year instead of the time when older than
    # six months.
    assert lines[1:3] == [
        "-rw-r--r-- 1 user user    5 Jan  2  2024 a.txt",
        "drwxr-xr-x 1 user user 4096 Jan  2  2024 d",
    ]
    assert re.fullmatch(r"lrwxrwxrwx 1 user user    5 .{12} link -> a.txt", lines[3])


def test_ls_combined_and_separate_flags_agree(sh):
    sh.ok("touch .h f")
    assert sh.ok("ls -la") == sh.ok("ls -l -a") == sh.ok("ls -al")
    assert [line.split()[-1] for line in sh.ok("ls -la").splitlines()[1:]] == [
        ".", "..", ".h", "f"]


def test_ls_of_files_prints_them_as_typed(sh):
    sh.ok("mkdir d && touch d/f")
    assert sh.ok("ls d/f /d/f") == "/d/f\nd/f\n"
    assert LONG_LINE.match(sh.ok("ls -l d/f").rstrip("\n"))["name"] == "d/f"


def test_ls_d_shows_directories_themselves(sh):
    sh.ok("mkdir d && touch d/inside")
    assert sh.ok("ls -d d") == "d\n"
    assert LONG_LINE.match(sh.ok("ls -ld d").rstrip("\n"))["mode"] == "drwxr-xr-x"


def test_ls_of_several_directories_prints_headers(sh):
    sh.ok("mkdir a b && touch a/1 b/2 f")
    assert sh.ok("ls b a f") == "f\n\na:\n1\n\nb:\n2\n"


def test_ls_continues_after_a_missing_operand(sh):
    sh.ok("mkdir d && touch d/x")
    result = sh("ls nope d")
    assert result.stdout == "d:\nx\n"
    fail(result, 2, "ls: cannot access 'nope': No such file or directory\n")


def test_ls_of_a_symlink_to_a_directory(sh):
    sh.ok("mkdir real && touch real/inside")
    sh.symlink("real", "/link")
    assert sh.ok("ls link") == "inside\n"
    assert sh.ok("ls -l link").rstrip("\n").endswith(" link -> real")


def test_double_dash_ends_options(sh):
    sh.ok("touch -- -l")
    assert sh.ok("ls -- -l") == "-l\n"
    sh.ok("rm -- -l")
    assert sh.vfs.readdir("/") == []


# ----------------------------------------------------------------------- cat


def test_cat_concatenates(sh):
    sh.write("/a", "A\n")
    sh.write("/b", "B")
    assert sh.ok("cat a b a") == "A\nBA\n"


def test_cat_continues_after_errors_and_exits_1(sh):
    sh.write("/a", "A\n")
    sh.ok("mkdir d")
    result = sh("cat /x a d")
    assert result.stdout == "A\n"
    fail(result, 1, "cat: /x: No such file or directory\ncat: d: Is a directory\n")


def test_cat_replaces_invalid_utf8(sh):
    sh.write("/bad", b"ok \xff\xfe end")
    assert sh.ok("cat bad") == "ok \ufffd\ufffd end"


def test_cat_of_an_empty_name(sh):
    fail(sh("cat ''"), 1, "cat: '': No such file or directory\n")  # as GNU cat


# --------------------------------------------------------------------- mkdir


def test_mkdir(sh):
    sh.ok("mkdir a b")
    assert sh.vfs.readdir("/") == ["a", "b"]
    sh.ok("mkdir -p x/y/z && mkdir -p x/y")
    assert sh.vfs.stat("/x/y/z").type == "directory"


def test_mkdir_errors(sh):
    sh.ok("mkdir a")
    result = sh("mkdir a b c/d")
    fail(result, 1, "mkdir: cannot create directory 'a': File exists\n"
                    "mkdir: cannot create directory 'c/d': No such file or directory\n")
    assert sh.vfs.exists("/b")
    sh.ok("touch f")
    fail(sh("mkdir -p f"), 1, "mkdir: cannot create directory 'f': File exists\n")
    fail(sh("mkdir"), 1, "mkdir: missing operand\n"
         "Try 'mkdir --help' for more information.\n")


# ------------------------------------------------------------------------ rm


def test_rm_removes_files(sh):
    sh.ok("touch a b c")
    sh.ok("rm a b")
    assert sh.vfs.readdir("/") == ["c"]


def test_rm_refuses_a_directory_without_r(sh):
    sh.ok("mkdir d && touch f")
    result = sh("rm d f")
    fail(result, 1, "rm: cannot remove 'd': Is a directory\n")
    assert sh.vfs.readdir("/") == ["d"]


@pytest.mark.parametrize("line", ["rm -r d", "rm -R d", "rm -rf d", "rm -fr d", "rm -r -f d",
                                  "rm d -rf"])
def test_rm_r_removes_a_tree(sh, line):
    sh.ok("mkdir -p d/e/f && touch d/e/f/g d/h")
    sh.ok(line)
    assert sh.vfs.readdir("/") == []


def test_rm_missing(sh):
    fail(sh("rm nope"), 1, "rm: cannot remove 'nope': No such file or directory\n")
    assert sh.ok("rm -f nope") == ""
    assert sh.ok("rm -rf nope other") == ""
    assert sh.ok("rm -f") == ""
    fail(sh("rm"), 1, "rm: missing operand\nTry 'rm --help' for more information.\n")


def test_rm_rf_never_follows_symlinks(sh):
    sh.ok("mkdir -p keep && touch keep/precious && mkdir d")
    sh.symlink("/keep", "/link")
    sh.symlink("/keep", "/d/inner-link")
    sh.ok("rm -rf link d")
    assert sh.vfs.readdir("/") == ["keep"]
    assert sh.vfs.readdir("/keep") == ["precious"]


def test_rm_of_a_symlink_without_r_removes_the_link(sh):
    sh.ok("mkdir keep")
    sh.symlink("/keep", "/link")
    sh.ok("rm link")
    assert sh.vfs.readdir("/") == ["keep"]


def test_rm_r_refuses_root_and_dot(sh):
    sh.ok("mkdir d && touch d/f")
    fail(sh("rm -rf /"), 1, "rm: it is dangerous to operate recursively on '/'\n")
    fail(sh("cd d && rm -rf ."), 1,
         "rm: refusing to remove '.' or '..' directory: skipping '.'\n")
    assert sh.vfs.exists("/d/f")


# --------------------------------------------------------------------- rmdir


def test_rmdir(sh):
    sh.ok("mkdir -p empty full && touch full/x f")
    result = sh("rmdir full empty nope f")
    fail(result, 1, "rmdir: failed to remove 'full': Directory not empty\n"
                    "rmdir: failed to remove 'nope': No such file or directory\n"
                    "rmdir: failed to remove 'f': Not a directory\n")
    assert sh.vfs.readdir("/") == ["f", "full"]


# ------------------------------------------------------------------------ mv


def test_mv_renames(sh):
    sh.write("/a", "A")
    sh.ok("mv a b")
    assert sh.vfs.readdir("/") == ["b"]
    assert sh.text("/b") == "A"


def test_mv_into_a_directory(sh):
    sh.ok("mkdir d && touch a b c")
    sh.ok("mv a d")
    sh.ok("mv b c d/")
    assert sh.vfs.readdir("/d") == ["a", "b", "c"]
    assert sh.vfs.readdir("/") == ["d"]


def test_mv_replaces_a_file(sh):
    sh.write("/a", "new")
    sh.write("/b", "old")
    sh.ok("mv a b")
    assert sh.text("/b") == "new"


def test_mv_errors(sh):
    sh.ok("touch a b f && mkdir d")
    fail(sh("mv a b f"), 1, "mv: target 'f' is not a directory\n")
    fail(sh("mv nope d"), 1, "mv: cannot stat 'nope': No such file or directory\n")
    fail(sh("mv d d/sub"), 1, "mv: cannot move 'd' to a subdirectory of itself, 'd/sub'\n")
    fail(sh("mv a"), 1, "mv: missing destination file operand after 'a'\n"
         "Try 'mv --help' for more information.\n")
    fail(sh("mv"), 1, "mv: missing file operand\nTry 'mv --help' for more information.\n")
    assert sh.vfs.readdir("/") == ["a", "b", "d", "f"]


def test_mv_continues_after_a_missing_source(sh):
    sh.ok("mkdir d && touch a")
    result = sh("mv nope a d")
    fail(result, 1, "mv: cannot stat 'nope': No such file or directory\n")
    assert sh.vfs.readdir("/d") == ["a"]


def test_mv_moves_a_tree_across_trees_with_its_links(sh):
    sh.ok("mkdir -p /a/proj/src /b/deep && echo code > /a/proj/src/main.py")
    sh.symlink("src/main.py", "/a/proj/entry")
    sh.ok("mv /a/proj /b/deep")
    assert sh.vfs.readdir("/a") == []
    assert sh.vfs.walk("/b") == ["/b/deep/proj/entry", "/b/deep/proj/src/main.py"]
    assert sh.text("/b/deep/proj/entry") == "code\n"  # relative link moved with its target

# ------------------------------------------------------------------------ cp


def test_cp_copies_a_file(sh):
    sh.write("/a", "A")
    sh.ok("cp a b")
    assert (sh.text("/a"), sh.text("/b")) == ("A", "A")
    sh.write("/a", "changed")
    assert sh.text("/b") == "A"


def test_cp_into_a_directory(sh):
    sh.ok("mkdir d && echo 1 > a && echo 2 > b")
    sh.ok("cp a b d")
    assert sh.vfs.readdir("/d") == ["a", "b"]
    assert sh.text("/d/b") == "2\n"


def test_cp_needs_r_for_a_directory(sh):
    sh.ok("mkdir d && touch f && mkdir target")
    result = sh("cp d f target")
    fail(result, 1, "cp: -r not specified; omitting directory 'd'\n")
    assert sh.vfs.readdir("/target") == ["f"]


@pytest.mark.parametrize("flag", ["-r", "-R"])
def test_cp_r_copies_a_tree(sh, flag):
    sh.ok("mkdir -p src/sub && echo x > src/sub/f")
    sh.ok(f"cp {flag} src copy")
    assert sh.text("/copy/sub/f") == "x\n"
    sh.ok("mkdir dest")
    sh.ok(f"cp {flag} src dest")
    assert sh.text("/dest/src/sub/f") == "x\n"


def test_cp_errors(sh):
    sh.ok("mkdir d && touch f")
    fail(sh("cp f f"), 1, "cp: 'f' and 'f' are the same file\n")
    fail(sh("cp -r d d/inner"), 1, "cp: cannot copy a directory, 'd', into itself, 'd/inner'\n")
    fail(sh("cp nope x"), 1, "cp: cannot stat 'nope': No such file or directory\n")
    fail(sh("cp f f f2"), 1, "cp: target 'f2': No such file or directory\n")  # GNU 9.1
    fail(sh("cp f"), 1, "cp: missing destination file operand after 'f'\n"
         "Try 'cp --help' for more information.\n")


def test_cp_follows_a_symlink_without_r_and_keeps_it_with_r(sh):
    sh.write("/real", "data")
    sh.symlink("real", "/link")
    sh.ok("cp link plain")
    assert sh.vfs.lstat("/plain").type == "file"
    assert sh.text("/plain") == "data"
    sh.ok("cp -r link kept")
    assert sh.vfs.lstat("/kept").type == "symlink"


def test_cp_r_copies_links_inside_a_tree_as_links(sh):
    sh.ok("mkdir -p src/dir outside && echo x > src/dir/f && echo o > outside/secret")
    sh.symlink("dir", "/src/to_dir")
    sh.symlink("../outside", "/src/to_outside")
    sh.symlink("nowhere", "/src/dangling")
    sh.ok("cp -r src copy")
    assert [(e.name, e.type) for e in sh.vfs.readdir("/copy", with_types=True)] == [
        ("dangling", "symlink"), ("dir", "directory"), ("to_dir", "symlink"),
        ("to_outside", "symlink")]
    assert sh.vfs.readlink("/copy/to_outside") == "../outside"
    assert sh.vfs.walk("/copy") == ["/copy/dangling", "/copy/dir/f", "/copy/to_dir",
                                    "/copy/to_outside"]
    sh.ok("rm -rf copy")
    assert sh.text("/outside/secret") == "o\n"

# --------------------------------------------------------------------- touch


def test_touch_creates_empty_files(sh):
    sh.ok("touch a b")
    assert sh.read("/a") == b"" and sh.read("/b") == b""


def test_touch_updates_times_and_keeps_content(sh):
    sh.write("/f", "keep")
    sh.set_mtime("/f", "2000-01-01 00:00")
    sh.ok("touch f")
    assert sh.vfs.stat("/f").mtime_ms > 1e12
    assert sh.text("/f") == "keep"


def test_touch_needs_an_existing_parent(sh):
    fail(sh("touch nope/f"), 1, "touch: cannot touch 'nope/f': No such file or directory\n")
    assert not sh.vfs.exists("/nope")


# ---------------------------------------------------------------------- stat


def test_stat_of_a_file(sh, utc):
    sh.write("/f.txt", "hello")
    sh.set_mtime("/f.txt", "2024-01-02 03:04")
    lines = sh.ok("stat f.txt").splitlines()
    # GNU stat's layout (coreutils 9.1); the VFS has no inode, device or owner to show.
    assert lines[0] == "  File: f.txt"
    assert lines[1] == "  Size: 5         \tBlocks: 8          IO Block: 4096   regular file"
    assert lines[3].startswith("Access: (0644/-rw-r--r--)  Uid: ( 1000/    user)")
    assert "Modify: 2024-01-02 03:04:00.000000000 +0000" in lines
    assert any(line.startswith("Change: ") for line in lines)
    assert lines[-1] == " Birth: -"


def test_stat_of_a_directory_and_a_symlink(sh):
    sh.ok("mkdir d")
    sh.symlink("d", "/l")
    out = sh.ok("stat d l")
    assert " directory\n" in out and "(0755/drwxr-xr-x)" in out
    assert "  File: l -> d\n" in out and " symbolic link\n" in out


def test_stat_errors(sh):
    fail(sh("stat nope"), 1, "stat: cannot statx 'nope': No such file or directory\n")
    fail(sh("stat"), 1, "stat: missing operand\n"
         "Try 'stat --help' for more information.\n")


# ---------------------------------------------------------------------- tree


def test_tree_draws_the_hierarchy(sh):
    sh.ok("mkdir -p site/css site/js && touch site/index.html site/css/a.css site/.hidden")
    sh.symlink("index.html", "/site/home")
    assert sh.ok("tree site") == (
        "site\n"
        "├── css\n"
        "│\u00a0\u00a0 └── a.css\n"  # tree 2.1: no-break spaces
        "├── home -> index.html\n"
        "├── index.html\n"
        "└── js\n"
        "\n"
        "3 directories, 3 files\n"
    )


def test_tree_defaults_to_cwd_and_counts_in_singular(sh):
    sh.ok("mkdir -p d/e && touch d/e/f && cd d")
    assert sh.ok("tree") == ".\n└── e\n    └── f\n\n2 directories, 1 file\n"


def test_tree_errors(sh):
    # tree 2.1.0 reports on stdout, counts the top directory, and exits 2 for a missing one.
    sh.ok("touch f")
    result = sh("tree nope")
    assert (result.code, result.stdout) == (
        2, "nope  [error opening dir]\n\n0 directories, 0 files\n")
    assert sh.ok("tree f") == "f  [error opening dir]\n\n0 directories, 1 file\n"


# ---------------------------------------------------------------------- open


def test_open_prints_and_returns_preview_urls(sh):
    sh.ok("mkdir -p 'my site' && touch 'my site/a#1.html' index.html")
    result = sh("open index.html 'my site/a#1.html'")
    assert sh.opened(result) == [("/index.html", "file", "index.html"),
                                 ("/my site/a#1.html", "file", "a%231.html")]
    first, second = result.open_urls
    assert result.stdout == f"index.html -> {first}\n'my site/a#1.html' -> {second}\n"


def test_open_of_a_missing_file_fails_without_url(sh):
    sh.ok("touch a")
    result = sh("open nope a")
    fail(result, 1, "open: nope: No such file or directory\n")
    assert sh.opened(result) == [("/a", "file", "a")]
    fail(sh("open"), 2, "open: missing operand\n")


def test_open_uses_the_configured_preview_base():
    session = Session(preview_base="https://example.test/preview")
    try:
        session.ok("mkdir d && cd d && touch x.html")
        result = session("open x.html")
        assert result.open_urls[0].startswith("https://example.test/preview/")
        assert session.opened(result) == [("/d/x.html", "file", "x.html")]
    finally:
        session.runner.close()


def test_open_urls_are_collected_per_run(sh):
    sh.ok("touch a b")
    assert sh.opened(sh("open a; open b")) == [("/a", "file", "a"), ("/b", "file", "b")]
    assert sh("echo nothing").open_urls == []


# ------------------------------------------------------------------- options


@pytest.mark.parametrize(("line", "status", "message"), [
    ("ls -z", 2, "ls: invalid option -- 'z'\n"),
    ("ls -lz", 2, "ls: invalid option -- 'z'\n"),
    ("rm -x f", 1, "rm: invalid option -- 'x'\n"),
    ("cp -z a b", 1, "cp: invalid option -- 'z'\n"),
    ("mkdir -q d", 1, "mkdir: invalid option -- 'q'\n"),
    ("cat -z f", 1, "cat: invalid option -- 'z'\n"),
    ("ls --long", 2, "ls: unrecognized option '--long'\n"),
])
def test_unknown_flags_are_usage_errors(sh, line, status, message):
    """As coreutils: the message, GNU's `Try` line, status 1 (ls: 2, serious trouble)."""
    sh.ok("touch f a")
    name = line.split()[0]
    fail(sh(line), status, f"{message}Try '{name} --help' for more information.\n")
    assert sh.vfs.readdir("/") == ["a", "f"]
