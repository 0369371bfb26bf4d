"""Comparing two files: diff (normal and unified, with difflib) and cmp.

`diff` is also the disk's state diff (commands/history.py); ``is_file_diff`` is the rule that
tells them apart: an option, or two operands of which one names an existing file or
directory, make a file diff.
"""

from __future__ import annotations

from ..context import Context, describe
from ..format import quote_arg, shown_name
from .diff_tree import DiffJob, diff_paths
from .gnu import getopts, named, number, open_input
from .registry import Usage, UsageError, command

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


async def file_diff(ctx: Context, args: list[str]) -> int:
    """`diff [-u] [-U N] [-q] [-s] [-r] [-N] [-x PAT] A B`: status 0 same, 1 different, 2
    trouble."""
    options, operands = getopts(args, "uU:qsrNx:", (
        "unified=", "brief", "report-identical-files", "recursive", "new-file", "exclude="))
    given, values = named(options, {"-U": "unified", "-q": "brief", "-s": "same",
                                    "--report-identical-files": "same", "-r": "recursive",
                                    "-N": "new-file", "-x": "exclude"})
    contexts = [number(value, "context length") for name, value in given if name == "unified"]
    job = DiffJob(unified="u" in values or bool(contexts), brief="brief" in values,
                  same="same" in values, recursive="recursive" in values,
                  new_file="new-file" in values,
                  exclude=[value for name, value in given if name == "exclude"])
    if contexts:
        job.context = contexts[-1]
    if len(operands) < 2:
        after = quote_arg(operands[-1] if operands else "diff")
        raise UsageError(f"missing operand after {after}", 2)
    if len(operands) > 2:
        raise UsageError(f"extra operand {quote_arg(operands[2])}", 2)
    # The header of each pair of files in a directory repeats the options as typed.
    rest, typed = list(operands), []
    for arg in args:
        if arg in rest and not (arg.startswith("-") and arg != "-"):
            rest.remove(arg)
        elif arg != "--":
            typed.append(arg)
    job.switches = "".join(f" {arg}" for arg in typed)
    return await diff_paths(ctx, job, operands)


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
