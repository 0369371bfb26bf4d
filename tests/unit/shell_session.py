"""One VFS and one shell on one event loop: the shell tests' way to run lines."""

from __future__ import annotations

import asyncio

from py_vfs import VFS
from py_vfs.shell import Shell, ShellResult


class Session:
    """One VFS and one shell on one event loop."""

    def __init__(self) -> None:
        self.vfs = VFS.memory()
        self.runner = asyncio.Runner()
        self.shell = Shell(self.vfs)

    def __call__(self, line: str) -> ShellResult:
        return self.runner.run(self.shell.run(line))
