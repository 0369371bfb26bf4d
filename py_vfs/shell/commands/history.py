"""Commands over the disk's history (docs/data.md): log (the journal), snapshot, snapshots,
diff (as ``git diff --name-status``) and restore. The shell writes as ``shell``, so its own
changes are told apart in the log."""

from __future__ import annotations

from typing import Any

from ..context import Context
from ..format import quote_arg, quote_name, visible
from .compare import DIFF_ERRORS, file_diff, is_file_diff
from .registry import UsageError, command

# diff's one-letter status per change, as git diff --name-status prints them.
STATUS = {"added": "A", "removed": "D", "modified": "M", "renamed": "R"}


def long_options(args: list[str], names: set[str]) -> tuple[dict[str, str], list[str]]:
    """``--name VALUE``, ``--name=VALUE`` and ``-n N`` (as ``--n``) anywhere among the
    operands; ``--`` ends the options; any other option is a usage error."""
    found: dict[str, str] = {}
    operands: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            operands.extend(rest)
            break
        if arg == "-" or not arg.startswith("-"):
            operands.append(arg)
            continue
        name, equals, value = arg.lstrip("-").partition("=")
        if name not in names or (arg.startswith("--") == (name == "n")):
            raise UsageError(f"unrecognized option {quote_arg(arg)}")
        if not equals:
            value = next(rest, None)
            if value is None:
                raise UsageError(f"option {quote_arg(arg)} needs a value")
        found[name] = value
    return found, operands


def _count(value: str, what: str) -> int:
    if not value.isdigit():
        raise UsageError(f"{what} must be a whole number, not {quote_arg(value)}")
    return int(value)


@command("log [-n N] [--writer W] [PATH]", "show the journal, newest first")
async def log(ctx: Context, args: list[str]) -> int:
    """Print the journal, newest first (default the last 20 entries): a line per entry with its
    revision, time (UTC), writer, operation and the paths it touched, names made visible."""
    options, operands = long_options(args, {"n", "writer"})
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    limit = _count(options["n"], "N") if "n" in options else 20
    path = ctx.resolve(operands[0]) if operands else None
    entries = await ctx.vfs.journal(writer=options.get("writer"), path=path, limit=limit)
    for entry in entries:
        paths = " ".join(quote_name(p) for p in entry["paths"])
        ctx.out(f"{entry['revision']}  {entry['time']}  {visible(entry['writer'])}  "
                f"{visible(entry['operation'])}  {paths}".rstrip() + "\n")
    return 0


@command("snapshot NAME", "name the whole tree as it is now")
async def snapshot(ctx: Context, args: list[str]) -> int:
    """Record the whole tree as snapshot NAME (no content is copied); prints its revision."""
    if len(args) != 1:
        raise UsageError("needs one NAME")
    made = await ctx.vfs.snapshot(args[0])
    ctx.out(f"{quote_name(made['name'])} at revision {made['revision']}\n")
    return 0


@command("snapshots", "list the snapshots")
async def snapshots(ctx: Context, args: list[str]) -> int:
    """A line per snapshot: its name, revision, time (UTC) and writer."""
    if args:
        raise UsageError(f"extra operand {quote_arg(args[0])}")
    for made in await ctx.vfs.snapshots():
        ctx.out(f"{quote_name(made['name'])}  {made['revision']}  {made['time']}  "
                f"{visible(made['writer'])}\n")
    return 0


def state(word: str) -> Any:
    """A state on the command line: ``now``, ``@N`` (revision N) or a snapshot name."""
    if word == "now":
        return None
    if word.startswith("@"):
        return {"revision": _count(word[1:], "a revision")}
    return word


@command("diff [-uqsrN] [-x PAT] FILE1 FILE2 | diff A [B]",
         "compare two files, or list what changed from state A to B (default now)",
         errors=DIFF_ERRORS)
async def diff(ctx: Context, args: list[str]) -> int:
    """With an option, or two operands of which one names an existing file or directory, compare
    the files as GNU diff does (commands/compare.py). Otherwise print what changed from A to B
    (a snapshot name, ``@N`` for revision N, or ``now``; B defaults to now) as ``git diff
    --name-status`` does: ``A``/``D``/``M`` and a path, or ``R``, the old path and the new
    one."""
    if is_file_diff(ctx, args):
        return await file_diff(ctx, args)
    if len(args) not in (1, 2):
        raise UsageError("needs A and at most one B")
    changes = await ctx.vfs.diff(state(args[0]), state(args[1]) if len(args) == 2 else None)
    for change in changes:
        names = [change["oldPath"], change["path"]] if change["change"] == "renamed" \
            else [change["path"]]
        ctx.out(STATUS[change["change"]] + "\t" + "\t".join(quote_name(n) for n in names) + "\n")
    return 0


@command("restore NAME|--revision N|--before TIME [PATH]",
         "put the disk (or PATH) back as it was in a snapshot, a revision or before a time")
async def restore(ctx: Context, args: list[str]) -> int:
    """Put the disk, or the subtree at PATH, back as it was: in snapshot NAME, at revision N,
    or before TIME (ISO 8601, UTC when no zone is given); one change, itself in the log.
    Prints the new revision and how many nodes were restored."""
    options, operands = long_options(args, {"revision", "before"})
    if len(options) > 1:
        raise UsageError("give one of NAME, --revision and --before")
    if "revision" in options:
        target: Any = {"revision": _count(options["revision"], "N")}
    elif "before" in options:
        target = {"before": options["before"]}
    elif operands:
        target = operands.pop(0)
    else:
        raise UsageError("needs NAME, --revision N or --before TIME")
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    path = ctx.resolve(operands[0]) if operands else None
    done = await ctx.vfs.restore(target, path=path)
    ctx.out(f"restored {done['restored']} nodes at revision {done['revision']}\n")
    return 0
