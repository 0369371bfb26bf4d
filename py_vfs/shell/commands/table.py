"""column: lists into columns, or (-t) delimited lines into an aligned table, as util-linux's
column does in the C locale (a character is a byte, widths count bytes)."""

from __future__ import annotations

import errno
import re

from ...core import cancel
from ..context import Context
from ..format import quote_arg
from ..pipes import READ_ALL_LIMIT, Input
from .gnu import each_input, getopts
from .registry import GNU, UsageError, command

TAB = 8  # util-linux column pads lists with tabs, every 8 columns
MAX_CELLS = 1 << 22  # cells of one table held at once
_CONTROLS = bytes([*range(32), 127])


def _cells(line: bytes, separators: bytes | None) -> list[bytes]:
    """A line's cells: split on runs of blanks (no -s), or on each of the -s bytes."""
    if separators is None:
        return line.split()
    return re.split(b"[" + re.escape(separators) + b"]", line)


def _width(cell: bytes) -> int:
    """The columns a cell takes in the C locale: its bytes, control characters none."""
    return len(cell.translate(None, _CONTROLS))


def table(rows: list[list[bytes]], joint: bytes) -> bytes:
    """``rows`` aligned: each cell but the last column's padded to its column's width, the
    columns joined by ``joint``; a row with fewer cells gets empty ones."""
    columns = max((len(row) for row in rows), default=0)
    widths = [0] * columns
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], _width(cell))
    out = bytearray()
    for row in rows:
        cells = row + [b""] * (columns - len(row))
        out += joint.join(cell + b" " * (widths[index] - _width(cell))
                          if index < columns - 1 else cell
                          for index, cell in enumerate(cells)) + b"\n"
    return bytes(out)


def _stop(count: int) -> int:
    """The next tab stop strictly after ``count``."""
    return (count + TAB) & ~(TAB - 1)


def columns_down(entries: list[bytes], width: int, across: bool) -> bytes:
    """util-linux's list mode: ``entries`` in as many tab-padded columns as ``width`` holds,
    filled down each column first (or ``across`` each row first, -x)."""
    if not entries:
        return b""
    size = _stop(max(_width(entry) for entry in entries))
    count = max(1, width // size)
    out = bytearray()
    if across:
        column, used, end = 0, 0, size
        for index, entry in enumerate(entries):
            out += entry
            used += _width(entry)
            if index + 1 == len(entries):
                break
            column += 1
            if column == count:
                out += b"\n"
                column, used, end = 0, 0, size
                continue
            while (step := _stop(used)) <= end:
                out += b"\t"
                used = step
            end += size
        return bytes(out) + (b"\n" if used else b"")
    rows = -(-len(entries) // count)
    for row in range(rows):
        used, end, base = 0, size, row
        for _ in range(count):
            out += entries[base]
            used += _width(entries[base])
            base += rows
            if base >= len(entries):
                break
            while (step := _stop(used)) <= end:
                out += b"\t"
                used = step
            end += size
        out += b"\n"
    return bytes(out)


@command("column [-tx] [-s SEP] [-o SEP] [-c WIDTH] [FILE...]",
         "format lines into columns or a table", errors=GNU)
async def column(ctx: Context, args: list[str]) -> int:
    """Without -t: the non-empty lines of the FILEs (none or `-`: standard input) as a list
    laid out in columns filled downwards (-x: across), padded with tabs to fit WIDTH (-c,
    else $COLUMNS, else 80). -t: each line split into cells (on runs of blanks, or on each
    of the characters of -s SEP) and printed as a table, the cells of a column left-aligned
    and joined by two spaces (-o SEP: by SEP). Empty lines are left out."""
    options, operands = getopts(args, "txs:o:c:", (
        "table", "fillrows", "separator=", "output-separator=", "output-width="))
    as_table, across, separators, joint = False, False, None, b"  "
    width = ctx.env.get("COLUMNS", "80")
    for flag, value in options:
        if flag in ("-t", "--table"):
            as_table = True
        elif flag in ("-x", "--fillrows"):
            across = True
        elif flag in ("-s", "--separator"):
            separators = value.encode("utf-8", "surrogateescape")
        elif flag in ("-o", "--output-separator"):
            joint = value.encode("utf-8", "surrogateescape")
        else:
            width = value
            if not value.isdigit():
                raise UsageError(f"invalid columns argument: {quote_arg(value)}",
                                 try_line=False)
    columns = int(width) if width.isdigit() else 80
    lines: list[bytes] = []
    held = [0]

    async def read(_: str, source: Input) -> None:
        async for raw in source.lines():
            body = raw.rstrip(b"\n")
            if body.strip() if separators is None else body:
                lines.append(body)
                held[0] += len(body)
                if len(lines) > MAX_CELLS or held[0] > READ_ALL_LIMIT:
                    raise OSError(errno.EFBIG, f"over {MAX_CELLS} lines or "
                                  f"{READ_ALL_LIMIT} bytes held")
                if len(lines) % 4096 == 0:
                    await cancel.checkpoint("column", len(lines), len(lines), "lines")

    status = await each_input(ctx, operands, read)
    if as_table:
        rows = [_cells(line, separators or None) for line in lines]
        if sum(len(row) for row in rows) > MAX_CELLS:
            raise OSError(errno.EFBIG, f"over {MAX_CELLS} cells")
        await ctx.write(table(rows, joint))
    else:
        await ctx.write(columns_down(lines, columns, across))
    return status
