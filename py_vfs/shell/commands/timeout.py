"""`timeout`: run a command, and stop it when a duration has passed (coreutils' options and
statuses), through the shell's cancellation (py_vfs/core/cancel.py): the command runs under a
signal of its own, which the timer aborts, and stops at its next safe point as Ctrl-C stops it.
The wait is a timer, never a busy loop."""

from __future__ import annotations

import asyncio
import math
import re
from dataclasses import dataclass

from ...core import cancel
from ..context import Context
from ..control import INTERRUPTED, Interrupted
from ..format import quote_arg
from .registry import COMMANDS, GNU, UsageError, command

TIMED_OUT = 124
FAILED = 125  # timeout's own failure (a bad option or duration)
NOT_FOUND = 127
KILLED = 128 + 9
SIGNALS = {"HUP": 1, "INT": 2, "QUIT": 3, "KILL": 9, "USR1": 10, "USR2": 12, "PIPE": 13,
           "ALRM": 14, "TERM": 15, "CONT": 18, "STOP": 19}
_DURATION = re.compile(r"(\d+\.?\d*|\.\d+|inf|infinity)([smhd]?)")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(text: str) -> float:
    match = _DURATION.fullmatch(text)
    if match is None:
        raise UsageError(f"invalid time interval {quote_arg(text)}", FAILED)
    return float(match.group(1)) * _UNITS[match.group(2)]


def _signal(text: str) -> tuple[str, int]:
    name = text.upper().removeprefix("SIG")
    if name in SIGNALS:
        return name, SIGNALS[name]
    if text.isdigit() and 0 < int(text) < 65:
        number = int(text)
        return next((n for n, v in SIGNALS.items() if v == number), text), number
    raise UsageError(f"{quote_arg(text)}: invalid signal", FAILED)


@dataclass
class _Options:
    signal: tuple[str, int] = ("TERM", 15)
    kill: float | None = None
    preserve: bool = False
    verbose: bool = False


def _options(args: list[str]) -> tuple[_Options, list[str]]:
    """timeout's options, up to DURATION (GNU stops at the first operand); the rest."""
    found = _Options()
    rest = list(args)
    while rest and rest[0].startswith("-") and rest[0] != "-":
        arg = rest.pop(0)
        if arg == "--":
            break
        name, equals, value = arg.partition("=")
        if name in ("-s", "--signal", "-k", "--kill-after") or \
                (arg[:2] in ("-s", "-k") and not arg.startswith("--")):
            if not equals and len(arg) > 2 and not arg.startswith("--"):
                name, value = arg[:2], arg[2:]
            elif not equals:
                if not rest:
                    raise UsageError(f"option requires an argument -- {quote_arg(arg[-1])}",
                                     FAILED)
                value = rest.pop(0)
            if name in ("-s", "--signal"):
                found.signal = _signal(value)
            else:
                found.kill = _duration(value)
        elif arg == "--preserve-status":
            found.preserve = True
        elif arg in ("-v", "--verbose"):
            found.verbose = True
        elif arg == "--foreground":
            pass
        elif arg.startswith("--"):
            raise UsageError(f"unrecognized option {quote_arg(arg)}", FAILED)
        else:
            raise UsageError(f"invalid option -- {quote_arg(arg[1:2])}", FAILED)
    return found, rest


async def _wait(task: asyncio.Future[int], seconds: float) -> bool:
    """Whether ``task`` ended within ``seconds`` (a timer per hour of it, as cancel.wait)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not task.done():
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            return False
        await asyncio.wait([task], timeout=min(left, cancel.LONGEST_TIMER))
    return True


@command("timeout [-s SIG] [-k DUR] [-v] DURATION CMD [ARG...]",
         "run COMMAND, and stop it after DURATION", errors=GNU)
async def timeout(ctx: Context, args: list[str]) -> int:
    """Run COMMAND with its ARGs and stop it once DURATION has passed (a number of seconds,
    fractions allowed, with a suffix s, m, h or d; 0: no limit): it stops at its next safe
    point, as Ctrl-C stops it, and the status is 124 (-s KILL or --preserve-status: 128 + the
    signal's number, as a command killed by it). -s SIGNAL names the signal (TERM by default; any
    stops the command the same way), -k DURATION stops it for good (status 137) if it has
    not ended that long after; -v says when it times out; --foreground is accepted. Status:
    the command's when it ends in time, 125 for a bad option or duration, 127 when COMMAND
    is not found."""
    options, rest = _options(args)
    if not rest:
        raise UsageError("", FAILED)  # GNU prints only its `Try` line
    seconds = _duration(rest[0])
    argv = rest[1:]
    if not argv:
        raise UsageError("", FAILED)
    session = ctx.session
    if argv[0] not in session.functions and argv[0] not in COMMANDS \
            and session.find_script(argv[0]) is None:
        ctx.err(f"failed to run command {quote_arg(argv[0])}: No such file or directory")
        return NOT_FOUND
    if seconds == 0 or math.isinf(seconds):
        return await ctx.run(argv, stdin=ctx.stdin)
    return await _timed(ctx, argv, seconds, options)


async def _timed(ctx: Context, argv: list[str], seconds: float, options: _Options) -> int:
    signal_name, number = options.signal
    own = cancel.Signal()
    outer = cancel.SIGNAL.get()
    remove = outer.on_abort(own.abort) if outer is not None else None
    if outer is not None and outer.aborted:
        own.abort()

    async def run() -> int:
        cancel.SIGNAL.set(own)  # this task's context only
        try:
            return await ctx.run(argv, stdin=ctx.stdin)
        except Interrupted:
            return INTERRUPTED

    task = asyncio.ensure_future(run())
    fired = killed = False
    try:
        if not await _wait(task, seconds):
            fired = True
            if options.verbose:
                ctx.err(f"sending signal {signal_name} to command {quote_arg(argv[0])}")
            own.abort()
            if options.kill is not None and not await _wait(task, options.kill):
                killed = True
                task.cancel()
            await asyncio.wait([task])
    finally:
        if remove is not None:
            remove()
        if not task.done():
            task.cancel()
    if outer is not None and outer.aborted:
        raise Interrupted()
    if killed:
        return KILLED
    status = task.result()
    if not fired:
        return status
    if options.preserve or number == KILLED - 128:  # KILL: killed, as GNU's child is
        return 128 + number if status == INTERRUPTED else status
    return TIMED_OUT
