"""jq's input: the stream of JSON values a FILE holds, and jq's words when it is not JSON.

Python's decoder reads the values; where it fails, ``parse_error`` replays jq's own tokenizer
(jv_parse.c) from the start of that value to say what jq says there (`Invalid literal at line
1, column 4`): the same message and position, counted as jq counts them (the line and column
after the character that showed the error; at the end of the text, `... at EOF at ...`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .jq_values import JqError

BLANKS = " \t\r\n"
LITERALS = {"t": "true", "f": "false", "n": "null"}


def json_values(text: str) -> Iterator[Any]:
    """Every JSON value in ``text``, one after another; ``JqError`` (status 2) with jq's
    message where the text stops being JSON, after the values before it."""
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at] in BLANKS:
            at += 1
        if at >= len(text):
            return
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            message = parse_error(text, at) or (
                f"{exc.msg} at line {exc.lineno}, column {exc.colno}")
            raise JqError(message, 2) from None
        yield value


class _Scan:
    """jv_parse.c's state: the open arrays and objects, and whether a value is pending."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # "[", "{", or "key" (an object's key read, before ':')
        self.filled: list[bool] = []  # whether each open array or object holds something
        self.pending = False  # a value read and not yet placed (jq's p->next)

    def value(self) -> str | None:
        if self.pending:
            return "Expected separator between values"
        self.pending = True
        return None

    def literal(self, token: str) -> str | None:
        pattern = LITERALS.get(token[0])
        if pattern is not None:
            return "Invalid literal" if token != pattern else self.value()
        try:
            float(token)
        except ValueError:
            return "Invalid numeric literal"
        return self.value()

    def token(self, char: str) -> str | None:
        top = self.stack[-1] if self.stack else None
        if char in "[{":
            if self.pending:
                return "Expected separator between values"
            self.stack.append(char)
            self.filled.append(False)
        elif char == ":":
            if top != "{":
                return "':' not as part of an object"
            if not self.pending:
                return "Expected string key before ':'"
            self.stack.append("key")
            self.pending = False
        elif char == ",":
            if not self.pending:
                return "Expected value before ','"
            if top is None:
                return "',' not as part of an object or array"
            if top == "{":
                return "Objects must consist of key:value pairs"
            self._place(top)
        elif char == "]":
            if top != "[":
                return "Unmatched ']'"
            if self.pending:
                self._place(top)
            elif self.filled[-1]:
                return "Expected another array element"
            self._close()
        else:  # "}"
            if top is None:
                return "Unmatched '}'"
            if self.pending:
                if top != "key":
                    return "Objects must consist of key:value pairs"
                self._place(top)
            elif top != "{":
                return "Unmatched '}'"
            elif self.filled[-1]:
                return "Expected another key-value pair"
            self._close()
        return None

    def _place(self, top: str) -> None:
        if top == "key":
            self.stack.pop()
        self.filled[-1] = True
        self.pending = False

    def _close(self) -> None:
        self.stack.pop()
        self.filled.pop()
        self.pending = True

    def done(self) -> None:
        """A whole value at the top level goes out (jq's check_done)."""
        if not self.stack:
            self.pending = False


def parse_error(text: str, start: int) -> str | None:
    """What jq says about the text from ``start`` (where a value begins) on, or None when
    its tokenizer finds nothing wrong (jq takes numbers Python's JSON refuses, as `01`)."""
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1)
    scan = _Scan()
    token = ""
    in_string = escaped = False
    for char in text[start:]:
        line, column = (line + 1, 0) if char == "\n" else (line, column + 1)
        problem = None
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                problem = scan.value()
        else:
            if token and (char in BLANKS or char in '[{:,]}"'):
                problem, token = scan.literal(token), ""
                scan.done()
            if problem is None and char == '"':
                in_string = True
            elif problem is None and char in "[{:,]}":
                problem = scan.token(char)
            elif char not in BLANKS:
                token += char
        if problem is not None:
            return f"{problem} at line {line}, column {column}"
        scan.done()
    problem = "Unfinished string" if in_string else scan.literal(token) if token else None
    if problem is None and scan.stack:
        problem = "Unfinished JSON term"
    return None if problem is None else f"{problem} at EOF at line {line}, column {column}"
