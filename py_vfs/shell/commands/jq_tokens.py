"""jq's tokens: the tokenizer of ``jq_parse`` (numbers, strings with their interpolations,
fields, variables, formats, names, operators; `#` comments)."""

from __future__ import annotations

import json
import re
from typing import Any

from .jq_values import JqError

_TOKEN = re.compile(r"""(?P<num>\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)
    |(?P<field>\.[A-Za-z_][A-Za-z0-9_]*)|(?P<var>\$(?:__loc__|[A-Za-z_][A-Za-z0-9_]*))
    |(?P<format>@[A-Za-z0-9_]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<op>\?//|\.\.|//=|\|=|\+=|-=|\*=|/=|%=|//|==|!=|<=|>=|[.\[\](){}|,:;+\-*/%<>=?])""",
                    re.X)


def _string(text: str, at: int,
            parse_inner: Any = None) -> tuple[list[Any], int]:
    """The string literal at ``text[at] == '"'``: its parts (text, or a parsed
    interpolation), and the index after it."""
    parts: list[Any] = []
    chunk: list[str] = []
    i = at + 1
    while True:
        if i >= len(text):
            raise JqError("syntax error, unexpected end of file in a string", 3)
        char = text[i]
        if char == '"':
            if chunk or not parts:
                parts.append("".join(chunk))
            return parts, i + 1
        if char != "\\":
            chunk.append(char)
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt == "(":
            end = _closing(text, i + 2)
            if chunk:
                parts.append("".join(chunk))
                chunk = []
            parts.append(parse_inner(text[i + 2:end]))
            i = end + 1
        elif nxt == "u":
            code = text[i + 2:i + 6]
            if not re.fullmatch(r"[0-9A-Fa-f]{4}", code):
                raise JqError("syntax error, invalid \\u escape in a string", 3)
            chunk.append(chr(int(code, 16)))
            i += 6
        elif nxt and nxt in '"\\/bfnrt':
            chunk.append(json.loads(f'"\\{nxt}"'))
            i += 2
        else:
            raise JqError(f"syntax error, invalid escape \\{nxt} in a string", 3)
    # not reached


def _closing(text: str, at: int) -> int:
    """The index of the `)` that closes an interpolation starting at ``at``."""
    depth, i = 1, at
    while i < len(text):
        char = text[i]
        if char == '"':
            _, i = _string(text, i, lambda inner: None)
            continue
        if char == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i
        i += 1
    raise JqError("syntax error, unterminated \\( in a string", 3)


def tokens(text: str, parse_inner: Any) -> list[tuple[str, Any]]:
    """The tokens of a filter: (kind, text) with kind num, str (parts: text, or what
    ``parse_inner`` makes of an interpolation), field, var, format, name, op."""
    out: list[tuple[str, Any]] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char in " \t\r\n":
            at += 1
            continue
        if char == "#":
            while at < len(text) and text[at] != "\n":
                at += 1
            continue
        if char == '"':
            parts, at = _string(text, at, parse_inner)
            out.append(("str", parts))
            continue
        match = _TOKEN.match(text, at)
        if match is None:
            raise JqError(f"syntax error, unexpected INVALID_CHARACTER at {text[at:at + 10]!r}",
                          3)
        kind = match.lastgroup or "op"
        out.append((kind, match[kind]))
        at = match.end()
    return out
