"""join: the lines of two sorted files that share a join field, as GNU join pairs them.

The walk is GNU's: a run of lines with the same key in each file makes every pair; a line
whose key is in one file only is unpaired (printed with -a or -v); a line out of order is
reported once per file when some line was unpaired (or always with --check-order), and the
status is then 1. Lines are read one at a time; a run of equal keys is held whole.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field

from ...core import cancel
from ..context import Context
from ..format import quote_arg
from ..pipes import READ_ALL_LIMIT, Input
from .gnu import getopts
from .merges import open_all
from .registry import GNU, UsageError, command

MAX_RUN = 1 << 20  # lines of one run of equal keys held at once (a product of two runs)
CHECK_EVERY = 4096


@dataclass
class _Line:
    text: bytes
    fields: list[bytes]


@dataclass
class _Spec:
    """What the command line asked."""
    fields: tuple[int, int] = (0, 0)  # the join field of each file, from 0
    separator: bytes | None = None  # -t, or None: runs of blanks
    unpaired: set[int] = field(default_factory=set)  # -a / -v files
    pairs: bool = True  # False with -v
    empty: bytes | None = None  # -e
    outlist: list[tuple[int, int]] | None = None  # -o: (file 0 join field | 1 | 2, field)
    auto: bool = False  # -o auto
    fold: bool = False  # -i
    check: str = "default"  # "default", "on", "off"
    counts: tuple[int, int] = (0, 0)  # -o auto: fields of each file's first line


class _Disorder(Exception):
    """--check-order met a line out of order."""


class _File:
    """One input, read a line at a time, with GNU's order check."""

    def __init__(self, source: Input, name: str, which: int, spec: _Spec) -> None:
        self.source, self.name, self.which, self.spec = source, name, which, spec
        self.previous: _Line | None = None
        self.number = 0
        self.warned = False

    def key(self, line: _Line) -> bytes:
        index = self.spec.fields[self.which - 1]
        value = line.fields[index] if index < len(line.fields) else b""
        return value.lower() if self.spec.fold else value

    async def get(self, ctx: Context, seen_unpaired: bool) -> _Line | None:
        raw = await self.source.readline()
        if not raw:
            return None
        self.number += 1
        body = raw[:-1] if raw.endswith(b"\n") else raw
        sep = self.spec.separator
        line = _Line(body, body.split(sep) if sep is not None and body else body.split())
        check = self.spec.check == "on" or (self.spec.check == "default" and seen_unpaired)
        if check and not self.warned and self.previous is not None \
                and self.key(self.previous) > self.key(line):
            shown = body.decode("utf-8", "replace")
            ctx.err(f"{self.name}:{self.number}: is not sorted: {shown}")
            self.warned = True
            if self.spec.check == "on":
                raise _Disorder
        self.previous = line
        return line


def _field_number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"invalid field number: {quote_arg(text)}", try_line=False)
    return int(text) - 1


def _outlist(text: str) -> list[tuple[int, int]]:
    out = []
    for item in text.replace(",", " ").split():
        if item == "0":
            out.append((0, 0))
            continue
        file, dot, number = item.partition(".")
        if not dot:
            raise UsageError(f"invalid field specifier: {quote_arg(item)}", try_line=False)
        if file not in ("1", "2"):
            raise UsageError(f"invalid file number in field spec: {quote_arg(item)}",
                             try_line=False)
        out.append((int(file), _field_number(number)))
    return out


def _spec(options: list[tuple[str, str]]) -> _Spec:
    spec = _Spec()
    first, second = 0, 0
    for flag, value in options:
        if flag == "-1":
            first = _field_number(value)
        elif flag == "-2":
            second = _field_number(value)
        elif flag == "-j":
            first = second = _field_number(value)
        elif flag == "-t":
            data = value.encode("utf-8", "surrogateescape")
            if len(data) > 1 and value != "\\0":
                raise UsageError(f"multi-character tab {quote_arg(value)}", try_line=False)
            spec.separator = b"\0" if value == "\\0" else data or b"\n"
        elif flag in ("-a", "-v"):
            if value not in ("1", "2"):
                raise UsageError(f"invalid file number: {quote_arg(value)}", try_line=False)
            spec.unpaired.add(int(value))
            spec.pairs = spec.pairs and flag == "-a"
        elif flag == "-e":
            spec.empty = value.encode("utf-8", "surrogateescape")
        elif flag == "-o":
            if value == "auto":
                spec.auto = True
            else:
                spec.outlist = (spec.outlist or []) + _outlist(value)
        elif flag in ("-i", "--ignore-case"):
            spec.fold = True
        elif flag == "--check-order":
            spec.check = "on"
        elif flag == "--nocheck-order":
            spec.check = "off"
    spec.fields = (first, second)
    return spec


def _render(spec: _Spec, one: _Line | None, two: _Line | None) -> bytes:
    """One output line for a pair, or for an unpaired line (the other None)."""
    sep = spec.separator if spec.separator is not None else b" "
    lines = (one, two)

    def pick(line: _Line | None, index: int) -> list[bytes]:
        if line is not None and index < len(line.fields) and line.fields[index]:
            return [line.fields[index]]
        return [spec.empty] if spec.empty is not None else [b""]

    parts: list[bytes] = []
    if spec.outlist is not None:
        for file, index in spec.outlist:
            if file == 0:
                which = 0 if one is not None else 1
                parts += pick(lines[which], spec.fields[which])
            else:
                parts += pick(lines[file - 1], index)
        return sep.join(parts)
    which = 0 if one is not None else 1
    parts += pick(lines[which], spec.fields[which])
    for position, line in enumerate(lines):
        count = spec.counts[position] if spec.auto else (len(line.fields) if line else 0)
        for index in range(count):
            if index != spec.fields[position]:
                parts += pick(line, index)
    return sep.join(parts)


async def _walk(ctx: Context, files: tuple[_File, _File], spec: _Spec) -> None:
    """GNU join's merge of the two files, printing as it goes."""
    seen = [False]
    one, two = files

    async def emit(a: _Line | None, b: _Line | None) -> None:
        await ctx.write(_render(spec, a, b) + b"\n")

    run1 = [line] if (line := await one.get(ctx, False)) else []
    run2 = [line] if (line := await two.get(ctx, False)) else []
    if spec.auto:
        spec.counts = (len(run1[0].fields) if run1 else 0, len(run2[0].fields) if run2 else 0)
    steps = 0
    while run1 and run2:
        steps += 1
        if steps % CHECK_EVERY == 0:
            await cancel.checkpoint("join", steps, steps, "lines")
        key1, key2 = one.key(run1[0]), two.key(run2[0])
        if key1 != key2:
            file, run, which = (one, run1, 1) if key1 < key2 else (two, run2, 2)
            if which in spec.unpaired:
                await emit(run[0] if which == 1 else None, run[0] if which == 2 else None)
            nxt = await file.get(ctx, seen[0])
            run[:] = [nxt] if nxt else []
            seen[0] = True
            continue
        ended = [False, False]
        held = [0, 0]
        for position, (file, run, other) in enumerate(((one, run1, run2[0]),
                                                       (two, run2, run1[0]))):
            other_key = (two if position == 0 else one).key(other)
            while True:
                nxt = await file.get(ctx, seen[0])
                if nxt is None:
                    ended[position] = True
                    break
                run.append(nxt)
                held[position] += len(nxt.text)
                if file.key(nxt) != other_key:
                    break
                if len(run) > MAX_RUN or held[position] > READ_ALL_LIMIT:
                    raise OSError(errno.EFBIG, f"over {MAX_RUN} lines or {READ_ALL_LIMIT} "
                                  "bytes with one key")
        body1 = run1 if ended[0] else run1[:-1]
        body2 = run2 if ended[1] else run2[:-1]
        if spec.pairs:
            for a in body1:
                for b in body2:
                    await emit(a, b)
                    steps += 1
                    if steps % CHECK_EVERY == 0:
                        await cancel.checkpoint("join", steps, steps, "lines")
        run1[:] = [] if ended[0] else run1[-1:]
        run2[:] = [] if ended[1] else run2[-1:]
    for position, (file, run) in enumerate(((one, run1), (two, run2))):
        which = position + 1
        wanted = which in spec.unpaired
        if not run or not (wanted or (spec.check != "off" and not (one.warned and two.warned))):
            continue
        if wanted:
            await emit(run[0] if which == 1 else None, run[0] if which == 2 else None)
        while (nxt := await file.get(ctx, seen[0])) is not None:
            if wanted:
                await emit(nxt if which == 1 else None, nxt if which == 2 else None)
            elif file.warned:
                break


@command("join [OPTION]... FILE1 FILE2",
         "join the lines of two sorted files on a common field", errors=GNU)
async def join(ctx: Context, args: list[str]) -> int:
    """For each pair of lines of FILE1 and FILE2 (`-`: standard input) with the same join
    field (the first; -1 F, -2 F or -j F choose it), print the join field, then the other
    fields of the FILE1 line, then those of the FILE2 line, separated by a space (-t C:
    fields are separated by C, and so is the output; otherwise by runs of blanks). -a N also
    prints the unpaired lines of file N, -v N only them; -o LIST prints the fields LIST names
    (`1.2,2.1`, `0` the join field, `auto` as many as each file's first line has); -e S
    fills missing ones; -i compares keys ignoring case. The files must be sorted on the join
    field (byte order): as GNU, a line out of order is reported (`FILE:N: is not sorted:
    LINE`) once a line was unpaired, and the status is then 1."""
    options, operands = getopts(args, "1:2:a:e:ij:o:t:v:", (
        "ignore-case", "check-order", "nocheck-order"))
    spec = _spec(options)
    if len(operands) < 2:
        after = f"after {quote_arg(operands[0])}" if operands else ""
        raise UsageError(f"missing operand {after}".strip())
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}")
    if operands == ["-", "-"]:
        ctx.err("both files cannot be standard input")
        return 1
    inputs = open_all(ctx, operands)
    if inputs is None:
        return 1
    files = (_File(inputs[0], operands[0], 1, spec), _File(inputs[1], operands[1], 2, spec))
    try:
        await _walk(ctx, files, spec)
    except _Disorder:
        return 1
    if (files[0].warned or files[1].warned) and spec.check == "default":
        ctx.err("input is not in sorted order")
        return 1
    return 0
