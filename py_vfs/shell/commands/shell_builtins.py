"""Builtins that read or change the shell's own state: the directory, variables, options,
positional parameters, aliases and functions, and the flow of the program (exit, return,
break, continue, source, eval). They reach the shell through ``ctx.session``."""

from __future__ import annotations

import re

from ..context import Context, describe
from ..control import ExitShell, LoopControl, ReturnFrom
from ..format import quote_arg, quote_name, visible
from ..words import ifs_separator
from .data import export_archive
from .registry import UsageError, command, parse_flags

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
# What `export` reads as a (maybe invalid) assignment rather than an archive's operand.
_ASSIGNMENT_LIKE = re.compile(r"[^-/=][^/=]*=")


def _declare(value: str) -> str:
    """A value as bash's `declare -p`/`alias` show it: single-quoted, ' as '\\''."""
    return "'" + value.replace("'", "'\\''") + "'"


@command("pwd", "print the current directory")
async def pwd(ctx: Context, args: list[str]) -> int:
    """Print the current directory (the logical path `cd` kept)."""
    parse_flags(args, "LP")
    ctx.out(f"{visible(ctx.cwd)}\n")
    return 0


@command("cd [DIR|-]", "change the current directory (no DIR: $HOME; -: $OLDPWD)")
async def cd(ctx: Context, args: list[str]) -> int:
    """Change the current directory and set PWD and OLDPWD; no operand goes to $HOME, `cd -`
    to $OLDPWD (and prints it)."""
    _, operands = parse_flags(args, "LP")
    if len(operands) > 1:
        ctx.err("too many arguments")
        return 1
    variables = ctx.session.variables
    name = operands[0] if operands else variables.get("HOME")
    if name is None:
        ctx.err("HOME not set")
        return 1
    if name == "-":
        name = variables.get("OLDPWD") or ""
        if not name:
            ctx.err("OLDPWD not set")
            return 1
    if name == "":
        return 0
    try:
        path = ctx.resolve(name)
        node = ctx.vfs.stat(path)
    except OSError as exc:
        ctx.err(f"{quote_name(name)}: {describe(exc)}")
        return 1
    if node.type != "directory":
        ctx.err(f"{quote_name(name)}: Not a directory")
        return 1
    variables.set("OLDPWD", ctx.cwd)
    # The logical path, as sh keeps it: `cd link/..` returns to where the link is.
    ctx.session.cwd = path
    if operands == ["-"]:
        ctx.out(visible(path) + "\n")
    return 0


@command("export [-p] [NAME[=VALUE]...] | PATH ARCHIVE",
         "export variables to commands, or write a tree as an archive")
async def export(ctx: Context, args: list[str]) -> int:
    """With no operand or -p, list the exported variables (`declare -x NAME="value"`); with
    operands that are all NAME or NAME=VALUE, or any that looks like an assignment (WORD=...,
    WORD without `/` nor a leading `-`), mark them exported (assigning VALUE; an invalid NAME
    is an error, status 1); anything else is the archive export (see
    `export [--format zip|sqlite] PATH ARCHIVE`)."""
    variables = ctx.session.variables
    if args in ([], ["-p"]):
        for name, value in sorted(variables.exported().items()):
            ctx.out(f'declare -x {name}="{_escape_double(value)}"\n')
        return 0
    if not all(_NAME.fullmatch(arg) or _ASSIGNMENT.fullmatch(arg) for arg in args) \
            and not any(_ASSIGNMENT_LIKE.match(arg) for arg in args):
        return await export_archive(ctx, args)
    status = 0
    for arg in args:
        match = _ASSIGNMENT.fullmatch(arg)
        if match is not None:
            variables.set(match.group(1), match.group(2), export=True)
        elif _NAME.fullmatch(arg):
            variables.export(arg)
        else:
            ctx.err(f"`{arg}': not a valid identifier")
            status = 1
    return status


def _escape_double(value: str) -> str:
    return re.sub(r'(["\\$`])', r"\\\1", value)


@command("unset [-v|-f] NAME...", "remove variables (-f: functions)")
async def unset(ctx: Context, args: list[str]) -> int:
    """Remove each variable (or, with -f, function) NAME; an unset name is no error."""
    flags, names = parse_flags(args, "vf")
    for name in names:
        if "f" in flags:
            ctx.session.functions.pop(name, None)
        elif not _NAME.fullmatch(name):
            ctx.err(f"`{name}': not a valid identifier")
            return 1
        else:
            ctx.session.variables.unset(name)
    return 0


@command("env [-i] [-u NAME] [NAME=VALUE]... [CMD...]",
         "print the environment, or run COMMAND with changes to it")
async def env(ctx: Context, args: list[str]) -> int:
    """Without COMMAND, print the exported variables as NAME=VALUE lines; with it, run it
    with NAME=VALUE added, -u NAME removed, -i: only what is given."""
    changes: dict[str, str | None] = {}
    rest = list(args)
    clear = False
    while rest:
        arg = rest[0]
        if arg == "-i":
            clear = True
        elif arg == "-u" and len(rest) > 1:
            changes[rest[1]] = None
            rest.pop(0)
        elif (match := _ASSIGNMENT.fullmatch(arg)) is not None:
            changes[match.group(1)] = match.group(2)
        elif arg == "--":
            rest.pop(0)
            break
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"invalid option -- {quote_arg(arg[1:2])}")
        else:
            break
        rest.pop(0)
    variables = ctx.session.variables
    if clear:
        changes = {**dict.fromkeys(variables.exported()), **changes}
    variables.push({name: value for name, value in changes.items() if value is not None})
    for name, value in changes.items():
        if value is None:
            variables.scopes[-1][name] = None
    try:
        if not rest:
            for name, value in variables.exported().items():
                ctx.out(f"{name}={value}\n")
            return 0
        status = await ctx.run(rest, stdin=ctx.stdin)
        return status
    finally:
        variables.pop()


@command("printenv [NAME...]", "print the environment, or the values of NAMEs")
async def printenv(ctx: Context, args: list[str]) -> int:
    """Print every exported NAME=VALUE, or each NAME's value (status 1 if one is not
    exported)."""
    exported = ctx.env
    if not args:
        for name, value in exported.items():
            ctx.out(f"{name}={value}\n")
        return 0
    status = 0
    for name in args:
        if name in exported:
            ctx.out(exported[name] + "\n")
        else:
            status = 1
    return status


@command("set [-eux] [-o OPTION] [--] [ARG...]",
         "set options (-e errexit, -u nounset, -x xtrace, -o pipefail) or $1...")
async def set_(ctx: Context, args: list[str]) -> int:
    """No argument: list the variables. -e: stop at a failing command; -u: an unset variable
    is an error; -x: print each command before it runs; -o pipefail: a pipeline fails if any
    stage fails (`+` turns them off); remaining arguments (or all after `--`) become $1..."""
    variables = ctx.session.variables
    options = variables.options
    if not args:
        for name in variables.names():
            ctx.out(f"{name}={_quoted_value(variables.get(name) or '')}\n")
        return 0
    letters = {"e": "errexit", "u": "nounset", "x": "xtrace"}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            variables.positional = args[index + 1:]
            return 0
        if arg in ("-o", "+o"):
            if index + 1 == len(args):
                for name in ("errexit", "nounset", "pipefail", "xtrace"):
                    ctx.out(f"{name:<15}\t{'on' if getattr(options, name) else 'off'}\n")
                return 0
            name = args[index + 1]
            if name not in ("errexit", "nounset", "pipefail", "xtrace"):
                ctx.err(f"{name}: invalid option name")
                return 2
            setattr(options, name, arg == "-o")
            index += 2
            continue
        if arg[:1] in "-+" and len(arg) > 1:
            for letter in arg[1:]:
                if letter not in letters:
                    ctx.err(f"{arg[0]}{letter}: invalid option")
                    return 2
                setattr(options, letters[letter], arg[0] == "-")
            index += 1
            continue
        variables.positional = args[index:]
        return 0
    return 0


def _quoted_value(value: str) -> str:
    return value if re.fullmatch(r"[\w@%+=:,./-]*", value) else _declare(value)


@command("shift [N]", "drop the first N (1) positional parameters")
async def shift(ctx: Context, args: list[str]) -> int:
    """$2 becomes $1...; status 1 when there are fewer than N."""
    count = _number(ctx, args, 1)
    if count is None:
        return 1
    positional = ctx.session.variables.positional
    if count > len(positional) or count < 0:
        return 1
    ctx.session.variables.positional = positional[count:]
    return 0


def _number(ctx: Context, args: list[str], default: int) -> int | None:
    if len(args) > 1:
        ctx.err("too many arguments")
        return None
    if not args:
        return default
    if not re.fullmatch(r"-?\d+", args[0]):
        ctx.err(f"{args[0]}: numeric argument required")
        return None
    return int(args[0])


@command("local NAME[=VALUE]...", "make variables local to the running function")
async def local(ctx: Context, args: list[str]) -> int:
    """Each NAME becomes a variable of the running function: the caller's is untouched."""
    if ctx.session.function_depth == 0:
        ctx.err("can only be used in a function")
        return 1
    for arg in args:
        match = _ASSIGNMENT.fullmatch(arg)
        name, value = (match.group(1), match.group(2)) if match else (arg, None)
        if not _NAME.fullmatch(name):
            ctx.err(f"`{arg}': not a valid identifier")
            return 1
        ctx.session.variables.local(name, value)
    return 0


@command("read [-r] [-p PROMPT] [NAME...]", "read a line of input into variables")
async def read(ctx: Context, args: list[str]) -> int:
    """Read one line from standard input and split it on IFS: each NAME gets a field, the
    last one the rest of the line (REPLY without NAME). Without -r, a backslash escapes the
    next character and backslash-newline joins lines. Status 1 at the end of the input."""
    raw, names = False, []
    rest = iter(args)
    for arg in rest:
        if arg == "-r":
            raw = True
        elif arg == "-p":
            ctx.stderr.write_nowait(next(rest, ""))
        elif arg.startswith("-") and not names:
            raise UsageError(f"invalid option -- {quote_arg(arg[1:2])}")
        else:
            names.append(arg)
    text, ended = "", False
    while True:
        line = (await ctx.stdin.readline()).decode("utf-8", "surrogateescape")
        if not line.endswith("\n"):
            ended = True
        line = line.removesuffix("\n")
        if not raw and line.endswith("\\") and not ended:
            text += line[:-1]
            continue
        text += line
        break
    if not raw:
        text = re.sub(r"\\(.)", r"\1", text)
    variables = ctx.session.variables
    if not names:
        variables.set("REPLY", text)
        return 1 if ended and not text else 0
    ifs = variables.get("IFS")
    ifs = " \t\n" if ifs is None else ifs
    white = "".join(c for c in ifs if c in " \t\n")
    text = text.strip(white)
    fields: list[str] = []
    separator = re.compile(ifs_separator(ifs)) if ifs else None
    while len(fields) < len(names) - 1 and text and separator is not None:
        match = separator.search(text)
        if match is None:
            break
        fields.append(text[:match.start()])
        text = text[match.end():]
    fields.append(text)
    for index, name in enumerate(names):
        variables.set(name, fields[index] if index < len(fields) else "")
    return 1 if ended else 0


async def _source(ctx: Context, args: list[str]) -> int:
    if not args:
        ctx.err("filename argument required")
        return 2
    try:
        data = await ctx.vfs.read_file(ctx.resolve(args[0]))
    except OSError as exc:
        ctx.say(f"{quote_name(args[0])}: {describe(exc)}")
        return 1
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    return await ctx.session.run_here(text, args, ctx.stdin, ctx.stdout, ctx.stderr)


@command("source FILE [ARG...]", "run the commands of FILE in this shell")
async def source(ctx: Context, args: list[str]) -> int:
    """Read FILE from the disk and run it here: its variables, functions and cd stay; ARGs
    are $1... while it runs; `return` leaves it."""
    return await _source(ctx, args)


@command(". FILE [ARG...]", "run the commands of FILE in this shell (as source)")
async def dot(ctx: Context, args: list[str]) -> int:
    """The same as `source`."""
    return await _source(ctx, args)


@command("eval [ARG...]", "run the arguments, joined by spaces, as a command line")
async def eval_(ctx: Context, args: list[str]) -> int:
    """Join the arguments with spaces and run the result in this shell."""
    if not args:
        return 0
    return await ctx.session.run_here(" ".join(args), None, ctx.stdin, ctx.stdout, ctx.stderr)


@command("exit [N]", "end the script or line with status N (in a scoop at the prompt: leave it)")
async def exit_(ctx: Context, args: list[str]) -> int:
    """End the script, the subshell or the line, with status N (default: the last command's).
    Typed at the prompt inside a scoop, it also leaves the scoop (see `scoop`): back to the
    disk, the directory and the state the shell had, and the rest of the line does not run."""
    session = ctx.session
    at_prompt = not (session.script_depth or session.function_depth or session.subshell)
    status = _number(ctx, args, session.status)
    if session.scoop_name is not None and at_prompt:
        session.leave_scoop()
    raise ExitShell(2 if status is None else status & 255)


@command("return [N]", "leave the function or sourced file with status N")
async def return_(ctx: Context, args: list[str]) -> int:
    """Leave the running function (or sourced file) with status N (default: the last
    command's)."""
    session = ctx.session
    if not (session.function_depth or session.script_depth):
        ctx.err("can only `return' from a function or sourced script")
        return 2
    status = _number(ctx, args, session.status)
    raise ReturnFrom(2 if status is None else status & 255)


async def _loop(ctx: Context, args: list[str], again: bool) -> int:
    count = _number(ctx, args, 1)
    if count is None or count < 1:
        if count is not None:
            ctx.err(f"{args[0]}: loop count out of range")
        return 1
    if ctx.session.loop_depth == 0:
        ctx.err("only meaningful in a `for', `while', or `until' loop")
        return 0
    raise LoopControl(min(count, ctx.session.loop_depth), again=again)


@command("break [N]", "leave the innermost N (1) loops")
async def break_(ctx: Context, args: list[str]) -> int:
    """Leave the enclosing for/while/until loop (N: that many)."""
    return await _loop(ctx, args, False)


@command("continue [N]", "go on with the next iteration of the loop")
async def continue_(ctx: Context, args: list[str]) -> int:
    """Skip to the next iteration of the enclosing loop (N: of the Nth)."""
    return await _loop(ctx, args, True)


@command("alias [NAME[=VALUE]...]", "define or list aliases")
async def alias(ctx: Context, args: list[str]) -> int:
    """No operand: list every alias as `alias NAME='VALUE'`; NAME=VALUE defines one
    (expanded when a later line is read); NAME prints it."""
    aliases = ctx.session.aliases
    if not args or args == ["-p"]:
        for name in sorted(aliases):
            ctx.out(f"alias {name}={_declare(aliases[name])}\n")
        return 0
    status = 0
    for arg in args:
        name, equals, value = arg.partition("=")
        if equals:
            aliases[name] = value
        elif name in aliases:
            ctx.out(f"alias {name}={_declare(aliases[name])}\n")
        else:
            ctx.err(f"{name}: not found")
            status = 1
    return status


@command("unalias [-a] NAME...", "remove aliases")
async def unalias(ctx: Context, args: list[str]) -> int:
    """Remove each alias NAME (-a: all of them)."""
    aliases = ctx.session.aliases
    if args == ["-a"]:
        aliases.clear()
        return 0
    status = 0
    for name in args:
        if aliases.pop(name, None) is None:
            ctx.err(f"{name}: not found")
            status = 1
    return status


@command(": [ARG...]", "do nothing, successfully (the arguments are expanded)")
async def colon(ctx: Context, args: list[str]) -> int:
    """Exit 0."""
    return 0


@command("true", "do nothing, successfully")
async def true(ctx: Context, args: list[str]) -> int:
    """Exit 0."""
    return 0


@command("false", "do nothing, unsuccessfully")
async def false(ctx: Context, args: list[str]) -> int:
    """Exit 1."""
    return 1
