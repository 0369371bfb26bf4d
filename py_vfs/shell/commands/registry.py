"""The table of commands, their usage line for `help`, and the flag parser they share."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..context import Context
from ..format import quote_arg

Run = Callable[[Context, list[str]], Awaitable[int]]


# The commands that are builtins in bash: their errors read `sh: NAME: message`, as bash's
# read `bash: line N: NAME: message`; the others', coreutils' shape, `NAME: message`.
SHELL_BUILTINS = frozenset({
    ".", ":", "[", "alias", "break", "cd", "command", "continue", "echo", "eval", "exit",
    "export", "false", "help", "history", "local", "printf", "pwd", "read", "return", "set",
    "shift", "source", "test", "trap", "true", "type", "unalias", "unset",
})


class UsageError(Exception):
    """Bad flags or operands: ``CommandSpec.invoke`` prints `cmd: message` and what the
    command's ``Usage`` adds, and returns its status (``status`` overrides it)."""

    def __init__(self, message: str, status: int | None = None, *,
                 try_line: bool = True, detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.try_line = try_line  # some errors (sort -k0, head -n x) print no `Try` line
        self.detail = detail  # a line of its own after the message (tr's "Two strings ...")


@dataclass(frozen=True)
class Usage:
    """How a command reports a ``UsageError``: its status, whether GNU's line `Try 'cmd
    --help' for more information.` follows (``try_prefix``: `cmd: Try ...`, as diff and cmp
    print it), and a usage line printed between (grep's)."""

    status: int = 2
    try_help: bool = False
    try_prefix: bool = False
    usage: str = ""

    def report(self, ctx: Context, exc: UsageError) -> int:
        """Print the error as the command's tool does; its exit status."""
        if str(exc):
            ctx.err(str(exc))
        if exc.detail:
            ctx.stderr.write_nowait(f"{exc.detail}\n")
        if self.usage:
            ctx.stderr.write_nowait(f"{self.usage}\n")
        if self.try_help and exc.try_line:
            prefix = f"{ctx.name}: " if self.try_prefix else ""
            ctx.stderr.write_nowait(f"{prefix}Try '{ctx.name} --help' for more information.\n")
        return exc.status or self.status


# A builtin of bash (`sh: cmd: message`, Context.err) or a command of the VFS's own
# (`cmd: message`): the message alone, status 2.
BUILTIN = Usage()
# A coreutils tool: `cmd: message`, then `Try 'cmd --help' for more information.`, status 1.
GNU = Usage(1, try_help=True)


@dataclass(frozen=True)
class CommandSpec:
    """A registered command: its name, usage line and summary for `help`, and its code."""
    name: str
    usage: str
    summary: str
    run: Run
    errors: Usage = BUILTIN  # how a usage error is reported
    help_flag: bool = True  # `--help` as the only argument prints the help (not for echo)

    @property
    def builtin(self) -> bool:
        """A builtin of bash (``SHELL_BUILTINS``): its errors are the shell's, `sh: NAME: ...`."""
        return self.name in SHELL_BUILTINS

    async def invoke(self, ctx: Context, args: list[str]) -> int:
        """Run the command; `CMD --help` prints its usage, summary and description instead
        (status 0, on stdout, as coreutils does)."""
        if self.help_flag and args == ["--help"]:
            ctx.out(self.help_text())
            return 0
        try:
            return await self.run(ctx, args)
        except UsageError as exc:
            return self.errors.report(ctx, exc)

    def help_text(self) -> str:
        """`Usage: ...`, the summary, and the command's description (its docstring)."""
        description = inspect.getdoc(self.run) or ""
        text = f"Usage: {self.usage}\n{self.summary[:1].upper()}{self.summary[1:]}.\n"
        return text + (f"\n{description}\n" if description else "")


COMMANDS: dict[str, CommandSpec] = {}


def command(usage: str, summary: str, *, help_flag: bool = True,
            errors: Usage = BUILTIN) -> Callable[[Run], Run]:
    """Register a command under the first word of its usage line; ``help_flag=False`` for a
    command that takes `--help` as an operand (bash's echo prints it); ``errors``: how its
    usage errors read (``GNU`` for a coreutils tool)."""

    def register(run: Run) -> Run:
        name = usage.split()[0]
        COMMANDS[name] = CommandSpec(name, usage, summary, run, errors, help_flag)
        return run

    return register


def parse_flags(args: list[str], allowed: str) -> tuple[set[str], list[str]]:
    """Split short flags from operands, GNU style: flags combine (-la), may follow operands
    (rm dir -rf), and `--` ends them; "-" alone is an operand. Unknown flags are usage errors,
    so a typo never runs a command with a meaning the user did not ask for."""
    flags: set[str] = set()
    operands: list[str] = []
    options_ended = False
    for arg in args:
        if options_ended or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            options_ended = True
        elif arg.startswith("--"):
            raise UsageError(f"unrecognized option {quote_arg(arg)}")
        else:
            for flag in arg[1:]:
                if flag not in allowed:
                    raise UsageError(f"invalid option -- {quote_arg(flag)}")
                flags.add(flag)
    return flags, operands


def require_operands(operands: list[str]) -> None:
    """Refuse a command with no operand (a usage error, as coreutils' `missing operand`)."""
    if not operands:
        raise UsageError("missing operand")
