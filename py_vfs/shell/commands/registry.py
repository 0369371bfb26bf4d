"""The table of commands, their usage line for `help`, and the flag parser they share."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from py_vfs.shell.context import Context
from py_vfs.shell.format import quote_arg

Run = Callable[[Context, list[str]], Awaitable[int]]


# The commands that are builtins in bash: their errors read `sh: NAME: message`, as bash's
# read `bash: line N: NAME: message`; the others', coreutils' shape, `NAME: message`.
SHELL_BUILTINS = frozenset({
    ".", ":", "[", "alias", "break", "cd", "continue", "echo", "eval", "exit", "export", "false",
    "help", "history", "local", "printf", "pwd", "read", "return", "set", "shift", "source",
    "test", "true", "type", "unalias", "unset",
})


class UsageError(Exception):
    """Bad flags or operands; the interpreter prints `cmd: message` and returns status 2."""


@dataclass(frozen=True)
class CommandSpec:
    """A registered command: its name, usage line and summary for `help`, and its code."""
    name: str
    usage: str
    summary: str
    run: Run
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
        return await self.run(ctx, args)

    def help_text(self) -> str:
        """`Usage: ...`, the summary, and the command's description (its docstring)."""
        description = inspect.getdoc(self.run) or ""
        text = f"Usage: {self.usage}\n{self.summary[:1].upper()}{self.summary[1:]}.\n"
        return text + (f"\n{description}\n" if description else "")


COMMANDS: dict[str, CommandSpec] = {}


def command(usage: str, summary: str, *, help_flag: bool = True) -> Callable[[Run], Run]:
    """Register a command under the first word of its usage line; ``help_flag=False`` for a
    command that takes `--help` as an operand (bash's echo prints it)."""

    def register(run: Run) -> Run:
        name = usage.split()[0]
        COMMANDS[name] = CommandSpec(name, usage, summary, run, help_flag)
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
    """Refuse a command with no operand (status 2, like coreutils)."""
    if not operands:
        raise UsageError("missing operand")
