"""Commands that reshape the lines of a text: rev, tac, fold, nl.

All work on bytes (the C locale), except rev, which reverses UTF-8 characters (bytes that are
not UTF-8 stay in their place as single units). Each reads its input a line at a time
(``Input.lines``: a line is at most ``pipes.LINE_LIMIT`` bytes), except tac, which needs all of
it (at most ``pipes.READ_ALL_LIMIT`` bytes).
"""

from __future__ import annotations

from ...core import cancel
from ..context import Context
from ..format import quote_arg
from ..pipes import Input
from .gnu import each_input, getopts, number
from .registry import GNU, UsageError, command

CHECK_EVERY = 4096  # lines between two cancellation checkpoints


@command("rev [FILE...]", "reverse the characters of each line", errors=GNU)
async def rev(ctx: Context, args: list[str]) -> int:
    """Print each line of the FILEs (none or `-`: standard input) with its characters in
    reverse order; the newline stays at the end."""
    _, operands = getopts(args, "")
    count = 0

    async def reverse(_: str, source: Input) -> None:
        nonlocal count
        async for line in source.lines():
            body = line[:-1] if line.endswith(b"\n") else line
            text = body.decode("utf-8", "surrogateescape")[::-1]
            await ctx.write(text.encode("utf-8", "surrogateescape") + line[len(body):])
            count += 1
            if count % CHECK_EVERY == 0:
                await cancel.checkpoint("rev", count, count, "lines")

    return await each_input(ctx, operands, reverse, "cannot open {name}")


def _records(data: bytes, separator: bytes, before: bool) -> list[bytes]:
    """``data`` cut into records, each with its separator (after it, or ``before`` it)."""
    parts = data.split(separator)
    if before:
        records = [parts[0]] if parts[0] else []
        records += [separator + part for part in parts[1:]]
        return records
    records = [part + separator for part in parts[:-1]]
    if parts[-1]:
        records.append(parts[-1])
    return records


@command("tac [-b] [-s SEP] [FILE...]", "print files with their lines in reverse order",
         errors=GNU)
async def tac(ctx: Context, args: list[str]) -> int:
    """Print each FILE (none or `-`: standard input) last line first; -s SEP: records end with
    the string SEP instead of a newline; -b: the separator comes before each record."""
    options, operands = getopts(args, "bs:", ("before", "separator="))
    separator, before = b"\n", False
    for flag, value in options:
        if flag in ("-s", "--separator"):
            separator = value.encode("utf-8", "surrogateescape")
        else:
            before = True

    async def reverse(_: str, source: Input) -> None:
        if not separator:  # GNU: an empty separator leaves the text as it is
            await ctx.write(await source.read_all())
            return
        records = _records(await source.read_all(), separator, before)
        records.reverse()
        for start in range(0, len(records), CHECK_EVERY):
            await ctx.write(b"".join(records[start:start + CHECK_EVERY]))
            await cancel.checkpoint("tac", start, len(records), "records")

    return await each_input(ctx, operands, reverse, "failed to open {arg} for reading")


def _advance(column: int, byte: int, count_bytes: bool) -> int:
    """The column after ``byte``, as GNU fold counts them (tabs to the next multiple of 8,
    backspace one back, carriage return to 0), or one a byte with -b."""
    if count_bytes:
        return column + 1
    if byte == 8:
        return max(0, column - 1)
    if byte == 13:
        return 0
    if byte == 9:
        return column + 8 - column % 8
    return column + 1


def fold_line(line: bytes, width: int, spaces: bool, count_bytes: bool) -> bytes:
    """One line (without its newline) folded to ``width`` columns, GNU fold's way."""
    out = bytearray()
    held = bytearray()
    column = 0
    index = 0
    while index < len(line):
        byte = line[index]
        column = _advance(column, byte, count_bytes)
        if column > width:
            blank = max(held.rfind(b" "), held.rfind(b"\t")) if spaces else -1
            if blank >= 0:
                out += held[:blank + 1] + b"\n"
                del held[:blank + 1]
                column = 0
                for kept in held:
                    column = _advance(column, kept, count_bytes)
                continue  # the same byte again, on the new line
            if not held:
                held.append(byte)
                index += 1
                continue
            out += held + b"\n"
            held.clear()
            column = 0
            continue
        held.append(byte)
        index += 1
    return bytes(out + held)


@command("fold [-bs] [-w WIDTH] [FILE...]", "wrap long lines at a width", errors=GNU)
async def fold(ctx: Context, args: list[str]) -> int:
    """Break the lines of the FILEs (none or `-`: standard input) longer than WIDTH columns
    (-w, default 80); -s breaks after the last blank within the width when there is one;
    -b counts bytes rather than columns (a tab is otherwise up to 8 columns)."""
    args = [f"-w{arg[1:]}" if arg[1:].isdigit() and arg.startswith("-") else arg
            for arg in args]  # the old `fold -20`
    options, operands = getopts(args, "bsw:", ("bytes", "spaces", "width="))
    width, spaces, count_bytes = 80, False, False
    for flag, value in options:
        if flag in ("-w", "--width"):
            if not value.isdigit():
                raise UsageError(f"invalid number of columns: {quote_arg(value)}",
                                 try_line=False)
            width = int(value)
            if width == 0:
                raise UsageError(f"invalid number of columns: {quote_arg(value)}: "
                                 "Numerical result out of range", try_line=False)
        elif flag in ("-s", "--spaces"):
            spaces = True
        else:
            count_bytes = True
    count = 0

    async def wrap(_: str, source: Input) -> None:
        nonlocal count
        async for line in source.lines():
            body = line[:-1] if line.endswith(b"\n") else line
            await ctx.write(fold_line(body, width, spaces, count_bytes) + line[len(body):])
            count += 1
            if count % CHECK_EVERY == 0:
                await cancel.checkpoint("fold", count, count, "lines")

    return await each_input(ctx, operands, wrap)


_STYLES = ("a", "t", "n")
_FORMATS = {"ln": "<", "rn": ">", "rz": "0"}


@command("nl [-b STYLE] [-n FORMAT] [OPTION]... [FILE...]",
         "number the lines of files", errors=GNU)
async def nl(ctx: Context, args: list[str]) -> int:
    """Print the FILEs (none or `-`: standard input, all as one text) with line numbers:
    -b t (the default) numbers non-empty lines, -b a all, -b n none; -n rn (the default),
    ln or rz places the number right, left or right with zeros in -w N columns (6); -s SEP
    follows it (a tab); -v N is the first number (1), -i N the increment (1). A line not
    numbered gets as many spaces as a number and SEP would take."""
    options, operands = getopts(args, "b:n:w:s:v:i:", (
        "body-numbering=", "number-format=", "number-width=", "number-separator=",
        "starting-line-number=", "line-increment="))
    style, align, width, separator, value, step = "t", ">", 6, "\t", 1, 1
    for flag, text in options:
        if flag in ("-b", "--body-numbering"):
            if text not in _STYLES:
                raise UsageError(f"invalid body numbering style: {quote_arg(text)}")
            style = text
        elif flag in ("-n", "--number-format"):
            if text not in _FORMATS:
                raise UsageError(f"invalid line numbering format: {quote_arg(text)}")
            align = _FORMATS[text]
        elif flag in ("-w", "--number-width"):
            width = number(text, "line number field width")
            if not 1 <= width <= 1024:
                raise UsageError(f"invalid line number field width: {quote_arg(text)}: "
                                 "Numerical result out of range", try_line=False)
        elif flag in ("-s", "--number-separator"):
            separator = text
        else:
            try:
                parsed = int(text)
            except ValueError:
                what = ("starting line number" if flag in ("-v", "--starting-line-number")
                        else "line number increment")
                raise UsageError(f"invalid {what}: {quote_arg(text)}") from None
            if flag in ("-v", "--starting-line-number"):
                value = parsed
            else:
                step = parsed
    blank = (" " * (width + len(separator))).encode()
    sep = separator.encode("utf-8", "surrogateescape")
    count = 0

    async def number_lines(_: str, source: Input) -> None:
        nonlocal value, count
        async for line in source.lines():
            body = line[:-1] if line.endswith(b"\n") else line
            if style == "a" or (style == "t" and body):
                shown = (f"{value:0{width}d}" if align == "0" else f"{value:{align}{width}d}")
                await ctx.write(shown.encode() + sep + body + b"\n")
                value += step
            else:
                await ctx.write(blank + body + b"\n")
            count += 1
            if count % CHECK_EVERY == 0:
                await cancel.checkpoint("nl", count, count, "lines")

    return await each_input(ctx, operands, number_lines)
