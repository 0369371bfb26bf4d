"""Streaming reads and writes of mounted files, with the interface of ``py_vfs.disk.streams``.

A read asks the folder for one chunk's byte range at a time, so a file of any size passes
through about one chunk of memory, and each range is read live (a folder has no versions to pin:
a file changed meanwhile is read as it is now). A write hands each chunk to the folder's writer
(``createWritable`` in the browser), whose new content replaces the file at ``close``.
"""

from __future__ import annotations

from ..core.errors import FsError
from ..disk.content import CHUNK_SIZE
from ..disk.engine import CommitEngine
from ..disk.streams import ReadStream, WriteStream
from .backend import Rel, Writer
from .checks import missing_dirs
from .table import Mount, translated


class MountReadStream(ReadStream):
    """The bytes ``[start, end)`` of a mounted file, one chunk's range per step."""

    def __init__(self, engine: CommitEngine, mount: Mount, rel: Rel, size: int, start: int,
                 end: int | None) -> None:
        super().__init__(engine, (), size, start, end)  # no chunks to pin
        self._mount = mount
        self._rel = rel
        mount.streams += 1

    async def __anext__(self) -> bytes:
        if self.position >= self.end:
            await self.aclose()
            raise StopAsyncIteration
        stop = min(self.end, self.position + CHUNK_SIZE)
        try:
            with translated("read", self._mount.path_of(self._rel)):
                piece = self._mount.backend.read(self._rel, self.position, stop)
        except BaseException:
            await self.aclose()
            raise
        if not piece:  # the file shrank outside the VFS: end here
            await self.aclose()
            raise StopAsyncIteration
        self.position += len(piece)
        return piece

    async def aclose(self) -> None:
        """Close the stream; the mount may be unmounted again."""
        if not self._closed:
            self._mount.streams -= 1
        await super().aclose()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self._mount.streams -= 1
        super().__del__()


class MountWriteStream(WriteStream):
    """Writes a mounted file: the checks are the rules' (``py_vfs/fs/files.py``), made before
    it is opened; parents are created and the folder's writer opened at the first chunk (or at
    ``close`` for an empty file)."""

    def __init__(self, mount: Mount, rel: Rel, path: str) -> None:
        super().__init__(path)
        self._mount = mount
        self._rel = rel
        self._writer: Writer | None = None
        mount.check_writable("open", path)
        mount.streams += 1

    def _open(self) -> Writer:
        if self._writer is None:
            with translated("open", self.path):
                for directory in missing_dirs(self._mount, self._rel[:-1], "open", self.path):
                    self._mount.backend.mkdir(directory)
                self._writer = self._mount.backend.open_writer(self._rel)
        return self._writer

    async def _drain(self) -> None:
        self._flush()

    def _flush(self) -> None:
        data, self._buffer = bytes(self._buffer), bytearray()
        try:
            with translated("write", self.path):
                writer = self._open()
                if data:
                    writer.write(data)
        except BaseException:
            self._abandon()
            raise

    async def close(self) -> None:
        """From here on the file holds what was written."""
        if self._done:
            raise FsError.of("EBADF", "close", self.path)
        if self._buffer or self._writer is None:
            self._flush()
        writer = self._open()
        self._done = True
        self._mount.streams -= 1
        try:
            with translated("close", self.path):
                writer.close()
        except BaseException:
            writer.abort()
            raise

    async def abort(self) -> None:
        """Give up: the file stays as it was."""
        self._abandon()

    def _abandon(self) -> None:
        if not self._done:
            self._done = True
            self._mount.streams -= 1
            self._buffer = bytearray()
            if self._writer is not None:
                self._writer.abort()
