"""`sh` and `bash`: run a shell script, a command string or standard input in a new shell
process of this shell (py_vfs/shell/shell_script.py)."""

from __future__ import annotations

from ..context import Context, describe, lexists
from ..format import quote_name, visible
from ..pipes import NoInput
from ..shell_script import (
    InvocationError,
    decode,
    is_binary,
    parse_invocation,
    read_script,
    run_script,
    usage_lines,
)
from .registry import command

USAGE = "[-eux] [-o OPT] [-c CMD [ARG...] | FILE [ARG...]]"
NOT_FOUND = 127
CANNOT_RUN = 126


async def _shell(ctx: Context, args: list[str]) -> int:
    try:
        found = parse_invocation(args)
    except InvocationError as exc:
        ctx.err(str(exc))
        if exc.usage:
            ctx.stderr.write_nowait(usage_lines(ctx.name))
        return exc.status
    if found.command:
        text, rest = found.operands[0], found.operands[1:]
        return await run_script(ctx, text, rest or [ctx.name], found.options)
    if found.stdin:
        text = decode(await ctx.stdin.read_all())
        ctx.stdin = NoInput()  # the script was its input: its commands read nothing
        return await run_script(ctx, text, [ctx.name, *found.operands], found.options)
    name = found.operands[0]
    try:
        data = await read_script(ctx, _script_path(ctx, name))
    except IsADirectoryError as exc:  # bash: the script's name is the shell's name by then
        return _named(ctx, name, describe(exc))
    except OSError as exc:
        ctx.err(f"{quote_name(name)}: {describe(exc)}")
        return NOT_FOUND
    if is_binary(data):
        return _named(ctx, name, "cannot execute binary file")
    return await run_script(ctx, decode(data), found.operands, found.options)


def _script_path(ctx: Context, name: str) -> str:
    """FILE in the current directory, else (a name without ``/``) in ``$PATH``, as bash looks
    a script file up."""
    path = ctx.resolve(name)
    if "/" in name or lexists(ctx.vfs, path):
        return path
    found = ctx.session.find_script(name)
    return found if found is not None and found.rsplit("/", 1)[-1] == name else path


def _named(ctx: Context, name: str, message: str) -> int:
    ctx.stderr.write_nowait(visible(f"{quote_name(name)}: {quote_name(name)}: {message}") + "\n")
    return CANNOT_RUN


@command(f"sh {USAGE}", "run a shell script (FILE, -c STRING or standard input) in a new shell")
async def sh(ctx: Context, args: list[str]) -> int:
    """Run a shell script in a new shell of this one (the language of this page, bash's; not
    POSIX sh nor dash): -c STRING runs STRING with $0 NAME (default `sh`) and $1... the ARGs;
    FILE runs the file (in the current directory, else found in $PATH) with $0 FILE; -s or
    no operand runs standard input, read whole first (the script's commands then read
    nothing). -e, -u, -x and -o errexit|nounset|pipefail|xtrace set the options as `set`
    does (+ turns them off); --norc, --noprofile, --posix, --login and -l, -i, -p change
    nothing. The script has its own variables, functions and traps, sees the exported
    variables and the current directory, and its `exit` ends only it. Status: the script's;
    127 for a FILE that cannot be read, 126 for a directory or a binary file, 2 for a bad
    option."""
    return await _shell(ctx, args)


@command(f"bash {USAGE}", "run a shell script in a new shell (as sh)")
async def bash(ctx: Context, args: list[str]) -> int:
    """The same as `sh`, with $0 `bash` for -c STRING without NAME."""
    return await _shell(ctx, args)
