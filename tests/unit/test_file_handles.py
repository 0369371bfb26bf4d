"""The worker's FileHandle descriptors (py_vfs/web/file_handles.py) over a real disk in memory:
positions, flags, several handles on one file, and what reaches the disk when (an append at
once; a write inside the file at sync or close, rewriting only what changed)."""

from __future__ import annotations

import asyncio

import pytest

from py_vfs.core.errors import FsError
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.vfs import VFS
from py_vfs.web.file_handles import FileHandles


def run(coro):
    return asyncio.run(coro)


def test_reads_and_writes_at_positions_and_at_the_current_one(vfs: VFS) -> None:
    async def go() -> None:
        files = FileHandles(vfs)
        fd = await files.open("/f", "w+")
        assert await files.write(fd, b"hello world") == 11
        assert await vfs.read_file("/f") == b"hello world"  # an append: at once
        await files.write(fd, b"HELLO", 0)
        assert await files.read(fd, 5, 0) == b"HELLO"
        assert await vfs.read_file("/f") == b"hello world"  # pending until sync
        assert await files.read(fd, 3) == b""  # the position is at the end
        await files.sync(fd)
        assert await vfs.read_file("/f") == b"HELLO world"
        await files.write(fd, b"!", 20)  # past the end: zeros between
        assert files.stat(fd)["size"] == 21
        await files.close(fd)
        assert await vfs.read_file("/f") == b"HELLO world" + bytes(9) + b"!"
        with pytest.raises(FsError) as caught:
            await files.read(fd, 1)
        assert (caught.value.code, caught.value.syscall) == ("EBADF", "read")
    run(go())


def test_flags_as_linux(vfs: VFS) -> None:
    async def go() -> None:
        files = FileHandles(vfs)
        await vfs.write_file("/f", b"abc")
        for flag, code in (("wx", "EEXIST"), ("r", None)):
            if code:
                with pytest.raises(FsError) as caught:
                    await files.open("/f", flag)
                assert caught.value.code == code
        with pytest.raises(FsError) as caught:
            await files.open("/missing", "r+")
        assert caught.value.code == "ENOENT"
        ro = await files.open("/f", "r")
        with pytest.raises(FsError) as caught:
            await files.write(ro, b"x")
        assert (caught.value.code, caught.value.syscall) == ("EBADF", "write")
        ap = await files.open("/f", "a")
        await files.write(ap, b"Z", 0)  # an append handle writes at the end whatever the position
        assert await files.read(ro, 10) == b"abcZ"
        rw = await files.open("/f", "r+")
        await files.write(rw, b"X")
        assert await files.read(ro, 10, 0) == b"Xbc" + b"Z"  # another handle sees it at once
        for fd in (ro, ap, rw):
            await files.close(fd)
        assert await vfs.read_file("/f") == b"XbcZ"
    run(go())


def test_a_write_inside_a_large_file_touches_one_chunk(vfs: VFS) -> None:
    async def go() -> None:
        files = FileHandles(vfs)
        body = bytes(range(256)) * (3 * CHUNK_SIZE // 256)
        await vfs.write_file("/big", body)
        fd = await files.open("/big", "r+")
        await files.write(fd, b"XY", CHUNK_SIZE - 1)  # across chunks 0 and 1
        assert files.pending() == {"/big": [0, 1]}
        await files.truncate(fd, CHUNK_SIZE + 1)
        await files.close(fd)
        expected = body[:CHUNK_SIZE - 1] + b"XY"
        assert await vfs.read_file("/big") == expected
    run(go())


def test_a_page_gone_drops_its_descriptors_and_unsynced_writes(vfs: VFS) -> None:
    async def go() -> None:
        files = FileHandles(vfs)
        await vfs.write_file("/f", b"abc")
        fd = await files.open("/f", "r+")
        await files.write(fd, b"X")
        files.forget()
        assert len(files) == 0 and files.pending() == {}
        assert await vfs.read_file("/f") == b"abc"
        with pytest.raises(FsError):
            files.stat(fd)
    run(go())
