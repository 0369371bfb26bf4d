"""awk's tokens: the program text cut into numbers, strings, regular expressions, names,
keywords and operators.

Whether a `/` starts a regular expression or divides depends on the token before it (after an
operand it divides), as in every awk. A name glued to `(` is a call of a user function
(``FUNC_NAME``), as POSIX's grammar says; newlines are tokens (they end statements), except
after a backslash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

KEYWORDS = frozenset({
    "BEGIN", "END", "function", "func", "if", "else", "while", "for", "do", "break", "continue",
    "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf",
})
BUILTINS = frozenset({
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "sin", "cos",
    "atan2", "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "system",
    "close", "fflush", "gensub", "systime", "strftime", "asort", "asorti",
})
# Longest first, so `**=` wins over `**` and `*`.
OPERATORS = sorted([
    "**=", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "++", "--", "&&", "||",
    ">>", "!~", "**", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^",
    "!", ">", "<", "|", "?", ":", "~", "$", "=",
], key=len, reverse=True)
# After these a `/` divides; elsewhere it opens a regular expression.
_OPERAND_END = frozenset({"NAME", "FUNC_NAME", "NUMBER", "STRING", "ERE", "BUILTIN", ")", "]",
                          "$", "++", "--"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "/": "/", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v"}


_Add = Callable[[str, 'str | float'], None]


class AwkSyntaxError(Exception):
    """A program awk cannot read; ``str()`` is the message, ``line`` where."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Token:
    """One token: its kind (an operator's own text, or NAME, NUMBER...), value and line."""

    kind: str
    value: str | float
    line: int


def unescape(text: str) -> str:
    """A string literal's backslash escapes (`\\n`, `\\t`, `\\"`, octal `\\ddd`) resolved; an
    unknown escape `\\c` is `c`, as gawk reads it (with a warning we do not print)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "01234567":
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 1:j], 8)))
            i = j
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def tokenize(source: str) -> list[Token]:
    """The tokens of ``source``, ending with an EOF token."""
    tokens: list[Token] = []
    i, line, size = 0, 1, len(source)

    def add(kind: str, value: str | float) -> None:
        tokens.append(Token(kind, value, line))

    while i < size:
        char = source[i]
        if char in " \t\r":
            i += 1
        elif char == "\\" and source.startswith("\n", i + 1):
            i, line = i + 2, line + 1
        elif char == "\\" and source.startswith("\r\n", i + 1):
            i, line = i + 3, line + 1
        elif char == "\n":
            add("NEWLINE", "\n")
            i, line = i + 1, line + 1
        elif char == "#":
            while i < size and source[i] != "\n":
                i += 1
        elif char == '"':
            i = _string(source, i, line, add)
        elif char == "/" and (not tokens or tokens[-1].kind not in _OPERAND_END):
            i = _regex(source, i, line, add)
        elif char.isdigit() or (char == "." and i + 1 < size and source[i + 1].isdigit()):
            i = _number(source, i, add)
        elif char.isalpha() or char == "_":
            start = i
            while i < size and (source[i].isalnum() or source[i] == "_"):
                i += 1
            word = source[start:i]
            if word in KEYWORDS:
                add("func" if word == "function" else word, word)
            elif word in BUILTINS:
                add("BUILTIN", word)
            elif i < size and source[i] == "(":
                add("FUNC_NAME", word)
            else:
                add("NAME", word)
        else:
            for operator in OPERATORS:
                if source.startswith(operator, i):
                    add(operator, operator)
                    i += len(operator)
                    break
            else:
                raise AwkSyntaxError(f"invalid char '{char}' in expression", line)
    add("NEWLINE", "\n")
    add("EOF", "")
    return tokens


def _string(source: str, i: int, line: int, add: _Add) -> int:
    j = i + 1
    while j < len(source) and source[j] != '"':
        if source[j] == "\n":
            raise AwkSyntaxError("unterminated string", line)
        j += 2 if source[j] == "\\" else 1
    if j >= len(source):
        raise AwkSyntaxError("unterminated string", line)
    raw = source[i + 1:j].replace("\\\n", "")
    add("STRING", unescape(raw))
    return j + 1


def _regex(source: str, i: int, line: int, add: _Add) -> int:
    j = i + 1
    in_bracket = False
    while j < len(source):
        char = source[j]
        if char == "\n":
            raise AwkSyntaxError("unterminated regexp", line)
        if char == "\\":
            j += 2
            continue
        if char == "[" and not in_bracket:
            in_bracket = True
            j += 1
            if j < len(source) and source[j] == "^":
                j += 1
            if j < len(source) and source[j] == "]":
                j += 1
            continue
        if char == "[" and in_bracket and source.startswith(("[:", "[.", "[="), j):
            close = source.find(source[j + 1] + "]", j + 2)
            j = close + 2 if close > 0 else j + 1
            continue
        if char == "]" and in_bracket:
            in_bracket = False
        elif char == "/" and not in_bracket:
            add("ERE", source[i + 1:j])
            return j + 1
        j += 1
    raise AwkSyntaxError("unterminated regexp", line)


def _number(source: str, i: int, add: _Add) -> int:
    start = i
    size = len(source)
    if source.startswith(("0x", "0X"), i) and i + 2 < size and source[i + 2] in \
            "0123456789abcdefABCDEF":
        i += 2
        while i < size and source[i] in "0123456789abcdefABCDEF":
            i += 1
        add("NUMBER", float(int(source[start + 2:i], 16)))
        return i
    while i < size and source[i].isdigit():
        i += 1
    text = source[start:i]
    if len(text) > 1 and text[0] == "0" and set(text) <= set("01234567") and \
            not (i < size and source[i] in ".eE"):
        add("NUMBER", float(int(text, 8)))  # gawk reads 010 in a program as octal
        return i
    if i < size and source[i] == ".":
        i += 1
        while i < size and source[i].isdigit():
            i += 1
    if i < size and source[i] in "eE":
        j = i + 1
        if j < size and source[j] in "+-":
            j += 1
        if j < size and source[j].isdigit():
            i = j
            while i < size and source[i].isdigit():
                i += 1
    add("NUMBER", float(source[start:i]))
    return i
