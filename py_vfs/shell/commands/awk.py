"""awk: the pattern scanning language (POSIX awk with gawk's everyday extensions).

This module reads the command line (-F, -v, -f, the program, ARGV with its `NAME=VALUE`
operands), feeds the records of the input files to the rules, and runs BEGIN and END.
The language itself: ``awk_lexer``, ``awk_parser``, ``awk_interp``, ``awk_builtins``, with
values in ``awk_values``, regular expressions in ``awk_regex``, records in ``awk_record`` and
streams in ``awk_io``.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from ..context import Context, describe, is_dir
from ..format import quote_arg
from ..pipes import Input, Output
from .awk_exec import Interpreter
from .awk_interp import Exit, Next, NextFile
from .awk_io import RecordReader, Streams, run_command
from .awk_lexer import AwkSyntaxError, unescape
from .awk_parser import Program, parse
from .awk_values import UNINIT, AwkError, StrNum, to_num, truth
from .gnu import open_input
from .registry import Usage, UsageError, command

_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
_SYNTAX_STATUS = 1
_FATAL_STATUS = 2
AWK_USAGE = Usage(2, usage="Usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]")


class _MainInput:
    """The records of ARGV's files (standard input when none), for the rules and `getline`."""

    def __init__(self, run: Interpreter, ctx: Context) -> None:
        self.run = run
        self.ctx = ctx
        self.index = 0
        self.reader: RecordReader | None = None
        self.used_file = False
        self.done = False

    async def _open_next(self) -> bool:
        run = self.run
        while True:
            self.index += 1
            argc = int(to_num(run.var("ARGC")))
            argv = run.globals.get("ARGV")
            if self.index >= argc or not isinstance(argv, dict):
                if self.used_file:
                    return False
                self.used_file = True
                self.open(self.ctx.stdin, "")
                return True
            operand = run.text(argv.get(str(self.index), ""))
            if operand == "":
                continue
            assignment = _ASSIGNMENT.fullmatch(operand)
            if assignment:
                run.globals[assignment[1]] = StrNum(unescape(assignment[2]))
                continue
            self.used_file = True
            if operand == "-" or operand == "/dev/stdin":
                self.open(self.ctx.stdin, operand)
                return True
            if is_dir(self.ctx.vfs, self.ctx.resolve(operand)):
                self.ctx.err(f"warning: command line argument `{operand}' is a directory: "
                             "skipped")
                continue
            try:
                source = await _open_file(self.ctx, operand)
            except OSError as exc:
                reason = describe(exc)
                raise AwkError(f"fatal: cannot open file {quote_arg(operand)} for reading: "
                               f"{reason}") from None
            self.open(source, operand)
            return True

    def open(self, source: Input, name: str) -> None:
        """Start reading ``source`` (FILENAME ``name``)."""
        self.reader = RecordReader(source)
        self.run.globals["FILENAME"] = name
        self.run.globals["FNR"] = 0.0

    def skip_file(self) -> None:
        """`nextfile`: the rest of this file is not read."""
        self.reader = None

    async def next_record(self) -> str | None:
        """The next record (NR, FNR and RT set), or None when the input is over."""
        run = self.run
        while not self.done:
            if self.reader is None and not await self._open_next():
                self.done = True
                break
            assert self.reader is not None
            got = await self.reader.read(run.text(run.var("RS")))
            if got is None:
                self.reader = None
                continue
            g = run.globals
            g["RT"] = got[1]
            nr, fnr = g.get("NR", 0.0), g.get("FNR", 0.0)
            g["NR"] = (nr if type(nr) is float else to_num(nr)) + 1
            g["FNR"] = (fnr if type(fnr) is float else to_num(fnr)) + 1
            await run.tick()
            return got[0]
        return None


async def _open_file(ctx: Context, name: str) -> Input:
    source = open_input(ctx, name)
    await source.read(0)
    return source


def _options(args: list[str]) -> tuple[list[str], list[str], str | None, list[str]]:
    """(-v assignments, -f files, -F value, the operands)."""
    assigns: list[str] = []
    files: list[str] = []
    fs: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        letter, rest = arg[1], arg[2:]
        if letter not in "Fvf":
            raise UsageError(f"invalid option -- '{letter}'")
        if not rest:
            i += 1
            if i >= len(args):
                raise UsageError(f"option requires an argument -- '{letter}'")
            rest = args[i]
        if letter == "F":
            fs = "\t" if rest == "t" else unescape(rest)
        elif letter == "v":
            assigns.append(rest)
        else:
            files.append(rest)
        i += 1
    return assigns, files, fs, args[i:]


@command("awk [-F FS] [-v NAME=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE | NAME=VALUE]...",
         "scan and process patterns in text", errors=AWK_USAGE)
async def awk(ctx: Context, args: list[str]) -> int:
    """Run the awk PROGRAM (or the program in the -f PROGFILEs) on the FILEs (none or `-`:
    standard input): for each record (line), each `pattern { action }` whose pattern
    matches runs; BEGIN and END actions run before and after. -F FS: the field separator;
    -v NAME=VALUE: set a variable before BEGIN; a NAME=VALUE operand sets it before the next
    file is read. POSIX awk with gawk's gensub, asort, asorti, length(array), match(s, re,
    array), fflush, systime, strftime, `**`, RS as a regular expression and RT; regular
    expressions are POSIX EREs matched in linear time; `print | CMD`, `CMD | getline` and
    system() run CMD in a subshell of this shell (docs/shell.md, "awk")."""
    assigns, files, fs, operands = _options(args)
    if files:
        sources = []
        for name in files:
            try:
                data = await ctx.vfs.read_file(ctx.resolve(name))
            except OSError as exc:
                ctx.err(f"fatal: can't open source file {quote_arg(name)} for reading: "
                        f"{describe(exc)}")
                return _FATAL_STATUS
            assert isinstance(data, bytes)
            sources.append(data.decode("utf-8", "surrogateescape"))
        source = "\n".join(sources)
    elif operands:
        source = operands.pop(0)
    else:
        raise UsageError("")
    try:
        program = parse(source)
    except AwkSyntaxError as exc:
        ctx.err(f"line {exc.line}: {exc}")
        return _SYNTAX_STATUS
    except RecursionError:
        ctx.err("the program nests too deeply")
        return _SYNTAX_STATUS
    for assignment in assigns:
        if not _ASSIGNMENT.fullmatch(assignment):
            ctx.err(f"fatal: `{assignment}' is not a legal variable name")
            return _FATAL_STATUS
    return await _execute(ctx, program, assigns, fs, operands)


async def _execute(ctx: Context, program: Program, assigns: list[str], fs: str | None,
                   operands: list[str]) -> int:

    async def shell(line: str, stdin: Input, stdout: Output) -> int:
        return await run_command(ctx, line, stdin, stdout)

    streams = Streams(ctx, shell)
    streams.stdin = ctx.stdin
    run = Interpreter(program, streams)
    _globals(run, ctx, fs, operands)
    for assignment in assigns:
        name, value = assignment.split("=", 1)
        run.globals[name] = StrNum(unescape(value))
    main = _MainInput(run, ctx)
    run.main_getline = main.next_record
    run.run_shell = lambda line: shell(line, ctx.stdin, ctx.stdout)
    try:
        status = await _phases(run, program, main)
        await streams.close_all()
    except AwkError as exc:
        message = str(exc)
    except RecursionError:
        message = "fatal: the program nests too deeply"
    else:
        return status
    with contextlib.suppress(AwkError, OSError):
        await streams.close_all()
    ctx.err(message)
    return _FATAL_STATUS


def _globals(run: Interpreter, ctx: Context, fs: str | None, operands: list[str]) -> None:
    g: dict[str, Any] = run.globals
    g.update({"FS": " " if fs is None else fs, "OFS": " ", "ORS": "\n", "RS": "\n",
              "NR": 0.0, "FNR": 0.0, "SUBSEP": "\034", "CONVFMT": "%.6g", "OFMT": "%.6g",
              "RSTART": 0.0, "RLENGTH": -1.0, "FILENAME": UNINIT, "RT": UNINIT})
    g["ENVIRON"] = {name: StrNum(value) for name, value in ctx.env.items()}
    g["ARGV"] = {str(i): StrNum(arg) for i, arg in enumerate(["awk", *operands])}
    g["ARGC"] = float(len(operands) + 1)


async def _phases(run: Interpreter, program: Program, main: _MainInput) -> int:
    status: int | None = None
    try:
        for action in program.begins:
            await run.run(action)
        if program.rules or program.ends:
            await _records(run, program, main)
    except Exit as exc:
        status = exc.status
    except (Next, NextFile):
        raise AwkError("fatal: `next' used in a BEGIN action") from None
    try:
        for action in program.ends:
            await run.run(action)
    except Exit as exc:
        status = exc.status if exc.status is not None else status
    except (Next, NextFile):
        raise AwkError("fatal: `next' used in an END action") from None
    return status or 0


async def _records(run: Interpreter, program: Program, main: _MainInput) -> None:
    rules = program.rules
    active = run.range_active
    while True:
        text = await main.next_record()
        if text is None:
            return
        run.set_record(text)
        try:
            for number, (pattern, end, body) in enumerate(rules):
                if end is not None:
                    if not active[number]:
                        if not truth(await run.ev(pattern)):
                            continue
                        active[number] = True
                    if truth(await run.ev(end)):
                        active[number] = False
                elif pattern is not None and not truth(await run.ev(pattern)):
                    continue
                if body is None:
                    await run.streams.print(run.record.text + run.text(run.var("ORS")), None, "")
                else:
                    await run.run(body)
        except Next:
            continue
        except NextFile:
            main.skip_file()

