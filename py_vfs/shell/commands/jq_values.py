"""The values of the jq language (``jq_lang``): jq's types, order, indexing, arithmetic and
the builtins that take no argument, over Python's json values.

What a filter makes is bounded (docs/shell.md, "Limits"): one run of the filter on one input
makes at most ``MAX_VALUES`` values (``charge``, counted where values are made or listed) and
joins at most ``MAX_SIZE`` elements and characters into strings and arrays (``+``, ``add``,
``join``), and a value written out (printed, ``tojson``, compared, ``..``, ``flatten``) holds at
most ``MAX_SIZE`` elements and characters, its shared parts counted every time they appear
(``check_size``): `[range(1e8)]` or a string doubled forty times is a jq error (status 5),
not gigabytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

MAX_VALUES = 10_000_000  # values one run of a filter on one input makes
MAX_SIZE = 256 << 20  # elements and characters of one value written out (256 MiB of JSON)
MAX_EXACT = 1 << 53  # past it an integer is a float, as jq's numbers are doubles
# Values made, and elements and characters joined, by the run going on (a run never awaits).
_made = [0, 0]


_UNSET = object()


class JqError(Exception):
    """A filter that fails on its input (status 5) or cannot be read (status 3)."""

    shown = True  # whether jq prints it (error(null) is silent in jq 1.6)
    not_string = False  # error(VALUE) with a VALUE that is not a string

    def __init__(self, message: str, status: int = 5, value: Any = _UNSET) -> None:
        super().__init__(message)
        self.status = status
        self.value = message if value is _UNSET else value

    @classmethod
    def raised(cls, value: Any) -> JqError:
        """`error(value)`: the message jq prints, and the value `catch` gets."""
        if isinstance(value, str):
            return cls(value, 5, value)
        error = cls(dump(value, True), 5, value)
        error.shown, error.not_string = value is not None, True
        return error


def start_run() -> None:
    """A filter starts on an input: nothing made yet."""
    _made[:] = [0, 0]


def run_state() -> list[int]:
    """What the run going on has made so far (to put back with ``resume_run`` after an await,
    when another jq may have run)."""
    return list(_made)


def resume_run(state: list[int]) -> None:
    """Back to a run's counts saved by ``run_state``."""
    _made[:] = state


def charge(count: int) -> None:
    """``count`` more values made (or listed); past ``MAX_VALUES`` in this run, a JqError."""
    _made[0] += count
    if _made[0] > MAX_VALUES:
        raise JqError(f"limit exceeded (a filter making more than {MAX_VALUES} values)")


def check_size(value: Any) -> Any:
    """``value``, after checking that written out it holds at most ``MAX_SIZE`` elements and
    characters (a part shared by several places counts at each); linear in the distinct
    parts."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, ready = stack.pop()
        if not isinstance(item, list | dict) or (not ready and id(item) in sizes):
            continue
        children = list(item.values()) if isinstance(item, dict) else item
        if not ready:
            stack.append((item, True))
            stack.extend((child, False) for child in children
                         if isinstance(child, list | dict) and id(child) not in sizes)
            continue
        size = 1 + sum(sizes[id(child)] if isinstance(child, list | dict) else _scalar(child)
                       for child in children)
        if isinstance(item, dict):
            size += sum(len(key) + 1 for key in item)
        if size > MAX_SIZE:
            raise JqError(f"limit exceeded (a value of more than {MAX_SIZE} elements and "
                          "characters)")
        sizes[id(item)] = size
    if _scalar(value) > MAX_SIZE:
        raise JqError(f"limit exceeded (a value of more than {MAX_SIZE} elements and "
                      "characters)")
    return value


def _scalar(value: Any) -> int:
    return len(value) + 1 if isinstance(value, str) else 1


def joining(size: int) -> None:
    """Strings or arrays of ``size`` elements and characters are about to be joined: past
    ``MAX_SIZE`` in this run, a JqError before it is done."""
    _made[1] += size
    if _made[1] > MAX_SIZE:
        raise JqError(f"limit exceeded (a filter joining more than {MAX_SIZE} elements and "
                      "characters)")


def _sized(parts: Iterable[Any]) -> None:
    joining(sum(len(part) for part in parts))


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
    return _order_key(check_size(value))


def _order_key(value: Any) -> tuple[int, Any]:
    kind = type_name(value)
    if kind == "boolean":
        return (1 + value, 0)
    rank = {"null": 0, "number": 3, "string": 4, "array": 5, "object": 6}[kind]
    if kind == "array":
        return (rank, [_order_key(item) for item in value])
    if kind == "object":
        return (rank, sorted((k, _order_key(v)) for k, v in value.items()))
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
        if type_name(a) == type_name(b) == "number":
            return _number(a + b)
        if type_name(a) == type_name(b) and type_name(a) in ("string", "array"):
            _sized((a, b))
            return a + b
    elif op == "-" and type_name(a) == type_name(b) == "number":
        return _number(a - b)
    elif op == "-" and isinstance(a, list) and isinstance(b, list):
        return [item for item in a if item not in b]
    elif op == "*" and type_name(a) == type_name(b) == "number":
        return _number(a * b)
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


def _number(value: Any) -> Any:
    """An integer past ``MAX_EXACT`` as a float (infinite past the largest), so that repeated
    products cannot grow a number without end."""
    if isinstance(value, int) and abs(value) > MAX_EXACT:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def add(value: Any) -> Any:
    """`add`: the sum of the values (null for none); strings and arrays are joined once, not
    copied at every step."""
    items = [item for item in iterate(value) if item is not None]
    if items and all(isinstance(item, str) for item in items):
        _sized(items)
        return "".join(items)
    if items and all(isinstance(item, list) for item in items):
        _sized(items)
        return [element for item in items for element in item]
    if items and all(isinstance(item, dict) for item in items):
        merged: dict[str, Any] = {}
        for item in items:
            merged.update(item)
        return merged
    total = None
    for item in items:
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
    return _flatten(check_size(value))


def _flatten(value: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in value:
        out.extend(_flatten(item) if isinstance(item, list) else [item])
    return out


def recurse(value: Any) -> list[Any]:
    """`..`: the value and everything inside it."""
    return _recurse(check_size(value))


def _recurse(value: Any) -> list[Any]:
    out = [value]
    if isinstance(value, list | dict):
        for item in iterate(value):
            out.extend(_recurse(item))
    return out


def dump(value: Any, compact: bool, indent: int = 2) -> str:
    """JSON as jq prints it: integral numbers without `.0`, non-ASCII kept."""
    check_size(value)

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




