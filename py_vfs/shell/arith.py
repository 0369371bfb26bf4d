"""Shell arithmetic (``$((...))``): integers, C's operators and precedence, variables by name.

Recursive descent over a token list. Values are signed 64-bit integers that wrap around, as
in bash (``**`` is computed modulo 2**64, so a huge exponent costs little). The expression's
length and nesting are bounded (``MAX_LENGTH``, ``MAX_DEPTH``) so that input cannot exhaust
the stack. Errors are ``ArithError`` (bash: status 1, the command not run).
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_LENGTH = 10_000
MAX_DEPTH = 100
BITS = 64  # results wrap around as bash's signed 64-bit integers do
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)|([A-Za-z_][A-Za-z0-9_]*)"
                    r"|(\*\*=|<<=|>>=|\+\+|--|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|"
                    r"[-+*/%<>=!~&|^?:(),]))")
_BINARY = [  # lowest precedence first
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
]
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "**=")


class ArithError(Exception):
    """An invalid expression, a division by zero, an unset variable under ``set -u``..."""


def _number(text: str) -> int:
    try:
        if "#" in text:
            base, digits = text.split("#", 1)
            return int(digits, int(base))
        if text[:2] in ("0x", "0X"):
            return int(text, 16)
        if len(text) > 1 and text.startswith("0"):
            return int(text, 8)
        return int(text)
    except ValueError:
        raise ArithError(f"value too great for base (error token is \"{text}\")") from None


class _Eval:
    def __init__(self, text: str, get: Callable[[str], str], set_: Callable[[str, str], None]):
        self.text = text
        self.get = get
        self.set = set_
        self.tokens: list[tuple[str, str]] = []
        self.starts: list[int] = []  # where each token starts in ``text``
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if match is None:
                raise ArithError(f"syntax error: invalid arithmetic operator "
                                 f"(error token is \"{text[pos:].strip()}\")")
            number, name, op = match.groups()
            self.tokens.append(("num", number) if number else ("name", name) if name
                               else ("op", op))
            self.starts.append(match.end() - len(number or name or op))
            pos = match.end()
        self.index = 0
        self.depth = 0

    def error(self, what: str, at: int | None = None) -> ArithError:
        """``what`` with bash's error token: the expression from the token at index ``at``
        (default: the one parsing stopped at; at the end, the last one) to its end."""
        index = min(self.index if at is None else at, len(self.tokens) - 1)
        return ArithError(f"{what} (error token is \"{self.text[self.starts[index]:]}\")")

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def is_op(self, *ops: str) -> bool:
        return (self.index < len(self.tokens) and self.tokens[self.index][0] == "op"
                and self.tokens[self.index][1] in ops)

    def variable(self, name: str) -> int:
        value = self.get(name).strip()
        if not value:
            return 0
        if re.fullmatch(r"-?\d+", value):
            return int(value)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArithError("expression recursion level exceeded")
        try:
            return _Eval(value, self.get, self.set).run(self.depth)
        finally:
            self.depth -= 1

    def run(self, depth: int = 0) -> int:
        self.depth = depth
        if not self.tokens:
            return 0
        value = self.comma()
        if self.index < len(self.tokens):
            raise self.error("syntax error in expression")
        return value

    def comma(self) -> int:
        value = self.assign()
        while self.is_op(","):
            self.index += 1
            value = self.assign()
        return value

    def assign(self) -> int:
        if (self.index + 1 < len(self.tokens) and self.tokens[self.index][0] == "name"
                and self.tokens[self.index + 1][0] == "op"
                and self.tokens[self.index + 1][1] in _ASSIGN):
            name, op = self.tokens[self.index][1], self.tokens[self.index + 1][1]
            self.index += 2
            value = self.assign()
            if op != "=":
                value = _apply(op[:-1], self.variable(name), value)
            self.set(name, str(value))
            return value
        return self.ternary()

    def ternary(self) -> int:
        cond = self.binary(0)
        if not self.is_op("?"):
            return cond
        self.index += 1
        self._expression_expected()
        yes = self.assign()
        if not self.is_op(":"):
            raise self.error("`:' expected for conditional expression")
        self.index += 1
        self._expression_expected()
        no = self.assign()
        return yes if cond else no

    def _expression_expected(self) -> None:
        if self.index == len(self.tokens) or self.is_op(":"):
            raise self.error("expression expected")

    def binary(self, level: int) -> int:
        if level == len(_BINARY):
            return self.power()
        left = self.binary(level + 1)
        while self.is_op(*_BINARY[level]):
            op = self.tokens[self.index][1]
            self.index += 1
            if op in ("&&", "||") and (bool(left) == (op == "||")):
                self._skip(level + 1)
                left = int(op == "||")
                continue
            start = self.index
            right = self.binary(level + 1)
            if op in ("/", "%") and right == 0:
                raise self.error("division by 0", start)
            left = _apply(op, left, right)
        return left

    def _skip(self, level: int) -> None:
        """Parse the right side of a short-circuited && or || without its effects."""
        setter, self.set = self.set, lambda name, value: None
        try:
            self.binary(level)
        finally:
            self.set = setter

    def power(self) -> int:
        base = self.unary()
        if self.is_op("**"):
            self.index += 1
            exponent = self.power()
            if exponent < 0:
                raise self.error("exponent less than 0")
            return _apply("**", base, exponent)
        return base

    def unary(self) -> int:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArithError("expression recursion level exceeded")
        try:
            if self.is_op("++", "--") and self.index + 1 < len(self.tokens) \
                    and self.tokens[self.index + 1][0] == "name":
                op, name = self.tokens[self.index][1], self.tokens[self.index + 1]
                self.index += 2
                value = self.variable(name[1]) + (1 if op == "++" else -1)
                self.set(name[1], str(value))
                return value
            if self.is_op("++", "--"):  # not before a name: two signs, as in bash (++1 is 1)
                op = self.tokens[self.index][1][0]
                self.index += 1
                value = wrap(-self.unary()) if op == "-" else self.unary()
                return wrap(-value) if op == "-" else value
            if self.is_op("-", "+", "!", "~"):
                op = self.tokens[self.index][1]
                self.index += 1
                value = self.unary()
                return wrap({"-": -value, "+": value, "!": int(not value), "~": ~value}[op])
            return self.primary()
        finally:
            self.depth -= 1

    def primary(self) -> int:
        if self.index >= len(self.tokens):
            raise self.error("syntax error: operand expected")
        kind, text = self.tokens[self.index]
        self.index += 1
        if kind == "num":
            return wrap(_number(text))
        if kind == "name":
            value = self.variable(text)
            if self.is_op("++", "--"):
                op = self.tokens[self.index][1]
                self.index += 1
                self.set(text, str(value + (1 if op == "++" else -1)))
            return value
        if text == "(":
            value = self.comma()
            if not self.is_op(")"):
                raise self.error("missing `)'")
            self.index += 1
            return value
        self.index -= 1
        raise self.error("syntax error: operand expected")


def wrap(value: int) -> int:
    """``value`` as a signed 64-bit integer (what bash computes)."""
    return ((value + (1 << (BITS - 1))) % (1 << BITS)) - (1 << (BITS - 1))


def _apply(op: str, left: int, right: int) -> int:
    return wrap(_exact(op, left, right))


def _exact(op: str, left: int, right: int) -> int:
    if op in ("/", "%") and right == 0:
        raise ArithError("division by 0 (error token is \"0\")")
    if op == "**":
        if right < 0:
            raise ArithError("exponent less than 0 (error token is \"0\")")
        return pow(left, right, 1 << BITS)
    if op in ("<<", ">>"):
        right &= BITS - 1
    if op == "/":  # C truncates toward zero
        quotient = abs(left) // abs(right)
        return quotient if (left >= 0) == (right >= 0) else -quotient
    if op == "%":
        remainder = abs(left) % abs(right)
        return remainder if left >= 0 else -remainder
    operations: dict[str, Callable[[int, int], int]] = {
        "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "**": lambda a, b: a ** b, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
        "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
        "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
        "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
        ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
        "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
    }
    return operations[op](left, right)


def evaluate(text: str, get: Callable[[str], str], set_: Callable[[str, str], None]) -> int:
    """The value of an arithmetic expression; ``get``/``set_`` read and assign variables."""
    if len(text) > MAX_LENGTH:
        raise ArithError(f"expression longer than {MAX_LENGTH} characters")
    return _Eval(text, get, set_).run()
