"""`python`: run a Python script in this Python (py_vfs/shell/python_run.py)."""

from __future__ import annotations

import sys

from ...core.blocking import can_block
from ..context import Context, describe
from ..pipes import NoInput
from ..python_run import run_python, run_python_file
from .registry import UsageError, command

NO_INTERACTIVE = ("interactive Python needs a terminal: give a FILE, -c CODE, or a script on "
                  "stdin")
# The interactive interpreter: the standard library's console, reading lines with input(), so
# from the keyboard (py_vfs/shell/python_run.py blocks the script on it in the page).
REPL = """import code, sys
code.interact(banner=f"Python {sys.version.split()[0]} on py_vfs: vfs, cwd and env are here; "
              "Ctrl-D ends", local=globals(), exitmsg="")
"""


@command("python [-c CODE | FILE | -] [ARG...]", "run a Python script in this Python")
async def python(ctx: Context, args: list[str]) -> int:
    """Run FILE (a path in the VFS), CODE, or the script read from standard input ("-", or no
    operand with input piped in) with sys.argv set as CPython does: [FILE, ARG...], ["-c",
    ARG...] or ["-", ARG...]. The script's globals hold `vfs` (the shell's disk or scoop view:
    `await vfs.read_file(path)`), `cwd` (the shell's directory) and `env` (the exported
    variables); top-level await is allowed. With no operand in the page's terminal: the
    interactive interpreter (Ctrl-D or exit() ends it). Status: 0, sys.exit's code, 1 for an
    uncaught exception (traceback on stderr), 2 for a file that cannot be opened, 130 when
    interrupted. -V/--version prints the version."""
    if args and args[0] in ("-V", "--version"):
        ctx.out(f"Python {sys.version.split()[0]}\n")
        return 0
    if args and args[0] == "-c":
        if len(args) < 2:
            raise UsageError("argument expected for the -c option")
        return await run_python(ctx, args[1], "<string>", ["-c", *args[2:]])
    if args and args[0].startswith("-") and args[0] != "-":
        raise UsageError(f"unknown option {args[0]}")
    if not args and ctx.stdout.isatty and can_block() and not isinstance(ctx.stdin, NoInput):
        return await run_python(ctx, REPL, "<stdin>", [""])
    if not args or args[0] == "-":
        if not args and isinstance(ctx.stdin, NoInput):
            ctx.err(NO_INTERACTIVE)
            return 2
        source = await ctx.stdin.read_all()
        return await run_python(ctx, source, "<stdin>", ["-", *args[1:]] if args else [""])
    try:
        path = ctx.resolve(args[0])
        if ctx.vfs.stat(path).type == "directory":
            ctx.err(f"can't find '__main__' module in '{args[0]}'")
            return 1
        return await run_python_file(ctx, path, args[1:])
    except OSError as exc:
        # CPython: python: can't open file '/abs/x.py': [Errno 2] No such file or directory
        ctx.err(f"can't open file '{ctx.resolve(args[0]) if args[0] else args[0]}': "
                f"[Errno {exc.errno}] {describe(exc)}")
        return 2
