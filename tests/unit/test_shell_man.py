"""`man` (py_vfs/shell/manual.py, commands/man_cmd.py): a command's section of docs/shell.md,
the topic pages, a skill's SKILL.md, unknown names, and the pager on a terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers import run
from shell_session import outcome as sh

from py_vfs import VFS
from py_vfs.shell import Shell, manual
from py_vfs.shell.commands import COMMANDS
from py_vfs.shell.pipes import Collect

REFERENCE = (Path(__file__).resolve().parents[2] / "docs" / "shell.md").read_text("utf-8")


@pytest.fixture
def shell() -> Shell:
    vfs = VFS.memory()
    run(vfs.mkdir("/workspace/bin", recursive=True))
    return Shell(vfs)


def on_terminal(shell: Shell, line: str) -> tuple[str, str, int]:
    """Run ``line`` with its output on a terminal (``isatty``)."""
    out, err = Collect(isatty=True), Collect()
    result = asyncio.run(shell.run(line, stdout=out, stderr=err))
    return out.text(), err.text(), result.code


def test_every_command_has_a_page_that_is_its_section_of_the_reference():
    for spec in COMMANDS.values():
        page = manual.page(spec.name)
        assert page is not None, spec.name
        assert spec.usage in page.splitlines()[:40], spec.name
    section = manual.command_section("wc")
    assert section.startswith("wc [-l] [-w] [-m] [-c] [FILE...]\n\nPrints newline, word")
    body = REFERENCE.split("### `wc [-l] [-w] [-m] [-c] [FILE...]`\n", 1)[1].split("\n### ")[0]
    assert section == "wc [-l] [-w] [-m] [-c] [FILE...]\n" + body.rstrip() + "\n"


def test_man_prints_a_section_and_the_status_is_zero(shell):
    out, err, code = sh(shell, "man ls")
    assert (err, code) == ("", 0)
    assert out.startswith("ls [-1AaCdFhlRrStx] [--color[=WHEN]] [PATH...]\n\nLists PATHs")
    assert "### " not in out  # one section, none after it
    assert sh(shell, "man [ | head -1") == ("[ EXPR ]\n", "", 0)
    out, _, _ = sh(shell, "man cd pwd")
    assert out.startswith("cd [DIR|-]\n") and "\npwd\n" in out


def test_topic_pages(shell):
    for topic, first in (("skill", "# skill:"), ("jsh", "# jsh:"), ("scoop", "# scoop:")):
        out, err, code = sh(shell, f"man {topic}")
        assert (err, code) == ("", 0) and out.startswith(first), topic
    # scoop is a command too: its section follows the topic page.
    assert "\nscoop [--network] NAME\n\nOpens a shell inside the scoop" in sh(shell, "man scoop")[0]
    assert "SKILL.md" in sh(shell, "man skill")[0]


def test_unknown_names_and_no_name_fail_as_man(shell):
    assert sh(shell, "man nosuch; echo $?") == ("1\n", "No manual entry for nosuch\n", 0)
    out, err, code = sh(shell, "man ls nosuch")
    assert out.startswith("ls ") and (err, code) == ("No manual entry for nosuch\n", 1)
    assert sh(shell, "man") == (
        "", "What manual page do you want?\nFor example, try 'man man'.\n", 1)
    assert sh(shell, "man -k x") == (
        "", "man: invalid option -- 'k'\nTry 'man --help' for more information.\n", 2)
    # Names are shown, never interpreted by the terminal.
    assert sh(shell, "man $'\\033[2J'")[1] == "No manual entry for \\033[2J\n"


def test_a_skills_script_shows_its_skills_skill_md(shell):
    text = "---\nname: notes\ndescription: take notes\n---\n\n# notes\n"
    run(shell.vfs.write_file("/workspace/skills/notes/SKILL.md", text))
    run(shell.vfs.write_file("/workspace/skills/notes/scripts/jot.py", "print(1)\n"))
    assert sh(shell, "man jot") == (text, "", 0)
    # A builtin's page wins over a skill's script of that name, as the builtin runs.
    run(shell.vfs.write_file("/workspace/skills/notes/cat.py", "print(1)\n"))
    assert sh(shell, "man cat")[0].startswith("cat [")
    # A script in $PATH has no page.
    run(shell.vfs.write_file("/workspace/bin/mine.py", "print(1)\n"))
    assert sh(shell, "man mine")[1:] == ("No manual entry for mine\n", 1)


def test_on_a_terminal_the_pager_shows_it_when_there_is_one(shell):
    # No pager anywhere: printed as it is, even on a terminal.
    plain = sh(shell, "man pwd")[0]
    assert on_terminal(shell, "man pwd") == (plain, "", 0)
    # less (a function here, as a script could be) gets the page on its standard input.
    sh(shell, "less() { echo \"less $#\"; wc -l; }")
    lines = plain.count("\n")
    assert on_terminal(shell, "man pwd") == (f"less 0\n{lines}\n", "", 0)
    # $PAGER (with its words) first, when it names a command; a pipe is never paged.
    assert on_terminal(shell, "PAGER='head -n 1' man pwd") == ("pwd\n", "", 0)
    assert on_terminal(shell, "PAGER=nosuch man pwd") == (f"less 0\n{lines}\n", "", 0)
    assert on_terminal(shell, "MANPAGER=cat PAGER=nosuch man pwd") == (plain, "", 0)
    assert on_terminal(shell, "man pwd | head -1") == ("pwd\n", "", 0)
    # Unknown names are reported and the status kept, around the pager.
    assert on_terminal(shell, "MANPAGER=cat man nosuch pwd") == (
        plain, "No manual entry for nosuch\n", 1)


def test_the_package_reference_is_docs_shell_md_and_its_absence_is_no_page(monkeypatch):
    # pages/shell.md links to docs/shell.md (the wheel holds the file: test_wheel_install.py).
    assert manual.reference() == REFERENCE
    monkeypatch.setattr(manual, "REFERENCE", "missing.md")
    manual.reference.cache_clear()
    try:
        assert manual.reference() is None and manual.page("ls") is None
        assert manual.page("jsh") is not None  # the topics ship in the package
    finally:
        monkeypatch.undo()
        manual.reference.cache_clear()
