"""The token cursor of jq's parser and the shapes it reads: destructuring patterns
(`. as [$a, {b: $c}]`, jq_eval binds them) and object construction (`{a, $x, "k": f, (e): v,
@base64 "\\(.)": v}`). jq_parse.Parser derives from ``Shapes`` and gives the expressions the
shapes hold (``_pipe``, ``_unary``, ``_primary``, ``_string``).
"""

from __future__ import annotations

from typing import Any

from .jq_values import JqError

Node = tuple[Any, ...]
MAX_NESTING = 48  # parentheses, brackets and definitions one inside another (Python frames)


class Shapes:
    """The token cursor (``tokens``, ``at``, ``depth``) and the shapes' grammar."""

    tokens: list[tuple[str, Any]]
    at: int
    depth: int

    def _peek(self, ahead: int = 0) -> Any:
        """The text of the token ``ahead`` of the current one ("" past the end)."""
        at = self.at + ahead
        return self.tokens[at][1] if at < len(self.tokens) else ""

    def _kind(self, ahead: int = 0) -> str:
        """The kind of the token ``ahead`` of the current one."""
        at = self.at + ahead
        return self.tokens[at][0] if at < len(self.tokens) else ""

    def _take(self, expected: str | None = None) -> Any:
        """The current token, checked against ``expected``."""
        if expected is not None and (self._peek() != expected or self._kind() == "str"):
            raise self._unexpected(f", expecting {expected!r}")
        token = self._peek()
        self.at += 1
        return token

    def _unexpected(self, detail: str = "") -> JqError:
        """jq's compile error for the current token."""
        found = self._peek() if self.at < len(self.tokens) else "$end"
        if self._kind() == "str":
            found = "QQSTRING_START"
        return JqError(f"syntax error, unexpected {found}{detail} (Unix shell quoting issues?)",
                       3)

    def _nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise JqError(f"syntax error, nesting deeper than {MAX_NESTING}", 3)

    def _pattern(self) -> Node:
        """A destructuring pattern: `$x`, `[p, ...]`, `{key: p, $x, "k": p, (f): p}`."""
        token, kind = self._peek(), self._kind()
        if kind == "var":
            self._take()
            return ("pvar", token[1:])
        if token == "[":
            self._take()
            items = [self._pattern()]
            while self._peek() == ",":
                self._take()
                items.append(self._pattern())
            self._take("]")
            return ("parray", items)
        if token == "{":
            self._take()
            entries: list[tuple[Node, Node | None, str | None]] = []
            while True:
                token, kind = self._peek(), self._kind()
                bound = None
                if kind == "var":
                    self._take()
                    key: Node = ("lit", token[1:])
                    bound = token[1:]
                elif kind == "name":
                    self._take()
                    key = ("lit", token)
                elif kind == "str":
                    key = self._string(self._take())
                elif token == "(":
                    self._take()
                    key = self._pipe()
                    self._take(")")
                else:
                    raise self._unexpected()
                inner = None
                if self._peek() == ":":
                    self._take()
                    inner = self._pattern()
                elif bound is None:
                    raise self._unexpected()
                entries.append((key, inner, bound))
                if self._peek() != ",":
                    break
                self._take()
            self._take("}")
            return ("pobject", entries)
        raise self._unexpected()

    def _object(self) -> Node:
        self._take("{")
        pairs: list[tuple[Node, Node]] = []
        while self._peek() != "}" or self._kind() == "str":
            token, kind = self._peek(), self._kind()
            if kind == "var":
                self._take()
                key: Node = ("lit", token[1:])
                value: Node = ("var", token[1:])
            elif kind in ("name", "num") or (kind == "format" and self._peek(1) == ":"):
                self._take()
                key = ("lit", token)
                value = ("index", ("id",), key)
            elif kind == "str":
                key = self._string(self._take())
                value = ("index", ("id",), key)
            elif kind == "format":
                key = self._primary()
                value = ("index", ("id",), key)
            elif token == "(":
                self._take()
                key = self._pipe()
                self._take(")")
                value = ("lit", None)
                if self._peek() != ":":
                    raise self._unexpected()
            else:
                raise self._unexpected()
            if self._peek() == ":":
                self._take()
                value = self._object_value()
            pairs.append((key, value))
            if self._peek() == ",":
                self._take()
            elif self._peek() != "}":
                raise self._unexpected()
        self._take("}")
        return ("object", pairs)

    def _object_value(self) -> Node:
        """An object's value: terms joined by `|` (jq's ExpD), no `,`."""
        value = self._unary()
        while self._peek() == "|" and self._kind() == "op":
            self._take()
            value = ("pipe", value, self._unary())
        return value
