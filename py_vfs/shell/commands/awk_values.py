"""awk's values: numbers (``float``), strings (``str``) and strnums, and the conversions
between them, with `printf`'s formats.

A *strnum* (``StrNum``) is a string that came from input (a field, a record, `getline`, an
element `split` made, ARGV, ENVIRON, `-v`): when it looks like a number, comparisons treat it as
one, as POSIX says. An unset variable (``UNINIT``) is both "" and 0. A number becomes a string
through CONVFMT (OFMT when printed) unless it is integral, then it prints as an integer.
"""

from __future__ import annotations

import math
import re

from ..limits import check_value

_NUMBER_PREFIX = re.compile(
    r"[ \t\n\r\f\v]*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)")
_LOOKS_NUMERIC = re.compile(
    r"[ \t\n\r\f\v]*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)[ \t\n\r\f\v]*")
_SPECIAL = re.compile(r"[ \t\n]*([-+])(inf|nan)", re.IGNORECASE)


class AwkError(Exception):
    """A fatal error while the program runs: `awk: message`, status 2."""


class StrNum(str):
    """A string from input; ``number`` is its value when it looks numeric, else None."""

    number: float | None

    def __new__(cls, text: str) -> StrNum:
        """The strnum of ``text``."""
        self = super().__new__(cls, text)
        found = _LOOKS_NUMERIC.fullmatch(text) if text else None
        self.number = float(found[1]) if found else None
        return self


class _Uninit(StrNum):
    """The value of a variable never set: "" as a string, 0 as a number."""


UNINIT = _Uninit("")
UNINIT.number = 0.0

Value = float | str


def to_num(value: Value) -> float:
    """The number a value stands for: a string's longest numeric prefix (0 without one)."""
    if isinstance(value, float):
        return value
    if isinstance(value, StrNum) and value.number is not None:
        return value.number
    found = _NUMBER_PREFIX.match(value)
    if found:
        return float(found[1])
    special = _SPECIAL.match(value)
    if special:
        return float(special[1] + special[2])
    return 0.0


def number_text(number: float, fmt: str) -> str:
    """A number as a string: an integer when integral, else through ``fmt`` (CONVFMT/OFMT)."""
    if number.is_integer():
        return str(int(number))
    if math.isnan(number):
        return "-nan" if math.copysign(1.0, number) < 0 else "+nan"
    if math.isinf(number):
        return "-inf" if number < 0 else "+inf"
    try:
        return format_values(fmt, [number])
    except AwkError:
        return f"{number:.6g}"


def to_str(value: Value, convfmt: str = "%.6g") -> str:
    """The string a value stands for (numbers through ``convfmt``)."""
    if isinstance(value, float):
        return number_text(value, convfmt)
    return value


def is_numeric(value: Value) -> bool:
    """Whether comparisons treat ``value`` as a number (a number, or a numeric strnum)."""
    return isinstance(value, float) or (isinstance(value, StrNum) and value.number is not None)


def truth(value: Value) -> bool:
    """awk's truth: a number or numeric strnum is true when not 0, a string when not empty."""
    if isinstance(value, float):
        return value != 0.0
    if isinstance(value, StrNum) and value.number is not None:
        return value.number != 0.0
    return value != ""


def compare(op: str, left: Value, right: Value, convfmt: str) -> bool:
    """``left op right``: numerically when both are numeric, else as strings."""
    a: float | str
    b: float | str
    if is_numeric(left) and is_numeric(right):
        a, b = to_num(left), to_num(right)
    else:
        a, b = to_str(left, convfmt), to_str(right, convfmt)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "==":
        return a == b
    return a != b


_SPEC = re.compile(r"%([-+ #0]*)(\*|[0-9]+)?(?:\.(\*|[0-9]*))?([a-zA-Z%])")


def format_values(fmt: str, args: list[Value], convfmt: str = "%.6g") -> str:
    """`printf`/`sprintf`: ``fmt`` with its conversions (`%d %i %o %x %X %u %c %s %e %E %f
    %F %g %G %%`, flags `-+ #0`, widths and precisions, `*`) applied to ``args``."""
    out: list[str] = []
    position = 0
    at = 0
    while True:
        start = fmt.find("%", position)
        if start < 0:
            out.append(fmt[position:])
            break
        out.append(fmt[position:start])
        spec = _SPEC.match(fmt, start)
        if spec is None:
            out.append(fmt[start:])
            break
        position = spec.end()
        flags, width, precision, conv = spec.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width, at = str(int(to_num(_arg(args, at)))), at + 1
            if width.startswith("-"):
                flags, width = flags + "-", width[1:]
        if precision == "*":
            precision, at = str(max(0, int(to_num(_arg(args, at))))), at + 1
        if width and int(width) > (64 << 20):
            check_value("printf", int(width))
        if conv not in "diouxXcseEfFgGaA":
            out.append(spec.group(0))
            continue
        value = _arg(args, at)
        at += 1
        out.append(_one(flags, width, precision, conv, value, convfmt))
    return "".join(out)


def _arg(args: list[Value], at: int) -> Value:
    if at >= len(args):
        raise AwkError("fatal: not enough arguments to satisfy format string")
    return args[at]


def _one(flags: str, width: str | None, precision: str | None, conv: str, value: Value,
         convfmt: str) -> str:
    head = "%" + flags + (width or "") + ("." + precision if precision is not None else "")
    if conv == "c":
        if isinstance(value, float):
            code = int(value)
            text = chr(code) if 0 <= code < 0x110000 else ""
        else:
            text = value[:1]
        return ("%" + flags + (width or "") + "s") % text
    if conv == "s":
        return (head + "s") % to_str(value, convfmt)
    number = to_num(value)
    if conv in "diouxX":
        if math.isnan(number) or math.isinf(number):
            return ("%" + flags + (width or "") + "s") % number_text(number, convfmt)
        return _integer(flags, width, precision, conv, int(number))
    if conv in "aA":
        conv = "e" if conv == "a" else "E"
    text = (head + conv) % number
    return text


def _integer(flags: str, width: str | None, precision: str | None, conv: str,
             integer: int) -> str:
    """An integer conversion as gawk's printf does it (Python's `%` differs on precision with
    the 0 flag, on a zero precision, on `%#o`, and applies `+`/space to unsigned ones)."""
    if conv in "ouxX" and integer < 0:
        integer += 1 << 64
    if conv == "u" and integer < 0:
        integer += 1 << 64
    digits = format(abs(integer), {"o": "o", "x": "x", "X": "X"}.get(conv, "d"))
    nothing = False  # gawk: a zero with precision 0 prints nothing (`0` with `#`), no sign
    if precision is not None:
        wanted = int(precision or 0)
        if wanted == 0 and integer == 0:
            nothing = True
            digits = "0" if "#" in flags and conv in "ouxX" else ""
        digits = digits.rjust(wanted, "0")
    prefix = ""
    if "#" in flags and integer != 0:
        if conv == "o":  # gawk puts the 0 before the precision's zeros too
            digits = "0" + digits
        elif conv in "xX":
            prefix = "0" + conv
    sign = ""
    if conv in "di" and not nothing:
        sign = "-" if integer < 0 else "+" if "+" in flags else " " if " " in flags else ""
    size = int(width or 0)
    text = sign + prefix + digits
    if len(text) >= size:
        return text
    if "-" in flags:
        return text.ljust(size)
    if "0" in flags and precision is None:
        return sign + prefix + digits.rjust(size - len(sign) - len(prefix), "0")
    return text.rjust(size)
