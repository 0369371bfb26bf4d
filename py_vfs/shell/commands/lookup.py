"""`which`: what a name runs, a builtin or a script from $PATH (py_vfs/shell/scripts.py)."""

from __future__ import annotations

from ..context import Context
from ..format import quote_name, visible
from ..scripts import find_scripts
from ..trust import SKIPPED
from .registry import COMMANDS, command, parse_flags, require_operands


@command("which [-a] NAME...", "show what each NAME runs: a built-in command or a script's path")
async def which(ctx: Context, args: list[str]) -> int:
    """For each NAME, print what runs it, as zsh's which does: "NAME: shell built-in command"
    for a built-in (which shadows any script), else the path of the script found in the $PATH
    folders (NAME, NAME.jsh, NAME.py in each) or named by a path with a "/". -a prints every
    match, the built-in first. A NAME that runs nothing prints nothing, as Debian's which, and
    the status is 1. On the whole disk (trust.guarded), a script a scoop could write is not
    run: each one skipped is named on stderr."""
    flags, names = parse_flags(args, "a")
    require_operands(names)
    status = 0
    for name in names:
        found = [f"{name}: shell built-in command"] if name in COMMANDS and "/" not in name else []
        skipped: list[str] = []
        if not found or "a" in flags:
            found += find_scripts(ctx.vfs, ctx.cwd, name, ctx.env, skipped)
        for path in skipped if not found or "a" in flags else []:
            ctx.err(f"{quote_name(path)}: {SKIPPED}")
        if not found:
            status = 1
        for line in found if "a" in flags else found[:1]:
            ctx.out(visible(line) + "\n")
    return status
