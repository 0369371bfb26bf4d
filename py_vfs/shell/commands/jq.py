"""jq: filter JSON with the jq language of ``jq_lang`` (over Python's json), as jq 1.6."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ...core import cancel
from ..context import Context, describe
from ..format import shown_name
from .jq_eval import depth, set_depth
from .jq_input import json_values
from .jq_lang import Halt, JqError, compile_filter
from .jq_values import check_size, dump, resume_run, run_state
from .registry import Usage, command

# jq 1.6's status for input that is not JSON (jq 1.7 exits 2), and the end of the values.
PARSE_ERROR = 4
STOP = object()
BATCH = 64 * 1024  # characters of output written at a time
FLAGS = {"r": "raw-output", "j": "join-output", "c": "compact-output", "n": "null-input",
         "s": "slurp", "S": "sort-keys", "e": "exit-status", "a": "ascii-output",
         "R": "raw-input", "M": "monochrome-output", "C": "color-output", "h": "help"}
TWO = ("--arg", "--argjson", "--slurpfile", "--rawfile")


class _Usage(Exception):
    """A command line jq refuses: its message, status 2."""


def _parse(args: list[str]) -> tuple[set[str], dict[str, Any], list[str]]:
    """(flags as long names, option values, operands) from jq's command line."""
    flags: set[str] = set()
    values: dict[str, Any] = {"named": [], "indent": 2, "from-file": None}
    operands: list[str] = []
    at = 0
    while at < len(args):
        arg = args[at]
        at += 1
        if arg in ("--args", "--jsonargs"):
            flags.add(arg[2:])
            flags.discard("jsonargs" if arg == "--args" else "args")
        elif arg in TWO:
            if at + 2 > len(args):
                raise _Usage(f"{arg} takes two parameters (e.g. {arg} varname "
                             f"{'value' if arg in ('--arg', '--argjson') else 'filename'})")
            values["named"].append((arg[2:], args[at], args[at + 1]))
            at += 2
        elif arg == "--indent":
            if at >= len(args):
                raise _Usage("--indent takes one parameter")
            try:
                values["indent"] = int(args[at])
            except ValueError:
                raise _Usage("--indent takes a number") from None
            if not -1 <= values["indent"] <= 7:
                raise _Usage("--indent takes a number between -1 and 7")
            at += 1
        elif arg in ("-f", "--from-file"):
            if at >= len(args):
                raise _Usage(f"{arg} takes a parameter")
            values["from-file"] = args[at]
            at += 1
        elif arg == "--tab":
            flags.add("tab")
        elif arg.startswith("--") and arg[2:] in FLAGS.values():
            flags.add(arg[2:])
        elif arg.startswith("-") and len(arg) > 1 and not arg.startswith("--") and all(
                letter in FLAGS for letter in arg[1:]):
            flags.update(FLAGS[letter] for letter in arg[1:])
        elif arg.startswith("-") and len(arg) > 1:
            raise _Usage(f"Unknown option: {arg}")
        else:
            operands.append(arg)
    return flags, values, operands


@command("jq [OPTION]... FILTER [FILE...]", "filter JSON", errors=Usage(2, try_help=True))
async def jq(ctx: Context, args: list[str]) -> int:
    """Run FILTER on each JSON value of the FILEs (none or `-`: standard input) and print the
    results, pretty (two spaces) unless -c; -r prints strings raw, -j without newlines, -n
    runs once on null, -s reads all values into one array, -R reads lines as strings, -S
    sorts object keys, -e sets the status from the last output, -a escapes non-ASCII,
    --tab/--indent N, --arg/--argjson/--slurpfile/--rawfile NAME VALUE, --args/--jsonargs
    (the operands after the filter are $ARGS.positional), -f FILE reads the filter."""
    try:
        flags, values, operands = _parse(args)
    except _Usage as exc:
        ctx.stderr.write_nowait(f"jq: {exc}\nUse jq --help for help with command-line "
                                "options,\nor see the jq manpage, or online docs  at "
                                "https://stedolan.github.io/jq\n")
        return 2
    if values["from-file"] is not None:
        try:
            data = await ctx.vfs.read_file(ctx.resolve(values["from-file"]))
        except OSError as exc:
            ctx.stderr.write_nowait(f"jq: error: Could not open {values['from-file']}: "
                                    f"{describe(exc)}\n")
            return 2
        operands.insert(0, data.decode("utf-8", "replace") if isinstance(data, bytes)
                        else data)
    if not operands:
        ctx.stderr.write_nowait("Usage:\tjq [OPTIONS] FILTER [FILES...]\n")
        return 2
    text, files = operands[0], operands[1:]
    positional: list[Any] = []
    if flags & {"args", "jsonargs"}:
        positional, files = files, []
        if "jsonargs" in flags:
            try:
                positional = [json.loads(item) for item in positional]
            except ValueError:
                ctx.stderr.write_nowait("jq: Invalid JSON text passed to --jsonargs\n")
                return 2
    names: dict[str, Any] = {}
    named: dict[str, Any] = {}
    for kind, name, value in values["named"]:
        try:
            found = await _named_value(ctx, kind, value)
        except (OSError, JqError, ValueError) as exc:
            detail = describe(exc) if isinstance(exc, OSError) else str(exc)
            what = "--argjson" if kind == "argjson" else f"--{kind}"
            ctx.stderr.write_nowait(f"jq: Bad JSON in {what} {name} {value}: {detail}\n"
                                    if kind != "argjson" else
                                    "jq: Invalid JSON text passed to --argjson\n")
            return 2
        names["$" + name] = (found,)
        named[name] = found
    names["$ARGS"] = ({"positional": positional, "named": named},)
    names["$ENV"] = (dict(ctx.env),)
    messages: list[str] = []
    filename: list[Any] = [None]
    names.update({"*messages": messages, "*filename": filename})
    try:
        program = compile_filter(text, names)
    except JqError as exc:
        ctx.stderr.write_nowait(f"jq: error: {exc} at <top-level>, line 1:\n{text}\n"
                                "jq: 1 compile error\n")
        return 3
    except RecursionError:
        ctx.stderr.write_nowait("jq: error: filter nested too deep\njq: 1 compile error\n")
        return 3
    chunks = []
    for name in files or ["-"]:
        try:
            source = ctx.stdin if name == "-" else None
            data = await (source.read_all() if source else ctx.vfs.read_file(ctx.resolve(name)))
            chunks.append(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)
        except OSError as exc:
            ctx.stderr.write_nowait(f"jq: error: Could not open {shown_name(name)}: "
                                    f"{describe(exc)}\n")
            return 2
    filename[0] = files[-1] if files else None
    whole = "".join(chunks)
    inputs = _inputs(whole, flags)
    program.env.names["*inputs"] = inputs
    return await _run(ctx, program, inputs, flags, values["indent"], whole, messages)


async def _named_value(ctx: Context, kind: str, value: str) -> Any:
    if kind == "arg":
        return value
    if kind == "argjson":
        found = list(json_values(value))
        if len(found) != 1:
            raise ValueError("not one JSON value")
        return found[0]
    data = await ctx.vfs.read_file(ctx.resolve(value))
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text if kind == "rawfile" else list(json_values(text))


def _inputs(text: str, flags: set[str]) -> Iterator[Any]:
    """The input values: JSON values, or with -R lines (with -s: the whole text)."""
    if "raw-input" in flags:
        if "slurp" in flags:
            return iter([text])
        return iter(text.splitlines())
    values = json_values(text)
    if "slurp" in flags:
        return _slurped(values)
    return values


def _slurped(values: Iterator[Any]) -> Iterator[Any]:
    yield list(values)


async def _run(ctx: Context, program: Any, inputs: Iterator[Any], flags: set[str],
               indent: int, text: str, messages: list[str]) -> int:
    status, last = 0, STOP
    options = (bool(flags & {"raw-output", "join-output"}),
               "compact-output" in flags or indent == 0 or indent == -1,
               "sort-keys" in flags, "" if "join-output" in flags else "\n",
               "\t" if "tab" in flags else indent, "ascii-output" in flags)
    firsts = iter([None]) if "null-input" in flags else inputs
    while True:
        try:  # the values before a parse error are filtered first, as jq streams them
            value = next(firsts, STOP)
        except JqError as exc:
            ctx.stderr.write_nowait(f"parse error: {exc}\n")
            return PARSE_ERROR
        if value is STOP:
            break
        # jq names the input line it had read to (-n: none)
        where = "<unknown>" if "null-input" in flags else f"<stdin>:{text.count(chr(10))}"
        out: list[str] = []
        try:
            for result in program(value):
                last = result
                out.append(_shown(result, options))
                if sum(map(len, out)) >= BATCH:  # another jq may run meanwhile: keep our counts
                    state, nesting = run_state(), depth()
                    await ctx.write("".join(out))
                    await cancel.checkpoint("jq", 0, 0, "values")
                    resume_run(state)
                    set_depth(nesting)
                    out = []
        except JqError as exc:  # a limit (jq_values) included; the values before it printed
            if exc.shown:
                kind = " (not a string)" if exc.not_string else ""
                ctx.stderr.write_nowait(f"jq: error (at {where}){kind}: {exc}\n")
                status = 5
        except RecursionError:
            ctx.stderr.write_nowait(f"jq: error (at {where}): limit exceeded "
                                    "(nesting too deep)\n")
            status = 5
        except Halt as halt:
            await ctx.write("".join(out))
            ctx.stderr.write_nowait(halt.message)
            return halt.status
        finally:
            if messages:
                ctx.stderr.write_nowait("".join(messages))
                messages.clear()
        await ctx.write("".join(out))
    if "exit-status" in flags and status == 0:
        return 4 if last is STOP else 1 if last is None or last is False else 0
    return status


def _shown(result: Any, options: tuple[Any, ...]) -> str:
    raw, compact, sort_keys, end, indent, ascii_only = options
    if raw and isinstance(result, str):
        return result + end
    if sort_keys:
        result = json.loads(json.dumps(check_size(result), sort_keys=True))
    text = dump(result, compact, indent)
    if ascii_only:
        text = text.encode("ascii", "backslashreplace").decode("ascii")
        text = text.replace("\\x", "\\u00")
    return text + end
