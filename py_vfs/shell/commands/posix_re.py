"""POSIX regular expressions (grep's and sed's BRE and ERE) as Python ``re`` syntax.

What users type translates: BRE's `\\( \\) \\{ \\} \\| \\+ \\?` (GNU's extensions included), ERE's
bare ones, bracket expressions with classes (`[[:digit:]]`, `[]a]`, a backslash inside is
itself), `\\< \\>` (as `\\b`), `\\w \\W \\s \\S \\b \\B`, `*` at the start of an expression as a
literal, `^` and `$` in BRE as anchors only at the ends. Not translated: equivalence classes
(`[=a=]`) and collating symbols (`[.a.]`); backreferences pass through (grep refuses them, sed
uses them).
"""

from __future__ import annotations

import re

# POSIX's character classes as the inside of a Python set (awk's brackets use them too).
CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~").replace("\\ ", " "),
    "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e", "cntrl": "\\x00-\\x1f\\x7f",
}
_INTERVAL = re.compile(r"\{([0-9]*)(,?)([0-9]*)\}")
_BRE_SPECIAL = {"(": "(", ")": ")", "{": "{", "}": "}", "|": "|", "+": "+", "?": "?"}


class BadPattern(ValueError):
    """A pattern POSIX refuses (an unmatched `[`...): grep and sed report it, status 2/1."""


def _bracket(pattern: str, index: int) -> tuple[str, int]:
    """The bracket expression starting at ``pattern[index] == "["`` as a Python set, and the
    index after it."""
    i = index + 1
    if i >= len(pattern):
        raise BadPattern("Invalid regular expression")
    out = ["["]
    if i < len(pattern) and pattern[i] == "^":
        out.append("^")
        i += 1
    first = True
    while True:
        if i >= len(pattern):
            raise BadPattern("Unmatched [, [^, [:, [., or [=")
        char = pattern[i]
        if char == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2:end] if end >= 0 else ""
            if name not in CLASSES:
                raise BadPattern("Invalid character class name")
            out.append(CLASSES[name])
            i = end + 2
            continue
        if char in "\\[]&~|":
            out.append("\\" + char)
        else:
            out.append(char)
        i += 1


def translate(pattern: str, *, extended: bool) -> str:
    """``pattern`` (a BRE, or an ERE when ``extended``) in Python's syntax."""
    out: list[str] = []
    i = 0
    at_start = True  # where `*` is literal and BRE's `^` an anchor
    while i < len(pattern):
        char = pattern[i]
        start = at_start
        at_start = False
        if char == "\\":
            if i + 1 >= len(pattern):
                raise BadPattern("Trailing backslash")
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in _BRE_SPECIAL:
                if nxt == "{":
                    close = pattern.find("\\}", i)
                    if close < 0:
                        raise BadPattern("Unmatched \\{")
                    out.append("{" + pattern[i:close] + "}")
                    i = close + 2
                    continue
                out.append(_BRE_SPECIAL[nxt])
                at_start = nxt in "(|"
            elif nxt in "<>":
                out.append("\\b")
            elif nxt in "wWsSbB" or nxt.isdigit():
                out.append("\\" + nxt)
            else:
                out.append(re.escape(nxt))
            continue
        i += 1
        if char == "[":
            text, i = _bracket(pattern, i - 1)
            out.append(text)
        elif char == "*" and start:
            out.append("\\*")
        elif char == "^":
            if extended or start:
                out.append("^")
                at_start = True
            else:
                out.append("\\^")
        elif char == "$":
            rest = pattern[i:]
            if extended or not rest or rest.startswith(("\\)", "\\|")):
                out.append("$")
            else:
                out.append("\\$")
        elif char in "(){}|+?":
            if not extended:
                out.append("\\" + char)
            elif char == "{":
                interval = _INTERVAL.match(pattern, i - 1)
                if interval and (interval[1] or interval[3]) and not start:
                    out.append(interval[0])
                    i = interval.end()
                else:
                    out.append("\\{")
            elif char in "+?" and start:
                out.append("\\" + char)
            else:
                out.append(char)
                at_start = char in "(|"
        else:
            out.append(char)
    text = "".join(out)
    _check_groups(text)
    return text


def _check_groups(text: str) -> None:
    """GNU's messages for unbalanced groups (Python's would name its own syntax)."""
    depth, i = 0, 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = text.index("]", i + 2 if text.startswith("[^", i) else i + 1) + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            raise BadPattern("Unmatched ) or \\)")
        i += 1
    if depth:
        raise BadPattern("Unmatched ( or \\(")
