"""The gzip file format (RFC 1952) over the shell's streams, with zlib doing the deflating.

``deflate`` writes one member: the header (magic, method 8, the FNAME flag when a name is
stored, MTIME, XFL 2 for -9 and 4 for -1 as GNU gzip sets it, OS 3, Unix, as GNU gzip on
Linux writes it), raw deflate data, then CRC-32 and ISIZE. ``Inflater`` reads any number of
members one after another (`cat a.gz b.gz | gunzip`), checks each one's CRC and length, and
never holds more than a chunk of output: zlib is asked for at most ``CHUNK`` bytes at a time,
and the whole output of one stream is bounded by ``limits.MAX_INFLATE`` (a gzip bomb stops
there).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import AsyncIterator

from ...core import cancel
from .. import limits
from ..pipes import Input

CHUNK = 64 * 1024  # bytes of output zlib gives at a time
MAGIC = b"\x1f\x8b"
OS_UNIX = 3
FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT = 1, 2, 4, 8, 16
MAX_FIELD = 1 << 16  # bytes of a stored name or comment read at most


class GzipError(Exception):
    """The input is not a sound gzip stream; ``str()`` is GNU gzip's words for why."""


class TrailingGarbage(Exception):
    """The members decompressed, but bytes that are not gzip followed them (a warning)."""


def header(name: bytes | None, mtime: int, level: int) -> bytes:
    """A member's header: ``name`` stored when given (NUL-terminated), ``mtime`` (0: none)."""
    flags = FNAME if name else 0
    extra = 2 if level == 9 else 4 if level == 1 else 0
    head = MAGIC + struct.pack("<BBIBB", 8, flags, mtime & 0xFFFFFFFF, extra, OS_UNIX)
    if name:
        head += name.replace(b"\0", b"") + b"\0"
    return head


async def deflate(source: Input, level: int, name: bytes | None,
                  mtime: int) -> AsyncIterator[bytes]:
    """``source`` compressed as one gzip member, a piece at a time."""
    yield header(name, mtime, level)
    squeeze = zlib.compressobj(level, zlib.DEFLATED, -15)
    crc, size, count = 0, 0, 0
    async for piece in source.chunks():
        crc = zlib.crc32(piece, crc)
        size += len(piece)
        out = squeeze.compress(piece)
        if out:
            yield out
        count += 1
        await cancel.checkpoint("gzip", count, count, "chunks")
    yield squeeze.flush() + struct.pack("<II", crc, size & 0xFFFFFFFF)


class _Reader:
    """Bytes from an ``Input`` with a little held back (what zlib did not use)."""

    def __init__(self, source: Input) -> None:
        self.source = source
        self.held = b""
        self.consumed = 0  # bytes taken so far (the compressed size)

    async def peek(self, size: int) -> bytes:
        while len(self.held) < size:
            piece = await self.source.read()
            if not piece:
                break
            self.held += piece
        return self.held[:size]

    async def take(self, size: int) -> bytes:
        data = await self.peek(size)
        if len(data) < size:
            raise GzipError("unexpected end of file")
        self.held = self.held[size:]
        self.consumed += size
        return data

    async def take_until_nul(self) -> bytes:
        """A NUL-terminated field (a name, a comment), its first ``MAX_FIELD`` bytes kept."""
        out = bytearray()
        while True:
            if not self.held:
                self.held = await self.source.read()
                if not self.held:
                    raise GzipError("unexpected end of file")
            end = self.held.find(b"\0")
            cut = len(self.held) if end < 0 else end + 1
            out += self.held[:min(cut - (end >= 0), MAX_FIELD - len(out))]
            self.held, self.consumed = self.held[cut:], self.consumed + cut
            if end >= 0:
                return bytes(out)

    async def some(self) -> bytes:
        data = self.held or await self.source.read()
        self.held = b""
        self.consumed += len(data)
        return data

    def give_back(self, data: bytes) -> None:
        self.held = data + self.held
        self.consumed -= len(data)


class Inflater:
    """Decompresses a gzip stream; after the first header ``name`` and ``mtime`` hold what it
    stored (None and 0 when it stored none)."""

    def __init__(self, source: Input, label: str) -> None:
        self.reader = _Reader(source)
        self.label = label  # the file's name, for the limit's message
        self.name: bytes | None = None
        self.mtime = 0
        self.total = 0
        self.crc = 0  # the last member's CRC-32 (gzip -lv shows it)
        self.started = False

    async def begin(self) -> None:
        """Read the first member's header (``name``, ``mtime``); GzipError if the input is
        not gzip. ``chunks`` calls it when it was not called."""
        magic = await self.reader.peek(2)
        if magic != MAGIC:
            raise GzipError("not in gzip format" if len(magic) == 2 else "unexpected end of file")
        self.name, self.mtime = await self._header()
        self.started = True

    async def _header(self) -> tuple[bytes | None, int]:
        fixed = await self.reader.take(10)
        method, flags, mtime = fixed[2], fixed[3], struct.unpack("<I", fixed[4:8])[0]
        if method != 8:
            raise GzipError(f"unknown method {method} -- not supported")
        if flags & 0xE0:
            raise GzipError(f"has flags 0x{flags:x} -- not supported")
        if flags & FEXTRA:
            length = struct.unpack("<H", await self.reader.take(2))[0]
            await self.reader.take(length)
        name = await self.reader.take_until_nul() if flags & FNAME else None
        if flags & FCOMMENT:
            await self.reader.take_until_nul()
        if flags & FHCRC:
            await self.reader.take(2)
        return name, mtime

    async def chunks(self) -> AsyncIterator[bytes]:
        """The decompressed bytes of every member, a chunk at a time; GzipError if the
        input is not gzip or is damaged, TrailingGarbage after the last member if non-gzip
        bytes (other than zeros) follow."""
        if not self.started:
            await self.begin()
        while True:
            async for piece in self._member():
                yield piece
            if await self.reader.peek(2) != MAGIC:
                rest = await self.reader.some()
                while rest and not rest.strip(b"\0"):
                    rest = await self.reader.some()
                if rest:
                    raise TrailingGarbage
                return
            await self._header()

    async def _member(self) -> AsyncIterator[bytes]:
        unzip = zlib.decompressobj(-15)
        crc, size, pending = 0, 0, b""
        while not unzip.eof:
            data = pending or await self.reader.some()
            if not data:
                raise GzipError("unexpected end of file")
            try:
                out = unzip.decompress(data, CHUNK)
            except zlib.error:
                raise GzipError("invalid compressed data--format violated") from None
            pending = unzip.unconsumed_tail
            if out:
                crc = zlib.crc32(out, crc)
                size += len(out)
                self.total += len(out)
                if self.total > limits.MAX_INFLATE:
                    raise limits.exceeded(
                        "gzip", f"{self.label}: over {limits.MAX_INFLATE} bytes decompressed")
                yield out
                await cancel.checkpoint("gzip", self.total, self.total, "bytes")
        self.reader.give_back(unzip.unused_data)
        stored_crc, stored_size = struct.unpack("<II", await self.reader.take(8))
        self.crc = stored_crc
        if stored_crc != crc:
            raise GzipError("invalid compressed data--crc error")
        if stored_size != size & 0xFFFFFFFF:
            raise GzipError("invalid compressed data--length error")
