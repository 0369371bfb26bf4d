"""Commands about the disk as a whole: fsck (integrity) and df (usage and quota)."""

from __future__ import annotations

from collections.abc import Callable

from ...disk.check import describe
from ...disk.usage import Usage, human
from ..context import Context
from ..format import visible
from .registry import GNU, command, parse_flags

DF_HEADER = ("Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on")


@command("fsck", "check the disk: every entry, chunk, hash and size (status 1 on problems)")
async def fsck(ctx: Context, args: list[str]) -> int:
    """Print the integrity report of the whole store; status 1 if it found problems."""
    parse_flags(args, "")
    report = await ctx.vfs.check()
    for line in describe(report):
        ctx.out(visible(line) + "\n")  # a problem names its path: no control characters
    return 0 if report.ok else 1


@command("df [-h]", "show the disk's size, use and quota (-h: sizes like 1.5M)", errors=GNU)
async def df(ctx: Context, args: list[str]) -> int:
    """Print the store's size against its quota, then counts and content sizes."""
    flags, _ = parse_flags(args, "h")
    usage: Usage = await ctx.vfs.usage()
    size = human if "h" in flags else _kilobytes
    ctx.out(_table(usage, size))
    ctx.out(f"files: {usage.files}, directories: {usage.directories}, "
            f"symlinks: {usage.symlinks}\n")
    ctx.out(f"content: {size(usage.content_bytes)} in files, {size(usage.stored_bytes)} stored "
            f"in {usage.chunks} chunks (after deduplication) and {usage.inline_files} inline "
            f"files\n")
    persisted = "unknown" if usage.persisted is None else str(usage.persisted).lower()
    ctx.out(f"persisted: {persisted}\n")
    return 0


def _kilobytes(size: int | None) -> str:
    """df's default unit: 1K blocks, rounded up."""
    return "-" if size is None else str(-(-size // 1024))


def _table(usage: Usage, size: Callable[[int | None], str]) -> str:
    """The two lines of df: what the store occupies against the quota it may grow to."""
    used = usage.store_bytes if usage.store_bytes is not None else usage.stored_bytes
    percent = "-" if not usage.quota_bytes else f"{-(-used * 100 // usage.quota_bytes)}%"
    row = ("py_vfs", size(usage.quota_bytes), size(used), size(usage.available_bytes),
           percent, "/")
    widths = [max(len(a), len(b)) for a, b in zip(DF_HEADER, row, strict=True)]
    lines = []
    for cells in (DF_HEADER, row):
        first, *rest = cells
        line = f"{first:<{widths[0]}}" + "".join(
            f" {cell:>{w}}" for cell, w in zip(rest[:-1], widths[1:-1], strict=True))
        lines.append(f"{line} {rest[-1]}\n")
    return "".join(lines)

