"""jq: filter JSON with the subset of the jq language in ``jq_lang`` (over Python's json)."""

from __future__ import annotations

import json
from typing import Any

from py_vfs.shell.commands.gnu import getopts
from py_vfs.shell.commands.jq_lang import compile_filter
from py_vfs.shell.commands.jq_values import JqError, dump
from py_vfs.shell.commands.registry import Usage, command
from py_vfs.shell.context import Context, describe


def _values(text: str) -> list[Any]:
    """Every JSON value in ``text`` (jq reads a stream of them)."""
    decoder = json.JSONDecoder()
    values, at = [], 0
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return values
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise JqError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}", 2) from None
        values.append(value)


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
            ctx.stderr.write_nowait(f"jq: error: Could not open {name}: {describe(exc)}\n")
            return 2
    try:
        values = [None] if flags & {"-n", "--null-input"} else _values("".join(text))
    except JqError as exc:
        ctx.stderr.write_nowait(f"parse error: {exc}\n")
        return 2
    if flags & {"-s", "--slurp"} and not flags & {"-n", "--null-input"}:
        values = [values]
    sort_keys = bool(flags & {"-S", "--sort-keys"})
    status = 0
    for value in values:
        try:
            results = program(value)
        except JqError as exc:
            where = "".join(text).count("\n")  # jq names the input line it had read to
            ctx.stderr.write_nowait(f"jq: error (at <stdin>:{where}): {exc}\n")
            status = 5
            continue
        out = []
        for result in results:
            if raw and isinstance(result, str):
                out.append(result + end)
            else:
                if sort_keys:
                    result = json.loads(json.dumps(result, sort_keys=True))
                out.append(dump(result, compact) + end)
        await ctx.write("".join(out))
    return status
