"""`trap`: set, reset and list the actions the shell runs at its exit and after a failure
(py_vfs/shell/traps.py says when each runs)."""

from __future__ import annotations

from ..context import Context
from ..traps import NAMES, listing_order, shown_name, trap_name
from .registry import command


def _quoted(action: str) -> str:
    return "'" + action.replace("'", "'\\''") + "'"


def _listing(traps: dict[str, str], names: list[str]) -> str:
    return "".join(f"trap -- {_quoted(traps[name])} {shown_name(name)}\n"
                   for name in sorted(names, key=listing_order) if name in traps)


@command("trap [-lp] [[ACTION] NAME...]",
         "run ACTION when the shell exits (EXIT) or a command fails (ERR)")
async def trap(ctx: Context, args: list[str]) -> int:
    """Set ACTION (a command line) for each NAME: EXIT (or 0) runs it when the script, `sh -c`
    string or subshell ends (not the session at the prompt, which does not end); ERR after a
    command fails where `set -e` would stop the shell (not inside functions). INT, TERM, HUP
    and QUIT (also as SIGINT or a number) are accepted and listed, but never delivered: Ctrl-C
    stops the line as always. ACTION `-` resets each NAME, `''` makes it empty; a lone NAME
    (a number) resets it too. No operand or -p: list the traps as `trap -- 'ACTION' NAME`
    (-p NAME...: only those); -l: the names and numbers."""
    traps = ctx.session.traps
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or args[0] == "-p":
        names = [trap_name(arg) for arg in args[1:]]
        for arg, name in zip(args[1:], names, strict=True):
            if name is None:
                ctx.err(f"{arg}: invalid signal specification")
                return 1
        ctx.out(_listing(traps, [n for n in names if n] if args[1:] else list(traps)))
        return 0
    if args[0] == "-l":
        ctx.out("".join(f"{number}) SIG{name}\n" for name, number in NAMES.items()
                        if number))
        return 0
    if args[0].startswith("-") and args[0] != "-":
        ctx.err(f"{args[0]}: invalid option")
        ctx.stderr.write_nowait("trap: usage: trap [-lp] [[arg] signal_spec ...]\n")
        return 2
    action: str | None = args[0]
    names = args[1:]
    if not names or (len(args) == 1 and trap_name(args[0]) is not None):
        action, names = "-", args  # `trap 0`: reset, as bash reads a lone number
    status = 0
    for spec in names:
        name = trap_name(spec)
        if name is None:
            ctx.err(f"{spec}: invalid signal specification")
            status = 1
        elif action == "-":
            traps.pop(name, None)
        else:
            traps[name] = action or ""
    return status
