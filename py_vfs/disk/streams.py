"""Streaming reads and writes: a large file passes through holding about one chunk in memory.

A ``ReadStream`` reads the version of the file it was opened on, chunk by chunk, even if the file
is replaced or removed meanwhile: it pins those chunks until it is exhausted or closed. An inline
file's bytes came with its node, so its stream holds them and reads nothing.

A ``WriteStream`` stores each full chunk as soon as it has one, in a commit of its own, pinned and
marked in ``meta`` as written ahead (so that garbage collection in another tab leaves it alone for
a grace period); the file itself appears in one commit at ``close``, whole, or never. A stream
abandoned half way (an error, a closed tab) leaves only loose chunks, which nothing references
and garbage collection reclaims.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager

from ..core.errors import FsError
from .content import CHUNK_SIZE
from .engine import CommitEngine

# How a finished disk stream becomes a file: (path, chunk keys, tail bytes, size, mode), run as
# one change by the operations layer.
Finish = Callable[[str, tuple[str, ...], bytes, int, "int | None"], Awaitable[None]]


def as_chunk(data: object) -> bytes:
    """A stream's piece as bytes (text as UTF-8)."""
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    raise TypeError(f"stream chunks must be bytes-like or str, not {type(data).__name__}")


class ReadStream:
    """An async iterator over the bytes ``[start, end)`` of one version of a file.

    Use it with ``async for``; when leaving early, ``await stream.aclose()`` (or use it as an
    ``async with``) so its chunks are released at once rather than when it is collected.
    """

    def __init__(self, engine: CommitEngine, keys: tuple[str, ...], size: int, start: int,
                 end: int | None, *, inline: bytes | None = None) -> None:
        self._engine = engine
        self._keys = keys
        self._inline = inline
        self.size = size
        self.position = min(start, size)
        self.end = size if end is None else max(self.position, min(end, size))
        self._closed = False
        engine.content.pin(keys)

    def __aiter__(self) -> ReadStream:
        return self

    async def __anext__(self) -> bytes:
        if self.position >= self.end:
            await self.aclose()
            raise StopAsyncIteration
        index, offset = divmod(self.position, CHUNK_SIZE)
        try:
            chunk = await self._chunk(index)
        except BaseException:
            await self.aclose()
            raise
        piece = chunk[offset:offset + self.end - self.position]
        self.position += len(piece)
        return piece

    async def _chunk(self, index: int) -> bytes:
        """An inline file is one piece, held since the stream opened; no store read."""
        if self._inline is not None:
            return self._inline
        return await self._engine.content.read_chunk(self._keys[index], keep=False)

    async def read_all(self) -> bytes:
        """Every byte left in the stream's range, at once; the stream is closed after."""
        async with self:
            return b"".join([piece async for piece in self])

    async def aclose(self) -> None:
        """Release the stream's chunks (a chunk only it kept is reclaimed now)."""
        if not self._closed:
            self._closed = True
            await self._engine.reclaim(self._engine.content.unpin(self._keys))

    async def __aenter__(self) -> ReadStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __del__(self) -> None:
        """A stream dropped without ``aclose`` still releases its pins; the reclaim of chunks it
        alone kept then waits for the next garbage collection."""
        if not getattr(self, "_closed", True):
            self._closed = True
            self._engine.content.unpin(self._keys)


class WriteStream:
    """Collects a file's bytes and hands them on a chunk at a time; ``close`` creates or
    replaces the file. Subclasses say where full chunks go (``_drain``) and how to finish."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._buffer = bytearray()
        self.size = 0
        self._done = False

    async def write(self, data: bytes | bytearray | memoryview | str) -> None:
        """Add ``data``; each full chunk is handed on at once."""
        if self._done:
            raise FsError.of("EBADF", "write", self.path)
        piece = as_chunk(data)
        self._buffer += piece
        self.size += len(piece)
        if len(self._buffer) >= CHUNK_SIZE:
            await self._drain()

    async def _drain(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        """Finish the file: it exists, whole, from here on."""
        raise NotImplementedError

    async def abort(self) -> None:
        """Give up: the file stays as it was."""
        raise NotImplementedError


class DiskWriteStream(WriteStream):
    """A write stream into the disk's chunk store (see the module docstring)."""

    def __init__(self, engine: CommitEngine, path: str, mode: int | None,
                 finish: Finish) -> None:
        """The caller has checked that ``path`` can be written (a stream that could never be
        committed fails at once, not at ``close``)."""
        super().__init__(path)
        self._engine = engine
        self._mode = mode
        self._finish = finish
        self._keys: list[str] = []

    async def _drain(self) -> None:
        """Store each full chunk ahead of the node; the partial rest waits for more bytes."""
        try:
            while len(self._buffer) >= CHUNK_SIZE:
                full = bytes(self._buffer[:CHUNK_SIZE])
                del self._buffer[:CHUNK_SIZE]
                self._keys.append(await self._engine.content.store_ahead(full))
        except BaseException:
            await self.abort()
            raise

    async def close(self) -> None:
        """Commit the file: from here on it is durable, whole; before, it does not exist."""
        if self._done:
            raise FsError.of("EBADF", "close", self.path)
        self._done = True
        tail, self._buffer = bytes(self._buffer), bytearray()
        try:
            await self._finish(self.path, tuple(self._keys), tail, self.size, self._mode)
        finally:
            await self._release()

    async def abort(self) -> None:
        """Give up: the file stays as it was; chunks stored so far become reclaimable."""
        if not self._done:
            self._done = True
            self._buffer = bytearray()
            await self._release()

    async def _release(self) -> None:
        keys, self._keys = self._keys, []
        await self._engine.reclaim(self._engine.content.unpin(keys))


async def write_all(stream: WriteStream, chunks: Iterable[object] | AsyncIterable[object]) -> None:
    """Feed ``chunks`` (sync or async iterable) into ``stream`` and commit it."""
    async with committing(stream):
        if isinstance(chunks, AsyncIterable):
            async for data in chunks:
                await stream.write(as_chunk(data))
        else:
            for data in chunks:
                await stream.write(as_chunk(data))


@asynccontextmanager
async def committing(stream: WriteStream | None) -> AsyncIterator[None]:
    """The block writes into ``stream``: when it ends, the stream is closed (the file
    committed, whole); when it raises (a cancellation too), the stream is aborted (the file
    stays as it was) and the exception goes on. None: no stream (the output goes elsewhere),
    nothing to do."""
    if stream is None:
        yield
        return
    try:
        yield
    except BaseException:
        await stream.abort()
        raise
    await stream.close()
