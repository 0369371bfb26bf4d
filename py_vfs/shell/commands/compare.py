"""Comparing two files: diff (normal and unified, with difflib) and cmp.

`diff` is also the disk's state diff (commands/history.py); ``is_file_diff`` is the rule that
tells them apart: an option, or two operands of which one names an existing file or
directory, make a file diff.
"""

from __future__ import annotations

import difflib
from datetime import UTC, datetime

from ..context import Context, describe
from ..format import quote_arg, shown_name
from .gnu import getopts, number, open_input
from .registry import Usage, UsageError, command

NO_NEWLINE = "\\ No newline at end of file\n"

# diff's and cmp's usage errors: `cmd: Try 'cmd --help' ...`, status 2 (trouble).
DIFF_ERRORS = Usage(2, try_help=True, try_prefix=True)


def is_file_diff(ctx: Context, args: list[str]) -> bool:
    """Whether `diff ARGS` compares files rather than states of the disk."""
    if any(arg.startswith("-") and arg != "-" for arg in args):
        return True
    if len(args) != 2:
        return False
    try:
        return any(arg == "-" or ctx.vfs.exists(ctx.resolve(arg)) for arg in args)
    except OSError:
        return False


async def _read(ctx: Context, name: str) -> bytes:
    if name != "-" and ctx.vfs.stat(ctx.resolve(name)).type == "directory":
        raise IsADirectoryError(21, "Is a directory")
    return await open_input(ctx, name).read_all()


async def _read_both(ctx: Context, names: list[str]) -> tuple[bytes, bytes] | None:
    """The two operands' contents; None once one cannot be read (reported: status 2)."""
    contents = []
    for name in names:
        try:
            contents.append(await _read(ctx, name))
        except OSError as exc:
            ctx.err(f"{name}: {describe(exc)}")
            return None
    return contents[0], contents[1]


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _range(start: int, end: int) -> str:
    return f"{start + 1}" if end - start == 1 else f"{start + 1},{end}"


def _side(mark: str, lines: list[str]) -> str:
    return "".join(f"{mark} {line}" + ("" if line.endswith("\n") else "\n" + NO_NEWLINE)
                   for line in lines)


def normal_diff(a: list[str], b: list[str]) -> str:
    """GNU diff's default output (`2c2`, `< old`, `---`, `> new`) of difflib's opcodes."""
    out = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            out.append(f"{_range(i1, i2)}c{_range(j1, j2)}\n" + _side("<", a[i1:i2]) + "---\n"
                       + _side(">", b[j1:j2]))
        elif tag == "delete":
            out.append(f"{_range(i1, i2)}d{j1}\n" + _side("<", a[i1:i2]))
        elif tag == "insert":
            out.append(f"{i1}a{_range(j1, j2)}\n" + _side(">", b[j1:j2]))
    return "".join(out)


def _stamp(ctx: Context, name: str) -> str:
    if name == "-":
        moment = datetime.now(tz=UTC)
    else:
        moment = datetime.fromtimestamp(ctx.vfs.stat(ctx.resolve(name)).mtime_ms / 1000, tz=UTC)
    moment = moment.astimezone()
    return f"{moment:%Y-%m-%d %H:%M:%S}.{moment.microsecond * 1000:09d} {moment:%z}"


async def file_diff(ctx: Context, args: list[str]) -> int:
    """`diff [-u] [-U N] [-q] FILE1 FILE2`: status 0 same, 1 different, 2 trouble."""
    options, operands = getopts(args, "uU:qs", ("unified=", "brief",
                                                 "report-identical-files"))
    unified, context, brief, same = False, 3, False, False
    for flag, value in options:
        if flag == "-u":
            unified = True
        elif flag in ("-U", "--unified"):
            unified, context = True, number(value, "context length")
        elif flag in ("-q", "--brief"):
            brief = True
        else:
            same = True
    if len(operands) < 2:
        after = quote_arg(operands[-1] if operands else "diff")
        raise UsageError(f"missing operand after {after}", 2)
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}", 2)
    both = await _read_both(ctx, operands)
    if both is None:
        return 2
    first, second = both
    shown = [shown_name(name) for name in operands]
    if first == second:
        if same:
            ctx.out(f"Files {shown[0]} and {shown[1]} are identical\n")
        return 0
    if brief:
        ctx.out(f"Files {shown[0]} and {shown[1]} differ\n")
        return 1
    a, b = _lines(first), _lines(second)
    if not unified:
        await ctx.write(normal_diff(a, b).encode("utf-8", "surrogateescape"))
        return 1
    out = []
    for line in difflib.unified_diff(a, b, shown[0], shown[1], _stamp(ctx, operands[0]),
                                     _stamp(ctx, operands[1]), n=context):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n").replace(" \t", "\t", 1).replace("\t\t", "\t") + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + NO_NEWLINE)
    await ctx.write("".join(out).encode("utf-8", "surrogateescape"))
    return 1


@command("cmp [-s] FILE1 [FILE2]", "say where two files first differ", errors=DIFF_ERRORS)
async def cmp(ctx: Context, args: list[str]) -> int:
    """Compare two files byte by byte (FILE2 missing or `-`: standard input): print
    `A B differ: char N, line L` (GNU's words in the C locale) at the first difference,
    `cmp: EOF on A after byte N, line L` when one is a prefix of the other; -s prints
    nothing. Status 0 same, 1 different, 2 trouble."""
    options, operands = getopts(args, "s", ("silent", "quiet"))
    silent = bool(options)
    if not operands:
        raise UsageError("missing operand after 'cmp'")
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}")
    names = [*operands, "-"][:2]
    both = await _read_both(ctx, names)
    if both is None:
        return 2
    first, second = both
    if first == second:
        return 0
    if silent:
        return 1
    index = next((i for i, (x, y) in enumerate(zip(first, second, strict=False)) if x != y),
                 None)
    if index is None:
        shorter = 0 if len(first) < len(second) else 1
        data = both[shorter]
        line = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        ctx.err(f"EOF on {names[shorter]} after byte {len(data)}, line {line}"
                if data else f"EOF on {names[shorter]} which is empty")
        return 1
    line = first[:index].count(b"\n") + 1
    ctx.out(f"{shown_name(names[0])} {shown_name(names[1])} differ: char {index + 1}, "
            f"line {line}\n")
    return 1
