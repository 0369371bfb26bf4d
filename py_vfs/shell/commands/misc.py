"""Small producers of text: echo, printf, seq, yes, date, sleep, basename, dirname."""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from ...core import cancel
from .. import limits
from ..context import Context, describe
from ..format import quote_arg, quote_name
from .gnu import getopts
from .printf import FormatLimit, escapes, passes
from .registry import GNU, UsageError, command

BATCH = 16 * 1024  # what yes and seq write at once


@command("echo [-neE] [ARG...]", "print the arguments (-n: no newline; -e: escapes)",
         help_flag=False)
async def echo(ctx: Context, args: list[str]) -> int:
    """Print the arguments joined by spaces and a newline, as bash's builtin echo: leading
    words made of n, e and E letters after a `-` are options (-n: no final newline; -e:
    interpret backslash escapes, \\c stops the output; -E: do not, the default); anything else,
    `--help` and `--` included, is printed."""
    newline, interpret = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            if flag == "n":
                newline = False
            else:
                interpret = flag == "e"
        args = args[1:]
    text = " ".join(args)
    if interpret:
        text, stop = escapes(text, echo=True)
        if stop:
            newline = False
    ctx.out(text + ("\n" if newline else ""))
    return 0


@command("printf FORMAT [ARG...]", "format and print the arguments", help_flag=False)
async def printf(ctx: Context, args: list[str]) -> int:
    """Print ARGs under FORMAT as bash's builtin printf: %s %b %c %d %i %u %o %x %X %f %e %g %%,
    with flags (-+ #0), width and precision (also `*`); escapes in FORMAT; the format is reused
    while arguments remain. A number that is not one is reported and counts as 0 (status 1)."""
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        ctx.stderr.write_nowait("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    errors: list[str] = []
    try:
        for text in passes(args[0], args[1:], errors):
            await ctx.write(text)
    except FormatLimit as exc:  # nothing more is written
        errors.append(str(exc))
    for message in errors:
        ctx.err(message)
    return 1 if errors else 0


def _seq_number(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise UsageError(f"invalid floating point argument: {quote_arg(text)}") from None
    if value.is_nan():
        raise UsageError(f"invalid 'not-a-number' argument: {quote_arg(text)}")
    return value


def _decimals(text: str) -> int:
    """How many digits after the point an operand shows (GNU seq prints that many)."""
    if "e" in text.lower():
        return 0
    return len(text.split(".", 1)[1]) if "." in text else 0


_SEQ_FORMAT = re.compile(r"%([-+ #0']*)([0-9]*)(?:\.([0-9]*))?([eEfFgGaA])")


def _seq_format(fmt: str) -> tuple[str, str, str]:
    """-f FORMAT: the text before its one directive, the directive as a Python format spec
    (C's flags, width and precision for e, f, g), and the text after (`%%` is `%`)."""
    pieces = re.split(r"(%%|%[^%]*?[a-zA-Z%]|%$)", fmt)
    directives = [i for i, piece in enumerate(pieces) if piece.startswith("%") and piece != "%%"]
    if not directives:
        raise UsageError(f"format {quote_arg(fmt)} has no % directive", try_line=False)
    if len(directives) > 1:
        raise UsageError(f"format {quote_arg(fmt)} has too many % directives", try_line=False)
    at = directives[0]
    match = _SEQ_FORMAT.fullmatch(pieces[at])
    if match is None:
        raise UsageError(f"format {quote_arg(fmt)} has unknown {pieces[at]} directive",
                         try_line=False)
    flags, width, precision, kind = match.groups()
    for number in (width, precision):  # as printf: no field of a gigabyte
        if number and int(number) > limits.MAX_VALUE:
            raise UsageError(f"{number}: limit exceeded (a field width or precision over "
                             f"{limits.MAX_VALUE})", try_line=False)
    spec = ("<" if "-" in flags else "") + ("+" if "+" in flags else " " if " " in flags
                                            else "")
    spec += ("#" if "#" in flags else "") + ("0" if "0" in flags and "-" not in flags else "")
    spec += width + (f".{precision or 0}" if precision is not None else "")
    spec += {"a": "e", "A": "E"}.get(kind, kind)

    def text(parts: list[str]) -> str:
        return "".join("%" if part == "%%" else part for part in parts)

    return text(pieces[:at]), spec, text(pieces[at + 1:])


@command("seq [-s SEP] [-w] [-f FORMAT] [FIRST [INCR]] LAST", "print a sequence of numbers",
         errors=GNU)
async def seq(ctx: Context, args: list[str]) -> int:
    """Print the numbers from FIRST (default 1) to LAST by INCR (default 1), one a line (-s:
    separated by SEP instead); -w pads them with zeros to the same width; -f FORMAT prints
    each with FORMAT's one printf directive (%e, %f or %g, with flags, width, precision).
    Decimal operands print with as many decimals as the most precise operand shows
    (`seq 0 0.5 2`)."""
    # A negative number is an operand, not an option (seq -3 3).
    args = [f"\0{a}" if re.fullmatch(r"-[0-9.].*", a) else a for a in args]
    options, operands = getopts(args, "s:wf:", ("separator=", "equal-width", "format="))
    operands = [a.lstrip("\0") for a in operands]
    separator, width, layout = "\n", False, None
    for flag, value in options:
        if flag in ("-s", "--separator"):
            separator = value
        elif flag in ("-w", "--equal-width"):
            width = True
        else:
            layout = _seq_format(value)
    if layout and width:
        raise UsageError("format string may not be specified when printing equal width "
                         "strings")
    if not operands:
        raise UsageError("missing operand")
    if len(operands) > 3:
        raise UsageError(f"extra operand {quote_arg(operands[3])}")
    values = [_seq_number(text) for text in operands]
    first, step, last = Decimal(1), Decimal(1), values[-1]
    if len(values) > 1:
        first = values[0]
    if len(values) == 3:
        step = values[1]
    if step == 0:
        raise UsageError(f"invalid Zero increment value: {quote_arg(operands[1])}")
    places = max(_decimals(text) for text in operands)
    pad = max(len(f"{value:.{places}f}") for value in (first, last)) if width else 0
    out: list[str] = []
    value, count = first, 0
    while (value <= last) if step > 0 else (value >= last):
        text = f"{value:.{places}f}" if layout is None else \
            f"{layout[0]}{float(value):{layout[1]}}{layout[2]}"
        if pad:
            sign = "-" if text.startswith("-") else ""
            text = sign + text.lstrip("-").zfill(pad - len(sign))
        out.append(text)
        count += 1
        if len(out) >= 1024:
            await ctx.write(("" if count == len(out) else separator) + separator.join(out))
            await cancel.checkpoint("seq", count, count, "numbers")
            out = []
        value = first + step * count
    if out:
        await ctx.write(("" if count == len(out) else separator) + separator.join(out))
    if count:
        await ctx.write("\n")
    return 0


@command("yes [STRING...]", "print STRING (default y) over and over until stopped")
async def yes(ctx: Context, args: list[str]) -> int:
    """Print the arguments (default `y`) on a line, forever: until the reader goes (`yes |
    head -3`) or Ctrl-C."""
    line = (" ".join(args) if args else "y") + "\n"
    batch = line * max(1, BATCH // len(line))
    written = 0
    while True:
        await ctx.write(batch)
        written += 1
        await cancel.checkpoint("yes", written, written, "batches")


_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


@command("sleep NUMBER[smhd]...", "wait for the sum of the durations (Ctrl-C stops it)", errors=GNU)
async def sleep(ctx: Context, args: list[str]) -> int:
    """Wait for the sum of the durations: a number (decimals allowed) with an optional unit,
    s (default), m, h or d; `infinity` waits until Ctrl-C, which stops any sleep at once."""
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        raise UsageError("missing operand")
    total = 0.0
    for arg in args:
        match = re.fullmatch(r"(inf|infinity|[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)([smhd]?)", arg)
        if match is None:
            raise UsageError(f"invalid time interval {quote_arg(arg)}")
        total += float(match[1]) * _UNITS[match[2]]
    await cancel.sleep(total if math.isfinite(total) else math.inf)
    return 0


def _parse_date(text: str) -> datetime:
    if text.startswith("@"):
        try:
            return datetime.fromtimestamp(float(text[1:]), tz=UTC)
        except (ValueError, OverflowError):
            pass
    else:
        try:
            moment = datetime.fromisoformat(text.strip())
            return moment if moment.tzinfo else moment.astimezone()
        except ValueError:
            pass
    raise UsageError(f"invalid date {quote_arg(text)}", try_line=False)


def _strftime(moment: datetime, fmt: str) -> str:
    """strftime plus GNU's %N (nanoseconds) and %s (epoch seconds)."""
    stamp = moment.timestamp()
    fmt = fmt.replace("%N", f"{round(stamp % 1 * 1e9) % 10**9:09d}")
    fmt = fmt.replace("%s", str(math.floor(stamp)))
    return moment.strftime(fmt)


@command("date [-u] [-d DATE|-r FILE] [+FORMAT]", "print the date and time", errors=GNU)
async def date(ctx: Context, args: list[str]) -> int:
    """Print the current time (-d: DATE instead, `@SECONDS` or an ISO 8601 date; -r: FILE's
    modification time) as `Mon Nov 23 16:42:41 UTC 2026`, or as +FORMAT says (strftime's
    codes, plus %N and %s); -u: in UTC rather than the local time zone."""
    options, operands = getopts(args, "ud:r:", ("utc", "date=", "reference="))
    moment = datetime.fromtimestamp(time.time(), tz=UTC)
    utc = False
    for flag, value in options:
        if flag in ("-u", "--utc"):
            utc = True
            continue
        if operands and not operands[0].startswith("+"):
            raise UsageError(f"the argument {quote_arg(operands[0])} lacks a leading '+';",
                             detail="when using an option to specify date(s), any non-option\n"
                                    "argument must be a format string beginning with '+'")
        if flag in ("-r", "--reference"):
            try:
                stamp = ctx.vfs.stat(ctx.resolve(value)).mtime_ms / 1000
            except OSError as exc:
                ctx.err(f"{quote_name(value)}: {describe(exc)}")
                return 1
            moment = datetime.fromtimestamp(stamp, tz=UTC)
        else:
            moment = _parse_date(value)
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    fmt = "%a %b %e %H:%M:%S %Z %Y"
    if operands:
        if not operands[0].startswith("+"):
            raise UsageError(f"invalid date {quote_arg(operands[0])}", try_line=False)
        fmt = operands[0][1:]
    moment = moment.astimezone(UTC) if utc else moment.astimezone()
    ctx.out(_strftime(moment, fmt) + "\n")
    return 0


@command("basename NAME [SUFFIX]", "print NAME without its directories (and SUFFIX)", errors=GNU)
async def basename(ctx: Context, args: list[str]) -> int:
    """Print NAME's last component (trailing slashes ignored), without SUFFIX if it ends so
    (-s SUFFIX: the same for every NAME with -a); -a: every operand is a NAME."""
    options, operands = getopts(args, "as:z", ("multiple", "suffix=", "zero"))
    suffix, multiple, end = "", False, "\n"
    for flag, value in options:
        if flag in ("-s", "--suffix"):
            suffix, multiple = value, True
        elif flag in ("-a", "--multiple"):
            multiple = True
        else:
            end = "\0"
    if not operands:
        raise UsageError("missing operand")
    if not multiple:
        if len(operands) > 2:
            raise UsageError(f"extra operand {quote_arg(operands[2])}")
        suffix = operands[1] if len(operands) == 2 else ""
        operands = operands[:1]
    for name in operands:
        stripped = name.rstrip("/")
        base = stripped.rsplit("/", 1)[-1] if stripped else ("/" if name else "")
        if suffix and base != suffix and base.endswith(suffix):
            base = base[: -len(suffix)]
        ctx.out(base + end)
    return 0


@command("dirname NAME...", "print each NAME without its last component", errors=GNU)
async def dirname(ctx: Context, args: list[str]) -> int:
    """Print each NAME with its last component and trailing slashes removed (`.` when none
    is left)."""
    options, operands = getopts(args, "z", ("zero",))
    if not operands:
        raise UsageError("missing operand")
    end = "\0" if options else "\n"
    for name in operands:
        stripped = name.rstrip("/")
        if not stripped:
            ctx.out(("/" if name else ".") + end)
            continue
        head = stripped.rsplit("/", 1)[0] if "/" in stripped else "."
        ctx.out((head.rstrip("/") or "/") + end)
    return 0
