"""expr: evaluate an expression given as arguments, as GNU expr does.

The grammar, loosest first: `|`, `&`, the comparisons, `+ -`, `* / %`, `:`, then `match`,
`substr`, `index`, `length`, `+ TOKEN`, parentheses and plain tokens. Integers are of any size
(GNU's is built with GMP); a value that is `-`? digits is an integer, anything else a string.
`STRING : REGEX` matches a BRE anchored at the start: the length of the longest match comes
from the linear-time automaton grep uses (core/grep_pattern.py), so no pattern can make it
slow; only a pattern with a `\\(...\\)` group runs Python's ``re`` to find the group, on the
part already known to match and at most ``MAX_GROUP_SUBJECT`` characters of it.
"""

from __future__ import annotations

import re

from ...core.grep_pattern import compile_pattern
from ..context import Context
from ..format import quote_arg
from .posix_re import BadPattern, translate
from .registry import Usage, UsageError, command

MAX_NESTING = 256  # parentheses and keywords (`length length ...`) inside each other
MAX_GROUP_SUBJECT = 1 << 16  # characters `:` captures a group from
_INTEGER = re.compile(r"-?[0-9]+")

# expr's usage errors: `expr: missing operand`, a `Try` line, status 2.
EXPR_ERRORS = Usage(2, try_help=True)


class _Failure(Exception):
    """An expression expr cannot evaluate: the message, status 2 (3 for an internal one)."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


Value = int | str


def _integer(value: Value) -> int | None:
    if isinstance(value, int):
        return value
    return int(value) if _INTEGER.fullmatch(value) else None


def _null(value: Value) -> bool:
    if isinstance(value, int):
        return value == 0
    return value == "" or bool(re.fullmatch(r"-?0+", value))


def _text(value: Value) -> str:
    return str(value)


def _order(left: Value, right: Value) -> int:
    """-1, 0 or 1: as numbers when both are integers, else byte by byte (the C locale)."""
    a, b = _integer(left), _integer(right)
    if a is not None and b is not None:
        return (a > b) - (a < b)
    x, y = (_text(v).encode("utf-8", "surrogateescape") for v in (left, right))
    return (x > y) - (x < y)


def _match(subject: str, pattern: str) -> Value:
    """`SUBJECT : PATTERN`: the group's text (a pattern with a group) or the match's length."""
    try:
        source = translate(pattern, extended=False)
    except BadPattern as exc:
        raise _Failure(str(exc)) from None
    source = source[1:] if source.startswith("^") else source
    try:
        matcher = compile_pattern("^(?:" + source + ")")
    except OSError as exc:
        raise _Failure(getattr(exc, "hint", None) or "Invalid regular expression") from None
    spans = matcher.spans(subject) if subject else []
    end = spans[0][1] if spans and spans[0][0] == 0 else 0
    if re.compile(source).groups == 0:
        return end
    if not end and not re.match(source, ""):
        return ""
    if end > MAX_GROUP_SUBJECT:
        raise _Failure(f"a match over {MAX_GROUP_SUBJECT} characters to capture a group from")
    found = re.fullmatch(source, subject[:end])
    return (found.group(1) or "") if found else ""


class _Parser:
    """Recursive descent over the arguments; ``evaluate`` False skips what `|` and `&` do
    not need (no division by zero is reported there, as GNU)."""

    def __init__(self, args: list[str]) -> None:
        self.args, self.index, self.depth = args, 0, 0

    def peek(self) -> str | None:
        return self.args[self.index] if self.index < len(self.args) else None

    def take(self, token: str) -> bool:
        if self.peek() == token:
            self.index += 1
            return True
        return False

    def top(self) -> Value:
        value = self.either(True)
        if self.index < len(self.args):
            raise _Failure(f"syntax error: unexpected argument {quote_arg(self.args[self.index])}")
        return value

    def either(self, evaluate: bool) -> Value:
        left = self.both(evaluate)
        while self.take("|"):
            right = self.both(evaluate and _null(left))
            if _null(left):
                left = 0 if _null(right) else right
        return left

    def both(self, evaluate: bool) -> Value:
        left = self.compare(evaluate)
        while self.take("&"):
            right = self.compare(evaluate and not _null(left))
            if _null(left) or _null(right):
                left = 0
        return left

    def compare(self, evaluate: bool) -> Value:
        left = self.sum(evaluate)
        while (op := self.peek()) in ("<", "<=", "=", "==", "!=", ">=", ">"):
            self.index += 1
            right = self.sum(evaluate)
            order = _order(left, right)
            left = int({"<": order < 0, "<=": order <= 0, "=": order == 0, "==": order == 0,
                        "!=": order != 0, ">=": order >= 0, ">": order > 0}[op])
        return left

    def _numbers(self, left: Value, right: Value, evaluate: bool) -> tuple[int, int]:
        a, b = _integer(left), _integer(right)
        if a is None or b is None:
            if evaluate:
                raise _Failure("non-integer argument")
            return 0, 1
        return a, b

    def sum(self, evaluate: bool) -> Value:
        left = self.product(evaluate)
        while (op := self.peek()) in ("+", "-"):
            self.index += 1
            a, b = self._numbers(left, self.product(evaluate), evaluate)
            left = a + b if op == "+" else a - b
        return left

    def product(self, evaluate: bool) -> Value:
        left = self.colon(evaluate)
        while (op := self.peek()) in ("*", "/", "%"):
            self.index += 1
            a, b = self._numbers(left, self.colon(evaluate), evaluate)
            if op == "*":
                left = a * b
            elif b == 0:
                if evaluate:
                    raise _Failure("division by zero")
                left = 0
            else:
                quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
                left = quotient if op == "/" else a - b * quotient
        return left

    def colon(self, evaluate: bool) -> Value:
        left = self.unary(evaluate)
        while self.take(":"):
            right = self.unary(evaluate)
            left = _match(_text(left), _text(right)) if evaluate else 0
        return left

    def unary(self, evaluate: bool) -> Value:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Failure(f"more than {MAX_NESTING} nested operations")
        try:
            return self._unary(evaluate)
        finally:
            self.depth -= 1

    def _unary(self, evaluate: bool) -> Value:
        if self.take("+"):
            return self.token()
        if self.take("length"):
            return len(_text(self.unary(evaluate)))
        if self.take("match"):
            subject, pattern = self.unary(evaluate), self.unary(evaluate)
            return _match(_text(subject), _text(pattern)) if evaluate else 0
        if self.take("index"):
            text, chars = _text(self.unary(evaluate)), _text(self.unary(evaluate))
            return next((i for i, c in enumerate(text, 1) if c in chars), 0)
        if self.take("substr"):
            text = _text(self.unary(evaluate))
            start, length = _integer(self.unary(evaluate)), _integer(self.unary(evaluate))
            if start is None or length is None or start < 1 or length < 1:
                return ""
            return text[start - 1:start - 1 + length]
        return self.primary(evaluate)

    def primary(self, evaluate: bool) -> Value:
        if self.take("("):
            value = self.either(evaluate)
            closing = self.peek()
            if closing is None:
                raise _Failure(f"syntax error: expecting ')' after "
                               f"{quote_arg(self.args[self.index - 1])}")
            if closing != ")":
                raise _Failure(f"syntax error: expecting ')' instead of {quote_arg(closing)}")
            self.index += 1
            return value
        if self.peek() == ")":
            raise _Failure("syntax error: unexpected ')'")
        return self.token()

    def token(self) -> Value:
        token = self.peek()
        if token is None:
            raise _Failure(f"syntax error: missing argument after "
                           f"{quote_arg(self.args[self.index - 1])}")
        self.index += 1
        return token


@command("expr EXPRESSION...", "evaluate an expression and print its value", errors=EXPR_ERRORS)
async def expr(ctx: Context, args: list[str]) -> int:
    """Print the value of the EXPRESSION its arguments form (each operator a word of its
    own): `A | B`, `A & B`, `A < B` (<= = == != >= >: numbers compare as numbers, other
    strings byte by byte; 1 or 0), `A + B` (- * / %: integers of any size, / and %
    truncating), `STRING : REGEX` (a BRE anchored at the start: the matched length, or the
    text of its `\\(...\\)` group), `match STRING REGEX`, `substr STRING POS LEN`, `index
    STRING CHARS`, `length STRING`, `+ TOKEN` (TOKEN as a string), `( EXPRESSION )`. Status
    0 if the value is neither empty nor 0, 1 if it is, 2 for an invalid expression."""
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        raise UsageError("missing operand")
    try:
        value = _Parser(args).top()
    except _Failure as exc:
        ctx.err(str(exc))
        return exc.status
    ctx.out(f"{value}\n")
    return 1 if _null(value) else 0
