"""awk's builtin functions: POSIX's (length substr index split sub gsub match sprintf sin cos
atan2 exp log sqrt int rand srand tolower toupper system close) and gawk's everyday ones
(fflush, gensub, length(array), match's third argument, systime, strftime).

Substitutions find their matches with the linear-time automaton. Groups (gensub's `\\N`,
match's array) are then read by Python's ``re`` on the matched text only, and only when the
pattern has no repeated group that itself repeats or alternates (which could backtrack for
ever); otherwise groups are empty.
"""

from __future__ import annotations

import functools
import math
import random
import re
import time
from typing import TYPE_CHECKING, Any

from ..limits import check_value
from .awk_record import split_text
from .awk_regex import Regex, translate
from .awk_values import (
    UNINIT,
    AwkError,
    StrNum,
    Value,
    format_values,
    is_numeric,
    to_num,
)

if TYPE_CHECKING:
    from .awk_parser import Node

# The evaluator running the program (``awk_interp.Evaluator``, which imports this module).
Interpreter = Any

_RISKY = re.compile(r"\([^()]*[*+?{|][^()]*\)[*+?{]|\)[^()]*\)[*+?{]")
MAX_GROUP_TEXT = 4096
# The C locale's case mapping: ASCII letters only.
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


async def call_builtin(run: Interpreter, name: str, args: list[Node]) -> Value:
    """The value of the builtin ``name`` called with the expressions ``args``."""
    handler = _TABLE.get(name)
    if handler is None:
        raise AwkError(f"fatal: function `{name}' is not defined")
    return await handler(run, args)


async def _strings(run: Interpreter, args: list[Node]) -> list[str]:
    return [run.text(await run.ev(arg)) for arg in args]


async def _numbers(run: Interpreter, args: list[Node], name: str, low: int,
                   high: int) -> list[float]:
    if not low <= len(args) <= high:
        raise AwkError(f"fatal: {name}: called with {len(args)} arguments")
    return [to_num(await run.ev(arg)) for arg in args]


async def _length(run: Interpreter, args: list[Node]) -> Value:
    if not args:
        return float(len(run.record.text))
    arg = args[0]
    if arg[0] in ("var", "local"):
        value = run.globals.get(arg[1], UNINIT) if arg[0] == "var" else run.frames[-1][arg[1]]
        if isinstance(value, dict):
            return float(len(value))
    return float(len(run.text(await run.ev(arg))))


async def _substr(run: Interpreter, args: list[Node]) -> Value:
    if len(args) not in (2, 3):
        raise AwkError("fatal: substr: called with a wrong number of arguments")
    text = run.text(await run.ev(args[0]))
    start = to_num(await run.ev(args[1]))
    length = to_num(await run.ev(args[2])) if len(args) == 3 else math.inf
    if math.isnan(start) or math.isnan(length):
        return ""
    # As gawk: a start below 1 counts from 1 (the length is kept), fractions are cut off.
    first = 1 if start < 1 else _round(start)
    last = math.inf if math.isinf(length) or length > len(text) else first + _round(length)
    last = min(last, len(text) + 1)
    return text[first - 1:int(last) - 1] if last > first else ""


def _round(number: float) -> int:
    if math.isinf(number):
        return -(1 << 62) if number < 0 else 1 << 62
    return math.trunc(number)


async def _index(run: Interpreter, args: list[Node]) -> Value:
    text, target = await _strings(run, args[:2])
    return float(text.find(target) + 1)


async def _split(run: Interpreter, args: list[Node]) -> Value:
    if len(args) not in (2, 3, 4):
        raise AwkError("fatal: split: called with a wrong number of arguments")
    text = run.text(await run.ev(args[0]))
    array = run.array(args[1])
    if len(args) >= 3 and args[2][0] == "regex":
        pieces = split_text(text, args[2][1] if args[2][1] != " " else "[ ]")
    else:
        fs = run.text(await run.ev(args[2])) if len(args) >= 3 else run.text(run.var("FS"))
        pieces = split_text(text, fs)
    run.clear(array)
    for number, piece in enumerate(pieces, 1):
        run.store(array, str(number), StrNum(piece))
    return float(len(pieces))


def _expand(template: str, matched: str, groups: list[str] | None, gensub: bool) -> str:
    """A replacement: `&` the match, `\\&` a literal &; gensub: `\\0`..`\\9` too."""
    out: list[str] = []
    i = 0
    while i < len(template):
        char = template[i]
        if char == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            if gensub and nxt.isdigit():
                number = int(nxt)
                out.append(matched if number == 0 else
                           groups[number - 1] if groups and number <= len(groups) else "")
                i += 2
                continue
            if gensub:
                out.append(nxt if nxt in "&\\" else char + nxt)
                i += 2
                continue
            run_end = i
            while run_end < len(template) and template[run_end] == "\\":
                run_end += 1
            count = run_end - i
            if run_end < len(template) and template[run_end] == "&":
                out.append("\\" * (count // 2))
                out.append("&" if count % 2 else matched)
                i = run_end + 1
            else:
                out.append("\\" * count)
                i = run_end
            continue
        out.append(matched if char == "&" else char)
        i += 1
    return "".join(out)


def _groups(regex: Regex, matched: str) -> list[str] | None:
    """The groups of ``regex`` in the text it matched (None when unsafe to look)."""
    source = translate(regex.source)
    if "(" not in source or len(matched) > MAX_GROUP_TEXT or _RISKY.search(source):
        return None
    try:
        found = re.fullmatch(source, matched, re.DOTALL)
    except re.error:
        return None
    return [group or "" for group in found.groups()] if found else None


def _replace(regex: Regex, text: str, template: str, which: int, gensub: bool) -> tuple[str, int]:
    """``text`` with the ``which``th match (0: every one) replaced; the count replaced."""
    out: list[str] = []
    at = begin = 0
    count = replaced = 0
    previous_end = -1
    needs_groups = gensub and re.search(r"\\[1-9]", template) is not None
    while begin <= len(text):
        found = regex.find(text, begin)
        if found is None:
            break
        start, end = found
        if start == end == previous_end:  # no empty match right after a match
            begin = start + 1
            continue
        count += 1
        if which in (0, count):
            matched = text[start:end]
            groups = _groups(regex, matched) if needs_groups else None
            out.append(text[at:start])
            out.append(_expand(template, matched, groups, gensub))
            at = end
            replaced += 1
            check_value("awk string", sum(map(len, out)))
            if which:
                break
        previous_end = end
        begin = end if end > start else start + 1
    out.append(text[at:])
    return "".join(out), replaced


async def _sub(run: Interpreter, args: list[Node], every: bool) -> Value:
    if len(args) not in (2, 3):
        raise AwkError("fatal: sub/gsub: called with a wrong number of arguments")
    regex = await run.pattern(args[0])
    template = run.text(await run.ev(args[1]))
    target = args[2] if len(args) == 3 else ("field", ("num", 0.0))
    text = run.text(await run.ev(target))
    result, count = _replace(regex, text, template, 0 if every else 1, False)
    if count:
        await run.assign(target, result)
    return float(count)


async def _sub_one(run: Interpreter, args: list[Node]) -> Value:
    return await _sub(run, args, False)


async def _gsub(run: Interpreter, args: list[Node]) -> Value:
    return await _sub(run, args, True)


async def _gensub(run: Interpreter, args: list[Node]) -> Value:
    if len(args) not in (3, 4):
        raise AwkError("fatal: gensub: called with a wrong number of arguments")
    regex = await run.pattern(args[0])
    template = run.text(await run.ev(args[1]))
    how = await run.ev(args[2])
    text = run.text(await run.ev(args[3])) if len(args) == 4 else run.record.text
    how_text = run.text(how)
    which = 0 if how_text[:1] in ("g", "G") else max(1, int(to_num(how)))
    return _replace(regex, text, template, which, True)[0]


async def _match(run: Interpreter, args: list[Node]) -> Value:
    if len(args) not in (2, 3):
        raise AwkError("fatal: match: called with a wrong number of arguments")
    text = run.text(await run.ev(args[0]))
    regex = await run.pattern(args[1])
    found = regex.find(text)
    start, length = (found[0] + 1, found[1] - found[0]) if found else (0, -1)
    run.globals["RSTART"], run.globals["RLENGTH"] = float(start), float(length)
    if len(args) == 3:
        array = run.array(args[2])
        run.clear(array)
        if found:
            matched = text[found[0]:found[1]]
            run.store(array, "0", StrNum(matched))
            for number, group in enumerate(_groups(regex, matched) or [], 1):
                run.store(array, str(number), StrNum(group))
    return float(start)


def _sort_key(value: Value) -> tuple[int, float, str]:
    """gawk's order for asort: numbers (by value) before strings (by code point)."""
    if is_numeric(value):
        return (0, to_num(value), "")
    return (1, 0.0, str(value))


async def _asort(run: Interpreter, args: list[Node], indices: bool) -> Value:
    if len(args) not in (1, 2):
        raise AwkError("fatal: asort/asorti: called with a wrong number of arguments")
    source = run.array(args[0])
    if indices:
        items: list[Value] = sorted(source)
    else:
        if any(isinstance(value, dict) for value in source.values()):
            raise AwkError("fatal: asort: arrays of arrays are not supported")
        items = sorted(source.values(), key=_sort_key)
    target = run.array(args[1]) if len(args) == 2 else source
    run.clear(target)
    for number, item in enumerate(items, 1):
        run.store(target, str(number), StrNum(item) if indices else item)
    return float(len(items))


async def _sprintf(run: Interpreter, args: list[Node]) -> Value:
    if not args:
        raise AwkError("fatal: sprintf: called with no arguments")
    values = [await run.ev(arg) for arg in args]
    text = format_values(run.text(values[0]), values[1:], run.convfmt())
    check_value("awk string", len(text))
    return text


async def _math(run: Interpreter, args: list[Node], name: str) -> Value:
    numbers = await _numbers(run, args, name, 2 if name == "atan2" else 1,
                             2 if name == "atan2" else 1)
    x = numbers[0]
    try:
        if name == "atan2":
            return math.atan2(x, numbers[1])
        if name == "int":
            return float(math.trunc(x)) if math.isfinite(x) else x
        if name == "log":
            return math.log(x) if x > 0 else (-math.inf if x == 0 else -math.nan)
        if name == "sqrt":
            return math.sqrt(x) if x >= 0 else -math.nan
        if name == "exp":
            return math.exp(x)
        return math.sin(x) if name == "sin" else math.cos(x)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


async def _math_named(name: str, run: Interpreter, args: list[Node]) -> Value:
    return await _math(run, args, name)


async def _rand(run: Interpreter, args: list[Node]) -> Value:
    if run.random is None:
        run.random = random.Random(0)
    return run.random.random()


async def _srand(run: Interpreter, args: list[Node]) -> Value:
    previous = run.seed
    run.seed = to_num(await run.ev(args[0])) if args else float(int(time.time()))
    run.random = random.Random(run.seed)
    return previous


async def _case(run: Interpreter, args: list[Node], upper: bool) -> Value:
    (text,) = await _strings(run, args[:1])
    return text.translate(_UPPER if upper else _LOWER)


async def _system(run: Interpreter, args: list[Node]) -> Value:
    (line,) = await _strings(run, args[:1])
    await run.streams.flush()
    return float(await run.run_shell(line))


async def _close(run: Interpreter, args: list[Node]) -> Value:
    (name,) = await _strings(run, args[:1])
    return float(await run.streams.close(name))


async def _fflush(run: Interpreter, args: list[Node]) -> Value:
    await run.streams.flush()
    return 0.0


async def _systime(run: Interpreter, args: list[Node]) -> Value:
    return float(int(time.time()))


async def _strftime(run: Interpreter, args: list[Node]) -> Value:
    values = [await run.ev(arg) for arg in args]
    fmt = run.text(values[0]) if values else "%a %b %e %H:%M:%S %Z %Y"
    stamp = to_num(values[1]) if len(values) > 1 else time.time()
    utc = len(values) > 2 and to_num(values[2]) != 0
    try:
        moment = time.gmtime(stamp) if utc else time.localtime(stamp)
        return time.strftime(fmt, moment)
    except (ValueError, OverflowError):
        return ""


_TABLE: dict[str, Any] = {
    "length": _length, "substr": _substr, "index": _index, "split": _split,
    "sub": _sub_one, "gsub": _gsub, "gensub": _gensub, "match": _match, "sprintf": _sprintf,
    "rand": _rand, "srand": _srand, "system": _system, "close": _close, "fflush": _fflush,
    "systime": _systime, "strftime": _strftime,
    "asort": functools.partial(_asort, indices=False),
    "asorti": functools.partial(_asort, indices=True),
    "tolower": lambda run, args: _case(run, args, False),
    "toupper": lambda run, args: _case(run, args, True),
    **{name: functools.partial(_math_named, name)
       for name in ("sin", "cos", "atan2", "exp", "log", "sqrt", "int")},
}
