"""What the text commands share: GNU-style option parsing, and reading the FILE operands (or
standard input) one after another.

``getopts`` is Python's ``getopt.gnu_getopt`` (options may follow operands, `--` ends them,
`-n5` and `-n 5`, `--lines=5`, unique prefixes of long options) with GNU's messages; its
``UsageError`` reads as the command's ``Usage`` says (registry.py: coreutils' `Try` line).
"""

from __future__ import annotations

import getopt
from collections.abc import Awaitable, Callable

from ..context import Context, each_operand
from ..format import quote_arg
from ..pipes import Input, StreamInput
from .registry import UsageError


def getopts(args: list[str], short: str,
            long: tuple[str, ...] = ()) -> tuple[list[tuple[str, str]], list[str]]:
    """``getopt.gnu_getopt`` with GNU's messages; returns (options, operands)."""
    try:
        return getopt.gnu_getopt(args, short, list(long))
    except getopt.GetoptError as exc:
        option, message = exc.opt, exc.msg
        if len(option) > 1 or message.startswith("option --"):
            if "requires argument" in message:
                raise UsageError(f"option '--{option}' requires an argument") from None
            if "must not have" in message:
                raise UsageError(f"option '--{option}' doesn't allow an argument") from None
            if "not a unique prefix" in message:
                raise UsageError(f"option '--{option}' is ambiguous") from None
            raise UsageError(f"unrecognized option '--{option}'") from None
        if "requires argument" in message:
            raise UsageError(f"option requires an argument -- '{option}'") from None
        raise UsageError(f"invalid option -- '{option}'") from None


def named(options: list[tuple[str, str]],
          names: dict[str, str]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """``getopts``'s options under one name each, so that a table, not a chain of tests,
    says what a flag means: ``names`` maps a flag as typed (`-q`) to its name (`brief`); the
    others are named as typed without their dashes (`--brief`: `brief`, `-s`: `s`). Returns
    them in order, and the last value of each name."""
    given = [(names.get(flag, flag.lstrip("-")), value) for flag, value in options]
    return given, dict(given)


def open_input(ctx: Context, name: str) -> Input:
    """The standard input for `-`, else the file ``name`` read a chunk at a time (a missing
    file raises ``OSError`` here; ``each_input`` reports it with the name)."""
    if name == "-":
        return ctx.stdin
    return StreamInput(ctx.vfs.open_read(ctx.resolve(name)))


async def each_input(ctx: Context, operands: list[str],
                     action: Callable[[str, Input], Awaitable[None]],
                     failure: str = "{name}") -> int:
    """Run ``action(name, input)`` for each operand (none: `-`); a file that cannot be read is
    reported as `cmd: NAME: reason` (``failure`` formats the name) and the rest still run;
    status 1 if any failed (``context.each_operand`` with the operand opened as an input)."""
    return await each_operand(ctx, operands or ["-"],
                              lambda name: action(name, open_input(ctx, name)), failure)


def number(text: str, what: str) -> int:
    """A non-negative count typed as an option's value, or ``UsageError`` naming ``what``."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"invalid {what}: {quote_arg(text)}") from None
    if value < 0:
        raise UsageError(f"invalid {what}: {quote_arg(text)}")
    return value
