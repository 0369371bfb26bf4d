"""Brace expansion, the first expansion bash does: ``a{b,c}d`` is ``abd acd``, ``{1..5}``,
``{a..e}`` and ``{1..10..2}`` are sequences (``{01..10}`` zero-padded). Only unquoted braces
count; a brace with neither a top-level comma nor a sequence (``{}``, ``{a}``) is literal.
"""

from __future__ import annotations

import re
from itertools import pairwise

from .syntax import Lit, Part, Word

MAX_WORDS = 100_000  # what one word may expand to; more is refused, not built
_SEQUENCE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")

Item = str | Part  # a str is one unquoted character; anything else is kept whole


class ExpansionError(Exception):
    """An expansion that fails (``${x:?}``, an unset variable under ``set -u``, bad
    arithmetic, too many words): as in bash, the rest of the line (or script, or subshell)
    does not run either; its status is ``status``."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def expand_braces(word: Word) -> list[Word]:
    """The words ``word`` becomes (itself when it has no brace expression)."""
    if not any(isinstance(part, Lit) and not part.quoted and "{" in part.text
               for part in word.parts):
        return [word]
    items: list[Item] = []
    for part in word.parts:
        if isinstance(part, Lit) and not part.quoted:
            items.extend(part.text)
        else:
            items.append(part)
    return [Word(_rebuild(result), word.pos) for result in _expand(items)]


def _rebuild(items: list[Item]) -> tuple[Part, ...]:
    parts: list[Part] = []
    text: list[str] = []
    for item in items:
        if isinstance(item, str):
            text.append(item)
            continue
        if text:
            parts.append(Lit("".join(text)))
            text = []
        parts.append(item)
    if text:
        parts.append(Lit("".join(text)))
    return tuple(parts)


def _expand(items: list[Item]) -> list[list[Item]]:
    for start, item in enumerate(items):
        if item != "{":
            continue
        close, commas = _closing(items, start)
        if close is None:
            continue
        if commas:
            bounds = [start, *commas, close]
            alternatives = [items[a + 1:b] for a, b in pairwise(bounds)]
        else:
            sequence = _sequence(items[start + 1:close])
            if sequence is None:
                continue
            alternatives = [list(text) for text in sequence]
        prefix = items[:start]
        suffixes = _expand(items[close + 1:])
        results: list[list[Item]] = []
        for alternative in alternatives:
            for middle in _expand(alternative):
                for suffix in suffixes:
                    results.append(prefix + middle + suffix)
                    if len(results) > MAX_WORDS:
                        raise ExpansionError(f"brace expansion makes more than {MAX_WORDS} "
                                             "words")
        return results
    return [items]


def _closing(items: list[Item], start: int) -> tuple[int | None, list[int]]:
    depth, commas = 0, []
    for index in range(start + 1, len(items)):
        item = items[index]
        if item == "{":
            depth += 1
        elif item == "}":
            if depth == 0:
                return index, commas
            depth -= 1
        elif item == "," and depth == 0:
            commas.append(index)
    return None, []


def _sequence(items: list[Item]) -> list[str] | None:
    text = [item for item in items if isinstance(item, str)]
    if len(text) != len(items):
        return None
    match = _SEQUENCE.fullmatch("".join(text))
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if first.isalpha() != last.isalpha():
        return None
    if first.isalpha():
        low, high = ord(first), ord(last)
        values = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        if len(values) > MAX_WORDS:
            raise ExpansionError(f"brace expansion makes more than {MAX_WORDS} words")
        return [chr(value) for value in values]
    low, high = int(first), int(last)
    values = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
    if len(values) > MAX_WORDS:
        raise ExpansionError(f"brace expansion makes more than {MAX_WORDS} words")
    width = max(len(first), len(last)) if re.match(r"-?0\d", first + " ") or re.match(
        r"-?0\d", last + " ") else 0
    return [str(value).zfill(width) if width else str(value) for value in values]
