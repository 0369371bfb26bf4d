"""Patterns from users and agents cannot block the worker: globs and grep's regular expressions
match in linear time, malformed ones are EINVAL with a hint, and the shell reads a long word in
linear time. No timing: the automata count the work they do, the tokenizer the lines it runs."""

from __future__ import annotations

import re
import sys

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.core.globs import compile_glob
from py_vfs.core.grep_pattern import compile_pattern
from py_vfs.shell.lexer import tokenize

HOSTILE_GLOB = "**/" * 6 + "zz"  # a backtracking regex over the path ran for minutes


def fresh_glob(pattern: str):
    return compile_glob.__wrapped__(pattern)  # without the cache: its own, empty, work count


def test_a_hostile_glob_is_linear_in_the_path():
    works = []
    for segments in (150, 1500):
        glob = fresh_glob(HOSTILE_GLOB)
        assert glob.match("/".join(["a"] * segments)) is False
        assert glob.match("/".join(["a"] * segments) + "/zz") is True
        works.append(glob.work)
    assert works[1] <= 10 * works[0]  # ten times the path, at most ten times the work


def test_a_hostile_glob_through_the_api():
    vfs = VFS.memory()
    deep = "/" + "/".join(["a"] * 150)
    run(vfs.write_file(deep + "/f", "x"))
    assert vfs.glob("/" + HOSTILE_GLOB) == []
    assert vfs.find("/", HOSTILE_GLOB) == []
    run(vfs.write_file(deep + "/zz", "x"))
    assert vfs.glob("/" + HOSTILE_GLOB) == [deep + "/zz"]


@pytest.mark.parametrize(("pattern", "subject", "matches"), [
    ("{}", "", True),  # one empty alternative, as before
    ("{a,{b,c}", "{a,b", True),  # an unclosed brace is a literal
    ("[]a]", "]", True),
    ("[a-]", "-", True),
    ("[!a]", "/", False),  # a class never matches "/"
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a**b", "a/x/b", True),  # "**" not followed by "/" spans segments
    ("*", "a/b", False),
])
def test_glob_edge_cases_keep_their_meaning(pattern, subject, matches):
    assert bool(compile_glob(pattern).match(subject)) is matches


@pytest.mark.parametrize("call", [
    lambda vfs: vfs.find("/", "[z-a]"),
    lambda vfs: vfs.glob("/src/[z-a]*"),
    lambda vfs: run(vfs.grep("x", "/", include="*.[z-a]")),
    lambda vfs: vfs.glob("/" + "a" * 5000 + "*"),
])
def test_malformed_globs_are_einval_with_a_hint(call):
    vfs = VFS.memory()
    run(vfs.write_file("/src/a", "x"))
    with pytest.raises(FsError) as info:
        call(vfs)
    assert info.value.code == "EINVAL"
    assert info.value.hint
    assert "invalid range z-a" in str(info.value) or "at most" in str(info.value)


@pytest.fixture
def files() -> VFS:
    vfs = VFS.memory()
    run(vfs.write_file("/a.txt", "a" * 5000 + "b\nhello world\nfoo(bar)\n"))
    return vfs


def test_a_hostile_regex_is_linear_in_the_line(files):
    # (a+)+$ backtracks exponentially in re: 30 a's took seconds, 5,000 would never end.
    assert run(files.grep(r"(a+)+$", "/")).matches == []
    assert run(files.grep(r"(x|x)*y", "/")).matches == []
    works = []
    for length in (1000, 10_000):
        matcher = compile_pattern(r"(a|aa)+c")
        assert matcher.match("a" * length + "b") is False
        works.append(matcher.automaton.work)
    assert works[1] <= 10 * works[0]


@pytest.mark.parametrize(("pattern", "hint"), [
    ("(", "missing ), unterminated subpattern"),
    ("[z-a]", "bad character range z-a"),
    (r"(a)\1", "backreferences are not supported"),
    ("(?=a)b", "lookahead and lookbehind are not supported"),
    ("(?>a)", "atomic groups are not supported"),
    ("a++", "possessive quantifiers are not supported"),
    ("(" * 100 + ")" * 100, "nested groups"),
    ("(?:(?:a{100}){100}){3}", "states once repetitions are expanded"),
    ("x" * 5000, "at most 4096 characters"),
])
def test_grep_refuses_what_it_cannot_run_with_einval(files, pattern, hint):
    with pytest.raises(FsError) as info:
        run(files.grep(pattern, "/"))
    assert info.value.code == "EINVAL"
    assert info.value.hint
    if hint:
        assert hint in info.value.hint


@pytest.mark.parametrize("pattern", [
    "hello", r"\bworld$", r"^foo\(", r"o{2}", "[^a-z]", r"\w+\s\w+", "(?i)HELLO", "b|x",
    r"fo+\(b", "a*?b", r"\Bar", "", "(|x)y",
])
@pytest.mark.parametrize("ignore_case", [False, True])
def test_grep_finds_what_python_re_finds(files, pattern, ignore_case):
    text = "a" * 5000 + "b\nhello world\nfoo(bar)\n"
    flags = re.IGNORECASE if ignore_case else 0
    expected = [number for number, line in enumerate(text.splitlines(), 1)
                if re.search(pattern, line, flags)]
    found = run(files.grep(pattern, "/", ignore_case=ignore_case)).matches
    assert [m["line"] for m in found] == expected


def lines_run(function, *args) -> int:
    """How many lines of py_vfs/shell/lexer.py run during ``function(*args)``."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if not frame.f_code.co_filename.endswith("lexer.py"):
            return None
        if event == "line":
            count += 1
        return tracer

    # Restore whatever traced before (coverage.py's tracer, a debugger): settrace(None) would
    # switch it off for the rest of the run (a coverage run then reported 56% instead of 91%).
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        function(*args)
    finally:
        sys.settrace(previous)
    return count


@pytest.mark.parametrize("word", ["a" * 1_000_000, '"' + "a" * 1_000_000 + '"'])
def test_a_long_word_costs_what_a_short_one_does(word):
    """A run of ordinary characters is read in one step, so a 1 MB word costs about the lines a
    10-character one does (it used to cost a few lines per character, each step copying the
    word so far: 8.6 s for 1 MB)."""
    short = word.replace("a" * 1_000_000, "a" * 10)
    assert lines_run(tokenize, "echo " + word) <= lines_run(tokenize, "echo " + short) + 5
    assert tokenize("echo " + word)[1].text == word.strip('"')


def test_escapes_cost_lines_in_proportion():
    one = lines_run(tokenize, "echo " + "\\a" * 1000)
    ten = lines_run(tokenize, "echo " + "\\a" * 10_000)
    assert ten <= 10 * one + 50
    assert tokenize("echo " + "\\a" * 10_000)[1].text == "a" * 10_000
