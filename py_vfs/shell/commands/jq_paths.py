"""jq's paths over values: `getpath`, `setpath`, `delpaths`, slices as path keys
(`{"start": a, "end": b}`), and `indices`."""

from __future__ import annotations

from typing import Any

from .jq_values import JqError, charge, dump, index, order_key, type_name


def _bounds(length: int, start: Any, end: Any) -> tuple[int, int]:
    """A slice's start and end in ``range(length)``, as jq rounds them."""
    def point(at: Any, default: int) -> int:
        if at is None:
            return default
        if type_name(at) != "number":
            raise JqError("Start and end indices of an array slice must be numbers")
        position = int(at // 1) if at >= 0 else -int(-at // 1)
        position = position + length if position < 0 else position
        return min(max(position, 0), length)
    first, last = point(start, 0), point(end, length)
    return first, max(first, last)


def slice_value(value: Any, start: Any, end: Any) -> Any:
    """`value[start:end]` (null gives null)."""
    if value is None:
        return None
    if not isinstance(value, list | str):
        raise JqError(f"Cannot index {type_name(value)} with object")
    first, last = _bounds(len(value), start, end)
    return value[first:last]


def getpath(value: Any, path: list[Any]) -> Any:
    """The value at ``path`` (null where it leads past null)."""
    for key in path:
        if value is None:
            return None
        if isinstance(key, dict):
            value = slice_value(value, key.get("start"), key.get("end"))
        else:
            value = index(value, key)
    return value


def setpath(value: Any, path: list[Any], new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path`` (objects and arrays made as needed)."""
    if not path:
        return new
    key, rest = path[0], path[1:]
    if isinstance(key, str):
        if value is not None and not isinstance(value, dict):
            raise JqError(f"Cannot index {type_name(value)} with \"{key}\"")
        copy = dict(value or {})
        copy[key] = setpath(copy.get(key), rest, new)
        return copy
    if isinstance(key, dict):
        if value is not None and not isinstance(value, list):
            raise JqError(f"Cannot update field at object index of {type_name(value)}")
        items = list(value or [])
        first, last = _bounds(len(items), key.get("start"), key.get("end"))
        inner = setpath(items[first:last], rest, new)
        if not isinstance(inner, list):
            raise JqError("A slice of an array can only be assigned another array")
        return items[:first] + inner + items[last:]
    if type_name(key) != "number":
        raise JqError(f"Cannot index {type_name(value)} with {type_name(key)}")
    if value is not None and not isinstance(value, list):
        raise JqError(f"Cannot index {type_name(value)} with number")
    items = list(value or [])
    position = int(key)
    if position < 0:
        position += len(items)
        if position < 0:
            raise JqError("Out of bounds negative array index")
    if position >= len(items):
        charge(position - len(items) + 1)
        items.extend([None] * (position - len(items) + 1))
    items[position] = setpath(items[position], rest, new)
    return items


def delpaths(value: Any, paths: list[Any]) -> Any:
    """``value`` without what is at each of ``paths`` (longest first, as jq)."""
    if not isinstance(paths, list):
        raise JqError("Paths must be specified as an array")
    for path in sorted(paths, key=order_key, reverse=True):
        if not isinstance(path, list):
            raise JqError("Path must be specified as an array")
        value = _delete(value, path)
    return value


def _delete(value: Any, path: list[Any]) -> Any:
    if not path or value is None:
        return None if not path else value
    key, rest = path[0], path[1:]
    if rest:
        inner = getpath(value, [key])
        if inner is None:
            return value
        return setpath(value, [key], _delete(inner, rest))
    if isinstance(key, str):
        if not isinstance(value, dict):
            raise JqError(f"Cannot delete field at object index of {type_name(value)}")
        return {k: x for k, x in value.items() if k != key}
    if not isinstance(value, list):
        raise JqError(f"Cannot delete field at index of {type_name(value)}")
    if isinstance(key, dict):
        first, last = _bounds(len(value), key.get("start"), key.get("end"))
        return value[:first] + value[last:]
    position = int(key) + (len(value) if key < 0 else 0)
    return [x for i, x in enumerate(value) if i != position]


def indices(value: Any, target: Any) -> Any:
    """Where ``target`` occurs in ``value`` (a string in a string, a subarray or an item in an
    array)."""
    if value is None:
        return None
    if isinstance(value, str) and isinstance(target, str):
        if not target:
            return None
        found, at = [], value.find(target)
        while at >= 0:
            found.append(at)
            at = value.find(target, at + 1)
        return found
    if isinstance(value, list):
        pattern = target if isinstance(target, list) else [target]
        if not pattern:
            return None
        width = len(pattern)
        return [i for i in range(len(value) - width + 1) if value[i:i + width] == pattern]
    raise JqError(f"Cannot determine indices of {type_name(target)} ({dump(target, True)}) "
                  f"in {type_name(value)}")


def has(value: Any, key: Any) -> bool:
    """`has(key)`: whether an object has the key, an array the index."""
    if isinstance(value, dict) and isinstance(key, str):
        return key in value
    if isinstance(value, list) and type_name(key) == "number":
        return 0 <= key < len(value)
    raise JqError(f"Cannot check whether {type_name(value)} has a {type_name(key)} key")


def contains(a: Any, b: Any) -> bool:
    """`contains(b)`: whether ``b`` is inside ``a`` (substrings, subsets, recursively)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(k in a and contains(a[k], x) for k, x in b.items())
    if isinstance(a, list) and isinstance(b, list):
        return all(any(contains(x, y) for x in a) for y in b)
    if isinstance(a, str) and isinstance(b, str):
        return b in a
    if type_name(a) != type_name(b):
        raise JqError(f"{type_name(a)} ({dump(a, True)}) and {type_name(b)} ({dump(b, True)}) "
                      "cannot have their containment checked")
    return bool(a == b)
