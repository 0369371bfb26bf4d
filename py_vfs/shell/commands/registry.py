"""The table of commands, their usage line for `help`, and the flag parser they share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from py_vfs.shell.context import Context
from py_vfs.shell.format import quote_arg

Run = Callable[[Context, list[str]], Awaitable[int]]


class UsageError(Exception):
    """Bad flags or operands; the interpreter prints `cmd: message` and returns status 2."""


@dataclass(frozen=True)
class CommandSpec:
    """A registered command: its name, usage line and summary for `help`, and its code."""
    name: str
    usage: str
    summary: str
    run: Run


COMMANDS: dict[str, CommandSpec] = {}


def command(usage: str, summary: str) -> Callable[[Run], Run]:
    """Register a command under the first word of its usage line."""

    def register(run: Run) -> Run:
        name = usage.split()[0]
        COMMANDS[name] = CommandSpec(name, usage, summary, run)
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
