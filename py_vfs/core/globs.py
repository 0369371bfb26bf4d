"""Glob patterns as users of shells and ripgrep write them, matched in linear time.

``*`` and ``?`` stay within one path segment, ``**`` spans any number of segments (``**/``:
zero or more whole segments), ``[...]`` is a character class (``[!...]`` or ``[^...]``
negated, ``a-z`` a range) and ``{a,b}`` is alternation, nestable; an unclosed ``[`` or ``{`` is a
literal character, and ``\\c`` is the character ``c`` itself (the shell escapes what was
quoted). With ``pathname=False`` (the shell's ``case`` and ``${x#pattern}``), ``*``, ``?``
and classes match ``/`` too. The dialect is documented once, in docs/semantics.md ("Glob
patterns"). ``fnmatch`` has neither ``**`` nor braces, and ``glob.translate`` is 3.13+.

Patterns come from users and agents, so matching must not depend on the pattern's goodwill: a
translation to one regular expression over the whole path backtracks catastrophically
(``'**/' * 6 + 'zz'`` against a path of 150 segments ran for minutes). The pattern is compiled
to an automaton instead (``automaton.py``), which matches a path in time linear in its length
times the pattern's (the classic dynamic programming over pattern and path positions, computed
forward as sets of positions). Errors are EINVAL with a hint: a reversed range (``[z-a]``) or a
pattern longer than ``MAX_PATTERN`` characters.
"""

from __future__ import annotations

from functools import lru_cache

from .automaton import Automaton, Builder, Predicate
from .errors import FsError

MAX_PATTERN = 4096  # characters, as PATH_MAX: a pattern longer than any path is a mistake

Token = tuple[str, object]  # (kind, value): see _tokens


@lru_cache(maxsize=256)
def compile_glob(pattern: str, syscall: str = "glob", *, pathname: bool = True) -> Automaton:
    """An automaton whose ``match(path)`` tells whether the whole ``path`` matches;
    ``pathname=False``: ``/`` is an ordinary character."""
    if len(pattern) > MAX_PATTERN:
        raise FsError.of("EINVAL", syscall, pattern[:64] + "...").with_hint(
            f"a glob pattern is at most {MAX_PATTERN} characters")
    builder = Builder(max_states=4 * len(pattern) + 8)
    start = current = builder.state()
    groups: list[tuple[int, list[int]]] = []  # open braces: (entry state, ends of alternatives)
    for kind, value in _tokens(pattern, syscall, pathname):
        if kind == "{":
            groups.append((current, []))
            current = _after_empty(builder, current)
        elif kind == ",":
            entry, ends = groups[-1]
            ends.append(current)
            current = _after_empty(builder, entry)
        elif kind == "}":
            _, ends = groups.pop()
            ends.append(current)
            current = builder.state()
            for end in ends:
                builder.empty(end, current)
        else:
            current = _atom(builder, current, kind, value, pathname)
    return Automaton(builder, start, current, search=False)


def escape(text: str) -> str:
    """``text`` as a pattern that matches only itself."""
    return "".join("\\" + char if char in "*?[]{},\\" else char for char in text)


def has_magic(pattern: str) -> bool:
    """Whether ``pattern`` holds a wildcard (``*``, ``?``, ``[``, ``{``)."""
    return any(char in pattern for char in "*?[{")


def _after_empty(builder: Builder, source: int) -> int:
    target = builder.state()
    builder.empty(source, target)
    return target


def _not_slash(char: str) -> bool:
    return char != "/"


def _any(char: str) -> bool:
    return True


def _slash(char: str) -> bool:
    return char == "/"


def _atom(builder: Builder, current: int, kind: str, value: object, pathname: bool) -> int:
    """Append one token after ``current``; returns the state after it."""
    if kind in ("*", "**"):  # within a segment / across segments: a loop on the state
        loop = _after_empty(builder, current)
        builder.edge(loop, _not_slash if kind == "*" and pathname else _any, loop)
        return _after_empty(builder, loop)
    if kind == "**/":  # nothing, or anything that ends with "/"
        end = _after_empty(builder, current)
        loop = _after_empty(builder, current)
        builder.edge(loop, _any, loop)
        slash = _after_empty(builder, loop)
        builder.edge(slash, _slash, end)
        return end
    after = builder.state()
    if kind == "?":
        builder.edge(current, _not_slash if pathname else _any, after)
    elif kind == "class":
        builder.edge(current, value, after)  # type: ignore[arg-type]
    else:
        builder.edge(current, str(value).__eq__, after)
    return after


def _tokens(pattern: str, syscall: str, pathname: bool = True) -> list[Token]:
    """The pattern as tokens; braces are paired as a stack pairs them, and a ``{`` without its
    ``}`` (or a ``}`` or ``,`` outside any group) is a literal character."""
    tokens: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            tokens.append(("literal", pattern[i + 1]))
            i += 2
        elif pattern.startswith("**", i) and pathname:
            slash = pattern.startswith("/", i + 2)
            tokens.append(("**/" if slash else "**", None))
            i += 3 if slash else 2
        elif char in "*?{},":
            tokens.append((char, None))
            i += 1
        elif char == "[":
            i = _char_class(pattern, i, tokens, syscall, pathname)
        else:
            tokens.append(("literal", char))
            i += 1
    return _pair_braces(tokens)


def _pair_braces(tokens: list[Token]) -> list[Token]:
    opened: list[int] = []  # indexes of unpaired "{"
    paired: set[int] = set()
    comma_group: dict[int, int] = {}  # comma index -> the "{" it would separate
    for index, (kind, _) in enumerate(tokens):
        if kind == "{":
            opened.append(index)
        elif kind == "}" and opened:
            paired.update((opened.pop(), index))
        elif kind == "," and opened:
            comma_group[index] = opened[-1]
    result = []
    for index, (kind, value) in enumerate(tokens):
        literal = (kind in "{}" and index not in paired) or (
            kind == "," and comma_group.get(index) not in paired)
        result.append(("literal", kind) if literal else (kind, value))
    return result


def _char_class(pattern: str, i: int, tokens: list[Token], syscall: str,
                pathname: bool = True) -> int:
    """``[...]`` from ``i``: a class token (never matching "/"), or a literal "[" when no
    ``]`` closes it. Returns where scanning goes on."""
    j = i + 1
    negated = j < len(pattern) and pattern[j] in "!^"
    if negated:
        j += 1
    body_start = j
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    if j >= len(pattern):
        tokens.append(("literal", "["))
        return i + 1
    body = pattern[body_start:j]
    ranges: list[tuple[str, str]] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low > high:
                raise FsError.of("EINVAL", syscall, pattern).with_hint(
                    f"invalid range {low}-{high} in {pattern[i:j + 1]}")
            ranges.append((low, high))
            k += 3
        else:
            ranges.append((body[k], body[k]))
            k += 1
    tokens.append(("class", _class_predicate(tuple(ranges), negated, pathname)))
    return j + 1


def _class_predicate(ranges: tuple[tuple[str, str], ...], negated: bool,
                     pathname: bool = True) -> Predicate:
    def matches(char: str) -> bool:
        if char == "/" and pathname:
            return False
        return any(low <= char <= high for low, high in ranges) != negated

    return matches
