"""One VFS and one shell on one event loop: the shell tests' way to run lines and check them
(the ``sh`` fixture of conftest.py is one, closed after the test)."""

from __future__ import annotations

import asyncio
import calendar
import re
import time

from py_vfs import VFS
from py_vfs.hosts.preview import LocalPreviews
from py_vfs.shell import Shell, ShellResult


class Session:
    """One VFS and one shell, driven on a single event loop (pytest-asyncio is not installed)."""

    def __init__(self, preview_base: str = "/preview/") -> None:
        self.vfs = VFS.memory()
        self.previews = LocalPreviews(preview_base)
        self.shell = Shell(self.vfs, previews=self.previews)
        self.runner = asyncio.Runner()

    def opened(self, result: ShellResult) -> list[tuple[str, str, str]]:
        """What each URL `open`/`serve` handed out names: (root, kind, path inside the root),
        checking that its token is a fresh unguessable one under the preview base."""
        named = []
        for url in result.open_urls:
            token, _, inside = url.removeprefix(self.previews.base).partition("/")
            assert url.startswith(self.previews.base) and re.fullmatch(r"[\w-]{22}", token), url
            named.append((*self.previews.roots[token], inside))
        return named

    def __call__(self, line: str) -> ShellResult:
        return self.runner.run(self.shell.run(line))

    def ok(self, line: str) -> str:
        """Run a line that must succeed silently on stderr; return its stdout."""
        result = self(line)
        assert (result.code, result.stderr) == (0, ""), result
        return result.stdout

    def read(self, path: str) -> bytes:
        return self.runner.run(self.vfs.read_file(path))

    def text(self, path: str) -> str:
        return self.read(path).decode()

    def write(self, path: str, data: bytes | str) -> None:
        self.runner.run(self.vfs.write_file(path, data))

    def symlink(self, target: str, path: str) -> None:
        self.runner.run(self.vfs.symlink(target, path))

    def set_mtime(self, path: str, when: str) -> None:
        """Give a node a known mtime, `when` being "YYYY-mm-dd HH:MM" in UTC."""
        ms = calendar.timegm(time.strptime(when, "%Y-%m-%d %H:%M")) * 1000
        self.runner.run(self.vfs.utimes(path, ms, ms))


def fail(result: ShellResult, code: int, stderr: str) -> None:
    """The line failed with ``code`` and exactly ``stderr``."""
    assert (result.code, result.stderr) == (code, stderr), result


def outcome(shell: Shell, line: str) -> tuple[str, str, int]:
    """Run ``line`` in ``shell`` on a loop of its own: (stdout, stderr, status)."""
    result = asyncio.run(shell.run(line))
    return result.stdout, result.stderr, result.code
