"""The values of the jq language (``jq_lang``): jq's types, order, indexing, arithmetic and
the builtins that take no argument, over Python's json values."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any


class JqError(Exception):
    """A filter that fails on its input (status 5) or cannot be read (status 3)."""

    def __init__(self, message: str, status: int = 5) -> None:
        super().__init__(message)
        self.status = status


def type_name(value: Any) -> str:
    """jq's name of the type of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def order_key(value: Any) -> tuple[int, Any]:
    """jq's order: null < false < true < numbers < strings < arrays < objects."""
    kind = type_name(value)
    if kind == "boolean":
        return (1 + value, 0)
    rank = {"null": 0, "number": 3, "string": 4, "array": 5, "object": 6}[kind]
    if kind == "array":
        return (rank, [order_key(item) for item in value])
    if kind == "object":
        return (rank, sorted((k, order_key(v)) for k, v in value.items()))
    return (rank, value if value is not None else 0)


def index(value: Any, key: Any) -> Any:
    """``value[key]`` as jq indexes (null gives null)."""
    if value is None:
        return None
    if isinstance(key, str) and isinstance(value, dict):
        return value.get(key)
    if isinstance(key, int | float) and not isinstance(key, bool) and isinstance(value, list):
        position = int(key)
        return value[position] if -len(value) <= position < len(value) else None
    raise JqError(f"Cannot index {type_name(value)} with {show_key(key)}")


def show_key(key: Any) -> str:
    """How an error names a key."""
    return f'string "{key}"' if isinstance(key, str) else type_name(key)


def iterate(value: Any) -> list[Any]:
    """The values `.[]` gives."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    raise JqError(f"Cannot iterate over {type_name(value)}" + (
        f" ({dump(value, True)})" if value is not None else ""))


def truthy(value: Any) -> bool:
    """Anything but null and false."""
    return value is not None and value is not False


def arith(op: str, a: Any, b: Any) -> Any:
    """``a op b`` with jq's rules for each type."""
    if op == "+":
        if a is None:
            return b
        if b is None:
            return a
        if isinstance(a, dict) and isinstance(b, dict):
            return {**a, **b}
        if type_name(a) == type_name(b) and type_name(a) in ("number", "string", "array"):
            return a + b
    elif op == "-" and type_name(a) == type_name(b) == "number":
        return a - b
    elif op == "-" and isinstance(a, list) and isinstance(b, list):
        return [item for item in a if item not in b]
    elif op == "*" and type_name(a) == type_name(b) == "number":
        return a * b
    elif op == "/" and type_name(a) == type_name(b) == "number":
        if b == 0:
            raise JqError(f"{dump(a, True)} and {dump(b, True)} cannot be divided because "
                          "the divisor is zero")
        return a / b
    elif op == "/" and isinstance(a, str) and isinstance(b, str):
        return a.split(b)
    elif op == "%" and type_name(a) == type_name(b) == "number":
        if int(b) == 0:
            raise JqError(f"{dump(a, True)} and {dump(b, True)} cannot be divided because "
                          "the divisor is zero")
        return int(math.fmod(int(a), int(b)))
    verb = {"+": "added", "-": "subtracted", "*": "multiplied", "/": "divided",
            "%": "divided"}[op]
    raise JqError(f"{type_name(a)} ({dump(a, True)}) and {type_name(b)} ({dump(b, True)}) "
                  f"cannot be {verb}")


COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: order_key(a) == order_key(b),
    "!=": lambda a, b: order_key(a) != order_key(b),
    "<": lambda a, b: order_key(a) < order_key(b),
    "<=": lambda a, b: order_key(a) <= order_key(b),
    ">": lambda a, b: order_key(a) > order_key(b),
    ">=": lambda a, b: order_key(a) >= order_key(b),
}


def length(value: Any) -> Any:
    """`length`: of a string, array, object; absolute value of a number."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise JqError("boolean (" + dump(value, True) + ") has no length")
    if isinstance(value, int | float):
        return abs(value)
    return len(value)


def keys(value: Any) -> list[Any]:
    """`keys`: sorted object keys, or array indices."""
    if isinstance(value, dict):
        return sorted(value)
    if isinstance(value, list):
        return list(range(len(value)))
    raise JqError(f"{type_name(value)} ({dump(value, True)}) has no keys")


def tostring(value: Any) -> str:
    """A string as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else dump(value, True)


def tonumber(value: Any) -> Any:
    """A number, or the number a string holds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise JqError(f"Cannot parse '{value}' as JSON") from None
    return int(number) if number.is_integer() else number


def add(value: Any) -> Any:
    """`add`: the sum of the values (null for none)."""
    total = None
    for item in iterate(value):
        total = arith("+", total, item)
    return total


# Builtins without arguments: name -> function of the input (one output).
BUILTINS: dict[str, Callable[[Any], Any]] = {
    "length": length, "keys": keys, "keys_unsorted": lambda v: list(v) if isinstance(
        v, dict) else keys(v), "type": type_name, "not": lambda v: not truthy(v),
    "add": add, "sort": lambda v: sorted(iterate(v), key=order_key),
    "unique": lambda v: unique(v),
    "reverse": lambda v: list(reversed(v)) if v is not None else [],
    "to_entries": lambda v: [{"key": k, "value": x} for k, x in v.items()],
    "from_entries": lambda v: {str(e.get("key", e.get("k", e.get("name")))): e.get(
        "value", e.get("v")) for e in v},
    "tostring": tostring, "tonumber": tonumber,
    "first": lambda v: index(v, 0), "last": lambda v: index(v, -1),
    "min": lambda v: min(v, key=order_key) if v else None,
    "max": lambda v: max(v, key=order_key) if v else None,
    "ascii_downcase": lambda v: v.lower(), "ascii_upcase": lambda v: v.upper(),
    "flatten": lambda v: flatten(v), "floor": math.floor, "sqrt": math.sqrt,
    "tojson": lambda v: dump(v, True), "fromjson": lambda v: json.loads(v),
    "any": lambda v: any(truthy(x) for x in v), "all": lambda v: all(truthy(x) for x in v),
}


def unique(value: Any) -> list[Any]:
    """The distinct values, sorted."""
    out: list[Any] = []
    for item in sorted(iterate(value), key=order_key):
        if not out or order_key(out[-1]) != order_key(item):
            out.append(item)
    return out


def flatten(value: list[Any]) -> list[Any]:
    """Nested arrays flattened."""
    out: list[Any] = []
    for item in value:
        out.extend(flatten(item) if isinstance(item, list) else [item])
    return out


def recurse(value: Any) -> list[Any]:
    """`..`: the value and everything inside it."""
    out = [value]
    if isinstance(value, list | dict):
        for item in iterate(value):
            out.extend(recurse(item))
    return out


def dump(value: Any, compact: bool, indent: int = 2) -> str:
    """JSON as jq prints it: integral numbers without `.0`, non-ASCII kept."""
    def clean(item: Any) -> Any:
        if isinstance(item, float) and item.is_integer() and abs(item) < 1e17:
            return int(item)
        if isinstance(item, list):
            return [clean(x) for x in item]
        if isinstance(item, dict):
            return {k: clean(x) for k, x in item.items()}
        return item
    if compact:
        return json.dumps(clean(value), separators=(",", ":"), ensure_ascii=False)
    return json.dumps(clean(value), indent=indent, ensure_ascii=False)




