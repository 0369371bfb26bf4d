"""jq's grammar: the tokenizer and the parser that read a filter into a tree of tuples, each
``(kind, ...)``, that ``jq_eval`` runs. Precedence, loosest first, as jq 1.6's: `|`, `,`,
`//`, the assignments (`= |= += -= *= /= %= //=`), `or`, `and`, the comparisons, `+ -`,
`* / %`, then postfix terms (`.a`, `[i]`, `[]`, `?`, `as`); `def`, `reduce`, `foreach`, `if`,
`try`, `label` and string interpolation (`"\\(f)"`, `@base64 "\\(f)"`) as jq reads them.
"""

from __future__ import annotations

import re
from typing import Any

from .jq_shapes import Node, Shapes
from .jq_tokens import tokens

KEYWORDS = {"def", "if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try",
            "catch", "label", "import", "include", "and", "or", "not_kw", "__loc__"}
ASSIGN = ("=", "|=", "+=", "-=", "*=", "/=", "%=", "//=")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


class Parser(Shapes):
    """Recursive descent over the tokens; ``parse`` returns the tree."""

    def __init__(self, text: str) -> None:
        self.tokens = tokens(text, lambda inner: Parser(inner).parse())
        self.at = 0
        self.depth = 0

    def parse(self) -> Node:
        """The whole filter."""
        result = self._pipe()
        if self.at < len(self.tokens):
            raise self._unexpected()
        return result

    def _pipe(self) -> Node:
        """`def`s, `as` bindings, `label`, and `a | b` (loosest)."""
        if self._peek() == "def" and self._kind() == "name":
            definition = self._definition()
            return ("def", *definition, self._pipe())
        if self._peek() == "label" and self._kind() == "name":
            self._take()
            name = self._take()
            if not str(name).startswith("$"):
                raise self._unexpected()
            self._take("|")
            return ("label", name[1:], self._pipe())
        left = self._comma()
        if self._peek() == "as" and self._kind() == "name":
            self._take()
            patterns = [self._pattern()]
            while self._peek() == "?//":
                self._take()
                patterns.append(self._pattern())
            self._take("|")
            return ("as", left, patterns, self._pipe())
        if self._peek() == "|" and self._kind() == "op":
            self._take()
            return ("pipe", left, self._pipe())
        return left

    def _definition(self) -> tuple[str, list[str], Node]:
        """`def name(params): body;` -> (name, params, body)."""
        self._take("def")
        name = self._take()
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise self._unexpected()
        params: list[str] = []
        if self._peek() == "(":
            self._take()
            while True:
                param = self._take()
                if not isinstance(param, str) or not re.fullmatch(r"\$?[A-Za-z_]\w*", param):
                    raise self._unexpected()
                params.append(param)
                if self._peek() != ";":
                    break
                self._take()
            self._take(")")
        self._take(":")
        body = self._pipe()
        self._take(";")
        return name, params, body

    def _comma(self) -> Node:
        left = self._alternative()
        while self._peek() == "," and self._kind() == "op":
            self._take()
            left = ("comma", left, self._alternative())
        return left

    def _alternative(self) -> Node:
        left = self._assignment()
        if self._peek() == "//" and self._kind() == "op":
            self._take()
            return ("alt", left, self._alternative())
        return left

    def _assignment(self) -> Node:
        left = self._or_()
        if self._peek() in ASSIGN and self._kind() == "op":
            op = self._take()
            return ("assign", op, left, self._alternative())
        return left

    def _or_(self) -> Node:
        left = self._and_()
        while self._peek() == "or" and self._kind() == "name":
            self._take()
            left = ("or", left, self._and_())
        return left

    def _and_(self) -> Node:
        left = self._comparison()
        while self._peek() == "and" and self._kind() == "name":
            self._take()
            left = ("and", left, self._comparison())
        return left

    def _comparison(self) -> Node:
        left = self._sum()
        if self._peek() in COMPARISONS and self._kind() == "op":
            op = self._take()
            left = ("binop", op, left, self._sum())
            if self._peek() in COMPARISONS and self._kind() == "op":
                raise self._unexpected()
        return left

    def _sum(self) -> Node:
        left = self._product()
        while self._peek() in ("+", "-") and self._kind() == "op":
            op = self._take()
            left = ("binop", op, left, self._product())
        return left

    def _product(self) -> Node:
        left = self._unary()
        while self._peek() in ("*", "/", "%") and self._kind() == "op":
            op = self._take()
            left = ("binop", op, left, self._unary())
        return left

    def _unary(self) -> Node:
        if self._peek() == "-" and self._kind() == "op":
            self._take()
            return ("neg", self._unary())
        return self._postfix()

    def _postfix(self) -> Node:
        self._nested()
        try:
            term = self._primary()
            while True:
                token, kind = self._peek(), self._kind()
                if kind == "field":
                    self._take()
                    term = ("index", term, ("lit", token[1:]))
                elif token == "." and self._kind(1) == "str":
                    self._take()
                    term = ("index", term, self._string(self._take()))
                elif token == "[" and kind == "op":
                    term = self._bracket(term)
                elif token == "." and self._peek(1) == "[" and self._kind(1) == "op":
                    self._take()
                    term = self._bracket(term)
                elif token == "?" and kind == "op":
                    self._take()
                    term = ("try", term, None)
                else:
                    return term
        finally:
            self.depth -= 1

    def _bracket(self, term: Node) -> Node:
        self._take("[")
        if self._peek() == "]":
            self._take()
            return ("iter", term)
        start = None if self._peek() == ":" else self._pipe()
        if self._peek() == ":":
            self._take()
            end = None if self._peek() == "]" else self._pipe()
            self._take("]")
            return ("slice", term, start, end)
        self._take("]")
        assert start is not None
        return ("index", term, start)

    def _string(self, parts: list[Any], fmt: str | None = None) -> Node:
        if len(parts) == 1 and isinstance(parts[0], str):
            return ("lit", parts[0])
        return ("str", parts, fmt)

    def _primary(self) -> Node:
        token, kind = self._peek(), self._kind()
        if kind == "field":
            return ("id",)  # postfix reads the field
        if kind == "num":
            self._take()
            number = float(token)
            return ("lit", int(number) if number.is_integer() and abs(number) < 2**53
                    and not re.search(r"[.eE]", token) else number)
        if kind == "str":
            return self._string(self._take())
        if kind == "format":
            self._take()
            if self._kind() == "str":
                return ("str", [*self._take()], token[1:])
            return ("format", token[1:])
        if kind == "var":
            self._take()
            return ("var", token[1:])
        if kind == "op":
            if token == ".":
                if self._kind(1) != "str" and not (self._peek(1) == "[" and self._kind(1) == "op"):
                    self._take()
                return ("id",)
            if token == "..":
                self._take()
                return ("call", "recurse", [])
            if token == "(":
                self._take()
                inner = self._pipe()
                self._take(")")
                return inner
            if token == "[":
                self._take()
                if self._peek() == "]":
                    self._take()
                    return ("array", None)
                inner = self._pipe()
                self._take("]")
                return ("array", inner)
            if token == "{":
                return self._object()
            raise self._unexpected()
        if kind == "name":
            return self._word()
        raise self._unexpected()

    def _word(self) -> Node:
        word = self._take()
        if word in ("true", "false", "null"):
            return ("lit", {"true": True, "false": False, "null": None}[word])
        if word == "if":
            return self._conditional()
        if word == "try":
            body = self._postfix_body()
            handler = None
            if self._peek() == "catch":
                self._take()
                handler = self._postfix_body()
            return ("try", body, handler)
        if word in ("reduce", "foreach"):
            source = self._postfix()
            self._take("as")
            pattern = self._pattern()
            self._take("(")
            init = self._pipe()
            self._take(";")
            update = self._pipe()
            extract = None
            if word == "foreach" and self._peek() == ";":
                self._take()
                extract = self._pipe()
            self._take(")")
            if word == "reduce":
                return ("reduce", source, pattern, init, update)
            return ("foreach", source, pattern, init, update, extract)
        if word == "break" and self._kind() == "var":
            return ("break", self._take()[1:])
        if word == "def":
            self.at -= 1
            definition = self._definition()
            return ("def", *definition, self._pipe())
        if word in KEYWORDS:
            self.at -= 1
            raise self._unexpected()
        args: list[Node] = []
        if self._peek() == "(" and self._kind() == "op":
            self._take()
            args.append(self._pipe())
            while self._peek() == ";":
                self._take()
                args.append(self._pipe())
            self._take(")")
        return ("call", word, args)

    def _postfix_body(self) -> Node:
        """What `try` and `catch` apply to: a postfix term (jq binds them tightly)."""
        if self._peek() == "-":
            return self._unary()
        return self._postfix()

    def _conditional(self) -> Node:
        test = self._pipe()
        self._take("then")
        then = self._pipe()
        if self._peek() == "elif":
            self._take()
            return ("if", test, then, self._conditional())
        otherwise: Node = ("id",)
        if self._peek() == "else":
            self._take()
            otherwise = self._pipe()
        self._take("end")
        return ("if", test, then, otherwise)
