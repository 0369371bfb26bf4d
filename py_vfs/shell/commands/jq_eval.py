"""jq's evaluation: runs a tree of ``jq_parse`` lazily, as generators, so `limit`, `first` and
`until` stop what they do not need. Every construct yields ``(path, value)`` pairs: the path is
None when only values are wanted, and a tuple of keys in path mode (`path(f)`, `paths`,
assignments, `del`), where the constructs that are not paths are jq's error.

Bounds: calls nest at most ``MAX_DEPTH`` deep (recursion in a filter is bounded; loops as
`until`, `while`, `repeat`, `range`, `recurse` are native and do not nest), and what a run makes
is counted by ``jq_values.charge``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .jq_paths import delpaths, getpath, indices, setpath, slice_value
from .jq_values import COMPARE, JqError, arith, charge, dump, index, truthy, type_name

Node = tuple[Any, ...]
Pair = tuple[tuple[Any, ...] | None, Any]
MAX_DEPTH = 160  # calls of jq functions one inside another
_depth = [0]


class Break(Exception):
    """`break $label`: unwinds to the `label` that made ``token``."""

    def __init__(self, token: object) -> None:
        super().__init__("break")
        self.token = token


class Env:
    """A scope: names bound here (`$x` variables, `name/arity` functions, `*label` labels),
    then the enclosing scope's."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: Env | None, names: dict[str, Any] | None = None) -> None:
        self.parent, self.names = parent, names if names is not None else {}

    def lookup(self, key: str) -> Any:
        """What ``key`` is bound to here or outside, or None."""
        scope: Env | None = self
        while scope is not None:
            if key in scope.names:
                return scope.names[key]
            scope = scope.parent
        return None

    def bind(self, key: str, value: Any) -> Env:
        """A scope inside this one with ``key`` bound."""
        return Env(self, {key: value})


class Closure:
    """A filter argument: its tree and the scope it was written in."""

    __slots__ = ("env", "node")

    def __init__(self, node: Node, env: Env) -> None:
        self.node, self.env = node, env


class Function:
    """A `def`: its parameters, body, and the scope it sees (itself included)."""

    __slots__ = ("body", "env", "params")

    def __init__(self, params: list[str], body: Node, env: Env) -> None:
        self.params, self.body, self.env = params, body, env


# name/arity -> native builtin: f(env, path, value, args: list[Closure]) -> Iterator[Pair];
# filled by jq_builtins (which imports this module).
NATIVES: dict[str, Callable[..., Iterator[Pair]]] = {}


def run(node: Node, env: Env, value: Any) -> Iterator[Any]:
    """The outputs of ``node`` on ``value``."""
    for _, out in gen(node, env, None, value):
        yield out


def paths_of(node: Node, env: Env, value: Any) -> Iterator[Pair]:
    """(path, value) for each output of ``node`` in path mode."""
    return gen(node, env, (), value)


def _not_path(value: Any) -> JqError:
    return JqError(f"Invalid path expression with result {_short(value)}")


def _short(value: Any) -> str:
    text = dump(value, True)
    return text if len(text) < 11 else text[:10] + "..."


def call_closure(closure: Closure, path: tuple[Any, ...] | None, value: Any) -> Iterator[Pair]:
    """Run a filter argument."""
    return gen(closure.node, closure.env, path, value)


def values(closure: Closure, value: Any) -> Iterator[Any]:
    """The outputs of a filter argument on ``value``."""
    for _, out in gen(closure.node, closure.env, None, value):
        yield out


def gen(node: Node, env: Env, path: tuple[Any, ...] | None,
        value: Any) -> Iterator[Pair]:
    """The outputs of ``node`` on ``value`` as (path, value) pairs (path None: value mode)."""
    kind = node[0]
    if kind == "id":
        yield path, value
    elif kind == "pipe":
        for mid_path, mid in gen(node[1], env, path, value):
            yield from gen(node[2], env, mid_path, mid)
    elif kind == "index":
        for base_path, base in gen(node[1], env, path, value):
            for key in run(node[2], env, value):
                out = getpath(base, [key]) if path is not None and base is None else \
                    _index(base, key)
                yield (None if base_path is None else (*base_path, key)), out
    elif kind == "iter":
        for base_path, base in gen(node[1], env, path, value):
            if isinstance(base, dict):
                items = list(base.items())
            elif isinstance(base, list):
                items = list(enumerate(base))
            else:
                raise JqError(f"Cannot iterate over {type_name(base)}" + (
                    f" ({_short(base)})" if base is not None else ""))
            charge(len(items))
            for key, item in items:
                yield (None if base_path is None else (*base_path, key)), item
    elif kind == "slice":
        for base_path, base in gen(node[1], env, path, value):
            for end in ([None] if node[3] is None else list(run(node[3], env, value))):
                for start in ([None] if node[2] is None else list(run(node[2], env, value))):
                    key = {"start": start, "end": end}
                    yield (None if base_path is None else (*base_path, key)), \
                        slice_value(base, start, end)
    elif kind == "comma":
        yield from gen(node[1], env, path, value)
        yield from gen(node[2], env, path, value)
    elif kind == "lit":
        if path is not None:
            raise _not_path(node[1])
        yield None, node[1]
    elif kind == "var":
        if path is not None:
            raise _not_path(variable(env, node[1]))
        yield None, variable(env, node[1])
    elif kind == "call":
        yield from _call(node, env, path, value)
    elif kind == "if":
        for test in run(node[1], env, value):
            yield from gen(node[2] if truthy(test) else node[3], env, path, value)
    elif kind == "alt":
        found = False
        try:
            for pair in gen(node[1], env, path, value):
                if truthy(pair[1]):
                    found = True
                    yield pair
        except JqError:
            pass
        if not found:
            yield from gen(node[2], env, path, value)
    elif kind == "try":
        try:
            yield from gen(node[1], env, path, value)
        except JqError as exc:
            if node[2] is not None:
                yield from gen(node[2], env, None, exc.value)
    elif kind == "label":
        token = object()
        try:
            yield from gen(node[2], env.bind("*" + node[1], token), path, value)
        except Break as exc:
            if exc.token is not token:
                raise
    elif kind == "break":
        token = env.lookup("*" + node[1])
        if token is None:
            raise JqError("$*label-" + node[1] + " is not defined", 3)
        raise Break(token)
    elif kind == "def":
        scope = Env(env)
        scope.names[f"{node[1]}/{len(node[2])}"] = Function(node[2], node[3], scope)
        yield from gen(node[4], scope, path, value)
    elif kind == "as":
        yield from _bind(node, env, path, value)
    elif kind == "reduce":
        _, source, pattern, init, update = node
        for state in run(init, env, value):
            for item in run(source, env, value):
                for scope in destructure(pattern, env, item):
                    last = None
                    for last in run(update, scope, state):  # noqa: B007 (the last one is kept)
                        pass
                    state = last
            if path is not None:
                raise _not_path(state)
            yield None, state
    elif kind == "foreach":
        _, source, pattern, init, update, extract = node
        for state in run(init, env, value):
            for item in run(source, env, value):
                for scope in destructure(pattern, env, item):
                    for state in list(run(update, scope, state)):  # noqa: B020
                        if extract is None:
                            yield _value_only(path, state)
                        else:
                            for out in run(extract, scope, state):
                                yield _value_only(path, out)
    else:
        if path is not None:
            raise JqError("Invalid path expression")
        yield from ((None, out) for out in _values(node, env, value))


def _value_only(path: tuple[Any, ...] | None, value: Any) -> Pair:
    if path is not None:
        raise _not_path(value)
    return None, value


def _index(base: Any, key: Any) -> Any:
    if isinstance(key, dict) and isinstance(base, list | str | type(None)):
        return slice_value(base, key.get("start"), key.get("end"))
    if isinstance(key, list) and isinstance(base, list):
        return indices(base, key)
    return index(base, key)


def variable(env: Env, name: str) -> Any:
    """The value of `$name`."""
    if name == "__loc__":
        return {"file": "<top-level>", "line": 1}
    found = env.lookup("$" + name)
    if found is None:
        raise JqError(f"${name} is not defined", 3)
    return found[0]


def _values(node: Node, env: Env, value: Any) -> Iterator[Any]:
    """The constructs that only make values."""
    kind = node[0]
    if kind == "array":
        items = [] if node[1] is None else list(run(node[1], env, value))
        charge(len(items))
        yield items
    elif kind == "object":
        results: list[dict[str, Any]] = [{}]
        for key_node, value_node in node[1]:
            keys = list(run(key_node, env, value))
            outs = list(run(value_node, env, value))
            charge(len(results) * len(keys) * len(outs))
            for key in keys:
                if not isinstance(key, str):
                    raise JqError("Object keys must be strings" if key is None else
                                  f"Cannot use {type_name(key)} ({_short(key)}) as object key")
            results = [{**r, k: x} for r in results for k in keys for x in outs]
        yield from results
    elif kind == "neg":
        for out in run(node[1], env, value):
            if type_name(out) != "number":
                raise JqError(f"{type_name(out)} ({_short(out)}) cannot be negated")
            yield -out
    elif kind == "binop":
        op = node[1]
        for right in run(node[3], env, value):
            for left in run(node[2], env, value):
                charge(1)
                yield COMPARE[op](left, right) if op in COMPARE else arith(op, left, right)
    elif kind == "and":
        for left in run(node[1], env, value):
            if not truthy(left):
                yield False
                continue
            for right in run(node[2], env, value):
                yield truthy(right)
    elif kind == "or":
        for left in run(node[1], env, value):
            if truthy(left):
                yield True
                continue
            for right in run(node[2], env, value):
                yield truthy(right)
    elif kind == "str":
        from .jq_text import apply_format
        parts, fmt = node[1], node[2]
        yield from _interpolate(parts, env, value, fmt or "text", apply_format)
    elif kind == "format":
        from .jq_text import apply_format
        yield apply_format(node[1], value)
    elif kind == "assign":
        yield from _assign(node, env, value)
    else:
        raise JqError(f"unknown construct {kind}", 3)


def _interpolate(parts: list[Any], env: Env, value: Any, fmt: str,
                 apply: Callable[[str, Any], str]) -> Iterator[str]:
    """The strings of `"a\\(f)b"`: the last interpolation varies slowest, as in jq."""
    if not parts:
        yield ""
        return
    *head, last = parts
    if isinstance(last, str):
        for start in _interpolate(head, env, value, fmt, apply):
            yield start + last
        return
    for out in run(last, env, value):
        text = out if fmt == "text" and isinstance(out, str) else apply(fmt, out)
        for start in _interpolate(head, env, value, fmt, apply):
            yield start + text


def _assign(node: Node, env: Env, value: Any) -> Iterator[Any]:
    _, op, lhs, rhs = node
    if op == "|=":
        yield modify(value, lhs, env, lambda x: next(run(rhs, env, x), _DELETE))
        return
    for new in run(rhs, env, value):
        if op == "=":
            result = value
            for found, _ in paths_of(lhs, env, value):
                result = setpath(result, list(found), new)
            yield result
        elif op == "//=":
            yield modify(value, lhs, env, lambda x, n=new: x if truthy(x) else n)
        else:
            yield modify(value, lhs, env, lambda x, n=new: arith(op[:-1], x, n))


_DELETE = object()


def modify(value: Any, lhs: Node, env: Env, update: Callable[[Any], Any]) -> Any:
    """`lhs |= update`: each path's value replaced (deleted when update gives nothing)."""
    result = value
    doomed = []
    for found, _ in list(paths_of(lhs, env, value)):
        new = update(getpath(result, list(found)))
        if new is _DELETE:
            doomed.append(list(found))
        else:
            result = setpath(result, list(found), new)
    return delpaths(result, doomed) if doomed else result


def destructure(pattern: Node, env: Env, value: Any) -> Iterator[Env]:
    """The scopes a pattern binds for ``value`` (several when a key expression has several
    outputs)."""
    kind = pattern[0]
    if kind == "pvar":
        yield env.bind("$" + pattern[1], (value,))
    elif kind == "parray":
        if value is not None and not isinstance(value, list):
            raise JqError(f"Cannot index {type_name(value)} with number")
        yield from _each_pattern([(("lit", i), p, None) for i, p in enumerate(pattern[1])],
                                 env, env, value)
    else:
        yield from _each_pattern(pattern[1], env, env, value)


def _each_pattern(entries: list[tuple[Node, Node | None, str | None]], env: Env, outer: Env,
                  value: Any) -> Iterator[Env]:
    if not entries:
        yield env
        return
    (key_node, inner, bound), rest = entries[0], entries[1:]
    for key in run(key_node, env, value):
        if isinstance(value, dict | type(None)) and not isinstance(key, str):
            raise JqError(f"Cannot index {type_name(value)} with {type_name(key)}")
        item = index(value, key)
        scope = env.bind("$" + bound, (item,)) if bound else env
        scopes = destructure(inner, scope, item) if inner is not None else iter([scope])
        for inner_scope in scopes:
            yield from _each_pattern(rest, inner_scope, outer, value)


def _pattern_names(pattern: Node) -> list[str]:
    kind = pattern[0]
    if kind == "pvar":
        return [pattern[1]]
    if kind == "parray":
        return [n for p in pattern[1] for n in _pattern_names(p)]
    return [n for _, p, b in pattern[1] for n in ([b] if b else []) + (
        _pattern_names(p) if p is not None else [])]


def _bind(node: Node, env: Env, path: tuple[Any, ...] | None, value: Any) -> Iterator[Pair]:
    _, source, patterns, body = node
    for item in run(source, env, value):
        if len(patterns) == 1:
            for scope in destructure(patterns[0], env, item):
                yield from gen(body, scope, path, value)
            continue
        names = {n for p in patterns for n in _pattern_names(p)}
        base = Env(env, {"$" + n: (None,) for n in names})
        for number, pattern in enumerate(patterns):
            try:
                for scope in destructure(pattern, base, item):
                    yield from gen(body, scope, path, value)
                break
            except JqError:
                if number == len(patterns) - 1:
                    raise


def _call(node: Node, env: Env, path: tuple[Any, ...] | None, value: Any) -> Iterator[Pair]:
    _, name, args = node
    key = f"{name}/{len(args)}"
    target = env.lookup(key)
    if isinstance(target, Closure):
        yield from gen(target.node, target.env, path, value)
        return
    if target is None:
        native = NATIVES.get(key)
        if native is None:
            raise JqError(f"{key} is not defined", 3)
        yield from native(env, path, value, [Closure(arg, env) for arg in args])
        return
    _depth[0] += 1
    try:
        if _depth[0] > MAX_DEPTH:
            raise JqError(f"limit exceeded (calls nested more than {MAX_DEPTH} deep)")
        yield from _enter(target, args, env, path, value)
    finally:
        _depth[0] -= 1


def _enter(function: Function, args: list[Node], env: Env, path: tuple[Any, ...] | None,
           value: Any) -> Iterator[Pair]:
    scopes = [Env(function.env)]
    for param, arg in zip(function.params, args, strict=True):
        if not param.startswith("$"):
            for scope in scopes:
                scope.names[param + "/0"] = Closure(arg, env)
            continue
        widened = []
        for out in run(arg, env, value):
            for scope in scopes:
                names = dict(scope.names)
                names["$" + param[1:]] = (out,)
                names[param[1:] + "/0"] = Closure(("lit", out), env)
                widened.append(Env(function.env, names))
        scopes = widened
    for scope in scopes:
        yield from gen(function.body, scope, path, value)


def depth() -> int:
    """How deep the calls of the run going on are nested."""
    return _depth[0]


def set_depth(value: int) -> None:
    """Put back the depth saved by ``depth`` (after an await, when another jq may have run)."""
    _depth[0] = value


def reset_depth() -> None:
    """A run starts: no call open (a run stopped by an error may leave the count up)."""
    _depth[0] = 0
