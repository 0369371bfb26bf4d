"""Glob patterns as users of shells and ripgrep write them, compiled to regular expressions.

``*`` and ``?`` stay within one path segment, ``**`` spans any number of segments (including
none), ``[...]`` is a character class (``[!...]`` negated) and ``{a,b}`` is alternation, nestable.
``fnmatch`` has neither ``**`` nor braces, and ``glob.translate`` is 3.13+, hence this module.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(r"(?s:" + _translate(pattern) + r")\Z")


def has_magic(pattern: str) -> bool:
    return any(char in pattern for char in "*?[{")


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**", i):
            i = _double_star(pattern, i, out)
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            i = _char_class(pattern, i, out)
            continue
        elif char == "{":
            i = _alternation(pattern, i, out)
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _double_star(pattern: str, i: int, out: list[str]) -> int:
    """``**/`` matches zero or more whole segments; a trailing ``**`` matches everything."""
    end = i + 2
    if end < len(pattern) and pattern[end] == "/":
        out.append("(?:.*/)?")
        return end + 1
    out.append(".*")
    return end


def _char_class(pattern: str, i: int, out: list[str]) -> int:
    j = i + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    if j >= len(pattern):
        out.append(re.escape("["))
        return i + 1
    body = pattern[i + 1:j].replace("\\", "\\\\")
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    out.append(f"(?!/)[{body}]")
    return j + 1


def _alternation(pattern: str, i: int, out: list[str]) -> int:
    """``{a,b{c,d}}``: split on top-level commas; an unclosed brace is a literal."""
    depth, j, parts, start = 0, i, [], i + 1
    while j < len(pattern):
        char = pattern[j]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                parts.append(pattern[start:j])
                out.append("(?:" + "|".join(_translate(part) for part in parts) + ")")
                return j + 1
        elif char == "," and depth == 1:
            parts.append(pattern[start:j])
            start = j + 1
        j += 1
    out.append(re.escape("{"))
    return i + 1
