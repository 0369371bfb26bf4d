"""Commands that put several files' lines side by side: comm and paste.

Both read their inputs a line at a time (``Input.readline``), bytes compared as the C locale
compares them; a last line without its newline is printed with one.
"""

from __future__ import annotations

from ...core import cancel
from ..context import Context, describe
from ..format import quote_arg, quote_name
from ..pipes import Input
from .gnu import getopts, open_input
from .registry import GNU, UsageError, command

CHECK_EVERY = 4096  # lines between two cancellation checkpoints


def _body(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\n") else line


def open_all(ctx: Context, names: list[str]) -> list[Input] | None:
    """Each operand opened (`-`: standard input); None once one cannot be (reported)."""
    inputs = []
    for name in names:
        try:
            if name != "-" and ctx.vfs.stat(ctx.resolve(name)).type == "directory":
                raise IsADirectoryError(21, "Is a directory")
            inputs.append(open_input(ctx, name))
        except OSError as exc:
            ctx.err(f"{quote_name(name)}: {describe(exc)}")
            return None
    return inputs


class _Sorted:
    """comm's reader of one file: the current line, and the order check GNU makes."""

    def __init__(self, source: Input) -> None:
        self.source = source
        self.line: bytes | None = None
        self.warned = False

    async def advance(self, check: bool, which: int, ctx: Context, fatal: bool) -> None:
        previous = self.line
        raw = await self.source.readline()
        self.line = _body(raw) if raw else None
        if (check and not self.warned and previous is not None and self.line is not None
                and previous > self.line):
            ctx.err(f"file {which} is not in sorted order")
            self.warned = True
            if fatal:
                raise _Disorder


class _Disorder(Exception):
    """--check-order met a line out of order: comm stops with status 1."""


@command("comm [-123] [OPTION]... FILE1 FILE2", "compare two sorted files line by line",
         errors=GNU)
async def comm(ctx: Context, args: list[str]) -> int:
    """Print the lines only in FILE1 (first column), only in FILE2 (second, after a tab) and
    in both (third, after two); -1, -2, -3 leave a column out. `-` is standard input. The
    files should be sorted (byte order): as GNU, a line out of order is reported once per
    file (`file N is not in sorted order`) once a line has been unpaired, and the status is
    then 1; --check-order makes it fatal, --nocheck-order silent. --total ends with the
    counts of the three columns."""
    options, operands = getopts(args, "123z", (
        "check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated"))
    hidden: set[str] = set()
    check, fatal, total, delimiter = True, False, False, b"\t"
    for flag, value in options:
        if flag in ("-1", "-2", "-3"):
            hidden.add(flag[1])
        elif flag == "--check-order":
            check, fatal = True, True
        elif flag == "--nocheck-order":
            check, fatal = False, False
        elif flag == "--output-delimiter":
            delimiter = value.encode("utf-8", "surrogateescape") or b"\0"
        elif flag == "--total":
            total = True
        else:
            raise UsageError("option -z is not supported")
    if len(operands) < 2:
        after = f"after {quote_arg(operands[0])}" if operands else ""
        raise UsageError(f"missing operand {after}".strip())
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}")
    inputs = open_all(ctx, operands)
    if inputs is None:
        return 1
    files = [_Sorted(source) for source in inputs]
    counts = [0, 0, 0]
    prefixes = [b"", delimiter * ("1" not in hidden),
                delimiter * (("1" not in hidden) + ("2" not in hidden))]
    unpaired = False
    try:
        for which, reader in enumerate(files, 1):
            await reader.advance(False, which, ctx, fatal)
        while files[0].line is not None or files[1].line is not None:
            first, second = files[0].line, files[1].line
            if first is None:
                order = 1
            elif second is None:
                order = -1
            else:
                order = (first > second) - (first < second)
            column = 2 if order == 0 else 0 if order < 0 else 1
            line = first if order <= 0 else second
            unpaired = unpaired or order != 0
            counts[column] += 1
            if str(column + 1) not in hidden and line is not None:
                await ctx.write(prefixes[column] + line + b"\n")
            if order >= 0:
                await files[1].advance(check and (fatal or unpaired), 2, ctx, fatal)
            if order <= 0:
                await files[0].advance(check and (fatal or unpaired), 1, ctx, fatal)
            if sum(counts) % CHECK_EVERY == 0:
                await cancel.checkpoint("comm", sum(counts), sum(counts), "lines")
    except _Disorder:
        return 1
    if total:
        ctx.out(b"".join(str(count).encode() + delimiter for count in counts) + b"total\n")
    if files[0].warned or files[1].warned:
        ctx.err("input is not in sorted order")
        return 1
    return 0


def _delimiters(text: str) -> list[bytes]:
    """paste's -d LIST: its characters, with `\\n`, `\\t`, `\\\\` and `\\0` (none) escapes."""
    out: list[bytes] = []
    raw = text.encode("utf-8", "surrogateescape")
    index = 0
    while index < len(raw):
        byte = raw[index:index + 1]
        if byte == b"\\" and index + 1 < len(raw):
            escaped = raw[index + 1:index + 2]
            out.append({b"n": b"\n", b"t": b"\t", b"0": b"", b"\\": b"\\"}.get(escaped, escaped))
            index += 2
            continue
        if byte == b"\\":
            raise UsageError(f"delimiter list ends with an unescaped backslash: {text}",
                             try_line=False)
        out.append(byte)
        index += 1
    return out


@command("paste [-s] [-d LIST] [FILE...]", "merge the lines of files side by side",
         errors=GNU)
async def paste(ctx: Context, args: list[str]) -> int:
    """Print line N of every FILE (none or `-`: standard input, which may be named more than
    once) on one line, separated by TABs, until every FILE has ended; -d LIST uses LIST's
    characters in turn instead (`\\n`, `\\t`, `\\\\`, `\\0` for none); -s pastes each FILE's
    lines onto one line instead, one FILE after another."""
    options, operands = getopts(args, "sd:z", ("serial", "delimiters=", "zero-terminated"))
    serial, delimiters = False, [b"\t"]
    for flag, value in options:
        if flag in ("-s", "--serial"):
            serial = True
        elif flag in ("-d", "--delimiters"):
            delimiters = _delimiters(value) or [b""]
        else:
            raise UsageError("option -z is not supported")
    inputs = open_all(ctx, operands or ["-"])
    if inputs is None:
        return 1
    count = 0
    if serial:
        for source in inputs:
            out, index = bytearray(), 0
            while raw := await source.readline():
                if index:
                    out += delimiters[(index - 1) % len(delimiters)]
                out += _body(raw)
                index += 1
                if len(out) >= 1 << 16:
                    await ctx.write(bytes(out))
                    out.clear()
                    await cancel.checkpoint("paste", index, index, "lines")
            await ctx.write(bytes(out) + b"\n")
        return 0
    open_ = [True] * len(inputs)
    while True:
        pieces: list[bytes] = []
        for index, source in enumerate(inputs):
            raw = await source.readline() if open_[index] else b""
            if not raw:
                open_[index] = False
            pieces.append(_body(raw))
        if not any(open_):
            return 0
        line = bytearray(pieces[0])
        for index, piece in enumerate(pieces[1:]):
            line += delimiters[index % len(delimiters)] + piece
        await ctx.write(bytes(line) + b"\n")
        count += 1
        if count % CHECK_EVERY == 0:
            await cancel.checkpoint("paste", count, count, "lines")
