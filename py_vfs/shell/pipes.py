"""The shell's standard streams: what a command reads (``Input``) and where it writes (``Output``).

Everything is bytes, so `cat img.png | tee copy.png > /dev/null` passes the bytes unchanged;
text is encoded as UTF-8 on the way in and decoded (errors replaced) only for display.

A pipeline's stages run as concurrent asyncio tasks joined by a ``Pipe``, which holds at most
``PIPE_LIMIT`` bytes: a writer that runs ahead waits (``await out.write(...)``) until the
reader has taken what is there, so `cat big | wc -c` holds about one chunk, not the file. When
the reader stops early (`yes | head -1`), the writer's next write raises ``BrokenPipe`` and
the command ends with status 141, as a process killed by SIGPIPE does in sh.

Small output can be written without waiting (``write_nowait``: an error message, a listing);
it is kept in order and handed on at the next awaited write or at ``flush``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

from ..core import cancel
from ..core.errors import FsError

if TYPE_CHECKING:
    from .terminal import Terminal

PIPE_LIMIT = 64 * 1024  # what a pipe holds before its writer waits (Linux: 64 KiB too)
READ_SIZE = 64 * 1024  # what ``Input.read()`` returns at most by default
# The longest line ``readline`` assembles; a longer one is returned in pieces of this size, so a
# file without newlines cannot make a line-reading command hold all of it.
LINE_LIMIT = 1 << 20
# What a line's output collected in memory (``Shell.run`` without a terminal) may hold; past it,
# the write fails with EFBIG instead of exhausting the worker's memory.
COLLECT_LIMIT = 64 << 20
# What a command that needs its whole input (sort, xargs, jq) may hold of it: past it, EFBIG
# (`yes | sort` held memory without end).
READ_ALL_LIMIT = 256 << 20
SIGPIPE_STATUS = 141  # 128 + SIGPIPE, what sh reports for a writer whose reader is gone


class BrokenPipe(Exception):
    """The reading end of a pipe is closed: the writer should stop (status 141)."""


def _as_bytes(data: bytes | bytearray | memoryview | str) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogateescape")
    return bytes(data)


class Output:
    """Where a command writes. Subclasses say where bytes go (``_send``)."""

    isatty = False  # a terminal shows it (ls and grep color their output only then)
    # The page's terminal that shows it, its size and keys (py_vfs/shell/terminal.py), when
    # the call gave them: what a program would reach through its tty (`less`).
    terminal: Terminal | None = None
    appends_to: str | None = None  # the file a `>>` redirection appends it to (absolute)

    def __init__(self) -> None:
        self._pending = bytearray()

    def write_nowait(self, data: bytes | str) -> None:
        """Queue small output without waiting; it goes out, in order, with the next ``write``
        or ``flush``."""
        self._pending += _as_bytes(data)

    async def write(self, data: bytes | bytearray | memoryview | str) -> None:
        """Write ``data`` after anything queued, waiting while the reader is behind; raises
        ``BrokenPipe`` when there is no reader any more."""
        piece = _as_bytes(data)
        if self._pending:
            piece = bytes(self._pending) + piece
            self._pending.clear()
        if piece:
            cancel.check("write")
            await self._send(piece)

    async def flush(self) -> None:
        """Hand on what ``write_nowait`` queued; also after a cancel (a message queued by a
        command that Ctrl-C stopped still shows)."""
        if self._pending:
            piece = bytes(self._pending)
            self._pending.clear()
            await self._send(piece)

    async def close(self) -> None:
        """The writer is done: flush; a pipe's reader then sees the end of its input."""
        await self.flush()

    async def _send(self, data: bytes) -> None:
        raise NotImplementedError


class Collect(Output):
    """Output kept in memory, at most ``limit`` bytes: the result of `Shell.run`, a command
    substitution's text."""

    def __init__(self, *, isatty: bool = False, limit: int = COLLECT_LIMIT) -> None:
        super().__init__()
        self.data = bytearray()
        self.isatty = isatty
        self.limit = limit

    async def _send(self, data: bytes) -> None:
        if len(self.data) + len(data) > self.limit:
            raise FsError.of("EFBIG", "write").with_hint(
                f"output kept in memory stops at {self.limit} bytes: redirect it to a file")
        self.data += data

    def take(self) -> bytes:
        """Everything written so far, queued output included."""
        return bytes(self.data + self._pending)

    def text(self) -> str:
        """Everything written, decoded for display (invalid UTF-8 replaced)."""
        return self.take().decode("utf-8", "replace")


class Emit(Output):
    """Output handed to a callback as it is written (the terminal shows it at once)."""

    def __init__(self, emit: Callable[[bytes], Awaitable[object]], *,
                 isatty: bool = False, terminal: Terminal | None = None) -> None:
        super().__init__()
        self._emit = emit
        self.isatty = isatty
        self.terminal = terminal

    async def _send(self, data: bytes) -> None:
        await self._emit(data)


class Discard(Output):
    """`/dev/null`: takes everything, keeps nothing."""

    async def _send(self, data: bytes) -> None:
        return None


class Input:
    """What a command reads. Subclasses give the next piece (``_next``: b"" at the end)."""

    path: str | None = None  # the file a `<` redirection reads (absolute)
    terminal: Terminal | None = None  # the page's terminal, when it is what the user types

    def __init__(self) -> None:
        self._buffer = b""
        self._ended = False

    async def _next(self) -> bytes:
        raise NotImplementedError

    async def _fill(self) -> bool:
        """Read one more piece into the buffer; False at the end of the input."""
        if self._ended:
            return False
        cancel.check("read")
        piece = await self._next()
        if not piece:
            self._ended = True
            return False
        self._buffer += piece
        return True

    async def read(self, size: int = READ_SIZE) -> bytes:
        """Up to ``size`` bytes (fewer when that is what has arrived); b"" at the end."""
        if not self._buffer and not await self._fill():
            return b""
        piece, self._buffer = self._buffer[:size], self._buffer[size:]
        return piece

    async def readline(self) -> bytes:
        """One line with its newline (the last may lack it), at most ``LINE_LIMIT`` bytes;
        b"" at the end."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 or len(self._buffer) >= LINE_LIMIT:
                cut = min(end + 1 if end >= 0 else LINE_LIMIT, LINE_LIMIT)
                line, self._buffer = self._buffer[:cut], self._buffer[cut:]
                return line
            if not await self._fill():
                line, self._buffer = self._buffer, b""
                return line

    async def chunks(self) -> AsyncIterator[bytes]:
        """The input a piece at a time, as it arrives."""
        while piece := await self.read():
            yield piece

    async def lines(self) -> AsyncIterator[bytes]:
        """The input a line at a time (newlines kept)."""
        while line := await self.readline():
            yield line

    async def read_all(self) -> bytes:
        """The whole input (for commands that need all of it, as `sort` does), at most
        ``READ_ALL_LIMIT`` bytes (EFBIG past it)."""
        pieces, size = [], 0
        async for piece in self.chunks():
            size += len(piece)
            if size > READ_ALL_LIMIT:
                raise FsError.of("EFBIG", "read").with_hint(
                    f"input held in memory stops at {READ_ALL_LIMIT} bytes")
            pieces.append(piece)
        return b"".join(pieces)

    def close(self) -> None:
        """The reader is done; a pipe's writer gets ``BrokenPipe`` from now on."""
        self._ended = True
        self._buffer = b""


class NoInput(Input):
    """An empty input, as `< /dev/null` (a line typed in the terminal reads nothing)."""

    async def _next(self) -> bytes:
        return b""


class BytesInput(Input):
    """Input from bytes in memory: a here-document, a command's captured output."""

    def __init__(self, data: bytes | str) -> None:
        super().__init__()
        self._data = _as_bytes(data)

    async def _next(self) -> bytes:
        piece, self._data = self._data, b""
        return piece


class StreamInput(Input):
    """Input from an async iterable of bytes: a VFS file read a chunk at a time."""

    def __init__(self, source: AsyncIterable[bytes]) -> None:
        super().__init__()
        self._source = aiter(source)

    async def _next(self) -> bytes:
        try:
            return bytes(await anext(self._source))
        except StopAsyncIteration:
            return b""


class Pipe:
    """A bounded pipe between two stages of a pipeline (see the module docstring): the left
    stage writes to ``writer``, the right one reads ``reader``."""

    def __init__(self, limit: int = PIPE_LIMIT) -> None:
        self.limit = limit
        self.queue: list[bytes] = []
        self.queued = 0
        self.writer_done = False
        self.reader_gone = False
        self._changed = asyncio.Event()  # set whenever the queue or either end changes
        self.writer = PipeWriter(self)
        self.reader = PipeReader(self)

    def wake(self) -> None:
        """Tell the other end that something changed."""
        self._changed.set()

    async def wait(self) -> None:
        """Wait until the other end changes something."""
        self._changed.clear()
        await self._changed.wait()


class PipeWriter(Output):
    """The writing end of a ``Pipe``."""

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self._pipe = pipe

    async def _send(self, data: bytes) -> None:
        pipe = self._pipe
        view = memoryview(data)
        while view:
            if pipe.reader_gone:
                raise BrokenPipe()
            room = pipe.limit - pipe.queued
            if room <= 0:
                await pipe.wait()
                continue
            piece, view = bytes(view[:room]), view[room:]
            pipe.queue.append(piece)
            pipe.queued += len(piece)
            pipe.wake()

    async def close(self) -> None:
        """The writer is done: the reader sees the end once it has read what is queued."""
        with contextlib.suppress(BrokenPipe):
            await self.flush()
        self._pipe.writer_done = True
        self._pipe.wake()


class PipeReader(Input):
    """The reading end of a ``Pipe``."""

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self._pipe = pipe

    async def _next(self) -> bytes:
        pipe = self._pipe
        while not pipe.queue:
            if pipe.writer_done:
                return b""
            await pipe.wait()
        piece = pipe.queue.pop(0)
        pipe.queued -= len(piece)
        pipe.wake()
        return piece

    def close(self) -> None:
        """The reader is done: a waiting or later write raises ``BrokenPipe``."""
        super().close()
        pipe = self._pipe
        pipe.reader_gone = True
        pipe.queue.clear()
        pipe.queued = 0
        pipe.wake()
