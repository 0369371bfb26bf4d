"""What a name runs: `which`, `type`, `command` and `commands` (the order the shell tries a name
in is py_vfs/shell/commands/meanings.py's; scripts are found by py_vfs/shell/scripts.py)."""

from __future__ import annotations

from ..context import Context
from ..format import quote_name, shown_name, visible
from ..scripts import find_scripts
from ..trust import SKIPPED, default_path
from .meanings import Meaning, every_command, meanings
from .registry import COMMANDS, UsageError, command, parse_flags, require_operands

MAX_NAME_COLUMN = 16  # `commands`: names longer than this push their line's second column


@command("which [-a] NAME...", "show what each NAME runs: a built-in command or a script's path")
async def which(ctx: Context, args: list[str]) -> int:
    """For each NAME, print what runs it, as zsh's which does: "NAME: shell built-in command"
    for a built-in (which shadows any script), else the path of the script found in the $PATH
    folders (NAME, NAME.jsh, NAME.py in each), then among the skills' scripts, or named by a
    path with a "/". -a prints every match, the built-in first. A NAME that runs nothing prints
    nothing, as Debian's which, and the status is 1. On the whole disk (trust.guarded), a
    script a scoop could write is not run: each one skipped is named on stderr."""
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


def _bash_flags(ctx: Context, args: list[str], allowed: str, usage: str) -> tuple[str, list[str]]:
    """A bash builtin's options: before the first operand (``--`` ends them), combined or not;
    the flags in the order given (the last of two exclusive ones wins). An unknown one is bash's
    `sh: NAME: -x: invalid option` and usage line, status 2."""
    flags = ""
    for index, arg in enumerate(args):
        if arg == "--":
            return flags, args[index + 1:]
        if not arg.startswith("-") or arg == "-":
            return flags, args[index:]
        for letter in arg[1:]:
            if letter not in allowed:
                raise UsageError(f"-{letter}: invalid option", 2,
                                 detail=f"{ctx.name}: usage: {usage}")
            flags += letter
    return flags, []


def _described(meaning: Meaning, shown: str) -> str:
    """`type`'s sentence for one meaning: `NAME is a shell builtin`..."""
    said = {"alias": f"is aliased to `{meaning.text}'", "keyword": "is a shell keyword",
            "function": "is a function", "builtin": "is a shell builtin"}
    return f"{meaning.name} {said.get(meaning.kind, f'is {shown}')}"


def _shown(meaning: Meaning) -> str:
    """A file as bash names it: the name as typed when it has a ``/``, else the path found."""
    return meaning.name if "/" in meaning.name else meaning.text


@command("type [-afptP] NAME...",
         "tell what a command name is: alias, keyword, function, builtin or file")
async def type_(ctx: Context, args: list[str]) -> int:
    """For each NAME, say what runs when it is typed as a command: an alias, a shell keyword,
    a function, a builtin (the commands of this shell), or a script found in $PATH or in a
    skill. -a: everything NAME could run, in the order the shell tries them. -t: only the kind,
    one word (alias, keyword, function, builtin, file). -p: the file's path, when a file is what
    runs; -P: the path of a file NAME could run even when something else runs first. -f: leave
    the functions out. The status is 1 when a NAME is not found."""
    flags, names = _bash_flags(ctx, args, "afptP", "type [-afptP] name [name ...]")
    status = 0
    for name in names:
        found = meanings(ctx.session, ctx.vfs, name, others="P" not in flags,
                         every="a" in flags or "f" in flags)
        found = [m for m in found if not ("f" in flags and m.kind == "function")]
        if not found:
            if not set(flags) & set("tpP"):
                ctx.err(f"{quote_name(name)}: not found")
            status = 1
            continue
        for meaning in found if "a" in flags else found[:1]:
            if "t" in flags:
                ctx.out(f"{meaning.kind}\n")
            elif set(flags) & set("pP"):
                ctx.out(visible(_shown(meaning)) + "\n" if meaning.kind == "file" else "")
            else:
                ctx.out(visible(_described(meaning, _shown(meaning))) + "\n")
    return status


@command("command [-pVv] NAME [ARG...]",
         "run NAME without its functions, or tell what NAME runs (-v, -V)")
async def command_(ctx: Context, args: list[str]) -> int:
    """Run NAME with ARGs as a builtin or a script, never as a function of that name. -v: print
    what each NAME runs, one line each: the name of a builtin, function or keyword, `alias
    NAME='VALUE'`, or a file's path; nothing for a NAME that runs nothing. -V: say it in
    `type`'s words (`sh: command: NAME: not found` for none). The status is then 0 when any
    NAME was found, else 1. -p (with -v or -V): look scripts up in the default $PATH, whatever
    $PATH holds."""
    flags, names = _bash_flags(ctx, args, "pVv", "command [-pVv] command [arg ...]")
    env = {**ctx.env, "PATH": default_path(ctx.vfs)} if "p" in flags else None
    describe = next((flag for flag in reversed(flags) if flag in "vV"), "")
    if not describe:
        if not names:
            return 0
        return await ctx.session.run_argv(names, ctx.stdin, ctx.stdout, ctx.stderr,
                                          functions=False)
    found_any = False
    for name in names:
        found = meanings(ctx.session, ctx.vfs, name, every=False, env=env)
        if not found:
            if describe == "V":
                ctx.err(f"{quote_name(name)}: not found")
            continue
        found_any = True
        meaning = found[0]
        if describe == "V":
            ctx.out(visible(_described(meaning, _shown(meaning))) + "\n")
        elif meaning.kind == "alias":
            value = meaning.text.replace("'", "'\\''")
            ctx.out(visible(f"alias {name}='{value}'") + "\n")
        else:
            ctx.out(visible(_shown(meaning) if meaning.kind == "file" else name) + "\n")
    return 0 if found_any or not names else 1


@command("commands [-aq]", "list every command that can run, with where each comes from")
async def commands(ctx: Context, args: list[str]) -> int:
    """Every name that runs something, sorted, one a line with where it comes from: `builtin`,
    `function`, `alias: VALUE`, `$PATH FOLDER: PATH` (a script in a $PATH folder) or `skill
    SKILL: PATH` (a skill's script). A name is listed once, with what runs; -a lists what it
    shadows too, each such line ending in `(shadowed)`. -q: the names alone, one a line."""
    flags, operands = parse_flags(args, "aq")
    if operands:
        raise UsageError(f"extra operand {quote_name(operands[0])}")
    listing = every_command(ctx.session, ctx.vfs)
    rows: list[tuple[str, str]] = []
    previous = None
    for meaning in listing:
        shadowed = meaning.name == previous
        previous = meaning.name
        if shadowed and ("a" not in flags or "q" in flags):
            continue
        detail = meaning.text if meaning.kind in ("alias", "file") else ""
        text = meaning.origin + (f": {visible(detail)}" if detail else "")
        rows.append((shown_name(meaning.name), text + (" (shadowed)" if shadowed else "")))
    if "q" in flags:
        ctx.out("".join(f"{name}\n" for name, _ in rows))
        return 0
    width = min(MAX_NAME_COLUMN, max((len(name) for name, _ in rows), default=0))
    ctx.out("".join(f"{name:<{width}}  {text}\n" for name, text in rows))
    return 0
