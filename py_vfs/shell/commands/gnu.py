"""What the text commands share: GNU-style option parsing and usage errors, and reading the
FILE operands (or standard input) one after another.

A usage error of a coreutils tool prints `cmd: message` then `Try 'cmd --help' for more
information.`, status 1 (grep, diff and cmp: 2). ``getopts`` is Python's ``getopt.gnu_getopt``
(options may follow operands, `--` ends them, `-n5` and `-n 5`, `--lines=5`, unique prefixes of
long options) with GNU's messages.
"""

from __future__ import annotations

import functools
import getopt
from collections.abc import Awaitable, Callable

from py_vfs.shell.context import Context, each_operand
from py_vfs.shell.format import quote_arg
from py_vfs.shell.pipes import Input, StreamInput

Run = Callable[[Context, list[str]], Awaitable[int]]


class Invalid(Exception):
    """A usage error: the message is printed after `cmd: `, then the `Try` line."""

    def __init__(self, message: str, status: int | None = None, *,
                 try_line: bool = True) -> None:
        super().__init__(message)
        self.status = status  # None: the command's usual usage status (``gnu``'s)
        self.try_line = try_line  # some errors (sort -k0) print no `Try` line


def gnu(status: int = 1, *, try_prefix: bool = False,
        usage: str = "") -> Callable[[Run], Run]:
    """Turn ``Invalid`` raised by a command into GNU's two lines and ``status`` (diff and cmp
    prefix the `Try` line with their name: ``try_prefix``; grep prints ``usage`` between)."""

    def wrap(run: Run) -> Run:
        @functools.wraps(run)
        async def guarded(ctx: Context, args: list[str]) -> int:
            try:
                return await run(ctx, args)
            except Invalid as exc:
                if str(exc):
                    ctx.err(str(exc))
                if usage:
                    ctx.stderr.write_nowait(f"{usage}\n")
                if not exc.try_line:
                    return exc.status or status
                prefix = f"{ctx.name}: " if try_prefix else ""
                ctx.stderr.write_nowait(
                    f"{prefix}Try '{ctx.name} --help' for more information.\n")
                return exc.status or status
        return guarded

    return wrap


def getopts(args: list[str], short: str,
            long: tuple[str, ...] = ()) -> tuple[list[tuple[str, str]], list[str]]:
    """``getopt.gnu_getopt`` with GNU's messages; returns (options, operands)."""
    try:
        return getopt.gnu_getopt(args, short, list(long))
    except getopt.GetoptError as exc:
        option, message = exc.opt, exc.msg
        if len(option) > 1 or message.startswith("option --"):
            if "requires argument" in message:
                raise Invalid(f"option '--{option}' requires an argument") from None
            if "must not have" in message:
                raise Invalid(f"option '--{option}' doesn't allow an argument") from None
            if "not a unique prefix" in message:
                raise Invalid(f"option '--{option}' is ambiguous") from None
            raise Invalid(f"unrecognized option '--{option}'") from None
        if "requires argument" in message:
            raise Invalid(f"option requires an argument -- '{option}'") from None
        raise Invalid(f"invalid option -- '{option}'") from None


def open_input(ctx: Context, name: str) -> Input:
    """The standard input for `-`, else the file ``name`` read a chunk at a time (opened at
    the first read, so a missing file fails there)."""
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
    """A non-negative count typed as an option's value, or ``Invalid`` naming ``what``."""
    try:
        value = int(text)
    except ValueError:
        raise Invalid(f"invalid {what}: {quote_arg(text)}") from None
    if value < 0:
        raise Invalid(f"invalid {what}: {quote_arg(text)}")
    return value
