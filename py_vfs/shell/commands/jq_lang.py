"""The jq language subset the `jq` command runs: a parser that compiles a filter into a Python
function from an input value to the list of its outputs (no lazy generators).

Filters: `.`, `.a.b`, `.a?`, `."key"`, `.[n]`, `.[n:m]`, `.[]`, `..`, `|`, `,`, literals,
`[...]`, `{a, b: f, "c": g, (f): h}`, `+ - * / %`, comparisons, `and or not`, `//`,
`if then elif else end`, `map select has sort_by group_by join split test startswith endswith
ltrimstr rtrimstr range with_entries min_by max_by unique_by contains`, and the builtins without
arguments in ``BUILTINS``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .jq_values import (
    BUILTINS,
    COMPARE,
    JqError,
    arith,
    charge,
    dump,
    index,
    iterate,
    joining,
    order_key,
    recurse,
    start_run,
    tostring,
    truthy,
    type_name,
)

Filter = Callable[[Any], list[Any]]
_TOKEN = re.compile(r"""\s*(?:(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<str>"(?:[^"\\]|\\.)*")
    |(?P<field>\.[A-Za-z_][A-Za-z0-9_]*)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>\.\.|//|==|!=|<=|>=|\?|[.\[\](){}|,:;+\-*/%<>]))""", re.X)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise JqError(f"syntax error, unexpected INVALID_CHARACTER at {text[at:at + 10]!r}",
                          3)
        kind = match.lastgroup or "op"
        out.append((kind, match[kind]))
        at = match.end()
    return out


def _each(args: list[Filter], value: Any, use: Callable[..., Any]) -> list[Any]:
    """``use`` applied to every combination of the arguments' outputs."""
    combos: list[list[Any]] = [[]]
    for arg in args:
        outputs = arg(value)
        charge(len(combos) * len(outputs))
        combos = [[*c, x] for c in combos for x in outputs]
    return [use(*c) for c in combos]


def _product(op: Callable[[Any, Any], Any], left: Filter, right: Filter, v: Any) -> list[Any]:
    """``op(x, y)`` for each output y of ``right`` and, for each, each output x of ``left``
    (jq's order), counted before it is made."""
    rights = right(v)
    lefts = left(v) if rights else []
    charge(len(lefts) * len(rights))
    return [op(x, y) for y in rights for x in lefts]


def _range(*bounds: Any) -> list[int]:
    numbers = range(*(int(b) for b in bounds))
    charge(len(numbers))
    return list(numbers)


def _join(items: Any, separator: str) -> str:
    parts = [tostring(x) if x is not None else "" for x in items]
    joining(sum(map(len, parts)) + len(separator) * len(parts))
    return separator.join(parts)


def _entries(f: Filter) -> Filter:
    def run(v: Any) -> list[Any]:
        items = [{"key": k, "value": x} for k, x in v.items()] if isinstance(v, dict) else v
        mapped = [y for item in items for y in f(item)]
        return [BUILTINS["from_entries"](mapped)]
    return run


def _by(kind: str, f: Filter) -> Filter:
    def run(v: Any) -> list[Any]:
        items = iterate(v)
        keyed = sorted(((order_key(f(x)), i, x) for i, x in enumerate(items)), key=lambda t: t[:2])
        if kind == "sort_by":
            return [[x for _, _, x in keyed]]
        if kind in ("min_by", "max_by"):
            if not keyed:
                return [None]
            return [keyed[0][2] if kind == "min_by" else keyed[-1][2]]
        groups: list[list[Any]] = []
        last = object()
        for key, _, x in keyed:
            if key != last:
                groups.append([])
                last = key
            groups[-1].append(x)
        return [groups if kind == "group_by" else [g[0] for g in groups]]
    return run


def _contains(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return all(k in a and _contains(a[k], x) for k, x in b.items())
    if isinstance(a, list) and isinstance(b, list):
        return all(any(_contains(x, y) for x in a) for y in b)
    if isinstance(a, str) and isinstance(b, str):
        return b in a
    if type_name(a) != type_name(b):
        raise JqError(f"{type_name(a)} ({dump(a, True)}) and {type_name(b)} ({dump(b, True)}) "
                      "cannot have their containment checked")
    return a == b


def _call(name: str, args: list[Filter]) -> Filter:
    """A builtin with arguments (``name/len(args)``)."""
    if name == "map" and len(args) == 1:
        return lambda v: [[y for x in _listed(iterate(v)) for y in args[0](x)]]
    if name == "select" and len(args) == 1:
        return lambda v: [v for c in args[0](v) if truthy(c)]
    if name in ("sort_by", "group_by", "unique_by", "min_by", "max_by") and len(args) == 1:
        return _by(name, args[0])
    if name == "with_entries" and len(args) == 1:
        return _entries(args[0])
    if name == "range":
        return lambda v: [n for bounds in _each(args, v, lambda *b: b) for n in _range(*bounds)]
    if name == "first" and len(args) == 1:
        return lambda v: args[0](v)[:1]
    if name == "last" and len(args) == 1:
        return lambda v: args[0](v)[-1:]
    if name == "limit" and len(args) == 2:
        return lambda v: [y for n in args[0](v) for y in args[1](v)[:int(n)]]
    if name == "has" and len(args) == 1:
        return lambda v: _each(args, v, lambda k: k in v if isinstance(v, dict)
                               else 0 <= k < len(v))
    single = {
        "join": _join,
        "split": lambda v, s: v.split(s), "test": lambda v, r: re.search(r, v) is not None,
        "startswith": lambda v, s: v.startswith(s), "endswith": lambda v, s: v.endswith(s),
        "ltrimstr": lambda v, s: v[len(s):] if isinstance(v, str) and v.startswith(s) else v,
        "rtrimstr": lambda v, s: v[:-len(s)] if isinstance(v, str) and s and v.endswith(s)
        else v,
        "contains": _contains, "index": lambda v, s: v.find(s) if s in v else None,
    }
    if name in single and len(args) == 1:
        return lambda v: _each(args, v, lambda a: single[name](v, a))
    if not args and name in BUILTINS:
        return lambda v: [BUILTINS[name](v)]
    if not args and name == "empty":
        return lambda v: []
    if not args and name in ("values", "nulls", "numbers", "strings", "arrays", "objects",
                             "booleans", "iterables", "scalars"):
        test = {"values": lambda x: x is not None, "nulls": lambda x: x is None,
                "iterables": lambda x: isinstance(x, list | dict),
                "scalars": lambda x: not isinstance(x, list | dict)}.get(
            name, lambda x: type_name(x) + "s" == name)
        return lambda v: [v] if test(v) else []
    raise JqError(f"{name}/{len(args)} is not defined", 3)


class _Parser:
    """Recursive descent over the tokens; each rule returns a Filter."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def kind(self) -> str:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        if expected is not None and self.peek() != expected:
            found = self.peek() or "end of file"
            raise JqError(f"syntax error, unexpected {found}, expecting {expected!r}", 3)
        token = self.peek()
        self.at += 1
        return token

    def parse(self) -> Filter:
        result = self.pipe()
        if self.at < len(self.tokens):
            raise JqError(f"syntax error, unexpected {self.peek()!r}", 3)
        return result

    def chain(self, ops: tuple[str, ...], operand: Callable[[], Filter],
              combine: Callable[[str, Filter, Filter], Filter]) -> Filter:
        """Operands separated by any of ``ops``, combined from the left."""
        left = operand()
        while self.peek() in ops:
            op = self.take()
            left = combine(op, left, operand())
        return left

    def pipe(self) -> Filter:
        return self.chain(("|",), self.comma,
                          lambda _, a, b: lambda v: [y for x in a(v) for y in b(x)])

    def comma(self) -> Filter:
        return self.chain((",",), self.alternative,
                          lambda _, a, b: lambda v: _listed(a(v) + b(v)))

    def alternative(self) -> Filter:
        left = self.or_()
        if self.peek() == "//":
            self.take()
            right = self.alternative()

            def alt(v: Any, a: Filter = left, b: Filter = right) -> list[Any]:
                try:
                    found = [x for x in a(v) if truthy(x)]
                except JqError:
                    found = []
                return found or b(v)
            return alt
        return left

    def or_(self) -> Filter:
        return self.chain(("or",), self.and_, lambda _, a, b: lambda v: [
            True if truthy(x) else y for x in a(v)
            for y in ([True] if truthy(x) else [truthy(z) for z in b(v)])])

    def and_(self) -> Filter:
        return self.chain(("and",), self.comparison, lambda _, a, b: lambda v: [
            y for x in a(v) for y in ([False] if not truthy(x) else [truthy(z) for z in b(v)])])

    def comparison(self) -> Filter:
        left = self.arith(("+", "-"))
        if self.peek() in COMPARE:
            op = self.take()
            right = self.arith(("+", "-"))
            return lambda v: _product(COMPARE[op], left, right, v)
        return left

    def arith(self, ops: tuple[str, ...]) -> Filter:
        lower = (lambda: self.arith(("*", "/", "%"))) if ops == ("+", "-") else self.postfix
        return self.chain(ops, lower, lambda o, a, b: lambda v: _product(
            lambda x, y: arith(o, x, y), a, b, v))

    def postfix(self) -> Filter:
        term = self.primary()
        while True:
            token, kind = self.peek(), self.kind()
            if kind == "field":
                self.take()
                term = (lambda t, k: lambda v: [index(x, k) for x in t(v)])(term, token[1:])
            elif token == "." and self.at + 1 < len(self.tokens) and \
                    self.tokens[self.at + 1][0] == "str":
                self.take()
                key = json.loads(self.take())
                term = (lambda t, k: lambda v: [index(x, k) for x in t(v)])(term, key)
            elif token == "[" or (token == "." and self.at + 1 < len(self.tokens)
                                  and self.tokens[self.at + 1][1] == "["):
                if token == ".":
                    self.take()
                term = self.bracket(term)
            elif token == "?":
                self.take()
                term = (lambda t: lambda v: _try(t, v))(term)
            else:
                return term

    def bracket(self, term: Filter) -> Filter:
        self.take("[")
        if self.peek() == "]":
            self.take()
            return lambda v: _listed([y for x in term(v) for y in iterate(x)])
        start = None if self.peek() == ":" else self.pipe()
        if self.peek() == ":":
            self.take()
            end = None if self.peek() == "]" else self.pipe()
            self.take("]")

            def cut(v: Any) -> list[Any]:
                lows = start(v) if start else [None]
                highs = end(v) if end else [None]
                values = term(v)
                charge(len(values) * len(lows) * len(highs))
                return [x[None if a is None else int(a):None if b is None else int(b)]
                        if x is not None else None
                        for x in values for a in lows for b in highs]
            return cut
        self.take("]")
        assert start is not None
        return lambda v: [index(x, k) for x in term(v) for k in start(v)]

    def primary(self) -> Filter:
        token, kind = self.peek(), self.kind()
        if kind == "field":
            return lambda v: [v]  # postfix takes the field
        if kind == "num":
            self.take()
            number = float(token) if "." in token or "e" in token.lower() else int(token)
            return lambda v: [number]
        if kind == "str":
            self.take()
            text = json.loads(token)
            return lambda v: [text]
        if token == ".":
            following = self.tokens[self.at + 1] if self.at + 1 < len(self.tokens) else ("", "")
            if following[0] != "str" and following[1] != "[":
                self.take()
            return lambda v: [v]
        if token == "..":
            self.take()
            return _recurse_all
        if token == "-":
            self.take()
            inner = self.postfix()
            return lambda v: [arith("-", 0, x) for x in inner(v)]
        if token == "(":
            self.take()
            inner = self.pipe()
            self.take(")")
            return inner
        if token == "[":
            self.take()
            if self.peek() == "]":
                self.take()
                return lambda v: [[]]
            inner = self.pipe()
            self.take("]")
            return lambda v: [inner(v)]
        if token == "{":
            return self.object()
        if kind == "name":
            return self.name()
        raise JqError(f"syntax error, unexpected {token or 'end of file'!r}", 3)

    def name(self) -> Filter:
        word = self.take()
        if word in ("true", "false", "null"):
            constant = {"true": True, "false": False, "null": None}[word]
            return lambda v: [constant]
        if word == "if":
            return self.conditional()
        args: list[Filter] = []
        if self.peek() == "(":
            self.take()
            args.append(self.pipe())
            while self.peek() == ";":
                self.take()
                args.append(self.pipe())
            self.take(")")
        return _call(word, args)

    def conditional(self) -> Filter:
        test = self.pipe()
        self.take("then")
        then = self.pipe()
        if self.peek() == "elif":
            self.take()
            otherwise = self.conditional()
            return lambda v: [y for c in test(v) for y in (then(v) if truthy(c)
                                                            else otherwise(v))]
        otherwise: Filter = _identity
        if self.peek() == "else":
            self.take()
            otherwise = self.pipe()
        self.take("end")
        return lambda v: [y for c in test(v) for y in (then(v) if truthy(c) else otherwise(v))]

    def object(self) -> Filter:
        self.take("{")
        pairs: list[tuple[Filter, Filter]] = []
        while self.peek() != "}":
            token, kind = self.peek(), self.kind()
            if kind in ("name", "str"):
                self.take()
                key = json.loads(token) if kind == "str" else token
                keyf: Filter = (lambda k: lambda v: [k])(key)
                valuef: Filter = (lambda k: lambda v: [index(v, k)])(key)
            elif token == "(":
                self.take()
                keyf = self.pipe()
                self.take(")")
                valuef = lambda v: [None]  # noqa: E731  (replaced below: `(f): g` needs g)
            else:
                raise JqError(f"syntax error, unexpected {token!r} in object", 3)
            if self.peek() == ":":
                self.take()
                valuef = self.alternative()
            pairs.append((keyf, valuef))
            if self.peek() == ",":
                self.take()
            elif self.peek() != "}":
                raise JqError(f"syntax error, unexpected {self.peek()!r} in object", 3)
        self.take("}")

        def build(v: Any) -> list[Any]:
            results: list[dict[str, Any]] = [{}]
            for keyf, valuef in pairs:
                keys, values = keyf(v), valuef(v)
                charge(len(results) * len(keys) * len(values))
                results = [{**r, _object_key(k): x} for r in results for k in keys
                           for x in values]
            return list(results)
        return build


def _object_key(key: Any) -> str:
    if not isinstance(key, str):
        raise JqError("Object keys must be strings")
    return key


def _identity(value: Any) -> list[Any]:
    return [value]


def _try(term: Filter, value: Any) -> list[Any]:
    try:
        return term(value)
    except JqError:
        return []


def _recurse_all(value: Any) -> list[Any]:
    return _listed(recurse(value))


def _listed(values: list[Any]) -> list[Any]:
    """The outputs of a filter that lists several (``.[]``, ``,``, ``..``), counted."""
    charge(len(values))
    return values


def compile_filter(text: str) -> Filter:
    """The function a jq filter computes (JqError status 3 when it cannot be read); each call
    is one run, held to the limits of ``jq_values`` (``MAX_VALUES``, ``MAX_SIZE``)."""
    program = _Parser(text).parse()

    def run(value: Any) -> list[Any]:
        start_run()
        return program(value)
    return run
