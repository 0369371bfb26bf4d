"""jq's builtins: the native ones (``NATIVES`` of ``jq_eval``: those that take filters, loop,
or read input) and ``PRELUDE``, the ones jq 1.6 itself defines in jq, read once into the scope
every filter runs in.

The loops (`range`, `until`, `while`, `repeat`, `recurse`, `limit`) are native, so they do not
nest calls; `limit(0; f)` gives f's first output and a negative limit all of them, as jq 1.6.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from .jq_eval import NATIVES, Closure, Env, Function, JqError, call_closure, paths_of, values
from .jq_input import json_values
from .jq_parse import Parser
from .jq_paths import contains, delpaths, getpath, has, indices, setpath
from .jq_prelude import PRELUDE
from .jq_text import capture_object, implode, matches, split, split_regex, starts, trim
from .jq_values import (
    BUILTINS,
    charge,
    dump,
    iterate,
    joining,
    order_key,
    tostring,
    truthy,
    type_name,
)

Pair = tuple[tuple[Any, ...] | None, Any]
_STOP = object()


class Halt(Exception):
    """`halt` and `halt_error`: the whole run stops with ``status``, printing ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _value_only(path: tuple[Any, ...] | None, value: Any) -> Pair:
    if path is not None:
        raise JqError(f"Invalid path expression with result {dump(value, True)[:10]}")
    return None, value


def _native(name: str) -> Callable[[Callable[..., Iterator[Pair]]], Callable[..., Iterator[Pair]]]:
    def register(function: Callable[..., Iterator[Pair]]) -> Callable[..., Iterator[Pair]]:
        NATIVES[name] = function
        return function
    return register


def _cfunction(name: str, arity: int, function: Callable[..., Any]) -> None:
    """A builtin of values: each combination of its arguments' outputs, first argument
    outermost."""
    def run(env: Env, path: tuple[Any, ...] | None, value: Any,
            args: list[Closure]) -> Iterator[Pair]:
        for combo in _combos(args, value):
            yield _value_only(path, function(value, *combo))
    NATIVES[f"{name}/{arity}"] = run


def _combos(args: list[Closure], value: Any) -> Iterator[tuple[Any, ...]]:
    if not args:
        yield ()
        return
    for first in values(args[0], value):
        for rest in _combos(args[1:], value):
            yield (first, *rest)


def _number(value: Any, function: Callable[[float], Any]) -> Any:
    if type_name(value) != "number":
        raise JqError(f"{type_name(value)} ({dump(value, True)}) number required")
    try:
        return function(value)
    except (ValueError, OverflowError):
        return math.nan


def _string_in(name: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise JqError(f"{name} input must be a string")
        return value
    return check


def _by(kind: str) -> Callable[..., Iterator[Pair]]:
    def run(env: Env, path: tuple[Any, ...] | None, value: Any,
            args: list[Closure]) -> Iterator[Pair]:
        items = iterate(value) if not isinstance(value, dict) or kind != "x" else []
        if not isinstance(value, list):
            raise JqError(f"Cannot index {type_name(value)} with number")
        keyed = sorted(((order_key(list(values(args[0], x))), i, x)
                        for i, x in enumerate(items)), key=lambda t: t[:2])
        if kind == "sort_by":
            out: Any = [x for _, _, x in keyed]
        elif kind in ("min_by", "max_by"):
            out = None if not keyed else keyed[0 if kind == "min_by" else -1][2]
        else:
            groups: list[list[Any]] = []
            last: Any = _STOP
            for key, _, x in keyed:
                if key != last:
                    groups.append([])
                    last = key
                groups[-1].append(x)
            out = groups
        yield _value_only(path, out)
    return run


for _name in ("sort_by", "group_by", "min_by", "max_by"):
    NATIVES[f"{_name}/1"] = _by(_name)


def _tree(start: Any, step: Callable[[Any], Iterator[tuple[bool, Any]]]) -> Iterator[Any]:
    """A recursion without nesting: ``step(x)`` yields (True, output) or (False, next x)."""
    stack = [step(start)]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        emit, found = item
        charge(1)
        if emit:
            yield found
        else:
            stack.append(step(found))


@_native("recurse/1")
def _recurse(env: Env, path: tuple[Any, ...] | None, value: Any,
             args: list[Closure]) -> Iterator[Pair]:
    def step(pair: Pair) -> Iterator[tuple[bool, Any]]:
        yield True, pair
        for child in call_closure(args[0], pair[0], pair[1]):
            yield False, child
    yield from _tree((path, value), step)


@_native("recurse/0")
def _recurse_all(env: Env, path: tuple[Any, ...] | None, value: Any,
                 args: list[Closure]) -> Iterator[Pair]:
    def step(pair: Pair) -> Iterator[tuple[bool, Any]]:
        yield True, pair
        at, item = pair
        if isinstance(item, dict):
            for key, child in item.items():
                yield False, (None if at is None else (*at, key), child)
        elif isinstance(item, list):
            for key, child in enumerate(item):
                yield False, (None if at is None else (*at, key), child)
    yield from _tree((path, value), step)


@_native("until/2")
def _until(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    def step(item: Any) -> Iterator[tuple[bool, Any]]:
        for test in values(args[0], item):
            if truthy(test):
                yield True, item
            else:
                for nxt in values(args[1], item):
                    yield False, nxt
    for out in _tree(value, step):
        yield _value_only(path, out)


@_native("while/2")
def _while(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    def step(item: Any) -> Iterator[tuple[bool, Any]]:
        for test in values(args[0], item):
            if truthy(test):
                yield True, item
                for nxt in values(args[1], item):
                    yield False, nxt
    for out in _tree(value, step):
        yield _value_only(path, out)


@_native("repeat/1")
def _repeat(env: Env, path: tuple[Any, ...] | None, value: Any,
            args: list[Closure]) -> Iterator[Pair]:
    while True:  # jq 1.6: f's outputs on the input, again and again (1.7: ., f, f|f, ...)
        charge(1)
        for out in values(args[0], value):
            yield _value_only(path, out)


def _range(*bounds: Any) -> Iterator[Any]:
    for bound in bounds:
        if type_name(bound) != "number":
            raise JqError("Range bounds must be numeric")
    start, end, by = (0, bounds[0], 1) if len(bounds) == 1 else (
        (*bounds, 1) if len(bounds) == 2 else bounds)
    current = start
    while (by > 0 and current < end) or (by < 0 and current > end) or (by == 0 and
                                                                       current < end):
        charge(1)
        yield current
        current += by


def _range_native(arity: int) -> Callable[..., Iterator[Pair]]:
    def run(env: Env, path: tuple[Any, ...] | None, value: Any,
            args: list[Closure]) -> Iterator[Pair]:
        for combo in _combos(args, value):
            for number in _range(*combo):
                yield _value_only(path, number)
    return run


for _arity in (1, 2, 3):
    NATIVES[f"range/{_arity}"] = _range_native(_arity)


@_native("limit/2")
def _limit(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    for count in values(args[0], value):
        if type_name(count) != "number":
            raise JqError("Invalid limit: it must be a number")
        for number, pair in enumerate(call_closure(args[1], path, value), 1):
            yield pair
            if count >= 0 and number >= count:
                break


@_native("first/1")
def _first(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    for pair in call_closure(args[0], path, value):
        yield pair
        return


@_native("last/1")
def _last(env: Env, path: tuple[Any, ...] | None, value: Any,
          args: list[Closure]) -> Iterator[Pair]:
    found: Any = _STOP
    for found in call_closure(args[0], path, value):  # noqa: B007 (the last one is kept)
        pass
    if found is not _STOP:
        yield found


@_native("isempty/1")
def _isempty(env: Env, path: tuple[Any, ...] | None, value: Any,
             args: list[Closure]) -> Iterator[Pair]:
    yield _value_only(path, next(values(args[0], value), _STOP) is _STOP)


@_native("empty/0")
def _empty(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    return iter(())


@_native("error/0")
def _error(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    raise JqError.raised(value)


@_native("error/1")
def _error_with(env: Env, path: tuple[Any, ...] | None, value: Any,
                args: list[Closure]) -> Iterator[Pair]:
    for message in values(args[0], value):
        raise JqError.raised(message)
    return iter(())


@_native("path/1")
def _path(env: Env, path: tuple[Any, ...] | None, value: Any,
          args: list[Closure]) -> Iterator[Pair]:
    for found, _ in paths_of(args[0].node, args[0].env, value):
        yield _value_only(path, list(found or ()))


@_native("getpath/1")
def _getpath(env: Env, path: tuple[Any, ...] | None, value: Any,
             args: list[Closure]) -> Iterator[Pair]:
    for where in values(args[0], value):
        if not isinstance(where, list):
            raise JqError("Path must be specified as an array")
        try:
            found = getpath(value, where)
        except JqError:
            if path is None:
                raise
            found = None
        yield (None if path is None else (*path, *where)), found


@_native("input/0")
def _input(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    source = env.lookup("*inputs")
    found = next(source, _STOP) if source is not None else _STOP
    if found is _STOP:
        raise JqError("break")  # jq 1.6's words for it (jq 1.7: "No more inputs")
    yield _value_only(path, found)


@_native("inputs/0")
def _inputs(env: Env, path: tuple[Any, ...] | None, value: Any,
            args: list[Closure]) -> Iterator[Pair]:
    for found in env.lookup("*inputs") or ():
        yield _value_only(path, found)


@_native("debug/0")
def _debug(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    env.lookup("*messages").append(dump(["DEBUG:", value], True) + "\n")
    yield path, value


@_native("input_filename/0")
def _input_filename(env: Env, path: tuple[Any, ...] | None, value: Any,
                    args: list[Closure]) -> Iterator[Pair]:
    yield _value_only(path, env.lookup("*filename")[0])


@_native("env/0")
def _env(env: Env, path: tuple[Any, ...] | None, value: Any,
         args: list[Closure]) -> Iterator[Pair]:
    yield _value_only(path, env.lookup("$ENV")[0])


@_native("halt/0")
def _halt(env: Env, path: tuple[Any, ...] | None, value: Any,
          args: list[Closure]) -> Iterator[Pair]:
    raise Halt(0, "")


def _halt_error(value: Any, status: Any) -> Any:
    if type_name(status) != "number":
        raise JqError("halt_error/1: number required")
    message = value if isinstance(value, str) else dump(value, True) + "\n"
    raise Halt(int(status), message)


@_native("sub/3")
def _sub(env: Env, path: tuple[Any, ...] | None, value: Any,
         args: list[Closure]) -> Iterator[Pair]:
    for pattern in values(args[0], value):
        for flags in values(args[2], value):
            out, at = [], 0
            for match in matches(value, pattern, flags):
                out.append(value[at:match["offset"]])
                replacement = next(values(args[1], capture_object(match)), None)
                if not isinstance(replacement, str):
                    raise JqError(f"{type_name(replacement)} ({dump(replacement, True)}) "
                                  "cannot be added to a string")
                out.append(replacement)
                at = match["offset"] + match["length"]
            out.append(value[at:])
            yield _value_only(path, "".join(out))


def _fromjson(value: Any) -> Any:
    text = _string_in("fromjson")(value)
    try:
        found = list(json_values(text))
    except JqError as exc:
        raise JqError(f"{exc} (while parsing '{text}')") from None
    return found[0] if found else None


def _flatten(value: Any, depth: Any = 1e9) -> Any:
    if depth < 0:
        raise JqError("flatten depth must not be negative")
    if not isinstance(value, list):
        raise JqError(f"Cannot iterate over {type_name(value)}")
    out: list[Any] = []
    for item in value:
        if isinstance(item, list) and depth > 0:
            out.extend(_flatten(item, depth - 1))
        else:
            out.append(item)
    charge(len(out))
    return out


def _join(items: Any, separator: Any) -> Any:
    parts = []
    for item in iterate(items):
        if isinstance(item, list | dict):
            raise JqError(f"Cannot join with {type_name(item)}")
        parts.append("" if item is None else tostring(item))
    joining(sum(map(len, parts)) + len(parts))
    return separator.join(parts) if isinstance(separator, str) else parts and None


_VALUE_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "setpath": (2, setpath), "delpaths": (1, delpaths), "has": (1, has),
    "contains": (1, contains), "_indices": (1, indices), "join": (1, _join),
    "split": (1, split), "ltrimstr": (1, trim("l")), "rtrimstr": (1, trim("r")),
    "startswith": (1, starts("startswith")), "endswith": (1, starts("endswith")),
    "flatten": (1, _flatten), "test": (2, lambda v, r, f: bool(matches(v, r, f, True))),
    "split2": (2, split_regex), "pow": (2, lambda v, a, b: _number(a, lambda x: math.pow(
        x, b))), "log": (0, lambda v: _number(v, math.log)),
    "halt_error": (1, _halt_error),
}
for _name, (_arity, _function) in _VALUE_FUNCTIONS.items():
    _cfunction(_name, _arity, _function)
NATIVES["halt_error/0"] = lambda env, path, value, args: iter([_halt_error(value, 5)])


@_native("match/2")
def _match(env: Env, path: tuple[Any, ...] | None, value: Any,
           args: list[Closure]) -> Iterator[Pair]:
    for pattern, flags in _combos(args, value):
        for found in matches(value, pattern, flags):
            yield _value_only(path, found)


_SIMPLE: dict[str, Callable[[Any], Any]] = {
    **BUILTINS,
    "fromjson": _fromjson, "flatten": _flatten, "implode": implode,
    "explode": lambda v: [ord(c) for c in _string_in("explode")(v)],
    "ascii_downcase": lambda v: "".join(
        c.lower() if "A" <= c <= "Z" else c for c in _string_in("explode")(v)),
    "ascii_upcase": lambda v: "".join(
        c.upper() if "a" <= c <= "z" else c for c in _string_in("explode")(v)),
    "utf8bytelength": lambda v: len(v.encode("utf-8", "surrogatepass")) if isinstance(
        v, str) else _raise(f"{type_name(v)} ({dump(v, True)}) only strings have UTF-8 byte "
                            "length"),
    "_capture_object": capture_object, "infinite": lambda v: math.inf,
    "nan": lambda v: math.nan, "isinfinite": lambda v: _number(v, math.isinf),
    "isnan": lambda v: _number(v, math.isnan),
    "isnormal": lambda v: _number(v, lambda x: x != 0 and math.isfinite(x)),
    "floor": lambda v: _number(v, math.floor), "ceil": lambda v: _number(v, math.ceil),
    "round": lambda v: _number(v, lambda x: math.floor(x + 0.5) if x >= 0 else
                               -math.floor(-x + 0.5)),
    "sqrt": lambda v: _number(v, math.sqrt), "fabs": lambda v: _number(v, abs),
    "exp": lambda v: _number(v, math.exp), "exp10": lambda v: _number(v, lambda x: 10.0 ** x),
    "log2": lambda v: _number(v, math.log2), "log10": lambda v: _number(v, math.log10),
    "tojson": lambda v: dump(v, True), "not": lambda v: not truthy(v),
    "builtins": lambda v: sorted(NATIVES) + sorted(PRELUDE_NAMES),
    "input_line_number": lambda v: 0,
}


def _raise(message: str) -> Any:
    raise JqError(message)


for _name, _function in _SIMPLE.items():
    _cfunction(_name, 0, _function)



def _prelude() -> tuple[Env, list[str]]:
    """The scope with PRELUDE's definitions (each sees all of them)."""
    tree = Parser(PRELUDE + " .").parse()
    scope = Env(None)
    names = []
    while tree[0] == "def":
        _, name, params, body, tree = tree
        scope.names[f"{name}/{len(params)}"] = Function(params, body, scope)
        names.append(f"{name}/{len(params)}")
    return scope, names


PRELUDE_ENV, PRELUDE_NAMES = _prelude()
