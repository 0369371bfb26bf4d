"""Shell scripts run as new shell processes: ``sh FILE``, ``sh -c STRING``, ``sh < FILE``, and
an executable file whose ``#!`` line names a shell (shebang.py).

A script runs in a shell of its own (``Session.run_child``): the caller's directory and
exported variables, no other variable, function, alias, trap or option of the caller's; ``$0``
and ``$1``... its own; ``exit`` ends the script, not the caller's line; its EXIT trap runs at its
end. It runs with the caller's disk or view, so inside a scoop it has the scoop's rights and no
more. How deep scripts nest is bounded with function calls and substitutions
(``interpreter.MAX_CALL_DEPTH``), and what a script runs counts against the line's budget
(limits.py) as everything else does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import limits
from .context import Context

OPTION_LETTERS = {"e": "errexit", "u": "nounset", "x": "xtrace"}
OPTION_NAMES = ("errexit", "nounset", "pipefail", "xtrace")
# Options bash takes at its start and which change nothing here.
IGNORED_LONG = ("--norc", "--noprofile", "--posix", "--login", "--noediting")
IGNORED_LETTERS = "lip"


class InvocationError(Exception):
    """A bad option of ``sh``/``bash``: the message (after ``NAME: ``) and status 2."""

    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage  # bash's usage lines follow the message
        self.status = 2


@dataclass
class Invocation:
    """What ``sh ARGS`` asks for: ``options`` to set (name -> on), then ``command`` (``-c``),
    or the script read from standard input (``stdin``: ``-s``, or no operand), or
    ``operands[0]`` as the script's file; the other operands are ``$1``... (with ``-c``,
    ``operands[0]`` is ``$0``)."""

    options: dict[str, bool] = field(default_factory=dict)
    command: bool = False
    stdin: bool = False
    operands: list[str] = field(default_factory=list)


def parse_invocation(args: list[str]) -> Invocation:
    """Read ``sh``'s arguments as bash does: options up to the first operand or ``--``/``-``;
    ``-c`` makes the first operand the command string. Raises ``InvocationError``."""
    found = Invocation()
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--", "-"):
            index += 1
            break
        if arg.startswith("--"):
            if arg not in IGNORED_LONG:
                raise InvocationError(f"{arg}: invalid option", usage=True)
            index += 1
            continue
        if arg[:1] not in "-+" or len(arg) < 2:
            break
        on = arg[0] == "-"
        for letter in arg[1:]:
            if letter == "o":
                index += 1
                if index == len(args) or args[index] not in OPTION_NAMES:
                    shown = args[index] if index < len(args) else ""
                    raise InvocationError(f"{shown}: invalid option name")
                found.options[args[index]] = on
            elif letter in OPTION_LETTERS:
                found.options[OPTION_LETTERS[letter]] = on
            elif letter == "c" and on:
                found.command = True
            elif letter == "s" and on:
                found.stdin = True
            elif letter not in IGNORED_LETTERS:
                raise InvocationError(f"{arg[0]}{letter}: invalid option", usage=True)
        index += 1
    found.operands = args[index:]
    if found.command and not found.operands:
        raise InvocationError("-c: option requires an argument")
    found.stdin = found.stdin or (not found.command and not found.operands)
    return found


def usage_lines(name: str) -> str:
    """The lines bash prints after an invalid option."""
    return (f"Usage:\t{name} [option] [-c STRING [NAME [ARG...]]]\n"
            f"\t{name} [option] [-s] [ARG...] | FILE [ARG...]\n")


def decode(data: bytes | str) -> str:
    """A script's bytes as the shell's text (bytes that are not UTF-8 kept as they are)."""
    return data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data


def is_binary(data: bytes) -> bool:
    """bash's test before it runs a file as a script: a NUL byte in its first line."""
    end = data.find(b"\n")
    return b"\0" in data[:80 if end < 0 else min(end, 80)]


async def read_script(ctx: Context, path: str) -> bytes:
    """The bytes of the script at ``path`` (absolute): OSError as the disk raises it
    (``IsADirectoryError`` for a directory), ``limits.LimitExceeded`` past ``MAX_VALUE``."""
    node = ctx.vfs.stat(path)
    if node.type == "directory":
        raise IsADirectoryError(21, "Is a directory")
    limits.check_value("script", node.size)
    data = await ctx.vfs.read_file(path)
    return data if isinstance(data, bytes) else data.encode()


async def run_script(ctx: Context, text: str, argv: list[str],
                     options: dict[str, bool] | None = None) -> int:
    """Run ``text`` as a new shell process with ``$0`` ``argv[0]`` and ``$1``... the rest,
    ``options`` set, the command's streams; its status."""
    return await ctx.session.run_child(text, argv, ctx.stdin, ctx.stdout, ctx.stderr,
                                       options or {})
