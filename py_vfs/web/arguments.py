"""The arguments of every protocol call, checked in Python before the call runs.

The page checks its calls as Node does (web/page/validate.mjs), but not every call comes from the
page: a view's port may be posted to a Web Worker that sends raw messages, and the worker adds
arguments of its own. So ``check_call`` checks each argument again, here, against the kind
py_vfs/web/protocol.py declares for it (and each option an operation honours against its option
kind), and refuses what does not fit with ``EINVAL`` naming the argument, before anything runs.
A hostile value (a wrong type, NaN, a NUL in a path, nested junk) is thus a POSIX error with a
message, never a Python exception that would reach the caller as ``EIO``.

It accepts what the page sends after its own checks (an octal mode is already a number, a time
already milliseconds, a string options argument an encoding), and ignores option keys the
worker adds (``digests``, which it checks apart) or that an operation does not read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from ..core.paths import has_lone_surrogate
from ..disk.writers import check_writer
from .open_flags import is_flag
from .protocol import BY_NAME, ENCODINGS, Op

# The operations the worker gives two more arguments (web/worker/worker.mjs, withStreams): the
# functions that post output and read input.
_STREAMED = frozenset({"shell", "runPython"})
# Number arguments and options where Infinity means "no limit" (docs/api.md); every other
# number must be finite.
_UNBOUNDED = frozenset({("grep", "maxResults"), ("grep", "maxFileSize")})
_DIGEST = re.compile(r"[0-9a-f]{64}")


def check_call(op: str, args: list[Any]) -> list[Any]:
    """``args`` of ``op`` when each fits its declared kind; else EINVAL naming the first that
    does not (an unknown ``op`` passes: the caller answers it). ``stepOp``'s own operation is
    checked with its arguments."""
    spec = BY_NAME.get(op)
    if spec is None or spec.home != "python":
        return args
    if op == "stepOp":
        return _step_op(args)
    return _checked(op, spec, args, digests=op == "writeFile")


def _checked(op: str, spec: Op, args: list[Any], *, digests: bool) -> list[Any]:
    declared = spec.args
    extra = 2 if op in _STREAMED else 0
    if len(args) > len(declared) + extra:
        raise _invalid(op, f"it takes at most {len(declared)} arguments, not {len(args)}")
    for value in args[len(declared):]:
        if not _absent(value) and not callable(value):
            raise _invalid(op, "only the worker adds arguments past the declared ones")
    checked = list(args)
    plan = _PLANS.get(op) or _plan(op, spec)
    for position, (what, check, optional, options) in enumerate(plan):
        value = args[position] if position < len(args) else None
        if value is None or _absent(value):
            if optional or options:
                continue
            raise _invalid(op, f"{what} is required")
        check(value, what, op)
        if options and isinstance(value, dict):
            _options(op, value, spec.options, digests)
            # An option set to null is an option not given (its default applies).
            checked[position] = {key: item for key, item in value.items() if not _absent(item)}
    # Trailing optional arguments left out (as the page drops them): Python's defaults apply.
    # (Past the declared ones are the worker's functions, or their nulls: kept.)
    while checked and len(checked) <= len(declared) and _absent(checked[-1]):
        checked.pop()
    return checked


# Per operation, what ``_checked`` does with each declared argument: (its name as a message
# says it, its check, optional, an options object), made once: every call is checked.
Plan = tuple[tuple[str, "Check", bool, bool], ...]
_PLANS: dict[str, Plan] = {}


def _plan(op: str, spec: Op) -> Plan:
    plan = tuple((f"the argument {name!r}", _REFINED.get((op, name), _KINDS[kind]), optional,
                  kind == "options") for name, kind, optional in spec.args)
    _PLANS[op] = plan
    return plan


def _step_op(args: list[Any]) -> list[Any]:
    if len(args) < 2:
        raise _invalid("stepOp", "it takes a step id, an operation and its arguments")
    _number(args[0], "the argument 'step'", "stepOp")
    inner = args[1]
    if not isinstance(inner, str):
        raise _invalid("stepOp", f"the argument 'op' must be a string, not {_kind(inner)}")
    spec = BY_NAME.get(inner)
    if spec is None or spec.home != "python":
        return args  # Steps answers it (EINVAL)
    # No digests in a step: the worker adds them to a plain writeFile only.
    return [*args[:2], *_checked(inner, spec, list(args[2:]), digests=False)]


def _options(op: str, value: dict[str, Any], kinds: dict[str, str], digests: bool) -> None:
    for key, kind in kinds.items():
        option = value.get(key)
        if not _absent(option):
            where = (op, key) if (op, key) in _UNBOUNDED else op
            check = _REFINED.get((op, key), _OPTION_KINDS[kind])
            check(option, f"the option {key!r}", where)
    # The chunks' sha256, which only the worker adds (web/worker/worker.mjs drops a caller's own).
    given = value.get("digests")
    if _absent(given):
        return
    if not digests:
        raise _invalid(op, "the option 'digests' is the worker's own, not a caller's")
    if not isinstance(given, list) or not all(
            isinstance(digest, str) and _DIGEST.fullmatch(digest) for digest in given):
        raise _invalid(op, "the option 'digests' must be a list of sha256 hex digests")


def _absent(value: Any) -> bool:
    """None, or JS's null as Pyodide may hand it (``pyodide.ffi.jsnull``)."""
    return value is None or type(value).__name__ in ("JsNull", "JsUndefined")


def _kind(value: Any) -> str:
    return type(value).__name__


def _invalid(op: Any, message: str) -> FsError:
    return FsError.of("EINVAL", op[0] if isinstance(op, tuple) else op).with_hint(message)


def _path(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, str):
        raise _invalid(op, f"{name} must be a path (a string), not {_kind(value)}")
    if "\0" in value:
        raise _invalid(op, f"{name} must not contain a NUL byte")


def _option_path(value: Any, name: str, op: Any) -> None:
    _path(value, name, op)
    if not value:
        raise _invalid(op, f"{name} must not be empty")


def _content(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, str | bytes | bytearray | memoryview):
        raise _invalid(op, f"{name} must be text or bytes, not {_kind(value)}")
    if isinstance(value, str) and has_lone_surrogate(value):
        raise _invalid(op, f"{name} must be Unicode text (it has a lone surrogate)")


def _object(value: Any, name: str, op: Any) -> None:
    if isinstance(value, str):  # an encoding, as Node's readFile(path, "utf8")
        encoding = BY_NAME[op].options.get("encoding")
        if encoding is None:
            raise _invalid(op, f"the options must be an object, not {_kind(value)}")
        _OPTION_KINDS[encoding](value, "the option 'encoding'", op)
    elif not isinstance(value, dict):
        raise _invalid(op, f"the options must be an object, not {_kind(value)}")


def _number(value: Any, name: str, op: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _invalid(op, f"{name} must be a number, not {_kind(value)}")
    if isinstance(value, float) and (math.isnan(value) or (
            math.isinf(value) and (not isinstance(op, tuple) or value < 0))):
        raise _invalid(op, f"{name} must be a finite number, not {value}")


def _string(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, str):
        raise _invalid(op, f"{name} must be a string, not {_kind(value)}")


def _bool(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, bool):
        raise _invalid(op, f"{name} must be a boolean, not {_kind(value)}")


def _integer(value: Any, name: str, op: Any, low: int, high: int) -> None:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _invalid(op, f"{name} must be an integer from {low} to {high}, not {value!r}")


def _mode(value: Any, name: str, op: Any) -> None:
    _integer(value, name, op, 0, 0xFFFFFFFF)


def _copymode(value: Any, name: str, op: Any) -> None:
    _integer(value, name, op, 0, 7)


def _linktype(value: Any, name: str, op: Any) -> None:
    if value not in ("dir", "file", "junction"):
        raise _invalid(op, f"{name} must be 'dir', 'file' or 'junction', not {value!r}")


def _writer(value: Any, name: str, op: Any) -> None:
    check_writer(value)


def _state(value: Any, name: str, op: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, str | int | dict):
        raise _invalid(op, f"{name} must be a snapshot name, a revision, {{revision}} or "
                           f"{{before}}, not {_kind(value)}")


def _paths(value: Any, name: str, op: Any) -> None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise _invalid(op, f"{name} must be a path or a list of paths, not {_kind(value)}")
    for item in value:
        _option_path(item, name, op)


def _request(value: Any, name: str, op: Any) -> None:
    """A preview request: a path, or ``{path, method, range, ...}`` (py_vfs/hosts/preview.py)."""
    fields = {"path": value} if isinstance(value, str) else value
    if not isinstance(fields, dict):
        raise _invalid(op, f"{name} must be a path or an object, not {_kind(value)}")
    for key, item in fields.items():
        if not _absent(item) and not isinstance(item, str):
            raise _invalid(op, f"{name}'s {key!r} must be a string, not {_kind(item)}")
        if isinstance(item, str) and has_lone_surrogate(item):
            raise _invalid(op, f"{name}'s {key!r} must be Unicode text (a lone surrogate)")
    if not isinstance(fields.get("path"), str):
        raise _invalid(op, f"{name} needs a path")


def _any(value: Any, name: str, op: Any) -> None:
    """Anything: the operation checks it itself."""


def _encoding(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, str) or value.lower() not in ENCODINGS:
        raise _invalid(op, f"{name} must be one of {', '.join(ENCODINGS)}, not {value!r}")


def _utf8(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, str) or value.lower() not in ("utf8", "utf-8"):
        raise _invalid(op, f"{name} must be utf8, not {value!r}")


def _flag(value: Any, name: str, op: Any) -> None:
    if not is_flag(value):
        raise _invalid(op, f"{name} must be a flag of Node's ('r', 'wx', 'a+'...), not {value!r}")


def _when(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, str):
        _number(value, name, op)


def _strings(value: Any, name: str, op: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _invalid(op, f"{name} must be a list of strings")


Check = Callable[[Any, str, Any], None]
_KINDS: dict[str, Check] = {
    "path": _path, "content": _content, "options": _object, "number": _number,
    "string": _string, "bool": _bool, "mode": _mode, "time": _number, "copymode": _copymode,
    "linktype": _linktype, "any": _any, "state": _state, "writer": _writer}
_OPTION_KINDS: dict[str, Check] = {
    **_KINDS, "path": _option_path, "truthy": _any, "encoding": _encoding, "utf8": _utf8,
    "flag": _flag, "false": _any, "when": _when, "strings": _strings}
# Arguments and options the protocol declares as "any" (the page lets them through) whose
# shape Python needs.
_REFINED: dict[tuple[str, str], Check] = {
    ("restrict", "read"): _paths, ("restrict", "write"): _paths, ("preview", "request"): _request}
