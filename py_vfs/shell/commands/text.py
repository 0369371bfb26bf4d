"""Line and byte filters: head, tail (-f follows the file), wc, tee.

Everything is bytes (the C locale): a "character" of `wc -m` is a UTF-8 character, every other
count is of bytes.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Awaitable, Callable

from ...core import cancel
from ..context import Context, describe, ensure_parent_dir
from ..format import quote_arg, quote_name, shown_name
from ..pipes import Input
from .gnu import each_input, getopts
from .registry import GNU, UsageError, command


def _obsolete_count(args: list[str], *, plus: bool = False) -> list[str]:
    """`head -5` is `head -n 5` (the old form people still type); ``plus`` (tail): `+5` as
    the first argument, before one FILE at most, is `tail -n +5` (GNU's rule)."""
    if plus and 0 < len(args) <= 2 and re.fullmatch(r"\+[0-9]+", args[0]):
        args = [f"-n{args[0]}", *args[1:]]
    out: list[str] = []
    for arg in args:
        takes_value = bool(out) and out[-1] in ("-n", "-c")
        out.append(f"-n{arg[1:]}" if re.fullmatch(r"-[0-9]+", arg) and not takes_value
                   else arg)
    return out


def _count(text: str, what: str) -> tuple[int, str]:
    """An option's count with its sign: (N, "+" | "-" | "")."""
    sign = text[:1] if text[:1] in "+-" else ""
    digits = text[len(sign):]
    multiplier = 1
    units = {"b": 512, "K": 1024, "k": 1024, "M": 1 << 20, "G": 1 << 30, "kB": 1000,
             "MB": 1000_000}
    for unit, size in units.items():
        if digits.endswith(unit) and digits[:-len(unit)].isdigit():
            digits, multiplier = digits[:-len(unit)], size
    if not digits.isdigit():
        raise UsageError(f"invalid number of {what}: {quote_arg(text)}", try_line=False)
    return int(digits) * multiplier, sign


def _headers(options: list[tuple[str, str]], files: int) -> bool:
    verbose = files > 1
    for flag, _ in options:
        if flag in ("-q", "--quiet", "--silent"):
            verbose = False
        elif flag in ("-v", "--verbose"):
            verbose = True
    return verbose


async def _each_with_header(ctx: Context, operands: list[str], verbose: bool,
                            action: Callable[[Input], Awaitable[None]]) -> int:
    first = [True]

    async def run(name: str, source: Input) -> None:
        if verbose:
            shown = "standard input" if name == "-" else shown_name(name)
            await ctx.write(("" if first[0] else "\n") + f"==> {shown} <==\n")
        first[0] = False
        await action(source)

    return await each_input(ctx, operands, run, "cannot open {arg} for reading")


@command("head [-n [-]N] [-c [-]N] [-q|-v] [FILE...]", "print the first lines of files", errors=GNU)
async def head(ctx: Context, args: list[str]) -> int:
    """Print the first 10 lines of each FILE (none or `-`: standard input); -n N: N lines,
    -n -N: all but the last N; -c: bytes instead; several files get `==> NAME <==` headers
    (-q: never, -v: always)."""
    options, operands = getopts(_obsolete_count(args), "n:c:qv",
                                ("lines=", "bytes=", "quiet", "silent", "verbose"))
    count, sign, unit = 10, "", "lines"
    for flag, value in options:
        if flag in ("-n", "--lines", "-c", "--bytes"):
            unit = "lines" if flag in ("-n", "--lines") else "bytes"
            count, sign = _count(value, unit)

    async def show(source: Input) -> None:
        if unit == "bytes" and sign != "-":
            left = count
            while left > 0 and (piece := await source.read(min(left, 65536))):
                await ctx.write(piece)
                left -= len(piece)
        elif unit == "bytes":
            held = b""
            async for piece in source.chunks():
                held += piece
                if len(held) > count:
                    await ctx.write(held[:len(held) - count])
                    held = held[len(held) - count:]
        elif sign != "-":
            for _ in range(count):
                line = await source.readline()
                if not line:
                    break
                await ctx.write(line)
        else:
            kept: deque[bytes] = deque()
            async for line in source.lines():
                kept.append(line)
                if len(kept) > count:
                    await ctx.write(kept.popleft())
        if source is not ctx.stdin:
            source.close()

    return await _each_with_header(ctx, operands, _headers(options, len(operands)), show)


async def _tail_of(source: Input, count: int, sign: str, unit: str) -> bytes:
    """The part of ``source`` tail prints (holding at most what it prints)."""
    if unit == "bytes":
        if sign == "+":
            skip = max(count - 1, 0)
            out = bytearray()
            async for piece in source.chunks():
                cut = min(skip, len(piece))
                skip -= cut
                out += piece[cut:]
            return bytes(out)
        held = b""
        async for piece in source.chunks():
            held = (held + piece)[-count:] if count else b""
        return held
    if sign == "+":
        out = bytearray()
        number = 0
        async for line in source.lines():
            number += 1
            if number >= count:
                out += line
        return bytes(out)
    kept: deque[bytes] = deque(maxlen=count or None)
    if count == 0:
        async for _ in source.lines():
            pass
        return b""
    async for line in source.lines():
        kept.append(line)
    return b"".join(kept)


@command("tail [-n [+]N] [-c [+]N] [-f] [-q|-v] [FILE...]",
         "print the last lines of files (-f: and what is appended later)", errors=GNU)
async def tail(ctx: Context, args: list[str]) -> int:
    """Print the last 10 lines of each FILE (none or `-`: standard input); -n N: N lines,
    -n +N: from line N on; -c: bytes instead; headers as head. -f: then keep printing what is
    appended to the (last) FILE, by this tab or another, until Ctrl-C; a file cut shorter is
    reported (`file truncated`) and followed from its new end."""
    options, operands = getopts(_obsolete_count(args, plus=True), "n:c:fqvF",
                                ("lines=", "bytes=", "follow", "quiet", "silent", "verbose"))
    count, sign, unit, follow = 10, "", "lines", False
    for flag, value in options:
        if flag in ("-n", "--lines", "-c", "--bytes"):
            unit = "lines" if flag in ("-n", "--lines") else "bytes"
            count, sign = _count(value, unit)
        elif flag in ("-f", "-F", "--follow"):
            follow = True

    async def show(source: Input) -> None:
        await ctx.write(await _tail_of(source, count, sign, unit))

    status = await _each_with_header(ctx, operands, _headers(options, len(operands)), show)
    names = [name for name in operands if name != "-"]
    if follow and names and status == 0:
        await _follow(ctx, names[-1])
    return status


async def _follow(ctx: Context, name: str) -> None:
    """Print what is appended to ``name`` from now on, until the call is cancelled."""
    path = ctx.resolve(name)
    offset = ctx.vfs.stat(path).size
    changed = asyncio.Event()
    stop = ctx.vfs.watch(path, lambda event: changed.set())
    try:
        while True:
            await cancel.wait(changed.wait(), "tail")
            changed.clear()
            try:
                size = ctx.vfs.stat(path).size
            except OSError as exc:
                ctx.err(f"{quote_name(name)}: {describe(exc)}")
                continue
            if size < offset:
                ctx.err(f"{quote_name(name)}: file truncated")
                offset = 0
            if size > offset:
                async for piece in ctx.vfs.open_read(path, offset, size):
                    await ctx.write(piece)
                offset = size
    finally:
        stop()


def _counts(data_lines: int, words: int, chars: int, size: int) -> dict[str, int]:
    return {"l": data_lines, "w": words, "m": chars, "c": size}


@command("wc [-l] [-w] [-m] [-c] [FILE...]", "count lines, words and bytes", errors=GNU)
async def wc(ctx: Context, args: list[str]) -> int:
    """Print newline, word and byte counts for each FILE (none or `-`: standard input), and a
    `total` line for several; -l lines, -w words, -m characters (UTF-8), -c bytes, in that
    order whatever the order typed. Columns are aligned as GNU wc aligns them (the width of
    the total size of the files; 7 when standard input is a pipe or a terminal)."""
    options, operands = getopts(args, "lwmc", ("lines", "words", "chars", "bytes"))
    names = {"--lines": "l", "--words": "w", "--chars": "m", "--bytes": "c"}
    wanted = {names.get(flag, flag[1:]) for flag, _ in options} or {"l", "w", "c"}
    order = [key for key in "lwmc" if key in wanted]
    rows: list[tuple[dict[str, int], str | None]] = []
    sizes: list[int | None] = []  # each input's, as fstat: None when not a regular file

    async def count(name: str, source: Input) -> None:
        lines = words = chars = size = 0
        in_word = False
        async for piece in source.chunks():
            lines += piece.count(b"\n")
            size += len(piece)
            if "m" in wanted:
                chars += sum(1 for byte in piece if byte & 0xC0 != 0x80)
            if "w" in wanted:
                for byte in piece:
                    space = byte in b" \t\n\r\v\f"
                    if not space and not in_word:
                        words += 1
                    in_word = not space
        rows.append((_counts(lines, words, chars, size), None if name == "-" and not operands
                     else shown_name(name)))
        if name != "-":
            sizes.append(size)
        else:  # fstat: the size of the file a `<` redirection reads, None for a pipe
            sizes.append(ctx.vfs.stat(source.path).size if source.path else None)

    status = await each_input(ctx, operands, count)
    if len(operands) > 1:
        total = {key: sum(row[key] for row, _ in rows) for key in "lwmc"}
        rows.append((total, "total"))
    width = len(str(sum(size or 0 for size in sizes)))
    if None in sizes:
        width = max(width, 7)
    if len(order) == 1 and len(rows) == 1:
        width = 1
    for row, name in rows:
        cells = " ".join(f"{row[key]:>{width}}" for key in order)
        await ctx.write(cells + (f" {name}" if name is not None else "") + "\n")
    return status


@command("tee [-a] [FILE...]", "copy standard input to standard output and to files", errors=GNU)
async def tee(ctx: Context, args: list[str]) -> int:
    """Copy standard input to standard output and into each FILE as it arrives (-a: appended
    to the files rather than replacing them)."""
    options, operands = getopts(args, "ai", ("append", "ignore-interrupts"))
    append = any(flag in ("-a", "--append") for flag, _ in options)
    writers = []
    status = 0
    for name in operands:
        try:
            path = ctx.resolve(name)
            ensure_parent_dir(ctx.vfs, path)
            if ctx.vfs.exists(path) and ctx.vfs.stat(path).type == "directory":
                raise IsADirectoryError(21, "Is a directory")
        except OSError as exc:
            ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 1
            continue
        writers.append((path, None if append else ctx.vfs.stream_writer(path), bytearray()))
    async for piece in ctx.stdin.chunks():
        for _, stream, kept in writers:
            if stream is None:
                kept += piece
            else:
                await stream.write(piece)
        await ctx.write(piece)
    for path, stream, kept in writers:
        if stream is None:
            await ctx.vfs.append_file(path, bytes(kept))
        else:
            await stream.close()
    return status
