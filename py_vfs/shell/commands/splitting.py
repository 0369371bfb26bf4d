"""split: cut a file into pieces of N lines or N bytes, named PREFIX + a suffix, as GNU split.

Each piece streams into the disk a chunk at a time (the input is never held whole) and is
written whole, in one commit, when it is complete. Suffixes run aa, ab... (-d: 00, 01...); with
the default length they widen as GNU's do (after `yz` comes `zaaa`, after `89` comes `9000`),
with -a N they are N long and running out of them is an error.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

from ...core import cancel
from ..context import Context, describe
from ..format import quote_arg, quote_name
from ..pipes import StreamInput
from .gnu import getopts, open_input
from .registry import GNU, UsageError, command

_UNITS = {"": 1, "b": 512, "K": 1024, "KiB": 1024, "KB": 1000, "k": 1024, "M": 1 << 20,
          "MiB": 1 << 20, "MB": 10**6, "G": 1 << 30, "GiB": 1 << 30, "GB": 10**9,
          "T": 1 << 40, "TB": 10**12}
LETTERS = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0123456789"


def size(text: str, what: str, *, zero: bool = False) -> int:
    """A count with GNU's suffixes (K, M, G, T: powers of 1024; KB, MB...: of 1000; b: 512);
    0 is refused unless ``zero``."""
    match = re.fullmatch(r"([0-9]+)([A-Za-z]*)", text)
    if match is None or match[2] not in _UNITS:
        raise UsageError(f"invalid number of {what}: {quote_arg(text)}", try_line=False)
    value = int(match[1]) * _UNITS[match[2]]
    if value == 0 and not zero:
        raise UsageError(f"invalid number of {what}: {quote_arg(text)}: Numerical result out "
                         "of range", try_line=False)
    return value


def _combos(alphabet: str, length: int, skip_last: bool) -> Iterator[str]:
    """Every string of ``length`` characters of ``alphabet`` in order (``skip_last``: none
    starting with its last character)."""
    firsts = alphabet[:-1] if skip_last else alphabet
    if length == 0:
        yield ""
        return
    for first in firsts:
        for rest in itertools.product(alphabet, repeat=length - 1):
            yield first + "".join(rest)


def suffixes(alphabet: str, length: int | None) -> Iterator[str]:
    """The suffixes in order: all of ``length`` characters, or GNU's widening ones."""
    if length is not None:
        yield from _combos(alphabet, length, False)
        return
    level = 0
    while True:
        for rest in _combos(alphabet, 2 + level, True):
            yield alphabet[-1] * level + rest
        level += 1


class _Pieces:
    """The output files, one after another."""

    def __init__(self, ctx: Context, prefix: str, names: Iterator[str], extra: str) -> None:
        self.ctx, self.prefix, self.names, self.extra = ctx, prefix, names, extra
        self.writer: Any = None  # the piece being written (a WriteStream)
        self.count = 0

    async def start(self) -> None:
        name = next(self.names, None)
        if name is None:
            raise OSError(0, "output file suffixes exhausted")
        shown = self.prefix + name + self.extra
        try:
            self.writer = self.ctx.vfs.stream_writer(self.ctx.resolve(shown))
        except OSError as exc:
            exc.filename = shown  # the piece's name is what the message names
            raise
        self.count += 1
        await cancel.checkpoint("split", self.count, self.count, "files")

    async def write(self, data: bytes) -> None:
        if self.writer is None:
            await self.start()
        assert self.writer is not None
        await self.writer.write(data)

    async def end(self) -> None:
        if self.writer is not None:
            await self.writer.close()
            self.writer = None

    async def abort(self) -> None:
        if self.writer is not None:
            await self.writer.abort()
            self.writer = None

    async def empty(self) -> None:
        """The next piece, made empty (-n makes N files, some of them maybe empty)."""
        await self.start()
        await self.end()


def _chunks(text: str) -> tuple[bool, int | None, int]:
    """-n's argument: (by lines, the one chunk K to print or None, N)."""
    match = re.fullmatch(r"(l/|r/)?(?:([0-9]+)/)?([0-9]+)", text)
    if match is None or match[1] == "r/":
        raise UsageError(f"invalid number of chunks: {quote_arg(text)}", try_line=False)
    count = int(match[3])
    if count == 0:
        raise UsageError(f"invalid number of chunks: {quote_arg(match[3])}: Numerical result "
                         "out of range", try_line=False)
    one = int(match[2]) if match[2] else None
    if one is not None and not 0 < one <= count:
        raise UsageError(f"invalid chunk number: {quote_arg(match[2])}: Numerical result out "
                         "of range", try_line=False)
    return bool(match[1]), one, count


async def _split_chunks(ctx: Context, path: str, pieces: _Pieces, spec: str) -> None:
    """-n [l/][K/]N: N pieces of the file's size / N bytes each (the last takes the rest;
    `l/`: a piece ends after the line that reaches its end); K/: only piece K, to standard
    output."""
    by_lines, one, count = _chunks(spec)
    total = ctx.vfs.stat(path).size
    size = max(1, total // count) if total else 0
    ends = [min(total, size * (k + 1)) for k in range(count - 1)] + [total]
    if not by_lines:
        for k in range(count):
            if one is not None and k + 1 != one:
                continue
            start = ends[k - 1] if k else 0
            data = StreamInput(ctx.vfs.open_read(path, start, ends[k]))
            if one is None:
                await pieces.start()
            async for piece in data.chunks():
                await (ctx.write(piece) if one is not None else pieces.write(piece))
            if one is None:
                await pieces.end()
        return
    k, offset = 0, 0
    if one is None:
        await pieces.start()
    async for line in StreamInput(ctx.vfs.open_read(path)).lines():
        offset += len(line)
        if one is None:
            await pieces.write(line)
        elif k + 1 == one:
            await ctx.write(line)
        while k < count - 1 and offset >= ends[k]:
            k += 1
            if one is None:
                await pieces.end()
                await pieces.start()
    if one is None:
        await pieces.end()
        for _ in range(k + 1, count):
            await pieces.empty()


@command("split [-l N | -b SIZE | -n CHUNKS] [OPTION]... [FILE [PREFIX]]",
         "split a file into pieces", errors=GNU)
async def split(ctx: Context, args: list[str]) -> int:
    """Write FILE (none or `-`: standard input) in pieces of -l N lines (1000 by default) or
    -b SIZE bytes (K, M, G: 1024-based; KB, MB: 1000-based), to PREFIX (default `x`)
    followed by a suffix: aa, ab, ... (-d: 00, 01, ...), -a N characters long (default 2,
    widening as GNU's when they run out); --additional-suffix=S after it. -n N: N pieces of
    equal size (l/N: without splitting lines; K/N or l/K/N: only piece K, printed)."""
    args = [f"-l{arg[1:]}" if re.fullmatch(r"-[0-9]+", arg) else arg for arg in args]
    options, operands = getopts(args, "l:b:da:n:", (
        "lines=", "bytes=", "numeric-suffixes", "suffix-length=", "additional-suffix=",
        "number="))
    lines, chunk, alphabet, length, extra = 1000, None, LETTERS, None, ""
    chunks: str | None = None
    for flag, value in options:
        if flag in ("-l", "--lines"):
            lines, chunk, chunks = size(value, "lines"), None, None
        elif flag in ("-b", "--bytes"):
            chunk, chunks = size(value, "bytes"), None
        elif flag in ("-n", "--number"):
            chunks = value
            _chunks(value)  # checked now, as GNU does
        elif flag in ("-d", "--numeric-suffixes"):
            alphabet = DIGITS
        elif flag in ("-a", "--suffix-length"):
            if not value.isdigit():
                raise UsageError(f"invalid suffix length: {quote_arg(value)}", try_line=False)
            length = int(value) or None
        else:
            if "/" in value:
                raise UsageError(f"invalid suffix {quote_arg(value)}, contains directory "
                                 "separator", try_line=False)
            extra = value
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}")
    name = operands[0] if operands else "-"
    prefix = operands[1] if len(operands) > 1 else "x"
    try:
        source = open_input(ctx, name)
    except OSError as exc:
        ctx.err(f"cannot open {quote_arg(name)} for reading: {describe(exc)}")
        return 1
    pieces = _Pieces(ctx, prefix, suffixes(alphabet, length), extra)
    if chunks is not None and name == "-":
        ctx.err("-: cannot determine file size")
        return 1
    try:
        if chunks is not None:
            await _split_chunks(ctx, ctx.resolve(name), pieces, chunks)
        elif chunk is not None:
            left = chunk
            async for data in source.chunks():
                while data:
                    part, data = data[:left], data[left:]
                    await pieces.write(part)
                    left -= len(part)
                    if left == 0:
                        await pieces.end()
                        left = chunk
        else:
            count = 0
            async for line in source.lines():
                await pieces.write(line)
                if line.endswith(b"\n"):
                    count += 1
                    if count == lines:
                        await pieces.end()
                        count = 0
        await pieces.end()
    except OSError as exc:
        await pieces.abort()
        shown = quote_name(exc.filename) if isinstance(exc.filename, str) else quote_arg(name)
        ctx.err(describe(exc) if exc.errno == 0 else f"{shown}: {describe(exc)}")
        return 1
    return 0
