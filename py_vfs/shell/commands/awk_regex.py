"""awk's regular expressions: POSIX EREs (with awk's escapes and gawk's `\\y \\< \\> \\w \\s`)
translated to Python's syntax and run on grep's linear-time automaton
(``core.grep_pattern``), so no pattern can make awk backtrack for ever.

Matches are leftmost-longest, as POSIX says. `.` and `[^...]` match a newline too. What the
automaton cannot do (backreferences) an ERE does not have. Compiled patterns are cached, dynamic
ones (strings used as patterns) too, up to ``CACHE_SIZE``.

The translation has the shape of grep's and sed's (posix_re.translate) but not their dialect,
so only the character classes are shared: here a backslash escapes inside brackets too and
has awk's escapes (`\\n`, octal `\\101`, `\\/`), where POSIX's is a literal; a trailing one
is a literal, not an error; `.` matches a newline; `*+?{` with nothing to repeat are literal
(after `$` or `\\y` too: posix_re looks only at where an expression starts); an interval needs
its lower bound; gawk's `\\y \\B \\` \\'` pass; and there is no BRE to translate.
"""

from __future__ import annotations

import re

from ...core.errors import FsError
from ...core.grep_pattern import LineMatcher, compile_pattern
from .awk_values import AwkError
from .posix_re import CLASSES

CACHE_SIZE = 500
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b",
            "/": "/", '"': '"'}
_PASS = {"y": "\\b", "B": "\\B", "<": "\\b", ">": "\\b", "w": "\\w", "W": "\\W", "s": "\\s",
         "S": "\\S", "`": "^", "'": "$"}
_ANY = "[\\x00-\\U0010ffff]"
_INTERVAL = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")


class Regex:
    """A compiled awk ERE: ``search`` (any match), ``find`` (leftmost-longest, from a
    position), ``source`` (the ERE as written)."""

    def __init__(self, source: str, matcher: LineMatcher) -> None:
        self.source = source
        self.matcher = matcher

    def search(self, text: str) -> bool:
        """Whether the ERE matches somewhere in ``text``."""
        return self.matcher.match(text)

    def find(self, text: str, begin: int = 0) -> tuple[int, int] | None:
        """The leftmost-longest match at or after ``begin`` (maybe empty), or None."""
        return self.matcher.leftmost(text, begin)


_cache: dict[str, Regex] = {}


def compile_ere(source: str) -> Regex:
    """The ERE ``source`` compiled (cached), or ``AwkError`` for a bad one."""
    found = _cache.get(source)
    if found is not None:
        return found
    try:
        matcher = compile_pattern(translate(source))
    except FsError as exc:
        raise AwkError(f"fatal: invalid regexp: /{source}/: {exc.hint or exc}") from None
    if len(_cache) >= CACHE_SIZE:
        _cache.clear()
    regex = _cache[source] = Regex(source, matcher)
    return regex


def translate(source: str) -> str:
    """The ERE ``source`` in Python's syntax."""
    out: list[str] = []
    i = 0
    size = len(source)
    operand_before = False  # `*`, `+`, `?` with nothing to repeat are literal
    while i < size:
        char = source[i]
        if char == "\\":
            if i + 1 >= size:
                out.append("\\\\")
                i += 1
                continue
            nxt = source[i + 1]
            i += 2
            if nxt in "01234567":
                j = i - 1
                while i < size and i < j + 3 and source[i] in "01234567":
                    i += 1
                out.append(re.escape(chr(int(source[j:i], 8))))
            elif nxt in _ESCAPES:
                out.append(re.escape(_ESCAPES[nxt]))
            elif nxt in _PASS:
                out.append(_PASS[nxt])
                operand_before = nxt in "wWsS"
                continue
            else:
                out.append(re.escape(nxt))
            operand_before = True
            continue
        if char == "[":
            text, i = _bracket(source, i)
            out.append(text)
            operand_before = True
            continue
        i += 1
        if char == ".":
            out.append(_ANY)
            operand_before = True
        elif char in "*+?":
            out.append(char if operand_before else "\\" + char)
            operand_before = True
        elif char == "{":
            interval = _INTERVAL.match(source, i - 1)
            if interval and operand_before:
                out.append(interval[0])
                i = interval.end()
            else:
                out.append("\\{")
                operand_before = True
        elif char in "(|":
            out.append(char)
            operand_before = False
        elif char in ")^$":
            out.append(char)
            operand_before = char == ")"
        elif char.isalnum() or char == "_":
            out.append(char)
            operand_before = True
        else:
            out.append(re.escape(char))
            operand_before = True
    return "".join(out)


def _bracket(source: str, index: int) -> tuple[str, int]:
    """The bracket expression at ``source[index] == "["`` as a Python class, and the index
    after it; a backslash inside escapes the next character, as in awk."""
    i = index + 1
    out = ["["]
    if i < len(source) and source[i] == "^":
        out.append("^")
        i += 1
    first = True
    while True:
        if i >= len(source):
            raise AwkError(f"fatal: invalid regexp: /{source}/: Unmatched [, [^, [:, [., or [=")
        char = source[i]
        if char == "]" and not first:
            return "".join(out) + "]", i + 1
        first = False
        if source.startswith("[:", i):
            end = source.find(":]", i + 2)
            name = source[i + 2:end] if end >= 0 else ""
            if name not in CLASSES:
                raise AwkError(f"fatal: invalid regexp: /{source}/: Invalid character class "
                               "name")
            out.append(CLASSES[name])
            i = end + 2
            continue
        if char == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            i += 2
            out.append(re.escape(_ESCAPES.get(nxt, nxt)))
            continue
        out.append("\\" + char if char in "\\[]&~|^-" and not (
            char == "-" and out[-1] not in ("[", "[^") and i + 1 < len(source) and
            source[i + 1] != "]") else char)
        i += 1
