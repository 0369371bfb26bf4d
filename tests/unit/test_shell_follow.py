"""Ctrl-C in the text commands that wait or walk: `tail -f` follows appends made later (here
and by another writer on the disk) until its signal is aborted; `grep -r` over many files stops
at its next file. Each ends with status 130 and prints nothing about it, as bash."""

from __future__ import annotations

import asyncio
import functools

import helpers

from py_vfs import VFS
from py_vfs.core import cancel
from py_vfs.shell import Shell
from py_vfs.shell.pipes import Emit


async def until(what: str, ready) -> None:
    """Yield to the loop until ``ready()``; bounded by run()'s 60 s (fails naming the wait)."""
    while not ready():
        await asyncio.sleep(0.001)
    assert ready(), what


run = functools.partial(helpers.run, bound=60)


def test_tail_f_prints_appends_made_later_then_stops_on_ctrl_c():
    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/log", "one\ntwo\nthree\n")
        shown = bytearray()

        async def show(data: bytes) -> None:
            shown.extend(data)

        signal = cancel.Signal()
        token = cancel.SIGNAL.set(signal)
        try:
            running = asyncio.ensure_future(
                Shell(vfs).run("tail -n 2 -f /log; echo after", stdout=Emit(show)))
        finally:
            cancel.SIGNAL.reset(token)
        await until("tail prints the end of the file", lambda: shown == b"two\nthree\n")
        other = vfs.as_writer("agent")  # another writer of the same disk
        await other.append_file("/log", "four\n")
        await until("tail prints the appended line", lambda: shown.endswith(b"four\n"))
        await vfs.write_file("/log", "new\n")  # shorter: reported, followed from its start
        await until("tail prints the file after it was cut", lambda: shown.endswith(b"new\n"))
        signal.abort()
        return await running, bytes(shown)
    result, shown = run(scenario())
    assert shown == b"two\nthree\nfour\nnew\n"
    assert (result.stderr, result.code) == ("tail: /log: file truncated\n", 130)  # GNU: quotef


def test_grep_r_over_many_files_stops_at_ctrl_c():
    async def scenario():
        vfs = VFS.memory()
        for i in range(300):
            await vfs.write_file(f"/tree/d{i % 10}/f{i}.txt", f"needle {i}\n")
        signal = cancel.Signal()
        lines = []

        async def show(data: bytes) -> None:
            lines.extend(data.decode().splitlines())
            signal.abort()  # Ctrl-C as soon as the first match shows

        token = cancel.SIGNAL.set(signal)
        try:
            result = await Shell(vfs).run("grep -r needle /tree; echo after",
                                          stdout=Emit(show))
        finally:
            cancel.SIGNAL.reset(token)
        return result, lines
    result, lines = run(scenario())
    assert (result.stderr, result.code) == ("", 130)
    assert 1 <= len(lines) < 300 and "after" not in lines
