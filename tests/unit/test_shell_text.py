"""The text commands against GNU: each case is a command line with the stdout, stderr and status
that GNU bash 5 and coreutils 9 gave for it (LC_ALL=C, TZ=UTC) in a directory holding FILES
(tests/gen_shell_text_cases.py regenerates shell_text_cases.json from shell_text_lines.txt);
here the shell runs it on a memory disk holding FILES at its root, without bash."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from py_vfs import VFS
from py_vfs.shell import Shell

DATA = json.loads((Path(__file__).parent / "shell_text_cases.json").read_text("utf-8"))
FILES: dict[str, str] = DATA["files"]
CASES: list[list] = DATA["cases"]
# Where the shell differs on purpose (docs/shell.md): a command xargs cannot find is reported
# by the shell that runs it; jq's syntax errors quote the program without the space jq 1.6 adds.
DIFFERENT = {
    "echo x | xargs nosuchcmd": ["", "sh: nosuchcmd: command not found\n", 127],
    "echo '{\"a\":1}' | jq '.['": [
        "", "jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at "
            "<top-level>, line 1:\n.[\njq: 1 compile error\n", 3],
}
CASES = [[case[0], *DIFFERENT.get(case[0], case[1:])] for case in CASES]
# printf is a builtin of bash: its error is the shell's (bash: "bash: line 1: printf: ...").
CASES += [["printf %d abc", "0", "sh: printf: abc: invalid number\n", 1]]


def run_line(line: str) -> tuple[str, str, int]:
    """stdout, stderr and status of ``line`` run by a new shell on a disk holding FILES."""
    async def scenario():
        vfs = VFS.memory()
        for name, content in FILES.items():
            await vfs.write_file(f"/{name}", content)
        result = await Shell(vfs).run(line)
        return result.stdout, result.stderr, result.code
    return asyncio.run(scenario())


# A pipeline runs its stages as tasks, which Pyodide's tier cannot run (tests/unit/aio.py):
# the lines with a pipe are in test_shell_text_pipes.py, which skips itself there.
ALONE = [case for case in CASES if "|" not in case[0]]


@pytest.mark.parametrize(("line", "stdout", "stderr", "status"), ALONE,
                         ids=[case[0] for case in ALONE])
def test_the_same_as_gnu(line: str, stdout: str, stderr: str, status: int) -> None:
    assert list(run_line(line)) == [stdout, stderr, status]





def test_diff_of_states_still_lists_what_changed_since_a_snapshot():
    """`diff NAME` with no file of that name is the disk's state diff (commands/history.py)."""
    stdout, _, status = run_line("snapshot before; echo hi > new.txt; diff before")
    assert (stdout.splitlines()[-1], status) == ("A\t/new.txt", 0)


def test_sed_i_rewrites_each_file_in_one_write():
    """`sed -i` on two files: each gets one change in the journal (a reader never sees half)."""
    async def scenario():
        vfs = VFS.memory()
        for name, content in FILES.items():
            await vfs.write_file(f"/{name}", content)
        result = await Shell(vfs).run("sed -i 's/a/A/g' f.txt g.txt")
        changes = {name: [entry for entry in await vfs.journal(path=f"/{name}")
                          if entry["writer"] == "shell"] for name in ("f.txt", "g.txt")}
        return result, changes, await vfs.read_file("/f.txt")
    result, changes, content = asyncio.run(scenario())
    assert (result.stdout, result.stderr, result.code) == ("", "", 0)
    assert [len(entries) for entries in changes.values()] == [1, 1]
    assert content == FILES["f.txt"].replace("a", "A").encode()
