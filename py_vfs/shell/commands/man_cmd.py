"""`man`: a command's section of the shell's reference, a topic page, or a skill's SKILL.md
(py_vfs/shell/manual.py), through a pager when the terminal shows it and one exists."""

from __future__ import annotations

from ..context import Context
from ..format import visible
from ..manual import page
from ..pipes import BytesInput
from ..scripts import locate
from .meanings import meanings
from .registry import Usage, command, parse_flags

PAGERS = ("less", "more")  # tried after $MANPAGER and $PAGER
MAX_SKILL_PAGE = 1 << 20  # bytes of a SKILL.md printed at most
RUNNABLE = ("function", "builtin", "file")  # what a pager's name may be (not an alias)
NOT_FOUND = 1


@command("man NAME...", "show the manual page of a command, a skill's script or a topic",
         errors=Usage(2, try_help=True))
async def man(ctx: Context, args: list[str]) -> int:
    """For each NAME, print its page: the section of the shell's reference (docs/shell.md) on
    the command NAME; the topic pages `man skill`, `man jsh` and `man scoop`; for a skill's
    script, its skill's SKILL.md. A NAME without one: `No manual entry for NAME` on stderr,
    status 1. On a terminal the pages go through a pager ($MANPAGER, $PAGER, less or more: the
    first that names a command) when there is one; else, and into a pipe or a file, they are
    printed."""
    _, names = parse_flags(args, "")
    if not names:
        ctx.stderr.write_nowait("What manual page do you want?\nFor example, try 'man man'.\n")
        return NOT_FOUND
    pages, status = [], 0
    for name in names:
        text = page(name) or await _skill_page(ctx, name)
        if text is None:
            ctx.stderr.write_nowait(visible(f"No manual entry for {name}") + "\n")
            status = NOT_FOUND
        else:
            pages.append(text)
    if not pages:
        return status
    text = "\n".join(pages)
    pager = _pager(ctx) if ctx.stdout.isatty else None
    if pager is None:
        await ctx.write(text)
        return status
    return await ctx.run(pager, stdin=BytesInput(text)) or status


async def _skill_page(ctx: Context, name: str) -> str | None:
    """The SKILL.md of the skill whose script runs as ``name``, or None."""
    if "/" in name:
        return None
    found = locate(ctx.vfs, ctx.cwd, name, ctx.env, every=False)
    if not found or not found[0].skill:
        return None
    try:
        chunks = [chunk async for chunk in
                  ctx.vfs.open_read(f"{found[0].folder}/SKILL.md", 0, MAX_SKILL_PAGE)]
    except OSError:
        return None
    text = b"".join(chunks).decode("utf-8", "replace")
    return text if text.endswith("\n") else text + "\n"


def _pager(ctx: Context) -> list[str] | None:
    """The pager's argv: the first of $MANPAGER, $PAGER, less and more whose first word names
    a function, a builtin or a script; None when none does."""
    env = ctx.env
    for choice in (env.get("MANPAGER", ""), env.get("PAGER", ""), *PAGERS):
        argv = choice.split()
        if argv and any(meaning.kind in RUNNABLE
                        for meaning in meanings(ctx.session, ctx.vfs, argv[0])):
            return argv
    return None
