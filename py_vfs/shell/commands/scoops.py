"""Scoops in the shell: `scoop NAME` (a shell inside the scoop's restricted view; `exit`, in
shell_builtins.py, goes back to the disk) and `scoops` (list them). See docs/sandbox.md."""

from __future__ import annotations

from ..context import Context
from ..format import shown_name
from .registry import UsageError, command


@command("scoop [--network] NAME", "open a shell inside scoop NAME (exit returns)")
async def scoop(ctx: Context, args: list[str]) -> int:
    """Enter the scoop: its folders are made if needed, the cwd is its workspace;
    `--network` lets its `curl` and `wget` reach the network (off by default)."""
    network = bool(args) and args[0] in ("--network", "-n")
    if network:
        args = args[1:]
    if len(args) != 1 or args[0].startswith("-"):
        raise UsageError("usage: scoop [--network] NAME")
    session = ctx.session
    if session.scoop_name is not None:
        ctx.err(f"already in scoop {session.scoop_name}: exit first")
        return 1
    if not hasattr(ctx.vfs, "scoop"):
        ctx.err("not available inside a restricted view")
        return 1
    session.enter_scoop(args[0], await ctx.vfs.scoop(args[0], network=network))
    return 0


@command("scoops", "list the scoops")
async def scoops(ctx: Context, args: list[str]) -> int:
    """One name a line: the folders of /scoops (that this shell can see)."""
    if args:
        raise UsageError("usage: scoops")
    if not ctx.vfs.exists("/scoops"):
        return 0
    for entry in ctx.vfs.readdir("/scoops", with_types=True):
        if entry.type == "directory":
            ctx.out(shown_name(entry.name) + "\n")
    return 0
