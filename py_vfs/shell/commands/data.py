"""Commands that treat the disk as data (docs/data.md): sql (read-only SQL over its metadata),
export and import (a tree as a zip archive or a SQLite disk image, and back)."""

from __future__ import annotations

from ...archives.archive import FORMATS, export, format_of, import_archive
from ...disk.streams import write_all
from ..context import Context
from ..format import quote_arg, quote_name, visible
from .registry import UsageError, command


@command("sql QUERY [PARAM]...", "run a read-only SQL statement over the disk's files view")
async def sql(ctx: Context, args: list[str]) -> int:
    """Run one read-only SQLite statement over the ``files`` and ``journal`` views
    (docs/data.md), PARAMs filling its ``?`` placeholders, and print the rows as a table with a
    header, columns aligned (numbers to the right), NULL as empty. Every argument is an operand:
    a statement may start with ``-``."""
    if not args:
        raise UsageError("missing SQL statement")
    result = await ctx.vfs.query(args[0], args[1:])
    ctx.out(grid(result.columns, result.rows))
    if result.truncated:
        ctx.err(f"sql: only the first {len(result.rows)} rows are shown\n")
    return 0


def grid(columns: list[str], rows: list[tuple[object, ...]]) -> str:
    """Rows under their column names, aligned like sqlite3's column mode; every cell is made
    visible (a file name may hold terminal control characters)."""
    cells = [[visible(name) for name in columns]]
    cells += [["" if value is None else visible(str(value)) for value in row] for row in rows]
    numeric = [bool(rows) and all(isinstance(row[i], int | float) or row[i] is None
                                  for row in rows) for i in range(len(columns))]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    rule = ["-" * width for width in widths]
    out = []
    for line in (cells[0], rule, *cells[1:]):
        padded = [cell.rjust(w) if right else cell.ljust(w)
                  for cell, w, right in zip(line, widths, numeric, strict=True)]
        out.append("  ".join(padded).rstrip() + "\n")
    return "".join(out)


def parse_format(args: list[str]) -> tuple[str | None, list[str]]:
    """``--format zip|sqlite`` or ``--format=...`` anywhere, ``--`` ends the options; nothing
    else is an option. None: not given (the archive's name decides, ``archive.format_of``)."""
    chosen: str | None = None
    operands: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            operands.extend(rest)
        elif arg == "--format" or arg.startswith("--format="):
            chosen = arg.removeprefix("--format=") if "=" in arg else next(rest, None)
            if chosen not in FORMATS:
                raise UsageError(f"--format takes one of {', '.join(FORMATS)}")
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unrecognized option {quote_arg(arg)}")
        else:
            operands.append(arg)
    return chosen, operands


async def export_archive(ctx: Context, args: list[str]) -> int:
    """Stream the tree at PATH (a directory: everything below it; a file: that file) into a zip
    or a SQLite disk image at ARCHIVE, on the disk or in a mounted folder. The format is
    ``--format``'s, else the name's (``.db`` and ``.sqlite``: an image; anything else: a
    zip). A zip passes about one chunk at a time; an image is built in a temporary file.
    `export` runs this when its operands are not variable names (shell_builtins.py)."""
    chosen, operands = parse_format(args)
    if len(operands) != 2:
        raise UsageError("needs PATH and ARCHIVE")
    source, archive = (ctx.resolve(name) for name in operands)
    pieces = export(ctx.vfs, source, chosen or format_of(archive))  # the Disk is the VFS
    await write_all(ctx.vfs.stream_writer(archive), pieces)
    return 0


@command("import [--format zip|sqlite] ARCHIVE [DIR]",
         "make a zip's or a SQLite image's entries below DIR (default .), all or none")
async def import_(ctx: Context, args: list[str]) -> int:
    """Read the zip or SQLite image ARCHIVE (format as for export) and make its files,
    directories and symlinks below DIR, in one step: a malformed or hostile archive is refused
    and nothing changes. Prints what was made."""
    chosen, operands = parse_format(args)
    if len(operands) not in (1, 2):
        raise UsageError("needs ARCHIVE and at most one DIR")
    archive = ctx.resolve(operands[0])
    into = ctx.resolve(operands[1]) if len(operands) == 2 else ctx.cwd
    counts = await import_archive(ctx.vfs, ctx.vfs.open_read(archive),
                                  chosen or format_of(archive), into=into)
    ctx.out(f"{quote_name(operands[0])}: {counts['files']} files, {counts['directories']} "
            f"directories, {counts['symlinks']} symlinks, {counts['bytes']} bytes\n")
    return 0
