"""du: how much a tree holds.

The VFS allocates no blocks, so du counts what GNU's `du --apparent-size` counts: the sizes
`ls -l` shows (a directory's own size as the VFS reports it, a symlink's the length of its
target), summed below each directory, and shown in 1K units rounded up (`-b`: bytes).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...core import cancel
from ...disk.usage import human
from ..context import Context, describe, list_names
from ..format import quote_arg, quote_name
from .options import parse
from .registry import GNU, UsageError, command


@dataclass
class _Dir:
    """A directory being summed: how it is shown, its depth, its total so far, and its
    entries left to visit."""

    shown: str
    path: str
    depth: int
    total: int
    names: Iterator[str] = field(default_factory=lambda: iter(()))


@command("du [-abchks] [-d N] [PATH...]", "show how much each directory holds (1K units)",
         errors=GNU)
async def du(ctx: Context, args: list[str]) -> int:
    """Print the size of each PATH (default .) and of every directory below it, after what
    it holds, as `SIZE<TAB>PATH`. -s: only each PATH's total; -a: files too; -d N
    (--max-depth=N): only lines N levels deep or less; -c: a `total` line at the end;
    -h: sizes as 1.5K, 12M; -b: in bytes; -k: 1K units (the default). Sizes are apparent
    sizes (what `ls -l` shows), as GNU's `du --apparent-size`."""
    options = parse(args, "abchks", "d", long={"max-depth": True, "summarize": False,
                                                "all": False, "total": False,
                                                "human-readable": False, "bytes": False,
                                                "apparent-size": False})
    depth_text = options.values.get("d", options.values.get("max-depth"))
    if depth_text is not None and not depth_text.isdigit():
        raise UsageError(f"invalid maximum depth {quote_arg(depth_text)}")
    summarize = "s" in options or "summarize" in options
    max_depth = 0 if summarize else None if depth_text is None else int(depth_text)
    if summarize and depth_text not in (None, "0"):
        raise UsageError("cannot both summarize and show all entries")
    every = "a" in options or "all" in options
    shown_size: Callable[[int], str] = _kilobytes
    if "h" in options or "human-readable" in options:
        shown_size = human
    elif "b" in options or "bytes" in options:
        shown_size = str
    status = 0
    grand = 0
    for name in options.operands or ["."]:
        try:
            total = await _sum(ctx, name, ctx.resolve(name), max_depth, every, shown_size)
        except OSError as exc:
            ctx.err(f"cannot access {quote_arg(name)}: {describe(exc)}")
            status = 1
            continue
        grand += total
    if "c" in options or "total" in options:
        ctx.out(f"{shown_size(grand)}\ttotal\n")
    return status


async def _sum(ctx: Context, name: str, path: str, max_depth: int | None, every: bool,
               show: Callable[[int], str]) -> int:
    """Print the lines of one PATH's tree, depth first, each directory after its entries;
    its total. An explicit stack: a tree may be deeper than Python's recursion limit."""
    node = ctx.vfs.lstat(path)
    if node.type != "directory":
        ctx.out(f"{show(node.size)}\t{quote_name(name)}\n")
        return node.size
    stack = [_Dir(name, path, 0, node.size, iter(_names(ctx, name, path)))]
    visited = 0
    while True:
        top = stack[-1]
        child = next(top.names, None)
        if child is None:
            stack.pop()
            if max_depth is None or top.depth <= max_depth:
                ctx.out(f"{show(top.total)}\t{quote_name(top.shown)}\n")
            if not stack:
                return top.total
            stack[-1].total += top.total
            continue
        child_path = posixpath.join(top.path, child)
        shown = top.shown + ("" if top.shown.endswith("/") else "/") + child
        try:
            child_node = ctx.vfs.lstat(child_path)
        except OSError:
            continue  # removed since readdir
        if child_node.type == "directory":
            stack.append(_Dir(shown, child_path, top.depth + 1, child_node.size,
                              iter(_names(ctx, shown, child_path))))
            visited += 1
            await cancel.checkpoint("du", visited, 0, "directories")
            continue
        top.total += child_node.size
        if every and (max_depth is None or top.depth + 1 <= max_depth):
            ctx.out(f"{show(child_node.size)}\t{quote_name(shown)}\n")


def _kilobytes(size: int) -> str:
    return str(-(-size // 1024))


def _names(ctx: Context, shown: str, path: str) -> list[str]:
    try:
        return list_names(ctx.vfs, path)
    except OSError as exc:
        ctx.err(f"cannot read directory {quote_arg(shown)}: {describe(exc)}")
        return []
