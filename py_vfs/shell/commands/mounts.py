"""mount and umount: folders outside the disk, live inside the VFS (docs/mounts.md).

The shell does not mount by itself: it asks its host (``py_vfs.mounts.host``), so that in the
browser the page shows the folder picker and keeps the handle, and on CPython a host directory
named on the command line is mounted.
"""

from __future__ import annotations

from typing import Any

from ...mounts.host import NeedsFolder
from ..context import Context, describe, each_operand
from ..format import quote_arg, quote_name
from .registry import UsageError, command, parse_flags, require_operands

READ_ONLY_FLAGS = ("--read-only", "-r")


@command("mount [--read-only] PATH [FOLDER]",
         "mount a folder at PATH (browser: pick it); also: mount list, mount unmount PATH, "
         "mount reconnect PATH")
async def mount(ctx: Context, args: list[str]) -> int:
    """Mount a folder, or list, unmount or reconnect mounts (subcommands)."""
    if not args or args == ["list"]:
        _list(ctx)
        return 0
    if args[0] == "unmount":
        return await umount(ctx, args[1:])
    if args[0] == "reconnect":
        _, operands = parse_flags(args[1:], "")
        require_operands(operands)
        return await each_operand(ctx, operands, lambda name: _reconnect(ctx, name),
                                  "cannot reconnect {arg}")
    return await _mount(ctx, args)


@command("umount PATH...", "unmount folders (the same as mount unmount)")
async def umount(ctx: Context, args: list[str]) -> int:
    """Unmount each mount point."""
    _, operands = parse_flags(args, "")
    require_operands(operands)

    async def unmount(name: str) -> None:
        await ctx.session.host.unmount(ctx.resolve(name))

    return await each_operand(ctx, operands, unmount, "cannot unmount {arg}")


async def _mount(ctx: Context, args: list[str]) -> int:
    read_only = any(arg in READ_ONLY_FLAGS for arg in args)
    _, operands = parse_flags([a for a in args if a not in READ_ONLY_FLAGS], "")
    require_operands(operands)
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}")
    path = ctx.resolve(operands[0])
    folder = operands[1] if len(operands) == 2 else None
    try:
        info = await ctx.session.host.mount(path, read_only=read_only, folder=folder)
    except NeedsFolder as exc:
        ctx.err(str(exc))
        return 2
    except OSError as exc:
        ctx.err(f"cannot mount {quote_arg(operands[0])}: {describe(exc)}")
        return 1
    ctx.out(f"mounted {quote_arg(info['name'])} at {quote_name(info['path'])} "
            f"({_mode(info)})\n")
    return 0


async def _reconnect(ctx: Context, name: str) -> None:
    info = await ctx.session.host.reconnect(ctx.resolve(name))
    ctx.out(f"reconnected {quote_arg(info['name'])} at {quote_name(info['path'])}\n")


def _mode(info: dict[str, Any]) -> str:
    return "read-only" if info["readOnly"] else "read-write"


def _list(ctx: Context) -> None:
    """One line per mount: path, folder, mode, state (and how to leave the waiting state)."""
    mounts = ctx.vfs.mounts()
    if not mounts:
        ctx.out("no mounts\n")
        return
    rows = [(quote_name(m["path"]), quote_name(m["name"]), _mode(m),
             m["state"] if m["state"] == "active"
             else f"waiting: mount reconnect {quote_name(m['path'])}")
            for m in mounts]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        ctx.out("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
                + "  " + row[3] + "\n")
