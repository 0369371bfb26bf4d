"""grep's patterns: Python's regular expression syntax, matched in linear time.

Python's ``re`` backtracks: a pattern such as ``(a+)+$`` or ``(x|x)*y`` takes time exponential in
the line's length, and nothing can interrupt it (in Pyodide it would block the only worker).
Limiting the pattern's and the lines' lengths does not help (30 characters are enough), and a
timed budget needs a thread that wasm does not have. So grep parses the pattern with ``re``'s
own parser (same syntax, same error messages) and runs it on the automaton of
``automaton.py``, as ripgrep and RE2 do: a line of n characters costs at most n times the
pattern's size, whatever the pattern.

What an automaton cannot do is refused with EINVAL and a hint: backreferences, lookahead and
lookbehind, atomic groups, possessive quantifiers and conditionals. Errors of syntax are EINVAL
with ``re``'s message. Bounds: a pattern of at most ``MAX_PATTERN`` characters, at most
``MAX_NESTING`` nested groups (``re``'s parser recurses), at most ``MAX_STATES`` states once
counted repetitions are expanded (``a{1000}{1000}``). Matching is case-sensitive unless asked;
ignoring case compares characters' lower and upper cases, which is ``re``'s rule apart from a
few special foldings.
"""

from __future__ import annotations

import re
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

from .automaton import AT_END, AT_START, BOUNDARY, NOT_BOUNDARY, Automaton, Builder, TooComplex
from .automaton import Predicate as Pred
from .errors import FsError

MAX_PATTERN = 4096
MAX_NESTING = 64
MAX_STATES = 20_000

_ANCHORS = {
    sre.AT_BEGINNING: AT_START, sre.AT_BEGINNING_STRING: AT_START,
    sre.AT_END: AT_END, sre.AT_END_STRING: AT_END,
    sre.AT_BOUNDARY: BOUNDARY, sre.AT_NON_BOUNDARY: NOT_BOUNDARY,
}
_UNSUPPORTED = {
    sre.GROUPREF: "backreferences", sre.GROUPREF_EXISTS: "conditional groups",
    sre.ASSERT: "lookahead and lookbehind", sre.ASSERT_NOT: "lookahead and lookbehind",
    sre.ATOMIC_GROUP: "atomic groups", sre.POSSESSIVE_REPEAT: "possessive quantifiers",
}


def compile_pattern(pattern: str, *, regex: bool = True,
                    ignore_case: bool = False) -> LineMatcher:
    """An automaton whose ``match(line)`` tells whether ``pattern`` occurs in ``line``
    (``regex=False``: the pattern is a literal string)."""
    def invalid(hint: str) -> FsError:
        shown = pattern if len(pattern) <= 64 else pattern[:64] + "..."
        return FsError.of("EINVAL", "grep", shown).with_hint(hint)

    if len(pattern) > MAX_PATTERN:
        raise invalid(f"a pattern is at most {MAX_PATTERN} characters")
    source = pattern if regex else re.escape(pattern)
    if _nesting(source) > MAX_NESTING:
        raise invalid(f"more than {MAX_NESTING} nested groups")
    try:
        parsed = sre_parse.parse(source, re.IGNORECASE if ignore_case else 0)
    except re.error as error:
        raise invalid(str(error)) from None
    flags = parsed.state.flags
    builder = Builder(MAX_STATES)
    start = builder.state()
    try:
        end = _Compiler(builder, flags & re.ASCII != 0).sequence(
            list(parsed), start, flags & re.IGNORECASE != 0)
    except TooComplex:
        raise invalid(f"more than {MAX_STATES} states once repetitions are expanded") from None
    except _Unsupported as error:
        raise invalid(f"{error} are not supported by grep (they need backtracking)") from None
    word = _ascii_word if flags & re.ASCII else None
    literal, exact = _required_literal(list(parsed), flags & re.IGNORECASE != 0)
    return LineMatcher(Automaton(builder, start, end, search=True, word=word), literal, exact)


class LineMatcher:
    """``match(line)``: whether the pattern occurs in ``line``. A line that lacks the literal
    every match contains is rejected by ``in`` (C speed); a pattern that is only that literal
    needs nothing more; the rest runs the automaton."""

    def __init__(self, automaton: Automaton, literal: str, exact: bool) -> None:
        self.automaton = automaton
        self.literal = literal
        self.exact = exact

    def match(self, line: str) -> bool:
        """Whether ``line`` holds a match."""
        if self.literal not in line:
            return False
        return self.exact or self.automaton.match(line)

    def spans(self, line: str) -> list[tuple[int, int]]:
        """Where the pattern matches in ``line``: leftmost-longest, non-empty, in order."""
        if self.literal not in line:
            return []
        return self.automaton.spans(line)

    def leftmost(self, line: str, begin: int = 0) -> tuple[int, int] | None:
        """The leftmost-longest match at or after ``begin``, maybe empty, or None."""
        if self.literal not in line:
            return None
        return self.automaton.leftmost(line, begin)


def _required_literal(items: list[tuple[Any, Any]], icase: bool) -> tuple[str, bool]:
    """The longest run of plain characters in the pattern's top-level sequence (every match
    contains it), and whether that run is the whole pattern. Nothing when ignoring case."""
    if icase:
        return "", False
    runs, run = [], []
    for op, value in items:
        if op is sre.LITERAL:
            run.append(chr(value))
        else:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    longest = max(runs, key=len)
    return longest, len(runs) == 1


def _nesting(pattern: str) -> int:
    """How deep the parentheses nest (escaped ones skipped; an overestimate inside classes)."""
    depth = deepest = 0
    escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(0, depth - 1)
    return deepest


class _Unsupported(Exception):
    pass


def _ascii_word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


class _Compiler:
    """Thompson's construction over the items ``re``'s parser produces."""

    def __init__(self, builder: Builder, ascii_only: bool) -> None:
        self.b = builder
        self.ascii = ascii_only

    def sequence(self, items: list[tuple[Any, Any]], current: int, icase: bool) -> int:
        for op, value in items:
            current = self.item(op, value, current, icase)
        return current

    def item(self, op: Any, value: Any, current: int, icase: bool) -> int:
        b = self.b
        if op in _UNSUPPORTED:
            raise _Unsupported(_UNSUPPORTED[op])
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            after = b.state()
            b.edge(current, self.predicate(op, value, icase), after)
            return after
        if op is sre.AT:
            if value not in _ANCHORS:
                raise _Unsupported(f"the anchor {value}")
            after = b.state()
            b.empty(current, after, _ANCHORS[value])
            return after
        if op is sre.BRANCH:
            after = b.state()
            for alternative in value[1]:
                entry = b.state()
                b.empty(current, entry)
                b.empty(self.sequence(list(alternative), entry, icase), after)
            return after
        if op is sre.SUBPATTERN:
            _, add, remove, items = value
            scoped = (icase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            return self.sequence(list(items), current, scoped)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):  # greedy or lazy: the same lines match
            return self.repeat(value, current, icase)
        raise _Unsupported(f"the construct {op}")

    def repeat(self, value: Any, current: int, icase: bool) -> int:
        low, high, items = value
        b = self.b
        for _ in range(low):
            current = self.sequence(list(items), current, icase)
        if high is sre.MAXREPEAT:
            loop = b.state()
            b.empty(current, loop)
            b.empty(self.sequence(list(items), loop, icase), loop)
            after = b.state()
            b.empty(loop, after)
            return after
        after = b.state()
        for _ in range(high - low):
            b.empty(current, after)
            current = self.sequence(list(items), current, icase)
        b.empty(current, after)
        return after

    def predicate(self, op: Any, value: Any, icase: bool) -> Pred:
        if op is sre.ANY:
            return _not_newline
        negated = op is sre.NOT_LITERAL or (
            op is sre.IN and bool(value) and value[0][0] is sre.NEGATE)
        test = self.in_class(value) if op is sre.IN else chr(value).__eq__
        positive = _either_case(test, icase)
        return (lambda c: not positive(c)) if negated else positive

    def in_class(self, items: list[tuple[Any, Any]]) -> Pred:
        """Whether a character is among the class's items (its negation is left out)."""
        negated = bool(items) and items[0][0] is sre.NEGATE
        tests: list[Pred] = []
        for op, value in items[1:] if negated else items:
            if op is sre.LITERAL:
                tests.append(chr(value).__eq__)
            elif op is sre.RANGE:
                low, high = chr(value[0]), chr(value[1])
                tests.append(lambda c, low=low, high=high: low <= c <= high)
            elif op is sre.CATEGORY:
                tests.append(self.category(value))
            else:
                raise _Unsupported(f"the class item {op}")
        return lambda c: any(test(c) for test in tests)

    def category(self, category: Any) -> Pred:
        name = str(getattr(category, "name", category)).removeprefix("CATEGORY_")
        positive = name.removeprefix("NOT_")
        if positive == "DIGIT":
            test = (lambda c: "0" <= c <= "9") if self.ascii else str.isdecimal
        elif positive == "SPACE":
            test = (lambda c: c in " \t\n\r\f\v") if self.ascii else str.isspace
        elif positive == "WORD":
            test = _ascii_word if self.ascii else (lambda c: c.isalnum() or c == "_")
        else:
            raise _Unsupported(f"the category {category}")
        return (lambda c: not test(c)) if name.startswith("NOT_") else test


def _not_newline(char: str) -> bool:
    return char != "\n"


def _either_case(test: Pred, icase: bool) -> Pred:
    """``test``, or (ignoring case) ``test`` of the character or of its lower or upper case
    (when that is one character: "ß".upper() is "SS")."""
    if not icase:
        return test

    def either(char: str) -> bool:
        return test(char) or any(len(other) == 1 and test(other)
                                 for other in (char.lower(), char.upper()))

    return either
