"""The SQLite-file store (CPython): durable commits, atomic failure, and the command line."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from py_vfs import VFS, FsError
from py_vfs.storage.sqlite import SQLiteStore


def test_a_disk_file_survives_reopening(tmp_path):
    disk = tmp_path / "disk.db"

    async def scenario():
        first = await VFS.open(SQLiteStore(disk))
        await first.write_file("/d/big.bin", b"x" * (700 * 1024) + b"end")
        await first.symlink("big.bin", "/d/link")
        await first.rename("/d", "/e")
        first.close()
        second = await VFS.open(SQLiteStore(disk))
        assert second.readdir("/e") == ["big.bin", "link"]
        assert (await second.read_file("/e/link"))[-3:] == b"end"
        await second.rm("/e", recursive=True)
        # The journal keeps the removed file's chunks for time travel, and brings it back.
        assert len(await second.store.get_all("chunks")) == 2
        await second.restore(revision=second.revision - 1)
        assert (await second.read_file("/e/big.bin"))[-3:] == b"end"
        second.close()

    asyncio.run(scenario())


def test_a_failing_batch_leaves_the_file_unchanged(tmp_path):
    store = SQLiteStore(tmp_path / "disk.db")

    async def scenario():
        await store.commit([("put", "nodes", "a", "1")])
        with pytest.raises(ValueError):
            await store.commit([("put", "nodes", "b", "2"), ("put", "bogus", "c", "3")])
        assert await store.get_all("nodes") == [("a", "1")]

    asyncio.run(scenario())
    store.close()


@pytest.mark.skipif(sys.platform == "emscripten", reason="Emscripten (Pyodide) has no processes")
def test_command_line_shell(tmp_path):
    disk = str(tmp_path / "cli.db")
    run = [sys.executable, "-m", "py_vfs", "shell", "--disk", disk, "-c"]
    made = subprocess.run([*run, "mkdir -p /w && echo hi > /w/f"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    read = subprocess.run([*run, "cat /w/f"], capture_output=True, text=True)
    assert (read.returncode, read.stdout) == (0, "hi\n")
    missing = subprocess.run([*run, "cat /nope"], capture_output=True, text=True)
    assert missing.returncode == 1
    assert missing.stderr == "cat: /nope: No such file or directory\n"
    typed = subprocess.run([sys.executable, "-m", "py_vfs", "shell", "--disk", disk],
                           input="cd /w\ncat f\n", capture_output=True, text=True)
    assert "hi\n" in typed.stdout


def test_errors_do_not_reach_the_disk(tmp_path):
    disk = tmp_path / "disk.db"

    async def scenario():
        vfs = await VFS.open(SQLiteStore(disk))
        await vfs.write_file("/f", "1")
        with pytest.raises(FsError):
            await vfs.write_file("/f/child", "x")
        vfs.close()
        again = await VFS.open(SQLiteStore(disk))
        assert again.readdir("/") == ["f"]
        again.close()

    asyncio.run(scenario())
