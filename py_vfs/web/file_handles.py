"""The worker's side of the JS API's ``FileHandle`` (``open()`` of node:fs/promises): open
files by descriptor, each with its flags and position, reading and writing at positions.

A handle follows its path, resolved (``realpath``) when it opens: the disk addresses files by
path, so after a rename the handle sees what is at the old path (ENOENT when nothing is).

Every handle on one file shares one ``OpenFile``: the file's pending bytes, as the page cache of
Linux is shared, so a write through one handle is read at once through another. A write at the
end of what is on the disk, with nothing pending, is appended to the disk at once (the disk
rewrites only its last partial chunk). Any other write stays pending in the chunks it touches
(each read from the disk once, at most one chunk each) and reaches the disk at ``sync()`` or at
``close()``, as one commit: the file is rewritten as a stream, chunk by chunk, and the chunks
that did not change are the same content-addressed chunks, never stored twice. Until then the
path's own calls (``readFile``, ``stat``) see the file as it was; the handles see their writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import FsError
from ..disk.content import CHUNK_SIZE
from .open_flags import OpenFlags, is_flag, opened, parse

FIRST_FD = 20  # descriptors are small numbers, as Node's, but not 0-2


@dataclass
class OpenFile:
    """One file's state shared by its handles: its size on the disk (``committed``), its size
    with the pending writes (``size``) and the chunks the pending writes touched."""

    path: str
    committed: int
    size: int
    dirty: dict[int, bytearray] = field(default_factory=dict)
    users: int = 0

    def fit(self, data: bytes | bytearray, index: int) -> bytearray:
        """Chunk ``index`` as the file holds it now: cut or zero-filled to its length."""
        want = max(0, min(CHUNK_SIZE, self.size - index * CHUNK_SIZE))
        out = bytearray(data[:want])
        out.extend(bytes(want - len(out)))
        return out


@dataclass
class Handle:
    """One open descriptor: its file, flags and position."""

    file: OpenFile
    flags: OpenFlags
    position: int = 0


class FileHandles:
    """The open descriptors of one WebAPI (one tab's, or one view's), over ``v``."""

    def __init__(self, v: Any) -> None:
        self.v = v
        self._handles: dict[int, Handle] = {}
        self._files: dict[str, OpenFile] = {}
        self._next = FIRST_FD

    def __len__(self) -> int:
        return len(self._handles)

    def pending(self) -> dict[str, list[int]]:
        """Diagnostics: the chunks of each open file that wait for ``sync()``, by path."""
        return {path: sorted(file.dirty) for path, file in self._files.items()}

    def table(self) -> dict[str, Any]:
        """The operations, by their protocol names."""
        return {"fileOpen": self.open, "fileRead": self.read, "fileWrite": self.write,
                "fileStat": self.stat, "fileTruncate": self.truncate, "fileSync": self.sync,
                "fileClose": self.close, "fileChmod": self.chmod, "fileUtimes": self.utimes}

    async def open(self, path: str, flag: str | int | None = None,
                   mode: int | None = None) -> int:
        """``open(path, flags, mode)``: checks as Linux's ``open(2)`` (EEXIST, ENOENT, EISDIR
        for a directory opened to write), makes or empties the file as the flags say, and
        answers a new descriptor."""
        if flag is not None and not is_flag(flag):
            raise FsError.of("EINVAL", "open", path)
        flags = parse(flag if flag is not None else "r")
        exists = opened(self.v, path, flags)
        if not exists:
            await self.v.write_file(path, b"", mode=mode, parents=False)
        real = self.v.realpath(path)
        file = self._files.get(real)
        if file is None:
            size = self.v.stat(real).size
            file = self._files[real] = OpenFile(real, size, size)
        if exists and flags.truncate and flags.writable:
            await self.v.truncate(real, 0)
            file.committed = file.size = 0
            file.dirty.clear()
        file.users += 1
        fd = self._next
        self._next += 1
        self._handles[fd] = Handle(file, flags)
        return fd

    def _handle(self, fd: int, syscall: str) -> Handle:
        handle = self._handles.get(fd)
        if handle is None:
            raise FsError.of("EBADF", syscall, None)
        if not handle.file.dirty:  # nothing pending: the disk may have changed meanwhile
            try:
                st = self.v.stat(handle.file.path)
            except FsError:
                st = None
            if st is not None and not st.is_dir:
                handle.file.committed = handle.file.size = st.size
        return handle

    async def _committed(self, file: OpenFile, start: int, end: int) -> bytes:
        """The disk's bytes ``[start, end)`` of the file (fewer past its end)."""
        if start >= min(end, file.committed):
            return b""
        try:
            stream = self.v.open_read(file.path, start, min(end, file.committed))
        except FsError as error:
            raise FsError.of(error.code, "read", None) from None
        return await stream.read_all()

    async def _chunk(self, file: OpenFile, index: int) -> bytearray:
        if index in file.dirty:
            return file.fit(file.dirty[index], index)
        start = index * CHUNK_SIZE
        return file.fit(await self._committed(file, start, start + CHUNK_SIZE), index)

    async def _read_at(self, file: OpenFile, start: int, end: int) -> bytes:
        end = min(end, file.size)
        if start >= end:
            return b""
        if not file.dirty and end <= file.committed:
            return await self._committed(file, start, end)
        out = bytearray()
        for index in range(start // CHUNK_SIZE, (end - 1) // CHUNK_SIZE + 1):
            base = index * CHUNK_SIZE
            chunk = await self._chunk(file, index)
            out += chunk[max(start - base, 0):end - base]
        return bytes(out)

    async def read(self, fd: int, length: int, position: int | None = None) -> bytes:
        """Up to ``length`` bytes at ``position`` (None or negative: the handle's position,
        which then advances); EBADF for a handle not open for reading."""
        handle = self._handle(fd, "read")
        if not handle.flags.readable:
            raise FsError.of("EBADF", "read", None)
        if self.v.exists(handle.file.path) and self.v.stat(handle.file.path).is_dir:
            raise FsError.of("EISDIR", "read", None)
        current = position is None or position < 0
        start = handle.position if current else int(position)
        data = await self._read_at(handle.file, start, start + max(int(length), 0))
        if current:
            handle.position = start + len(data)
        return data

    async def write(self, fd: int, data: bytes, position: int | None = None) -> int:
        """Write ``data`` at ``position`` (None or negative: the handle's position, which then
        advances; an append handle writes at the end whatever the position, as Linux)."""
        handle = self._handle(fd, "write")
        if not handle.flags.writable:
            raise FsError.of("EBADF", "write", None)
        file = handle.file
        current = position is None or position < 0  # a pwrite leaves the position, as Linux
        start = file.size if handle.flags.append else (
            handle.position if position is None or position < 0 else int(position))
        if data and not file.dirty and start == file.committed == file.size:
            await self.v.append_file(file.path, data)
            file.committed = file.size = start + len(data)
        elif data:
            end = start + len(data)
            file.size = max(file.size, end)
            for index in range(start // CHUNK_SIZE, (end - 1) // CHUNK_SIZE + 1):
                base = index * CHUNK_SIZE
                chunk = await self._chunk(file, index)
                lo, hi = max(start, base), min(end, base + CHUNK_SIZE)
                chunk[lo - base:hi - base] = data[lo - start:hi - start]
                file.dirty[index] = chunk
        if current:
            handle.position = start + len(data)
        return len(data)

    async def _flush(self, file: OpenFile) -> None:
        """Commit the pending writes: the file rewritten as a stream, one chunk at a time."""
        if not file.dirty:
            return
        writer = self.v.stream_writer(file.path, parents=False)
        try:
            for index in range((file.size + CHUNK_SIZE - 1) // CHUNK_SIZE):
                await writer.write(bytes(await self._chunk(file, index)))
        except BaseException:
            await writer.abort()
            raise
        await writer.close()
        file.committed = file.size
        file.dirty.clear()

    async def sync(self, fd: int) -> None:
        """``sync()``/``datasync()``: the pending writes reach the disk, durable when this
        resolves."""
        await self._flush(self._handle(fd, "fsync").file)

    async def truncate(self, fd: int, length: int = 0) -> None:
        """``ftruncate``: pending writes committed, then the file cut or zero-extended."""
        handle = self._handle(fd, "ftruncate")
        if not handle.flags.writable:
            raise FsError.of("EINVAL", "ftruncate", None)
        await self._flush(handle.file)
        await self.v.truncate(handle.file.path, max(int(length), 0))
        handle.file.committed = handle.file.size = max(int(length), 0)

    def stat(self, fd: int) -> dict[str, Any]:
        """``fstat``: the file's stats, its size with the pending writes."""
        handle = self._handle(fd, "fstat")
        try:
            stats = self.v.stat(handle.file.path).to_dict()
        except FsError as error:
            raise FsError.of(error.code, "fstat", None) from None
        if stats["type"] == "file":
            stats["size"] = handle.file.size
        return stats

    async def chmod(self, fd: int, mode: int) -> None:
        """``fchmod``."""
        await self._on_path(self._handle(fd, "fchmod"), "fchmod", self.v.chmod, mode)

    async def utimes(self, fd: int, atime_ms: float, mtime_ms: float) -> None:
        """``futimes``."""
        await self._on_path(self._handle(fd, "futime"), "futime", self.v.utimes, atime_ms,
                            mtime_ms)

    async def _on_path(self, handle: Handle, syscall: str, call: Any, *args: Any) -> None:
        try:
            await call(handle.file.path, *args)
        except FsError as error:
            raise FsError.of(error.code, syscall, None) from None

    async def close(self, fd: int) -> None:
        """``close()``: the pending writes committed (durable when this resolves), the
        descriptor freed even if the commit fails."""
        handle = self._handles.pop(fd, None)
        if handle is None:
            raise FsError.of("EBADF", "close", None)
        file = handle.file
        file.users -= 1
        try:
            await self._flush(file)
        finally:
            if file.users == 0 and self._files.get(file.path) is file:
                del self._files[file.path]

    def forget(self) -> None:
        """Drop every descriptor and its pending writes (the page or port went away: what was
        not synced is lost, as when a tab with a worker of its own closes)."""
        self._handles.clear()
        self._files.clear()
