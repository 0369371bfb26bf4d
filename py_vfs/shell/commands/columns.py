"""Commands that reorder or reshape lines: sort, uniq, cut, tr. All work on bytes in the C
locale: sort compares bytes, tr's classes are ASCII."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ...core.errors import FsError
from .. import pipes
from ..context import Context
from ..format import quote_arg
from ..pipes import Input
from .gnu import each_input, getopts, named
from .registry import GNU, Usage, UsageError, command

_BLANKS = b" \t"
_NUMBER = re.compile(rb"[ \t]*(-?)([0-9]*)(?:\.([0-9]*))?")


@dataclass
class _Key:
    """One -k KEYDEF: fields (1-based) and characters, and its ordering options."""

    start_field: int
    start_char: int = 1
    end_field: int = 0  # 0: to the end of the line
    end_char: int = 0  # 0: to the end of the field
    options: str = ""


def _parse_key(text: str) -> _Key:
    match = re.fullmatch(r"([0-9]+)(?:\.([0-9]+))?([bfnr]*)(?:,([0-9]+)(?:\.([0-9]+))?([bfnr]*))?",
                         text)
    if match is not None and int(match[1]) == 0:
        raise UsageError(f"field number is zero: invalid field specification {quote_arg(text)}",
                      2, try_line=False)
    if match is None:
        raise UsageError(f"invalid field specification {quote_arg(text)}", 2)
    return _Key(int(match[1]), int(match[2] or 1), int(match[4] or 0), int(match[5] or 0),
                (match[3] or "") + (match[6] or ""))


def _fields(line: bytes, separator: bytes | None) -> list[tuple[int, int]]:
    """The (start, end) of each field; without a separator a field is its leading blanks and
    the non-blanks after them, as GNU sort splits."""
    if separator is not None:
        spans, start = [], 0
        while (at := line.find(separator, start)) >= 0:
            spans.append((start, at))
            start = at + len(separator)
        spans.append((start, len(line)))
        return spans
    return [match.span() for match in re.finditer(rb"[ \t]*[^ \t]+|[ \t]+$", line)]


def _key_text(line: bytes, key: _Key, separator: bytes | None) -> bytes:
    spans = _fields(line, separator)
    if key.start_field > len(spans):
        return b""
    start, end = spans[key.start_field - 1]
    begin = start
    if "b" in key.options:
        while begin < end and line[begin] in _BLANKS:
            begin += 1
    begin += key.start_char - 1
    if key.end_field == 0 or key.end_field > len(spans):
        finish = len(line)
    else:
        field_start, field_end = spans[key.end_field - 1]
        finish = field_end if key.end_char == 0 else min(field_start + key.end_char, field_end)
    return line[begin:max(begin, finish)]


def _numeric(text: bytes) -> tuple[int, ...] | float:
    match = _NUMBER.match(text)
    integer = (match[2] or b"0").lstrip(b"0") if match else b""
    fraction = (match[3] or b"").rstrip(b"0") if match else b""
    value = float(b"0" + integer + b"." + (fraction or b"0"))
    return -value if match and match[1] and value else value


def _compare(a: bytes, b: bytes, options: str) -> int:
    if "b" in options:
        a, b = a.lstrip(_BLANKS), b.lstrip(_BLANKS)
    if "n" in options:
        x, y = _numeric(a), _numeric(b)
    elif "f" in options:
        x, y = a.upper(), b.upper()
    else:
        x, y = a, b
    result = (x > y) - (x < y)
    return -result if "r" in options else result


@command("sort [OPTION]... [FILE...]",
         "sort lines (bytes, the C locale)", errors=Usage(2, try_help=True))
async def sort(ctx: Context, args: list[str]) -> int:
    """Write the lines of all FILEs (none or `-`: standard input) sorted, comparing bytes (the
    C locale). -n numeric, -r reverse, -f fold case, -b ignore leading blanks, -u one line of
    each run of equal keys, -t SEP field separator (default: blanks start a field), -k
    F[.C][OPTS][,F[.C][OPTS]] sort on fields F (several -k: in order); lines whose keys are
    equal are compared as whole lines unless -s or -u (GNU's last resort)."""
    options, operands = getopts(args, "nrufbst:k:o:", (
        "numeric-sort", "reverse", "unique", "ignore-case", "ignore-leading-blanks", "stable",
        "field-separator=", "key=", "output="))
    flags, keys, separator, output = "", [], None, None
    longs = {"--numeric-sort": "n", "--reverse": "r", "--unique": "u", "--ignore-case": "f",
             "--ignore-leading-blanks": "b", "--stable": "s"}
    for flag, value in options:
        if flag in ("-t", "--field-separator"):
            if len(value.encode()) != 1:
                raise UsageError(f"multi-character tab {quote_arg(value)}", 2)
            separator = value.encode()
        elif flag in ("-k", "--key"):
            keys.append(_parse_key(value))
        elif flag in ("-o", "--output"):
            output = value
        else:
            flags += longs.get(flag, flag[1:])
    global_options = "".join(c for c in flags if c in "nrfb")
    keys = [_Key(k.start_field, k.start_char, k.end_field, k.end_char, k.options or
                 global_options) for k in keys] or [_Key(1, options=global_options)]
    whole = not [o for o in options if o[0] in ("-k", "--key")]
    lines: list[bytes] = []
    held = [0]

    async def collect(name: str, source: Input) -> None:
        async for line in source.lines():
            held[0] += len(line) + 64  # about what a line costs beyond its bytes
            if held[0] > pipes.READ_ALL_LIMIT:  # `yes | sort` held memory without end
                raise FsError.of("EFBIG", "read").with_hint(
                    f"input held in memory stops at {pipes.READ_ALL_LIMIT} bytes")
            lines.append(line.rstrip(b"\n"))

    status = await each_input(ctx, operands, collect, "cannot read: {name}")
    if status:
        return 2

    def order(a: bytes, b: bytes) -> int:
        for key in keys:
            x = a if whole else _key_text(a, key, separator)
            y = b if whole else _key_text(b, key, separator)
            result = _compare(x, y, key.options)
            if result:
                return result
        if "s" in flags or "u" in flags:
            return 0
        result = (a > b) - (a < b)
        return -result if "r" in flags else result

    lines.sort(key=functools.cmp_to_key(order))
    if "u" in flags:
        unique: list[bytes] = []
        for line in lines:
            if not unique or order(unique[-1], line) != 0:
                unique.append(line)
        lines = unique
    text = b"".join(line + b"\n" for line in lines)
    if output is not None:
        await ctx.vfs.write_file(ctx.resolve(output), text)
    else:
        await ctx.write(text)
    return 0


@command("uniq [-c] [-d] [-u] [-i] [INPUT]", "drop repeated adjacent lines", errors=GNU)
async def uniq(ctx: Context, args: list[str]) -> int:
    """Write INPUT (none or `-`: standard input) with each run of equal adjacent lines written
    once; -c prefix each with its count, -d only lines that repeat, -u only lines that do not,
    -i ignore case."""
    options, operands = getopts(args, "cdui", ("count", "repeated", "unique", "ignore-case"))
    names = {"--count": "c", "--repeated": "d", "--unique": "u", "--ignore-case": "i"}
    flags = {names.get(flag, flag[1:]) for flag, _ in options}
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    return await each_input(ctx, operands, lambda _, source: _uniq(ctx, source, flags))


async def _uniq(ctx: Context, source: Input, flags: set[str]) -> None:
    async def emit(line: bytes, count: int) -> None:
        if ("d" in flags and count < 2) or ("u" in flags and count > 1):
            return
        prefix = f"{count:>7} ".encode() if "c" in flags else b""
        await ctx.write(prefix + line + b"\n")

    current: bytes | None = None
    count = 0
    async for raw in source.lines():
        line = raw.rstrip(b"\n")
        same = current is not None and (line.lower() == current.lower() if "i" in flags
                                        else line == current)
        if same:
            count += 1
            continue
        if current is not None:
            await emit(current, count)
        current, count = line, 1
    if current is not None:
        await emit(current, count)


def _ranges(text: str) -> list[tuple[int, int]]:
    """cut's LIST: N, N-, N-M, -M, comma separated; 1-based and inclusive."""
    spans = []
    for part in text.split(","):
        match = re.fullmatch(r"([0-9]*)(-?)([0-9]*)", part)
        if match is None or part in ("", "-") or (match[1] and int(match[1]) == 0):
            raise UsageError("fields and positions are numbered from 1" if part.startswith("0")
                          else "invalid byte, character or field list")
        low = int(match[1]) if match[1] else 1
        high = (int(match[3]) if match[3] else 1 << 62) if match[2] else low
        if high < low:
            raise UsageError("invalid decreasing range")
        spans.append((low, high))
    return spans


@command("cut OPTION... [FILE...]",
         "print selected bytes or fields of each line", errors=GNU)
async def cut(ctx: Context, args: list[str]) -> int:
    """Print, of each line of the FILEs (none or `-`: standard input), the bytes (-b, and -c:
    bytes too, as GNU cut) or fields (-f, separated by DELIM, default TAB) in LIST (N, N-M, N-,
    -M, comma separated, in the line's order). A line without DELIM is printed whole unless -s;
    --output-delimiter STRING joins the fields printed; --complement selects the others."""
    options, operands = getopts(args, "b:c:f:d:sn", (
        "bytes=", "characters=", "fields=", "delimiter=", "only-delimited",
        "output-delimiter=", "complement"))
    given, values = named(options, {"-b": "bytes", "-c": "bytes", "--characters": "bytes",
                                    "-f": "fields", "-d": "delimiter", "-s": "only-delimited"})
    mode, spans, delimiter = None, [], b"\t"
    for name, value in given:  # the lists and delimiters checked in the order typed
        if name in ("bytes", "fields"):
            if mode is not None:
                raise UsageError("only one type of list may be specified")
            mode, spans = name[0], _ranges(value)
        elif name == "delimiter":
            if len(value.encode()) != 1:
                raise UsageError("the delimiter must be a single character")
            delimiter = value.encode()
    only, complement = "only-delimited" in values, "complement" in values
    joiner = values["output-delimiter"].encode() if "output-delimiter" in values else None
    if mode is None:
        raise UsageError("you must specify a list of bytes, characters, or fields")

    def chosen(index: int) -> bool:
        inside = any(low <= index <= high for low, high in spans)
        return inside != complement

    async def show(name: str, source: Input) -> None:
        async for raw in source.lines():
            line = raw.rstrip(b"\n")
            if mode == "b":
                picked = bytes(b for i, b in enumerate(line, 1) if chosen(i))
                out = picked
            elif delimiter not in line:
                if only:
                    continue
                out = line
            else:
                parts = line.split(delimiter)
                out = (delimiter if joiner is None else joiner).join(
                    part for i, part in enumerate(parts, 1) if chosen(i))
            await ctx.write(out + b"\n")

    return await each_input(ctx, operands, show)
