"""The jq language the `jq` command runs: ``compile_filter`` reads a filter (``jq_parse``),
checks that every function and variable it uses is defined (jq's compile errors, status 3),
and returns a ``Program`` that runs it lazily (``jq_eval``) with the builtins of
``jq_builtins``. docs/shell.md lists what is supported."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .jq_builtins import PRELUDE_ENV, PRELUDE_NAMES, Halt
from .jq_eval import NATIVES, Env, reset_depth, run
from .jq_parse import Node, Parser
from .jq_values import JqError, start_run

__all__ = ["Halt", "JqError", "Program", "compile_filter"]
_KINDS = {"id", "pipe", "index", "iter", "slice", "comma", "lit", "var", "call", "if", "alt",
          "try", "label", "break", "def", "as", "reduce", "foreach", "array", "object",
          "neg", "binop", "and", "or", "str", "format", "assign"}


class Program:
    """A compiled filter and the scope it runs in (the variables and inputs of the run)."""

    def __init__(self, tree: Node, env: Env) -> None:
        self.tree, self.env = tree, env

    def __call__(self, value: Any) -> Iterator[Any]:
        """The outputs of one run on ``value``, held to the limits of ``jq_values``."""
        start_run()
        reset_depth()
        return run(self.tree, self.env, value)


def compile_filter(text: str, names: dict[str, Any] | None = None) -> Program:
    """The program of a jq filter; ``names`` are bound in its scope (`$x` -> (value,), and
    the run's `*inputs`, `*filename`, `*messages`). JqError status 3 when it cannot be
    read."""
    tree = Parser(text).parse()
    names = dict(names or {})
    names.setdefault("$ENV", ({},))
    env = Env(PRELUDE_ENV, names)
    known = set(PRELUDE_NAMES) | set(NATIVES)
    _check(tree, known, {n[1:] for n in names if n.startswith("$")} | {"__loc__"}, set())
    return Program(tree, env)


def _check(node: Any, functions: set[str], variables: set[str], labels: set[str]) -> None:
    """jq's compile errors: an undefined function, variable or label."""
    if isinstance(node, list):
        for item in node:
            _check(item, functions, variables, labels)
        return
    if not isinstance(node, tuple) or not node:
        return
    kind = node[0]
    if not isinstance(kind, str) or kind not in _KINDS:
        for item in node:
            _check(item, functions, variables, labels)
        return
    if kind == "call":
        if f"{node[1]}/{len(node[2])}" not in functions:
            raise JqError(f"{node[1]}/{len(node[2])} is not defined", 3)
        _check(node[2], functions, variables, labels)
    elif kind == "var":
        if node[1] not in variables:
            raise JqError(f"${node[1]} is not defined", 3)
    elif kind == "break":
        if node[1] not in labels:
            raise JqError(f"$*label-{node[1]} is not defined", 3)
    elif kind == "label":
        _check(node[2], functions, variables, labels | {node[1]})
    elif kind == "def":
        _, name, params, body, rest = node
        own = functions | {f"{name}/{len(params)}"}
        inner = own | {p.lstrip("$") + "/0" for p in params}
        _check(body, inner, variables | {p[1:] for p in params if p.startswith("$")},
               labels)
        _check(rest, own, variables, labels)
    elif kind == "as":
        _, source, patterns, body = node
        _check(source, functions, variables, labels)
        bound = variables | {n for p in patterns for n in _names(p)}
        _check(patterns, functions, bound, labels)
        _check(body, functions, bound, labels)
    elif kind in ("reduce", "foreach"):
        source, pattern, *rest = node[1:]
        _check(source, functions, variables, labels)
        _check(rest[0], functions, variables, labels)
        bound = variables | set(_names(pattern))
        _check(pattern, functions, bound, labels)
        _check(rest[1:], functions, bound, labels)
    else:
        for item in node[1:]:
            _check(item, functions, variables, labels)


def _names(pattern: Node) -> list[str]:
    """The variables a destructuring pattern binds."""
    if pattern[0] == "pvar":
        return [pattern[1]]
    if pattern[0] == "parray":
        return [n for p in pattern[1] for n in _names(p)]
    return [n for _, p, b in pattern[1] for n in ([b] if b else []) + (
        _names(p) if p is not None else [])]
