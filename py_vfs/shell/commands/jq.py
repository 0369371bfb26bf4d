"""jq: filter JSON with the subset of the jq language in ``jq_lang`` (over Python's json)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..context import Context, describe
from ..format import shown_name
from .gnu import getopts
from .jq_input import json_values
from .jq_lang import compile_filter
from .jq_values import JqError, check_size, dump
from .registry import Usage, command

# jq 1.6's status for input that is not JSON (jq 1.7 exits 2), and the end of the values.
PARSE_ERROR = 4
STOP = object()
BATCH = 64 * 1024  # characters of output written at a time


@command("jq [-r] [-c] [-n] [-s] [-S] FILTER [FILE...]", "filter JSON",
         errors=Usage(2, try_help=True))
async def jq(ctx: Context, args: list[str]) -> int:
    """Run FILTER on each JSON value of the FILEs (none or `-`: standard input) and print the
    results, pretty (two spaces) unless -c; -r prints strings raw, -n runs once on null, -s
    reads all values into one array, -S sorts object keys. The subset of the jq language
    docs/shell.md lists."""
    options, operands = getopts(args, "rcnsSj", ("raw-output", "compact-output", "null-input",
                                                 "slurp", "sort-keys", "join-output"))
    flags = {flag for flag, _ in options}
    raw = bool(flags & {"-r", "--raw-output", "-j", "--join-output"})
    compact = bool(flags & {"-c", "--compact-output"})
    end = "" if flags & {"-j", "--join-output"} else "\n"
    if not operands:
        ctx.stderr.write_nowait("Usage:\tjq [OPTIONS] FILTER [FILES...]\n")
        return 2
    try:
        program = compile_filter(operands[0])
    except JqError as exc:
        ctx.stderr.write_nowait(f"jq: error: {exc}\njq: 1 compile error\n")
        return 3
    text = []
    for name in operands[1:] or ["-"]:
        try:
            source = ctx.stdin if name == "-" else None
            data = await (source.read_all() if source else ctx.vfs.read_file(ctx.resolve(name)))
            text.append(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)
        except OSError as exc:
            ctx.stderr.write_nowait(f"jq: error: Could not open {shown_name(name)}: "
                                    f"{describe(exc)}\n")
            return 2
    values: Iterator[Any] = iter([None]) if flags & {"-n", "--null-input"} \
        else json_values("".join(text))
    if flags & {"-s", "--slurp"} and not flags & {"-n", "--null-input"}:
        try:
            values = iter([list(values)])
        except JqError as exc:
            ctx.stderr.write_nowait(f"parse error: {exc}\n")
            return PARSE_ERROR
    sort_keys = bool(flags & {"-S", "--sort-keys"})
    status = 0
    while True:
        try:  # the values before a parse error are filtered first, as jq streams them
            value = next(values, STOP)
        except JqError as exc:
            ctx.stderr.write_nowait(f"parse error: {exc}\n")
            return PARSE_ERROR
        if value is STOP:
            return status
        try:
            await _print(ctx, program(value), raw, compact, sort_keys, end)
        except JqError as exc:  # a limit (jq_values) included; the values before it printed
            where = "".join(text).count("\n")  # jq names the input line it had read to
            ctx.stderr.write_nowait(f"jq: error (at <stdin>:{where}): {exc}\n")
            status = 5


async def _print(ctx: Context, results: list[Any], raw: bool, compact: bool, sort_keys: bool,
                 end: str) -> None:
    """Write the results of one run, a batch at a time (a pipe's reader paces them)."""
    out: list[str] = []
    size = 0
    for result in results:
        if raw and isinstance(result, str):
            out.append(result + end)
        else:
            if sort_keys:
                result = json.loads(json.dumps(check_size(result), sort_keys=True))
            out.append(dump(result, compact) + end)
        size += len(out[-1])
        if size >= BATCH:
            await ctx.write("".join(out))
            out, size = [], 0
    await ctx.write("".join(out))
