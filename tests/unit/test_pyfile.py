"""``open()`` on the VFS (pyhost/pyfile.py) against ``open()`` on Linux: the same steps run on a
real temporary directory and on a disk, and every result (values, and for errors the exception's
class and errno) must be equal. The disk runs on its own loop in a thread
(``py_vfs.core.blocking.ThreadLoop``), as a synchronous caller reaches it on CPython.

Where the two are meant to differ, the step says so (docs/python.md): a write is committed at
``close()``, so a file opened ``w`` keeps its old content for other readers until then, and a
file opened for writing only does not seek."""

from __future__ import annotations

import io
import os
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

if sys.platform == "emscripten":
    pytest.skip("the disk's loop runs in a thread here, and Pyodide has no threads",
                allow_module_level=True)

from py_vfs import VFS
from py_vfs.core.blocking import ThreadLoop
from py_vfs.pyhost.pyfile import open_file

MiB = 1 << 20


class Side:
    """One side of the comparison: ``open`` and the file operations the steps use."""

    def __init__(self, root: str, opener: Callable[..., Any], setup: Callable[..., Any]) -> None:
        self.root = root
        self.opener = opener
        self.setup = setup

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"

    def open(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.opener(self.path(name), *args, **kwargs)


@pytest.fixture
def sides(tmp_path):
    runner = ThreadLoop()
    vfs = runner.run(_memory())
    runner.call(vfs.mkdir, "/t")

    def vfs_setup(name: str, data: bytes) -> None:
        runner.call(vfs.write_file, f"/t/{name}", data)

    def linux_setup(name: str, data: bytes) -> None:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)

    yield (Side(str(tmp_path), open, linux_setup),
           Side("/t", lambda path, *a, **k: open_file(runner, vfs, path, *a, **k), vfs_setup))
    runner.close()


async def _memory() -> VFS:
    return VFS.memory()


def outcome(step: Callable[[Side], Any], side: Side) -> Any:
    try:
        return ("value", step(side))
    except OSError as exc:
        builtin = next(cls for cls in type(exc).__mro__ if cls.__module__ == "builtins")
        return ("error", builtin, exc.errno)
    except (ValueError, io.UnsupportedOperation) as exc:
        return ("error", type(exc).__name__)


def read_all(side: Side, name: str, mode: str = "rb") -> Any:
    with side.open(name, mode) as f:
        return f.read()


def write(side: Side, name: str, data: Any, mode: str = "wb") -> Any:
    with side.open(name, mode) as f:
        return f.write(data)


STEPS: dict[str, Callable[[Side], Any]] = {
    "read bytes": lambda s: read_all(s, "a.txt"),
    "read text": lambda s: read_all(s, "a.txt", "r"),
    "read missing": lambda s: read_all(s, "missing"),
    "read a directory": lambda s: read_all(s, "d"),
    "read past a file": lambda s: read_all(s, "a.txt/x"),
    "readline iteration": lambda s: list(s.open("a.txt")),
    "readlines": lambda s: s.open("a.txt").readlines(),
    "read(n) then tell": lambda s: (lambda f: (f.read(3), f.tell()))(s.open("a.txt", "rb")),
    "seek end and read": lambda s: (lambda f: (f.seek(-4, os.SEEK_END), f.read()))(
        s.open("a.txt", "rb")),
    "seek past the end": lambda s: (lambda f: (f.seek(100), f.read()))(s.open("a.txt", "rb")),
    "seek before the start": lambda s: s.open("a.txt", "rb").seek(-1),
    "text tell and seek back": lambda s: (lambda f: (f.readline(), f.tell(), f.seek(0),
                                                     f.readline()))(s.open("a.txt")),
    "write then read": lambda s: (write(s, "new.txt", b"hello\n"), read_all(s, "new.txt")),
    "write text": lambda s: (write(s, "t.txt", "é\n", "w"), read_all(s, "t.txt")),
    "write replaces": lambda s: (write(s, "a.txt", b"x"), read_all(s, "a.txt")),
    "append": lambda s: (write(s, "a.txt", b"+", "ab"), read_all(s, "a.txt")),
    "append creates": lambda s: (write(s, "app.txt", b"1", "ab"), read_all(s, "app.txt")),
    "x on an existing file": lambda s: s.open("a.txt", "xb"),
    "x creates": lambda s: (write(s, "x.txt", b"x", "xb"), read_all(s, "x.txt")),
    "w into a missing directory": lambda s: s.open("nodir/f", "wb"),
    "w on a directory": lambda s: s.open("d", "wb"),
    "open w makes the file at once": lambda s: (s.open("made.txt", "w"),
                                                 read_all(s, "made.txt"))[1],
    "r+ overwrites in place": lambda s: (lambda f: (f.seek(2), f.write(b"ZZ"), f.close(),
                                                    read_all(s, "a.txt")))(s.open("a.txt", "r+b")),
    "r+ on a missing file": lambda s: s.open("missing", "r+b"),
    "w+ reads what it wrote": lambda s: (lambda f: (f.write(b"abc"), f.seek(0), f.read()))(
        s.open("wplus", "w+b")),
    "a+ writes at the end": lambda s: (lambda f: (f.seek(0), f.write(b"!"), f.seek(0),
                                                  f.read()))(s.open("a.txt", "a+b")),
    "write past the end fills zeros": lambda s: (lambda f: (f.seek(10), f.write(b"z"),
                                                            f.close(), read_all(s, "a.txt")))(
        s.open("a.txt", "r+b")),
    "truncate": lambda s: (lambda f: (f.truncate(3), f.close(), read_all(s, "a.txt")))(
        s.open("a.txt", "r+b")),
    "read on a write-only file": lambda s: s.open("w.txt", "wb").read(),
    "write on a read-only file": lambda s: s.open("a.txt", "rb").write(b"x"),
    "read after close": lambda s: (lambda f: (f.close(), f.read()))(s.open("a.txt", "rb")),
    "context manager closes": lambda s: (lambda f: (f.__exit__(None, None, None), f.closed))(
        s.open("a.txt").__enter__()),
    "bad mode": lambda s: s.open("a.txt", "rw"),
    "binary with encoding": lambda s: s.open("a.txt", "rb", encoding="utf-8"),
    "unbuffered text": lambda s: s.open("a.txt", "r", buffering=0),
    "unbuffered binary read": lambda s: (lambda f: (f.read(2), f.read(), f.read()))(
        s.open("a.txt", "rb", buffering=0)),
    "newline translation": lambda s: (write(s, "nl.txt", b"a\r\nb\rc\n"),
                                       s.open("nl.txt", newline=None).read(),
                                       s.open("nl.txt", newline="").read()),
    "bad utf-8 with errors": lambda s: (write(s, "bad.txt", b"\xff\xfeok"),
                                         s.open("bad.txt", errors="replace").read()),
    "bad utf-8 raises": lambda s: (write(s, "bad2.txt", b"\xff"),
                                    _decode_error(s, "bad2.txt")),
    "empty file": lambda s: (write(s, "empty", b""), read_all(s, "empty")),
    "name and mode": lambda s: (lambda f: (f.name.rsplit("/", 1)[1], f.mode))(
        s.open("a.txt", "r")),
}


def _decode_error(side: Side, name: str) -> str:
    try:
        side.open(name).read()
    except UnicodeDecodeError as exc:
        return exc.reason
    return "no error"


@pytest.mark.parametrize("name", sorted(STEPS))
def test_open_on_the_disk_does_what_open_on_linux_does(sides, name):
    results = []
    for side in sides:
        side.setup("a.txt", b"first line\nsecond\nthird line\n")
        side.setup("d/inner", b"")
        results.append(outcome(STEPS[name], side))
    linux, ours = results
    assert ours == linux


def test_the_differential_suite_has_at_least_forty_steps():
    assert len(STEPS) >= 40


def test_a_big_file_read_line_by_line_holds_about_one_chunk():
    runner = ThreadLoop()
    try:
        vfs = runner.run(_memory())
        line = b"x" * 99 + b"\n"
        with open_file(runner, vfs, "/big.txt", "wb") as f:
            for _ in range(16 * MiB // len(line)):
                f.write(line)
        tracemalloc.start()
        count = 0
        with open_file(runner, vfs, "/big.txt", "r") as f:
            for _ in f:
                count += 1
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        runner.close()
    assert count == 16 * MiB // len(line)
    assert peak < 4 * MiB, f"peak {peak / MiB:.1f} MiB reading a 16 MiB file line by line"


def test_a_write_is_committed_at_close_and_readers_see_the_old_content_until_then():
    runner = ThreadLoop()
    try:
        vfs = runner.run(_memory())
        runner.call(vfs.write_file, "/f", b"old")
        f = open_file(runner, vfs, "/f", "wb")
        f.write(b"new" * MiB)
        f.flush()
        assert runner.call(vfs.read_file, "/f") == b"old"
        f.close()
        assert runner.call(vfs.read_file, "/f") == b"new" * MiB
    finally:
        runner.close()
