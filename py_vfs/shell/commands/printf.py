"""The printf format language and backslash escapes (printf, echo -e), as bash's builtins."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .. import limits

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t", "v": "\v", "\\": "\\", '"': '"', "'": "'", "?": "?"}
_ESCAPE = re.compile(r"\\(0[0-7]{0,3}|[1-7][0-7]{0,2}|x[0-9a-fA-F]{1,2}"
                     r"|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|c|.)", re.S)
_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|[0-9]+)?(?:\.(?P<precision>\*|[0-9]*))?"
                   r"(?P<conv>[sbcdiouxXfFeEgGaA%])")


def _byte(value: int) -> str:
    """The byte ``value`` as text that the output writes back as that one byte (a byte above
    127 is not a character: `\\200` is the byte 0x80, not U+0080 in UTF-8)."""
    return bytes([value]).decode("utf-8", "surrogateescape")


def escapes(text: str, *, echo: bool = False) -> tuple[str, bool]:
    """``text`` with its backslash escapes replaced; True when a ``\\c`` stopped it (the rest
    is dropped). ``echo``: `\\0NNN` is octal (echo -e, printf %b); otherwise `\\NNN` is (a
    printf format)."""
    out: list[str] = []
    position = 0
    for match in _ESCAPE.finditer(text):
        out.append(text[position:match.start()])
        position = match.end()
        code = match[1]
        if code == "c":
            return "".join(out), True
        if code[0] in "01234567" and (echo is False or code[0] == "0"):
            digits = code[1:] if echo else code
            out.append(_byte(int(digits or "0", 8) & 0xFF))
        elif code[0] in "1234567":  # echo: \1 is not an escape
            out.append("\\" + code)
        elif code[0] == "x":
            out.append(_byte(int(code[1:], 16)))
        elif code[0] in "uU":
            out.append(chr(int(code[1:], 16)))
        elif code in _SIMPLE and not (echo and code in "\"'?"):
            out.append(_SIMPLE[code])
        else:
            out.append("\\" + code)
    out.append(text[position:])
    return "".join(out), False


def _integer(text: str, errors: list[str]) -> int:
    if text[:1] in ("'", '"'):
        return ord(text[1]) if len(text) > 1 else 0
    try:
        return int(text, 0) if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F]+", text) else (
            int(text, 8) if re.fullmatch(r"[-+]?0[0-7]+", text) else int(text or "0"))
    except ValueError:
        errors.append(f"{text}: invalid number")
        match = re.match(r"[-+]?[0-9]+", text)
        return int(match[0]) if match else 0


def _float(text: str, errors: list[str]) -> float:
    if text[:1] in ("'", '"'):
        return float(ord(text[1])) if len(text) > 1 else 0.0
    try:
        return float(text or "0")
    except ValueError:
        errors.append(f"{text}: invalid number")
        return 0.0


class FormatLimit(ValueError):
    """A field width or precision, or one pass of the format's text, over
    ``limits.MAX_VALUE`` characters: refused before it is built."""


def passes(fmt: str, args: list[str], errors: list[str]) -> Iterator[str]:
    """Format ``args`` under ``fmt``, reusing it while arguments remain: the text of each pass
    (at least one), as it is made, so that a long output is written a pass at a time; bad
    numbers are added to ``errors``. Raises ``FormatLimit``."""
    queue = list(args)
    while True:
        used = len(queue)
        piece, stop = _once(fmt, queue, errors)
        yield piece
        if stop or not queue or len(queue) == used:
            break


def _bounded(text: str | None, what: str) -> None:
    if text not in (None, "") and abs(int(text)) > limits.MAX_VALUE:
        raise FormatLimit(f"{text}: limit exceeded (a {what} over {limits.MAX_VALUE})")


def _once(fmt: str, queue: list[str], errors: list[str]) -> tuple[str, bool]:
    """One pass of the format, taking arguments from ``queue``; True when `\\c` stopped it."""
    out: list[str] = []
    position = 0
    size = counted = 0  # the characters in out[:counted]

    def take() -> str:
        return queue.pop(0) if queue else ""

    for match in _SPEC.finditer(fmt):
        size += sum(len(piece) for piece in out[counted:])
        counted = len(out)
        if size > limits.MAX_VALUE:
            raise FormatLimit(f"limit exceeded (one pass of the format over {limits.MAX_VALUE} "
                              "characters)")
        literal, stop = escapes(fmt[position:match.start()])
        out.append(literal)
        if stop:
            return "".join(out), True
        position = match.end()
        conv = match["conv"]
        if conv == "%":
            out.append("%")
            continue
        flags, width, precision = match["flags"], match["width"], match["precision"]
        if width == "*":
            width = str(_integer(take(), errors))
        if precision == "*":
            precision = str(_integer(take(), errors))
        _bounded(width, "field width")
        _bounded(precision, "precision")
        spec = "%" + flags + (width or "") + ("." + precision if precision is not None else "")
        argument = take()
        if conv == "s":
            out.append((spec + "s") % argument)
        elif conv == "b":
            text, stop = escapes(argument, echo=True)
            out.append((spec + "s") % text)
            if stop:
                return "".join(out), True
        elif conv == "c":
            out.append((spec + "s") % (argument[:1] or "\0"))
        elif conv in "diouxX":
            value = _integer(argument, errors)
            if conv == "u" and value < 0:
                value += 1 << 64
            out.append((spec + ("d" if conv in "iu" else conv)) % value)
        else:
            value = _float(argument, errors)
            out.append((spec + ("e" if conv in "aA" else conv)) % value)
    literal, stop = escapes(fmt[position:])
    out.append(literal)
    return "".join(out), stop
