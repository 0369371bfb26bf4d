"""Skills' scripts as commands, `commands` and `man` in real Chromium: a skill's `.jsh` runs in
its Web Worker and its `.py` in Pyodide by name, and `man` reads the reference the wheel ships
(docs/shell.md, "Scripts"; py_vfs/shell/manual.py)."""

from __future__ import annotations

import pytest

from .conftest import js

WITHIN = """
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
const sh = (line) => within(vfs.shell(line), 60000, line);
"""

FILES = {
    "/workspace/skills/shout/SKILL.md": "---\nname: shout\ndescription: upper-case text\n---\n",
    "/workspace/skills/shout/scripts/shout.jsh":
        "for await (const chunk of process.stdin) "
        "await process.stdout.write(new TextDecoder().decode(chunk).toUpperCase());",
    "/workspace/skills/shout/count.py":
        "import sys\nprint(len(sys.stdin.read()), sys.argv[1:])\n",
    "/workspace/.claude/skills/proj/SKILL.md": "---\nname: proj\n---\n",
    "/workspace/.claude/skills/proj/hello.jsh": "console.log('hello', process.argv[2]);",
}


@pytest.fixture(scope="module")
def page(app):
    """The app with this module's skills written to its disk."""
    js(app, """
      for (const [path, text] of Object.entries(args[0])) {
        await vfs.mkdir(path.slice(0, path.lastIndexOf("/")), {recursive: true});
        await vfs.writeFile(path, text);
      }""", FILES)
    return app


def shell(page, line: str) -> tuple[str, str, int]:
    result = js(page, WITHIN + "return await sh(args[0]);", line)
    return result["stdout"], result["stderr"], result["code"]


def test_skills_scripts_run_by_name_in_their_realms(page):
    assert shell(page, "echo hi | shout | count a") == ("3 ['a']\n", "", 0)
    assert shell(page, "cd /workspace && hello you") == ("hello you\n", "", 0)
    assert shell(page, "type shout") == (
        "shout is /workspace/skills/shout/scripts/shout.jsh\n", "", 0)


def test_commands_lists_them_and_man_reads_the_shipped_reference(page):
    out, err, code = shell(page, "commands | grep skill")
    assert (err, code) == ("", 0)
    assert [line.split() for line in out.splitlines()] == [
        ["count", "skill", "shout:", "/workspace/skills/shout/count.py"],
        ["hello", "skill", "proj:", "/workspace/.claude/skills/proj/hello.jsh"],
        ["shout", "skill", "shout:", "/workspace/skills/shout/scripts/shout.jsh"]]
    out, err, code = shell(page, "man ls | head -1; man skill | head -1; man shout | head -2")
    assert (out, err, code) == (
        "ls [-1AaCdFhlRrStx] [--color[=WHEN]] [PATH...]\n"
        "# skill: skills and their scripts as commands\n---\nname: shout\n", "", 0)
