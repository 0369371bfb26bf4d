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
# Where the shell differs on purpose (docs/shell.md): a builtin's message names the command
# alone, not "bash: line 1: printf:".
CASES += [["printf %d abc", "0", "printf: abc: invalid number\n", 1]]


def run_line(line: str) -> tuple[str, str, int]:
    """stdout, stderr and status of ``line`` run by a new shell on a disk holding FILES."""
    async def scenario():
        vfs = VFS.memory()
        for name, content in FILES.items():
            await vfs.write_file(f"/{name}", content)
        result = await Shell(vfs).run(line)
        return result.stdout, result.stderr, result.code
    return asyncio.run(scenario())


@pytest.mark.parametrize(("line", "stdout", "stderr", "status"), CASES,
                         ids=[case[0] for case in CASES])
def test_the_same_as_gnu(line: str, stdout: str, stderr: str, status: int) -> None:
    assert list(run_line(line)) == [stdout, stderr, status]
