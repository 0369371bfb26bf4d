"""Who and where the shell is: whoami and hostname, fixed names for a browser disk.

A disk has no users and its page no host name the shell could honestly report (the page's
origin is not a host's name, and differs between tabs of different ports), so both print fixed
names: ``format.OWNER`` (`user`, the owner `ls -l` and `stat` show) and ``HOSTNAME``
(`pyvfs`); docs/shell.md says so.
"""

from __future__ import annotations

from ..context import Context
from ..format import OWNER, quote_arg
from .gnu import getopts
from .registry import GNU, UsageError, command

HOSTNAME = "pyvfs"


@command("whoami", "print the user's name (always `user`)", errors=GNU)
async def whoami(ctx: Context, args: list[str]) -> int:
    """Print the name of the user: `user`, the owner of every node of the disk."""
    _, operands = getopts(args, "")
    if operands:
        raise UsageError(f"extra operand {quote_arg(operands[0])}")
    ctx.out(f"{OWNER}\n")
    return 0


@command("hostname [-s] [-f]", "print the host's name (always `pyvfs`)", errors=GNU)
async def hostname(ctx: Context, args: list[str]) -> int:
    """Print the host's name: `pyvfs`, whatever page or machine the disk is on (-s, -f:
    the same). Setting it (`hostname NAME`) is refused, as for a user without the right."""
    _, operands = getopts(args, "sf", ("short", "fqdn", "long"))
    if operands:
        ctx.err("you must be root to change the host name")
        return 1
    ctx.out(f"{HOSTNAME}\n")
    return 0
