"""What the tests of mounted host folders share: a small real folder, and how to run a call and
take the POSIX code it fails with."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers import run

from py_vfs import FsError


def code_of(call) -> str:
    """The code of the FsError that `call()` (sync, or returning a coroutine) raises."""
    try:
        result = call()
        if asyncio.iscoroutine(result):
            run(result)
    except FsError as error:
        return error.code
    raise AssertionError("no FsError was raised")


def make_folder(tmp_path: Path) -> Path:
    """A real folder holding src/main.py and README.md."""
    root = tmp_path / "folder"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# project\n")
    return root
