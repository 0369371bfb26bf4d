"""``history``: the interactive shell's list of lines (py_vfs/shell/history_file.py); not the
disk's journal, which is ``log`` (commands/history.py)."""

from __future__ import annotations

from ..context import Context
from ..history_file import history_of
from .registry import UsageError, command


@command("history [-c] [N]", "show the lines typed in the terminal, numbered")
async def history(ctx: Context, args: list[str]) -> int:
    """Lists the session's history: the lines of ~/.history read when the terminal started,
    then the lines run since (bash's numbering, from 1); N: the last N only. -c empties the
    list (the file keeps its lines). `!n`, `!-n`, `!!`, `!prefix` and `!$` recall lines in the
    terminal."""
    entries = history_of(ctx.session)
    await entries.ensure_loaded()
    if args == ["-c"]:
        entries.clear()
        return 0
    if len(args) > 1:
        raise UsageError("too many arguments")
    if args and args[0].startswith("-"):
        raise UsageError(f"{args[0]}: invalid option")
    if args and not args[0].isdigit():
        raise UsageError(f"{args[0]}: numeric argument required")
    count = int(args[0]) if args else None
    for number, line in entries.numbered(count):
        ctx.out(f"{number:5d}  {line}\n")
    return 0
