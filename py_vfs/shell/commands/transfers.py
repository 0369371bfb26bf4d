"""cp and mv: copy or move sources to a target, into it when it is a directory.

Each goes on with its remaining sources after one fails and then exits 1, as coreutils does.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ...core import cancel
from ..context import Context, describe, is_dir, lexists, list_entries
from ..format import quote_arg
from .files import Refused
from .options import Options, parse
from .registry import GNU, UsageError, command


@dataclass(frozen=True)
class _Transfer:
    """One source of mv/cp and where it goes; names are kept as typed for messages."""

    source: str
    source_path: str
    target: str
    target_path: str

    @property
    def into_itself(self) -> bool:
        return self.target_path.startswith(self.source_path.rstrip("/") + "/")


TransferRun = Callable[[Context, _Transfer], Awaitable[None]]


def _transfers(ctx: Context, operands: list[str], directory: str | None) -> list[_Transfer]:
    """Apply the rule shared by mv and cp: a target that is an existing directory receives the
    sources under their own names; several sources require such a directory. ``directory``
    (-t DIR): every operand is a source, moved into DIR."""
    if not operands:
        raise UsageError("missing file operand")
    if directory is None and len(operands) == 1:
        raise UsageError(f"missing destination file operand after {quote_arg(operands[0])}")
    sources, target = (operands, directory) if directory is not None \
        else (operands[:-1], operands[-1])
    try:
        target_path = ctx.resolve(target)
    except OSError as exc:
        raise Refused(f"target {quote_arg(target)}: {describe(exc)}") from exc
    into = is_dir(ctx.vfs, target_path)
    if directory is not None and not into:
        reason = "Not a directory" if lexists(ctx.vfs, target_path) else \
            "No such file or directory"
        raise Refused(f"target directory {quote_arg(target)}: {reason}")
    if len(sources) > 1 and not into:
        if not lexists(ctx.vfs, target_path):
            raise Refused(f"target {quote_arg(target)}: No such file or directory")
        raise Refused(f"target {quote_arg(target)} is not a directory")
    transfers = []
    for source in sources:
        try:
            source_path = ctx.resolve(source)
        except OSError as exc:
            raise Refused(f"cannot stat {quote_arg(source)}: {describe(exc)}") from exc
        if into:
            base = posixpath.basename(source_path)
            shown = target if target.endswith("/") else target + "/"
            transfers.append(_Transfer(source, source_path, shown + base,
                                       posixpath.join(target_path, base)))
        else:
            transfers.append(_Transfer(source, source_path, target, target_path))
    return transfers


async def _each_transfer(ctx: Context, options: Options, run: TransferRun) -> int:
    try:
        directory = options.values.get("t", options.values.get("target-directory"))
        transfers = _transfers(ctx, options.operands, directory)
    except Refused as exc:
        ctx.err(str(exc))
        return 1
    status = 0
    for transfer in transfers:
        try:
            await run(ctx, transfer)
        except Refused as exc:
            ctx.err(str(exc))
            status = 1
    return status


@command("mv [-fnv] SRC... DST | mv [-fnv] -t DIR SRC...",
         "move or rename; into DST if it is a directory", errors=GNU)
async def mv(ctx: Context, args: list[str]) -> int:
    """Rename, or move into a directory; across a mount, copy then remove. -n: never replace
    an existing target (skip it); -f: replace without asking (the default here); -v: say
    what was renamed; -t DIR: move every SRC into DIR. -i is refused: the shell cannot ask a
    question yet."""
    options = parse(args, "fnvi", "t", long={"force": False, "no-clobber": False,
                                             "verbose": False, "target-directory": True})
    if "i" in options:
        raise UsageError("-i is not supported: the shell cannot ask a question yet", 2,
                         try_line=False)
    no_clobber = _last_wins(options, "n", "f")

    async def move(ctx: Context, transfer: _Transfer) -> None:
        if no_clobber and lexists(ctx.vfs, transfer.target_path):
            return
        await _move(ctx, transfer)
        if "v" in options or "verbose" in options:
            ctx.out(f"renamed {quote_arg(transfer.source)} -> {quote_arg(transfer.target)}\n")

    return await _each_transfer(ctx, options, move)


def _last_wins(options: Options, no: str, force: str) -> bool:
    """-n unless a later -f overrides it (coreutils: the last of -f, -i, -n wins)."""
    order = [flag for flag in options.order if flag in (no, force, "no-clobber", "force")]
    return bool(order) and order[-1] in (no, "no-clobber")


async def _move(ctx: Context, move: _Transfer) -> None:
    try:
        ctx.vfs.lstat(move.source_path)
    except OSError as exc:
        raise Refused(f"cannot stat {quote_arg(move.source)}: {describe(exc)}") from exc
    if move.target_path == move.source_path:
        raise Refused(f"{quote_arg(move.source)} and {quote_arg(move.target)} are the same file")
    if move.into_itself:
        raise Refused(f"cannot move {quote_arg(move.source)} to a subdirectory of itself, "
                       f"{quote_arg(move.target)}")
    try:
        try:
            await ctx.vfs.rename(move.source_path, move.target_path)
        except OSError as exc:
            if getattr(exc, "code", None) != "EXDEV":
                raise
            await _move_across(ctx, move)
    except OSError as exc:
        raise Refused(f"cannot move {quote_arg(move.source)} to {quote_arg(move.target)}: "
                       f"{describe(exc)}") from exc


async def _move_across(ctx: Context, move: _Transfer) -> None:
    """What coreutils' mv does when rename(2) says EXDEV (another file system, here a mounted
    folder): refuse what rename would refuse, then copy the tree and remove the source."""
    source_is_dir = ctx.vfs.lstat(move.source_path).type == "directory"
    try:
        existing = ctx.vfs.lstat(move.target_path)
    except FileNotFoundError:
        existing = None
    if existing is not None:
        if existing.type == "directory" and not source_is_dir:
            raise Refused(f"cannot overwrite directory {quote_arg(move.target)} "
                           "with non-directory")
        if source_is_dir and existing.type != "directory":
            raise Refused(f"cannot overwrite non-directory {quote_arg(move.target)} "
                           f"with directory {quote_arg(move.source)}")
        if source_is_dir and ctx.vfs.readdir(move.target_path):
            raise OSError(errno.ENOTEMPTY, os.strerror(errno.ENOTEMPTY), move.target_path)
    await ctx.vfs.cp(move.source_path, move.target_path, recursive=True)
    await ctx.vfs.rm(move.source_path, recursive=True)


@command("cp [-afnprRv] SRC... DST | cp [-afnprRv] -t DIR SRC...",
         "copy files (-r: directories too); into DST if it is a directory", errors=GNU)
async def cp(ctx: Context, args: list[str]) -> int:
    """Copy files, or trees with -r (-R); a symlink is followed without -r and copied as a
    link with it. -p: keep modes and times (a copy keeps its mode anyway, and gets new times
    without -p); -a: -r and -p; -n: never replace an existing target; -f: replace (the
    default here); -v: name each copy as `'a' -> 'b'`; -t DIR: copy every SRC into DIR."""
    options = parse(args, "afnprRvi", "t", long={"recursive": False, "archive": False,
                                                  "preserve": None, "no-clobber": False,
                                                  "force": False, "verbose": False,
                                                  "target-directory": True})
    if "i" in options:
        raise UsageError("-i is not supported: the shell cannot ask a question yet", 2,
                         try_line=False)
    archive = "a" in options or "archive" in options
    recursive = archive or bool({"r", "R", "recursive"} & options.flags)
    preserve = archive or "p" in options or "preserve" in options
    no_clobber = _last_wins(options, "n", "f")

    async def copy(ctx: Context, transfer: _Transfer) -> None:
        if no_clobber and lexists(ctx.vfs, transfer.target_path):
            return
        await _copy(ctx, transfer, recursive=recursive)
        if preserve:
            await _preserve(ctx, transfer.source_path, transfer.target_path)
        if "v" in options or "verbose" in options:
            ctx.out("".join(f"{quote_arg(source)} -> {quote_arg(target)}\n" for source, target
                            in _copied(ctx, transfer, recursive=recursive)))

    return await _each_transfer(ctx, options, copy)


def _copied(ctx: Context, transfer: _Transfer, *, recursive: bool) -> list[tuple[str, str]]:
    """What `cp -v` names: the SRC and its copy, then (-r) each node below, a directory before
    what it holds, by name."""
    pairs = []
    stack = [(transfer.source_path, transfer.source, transfer.target)]
    while stack:
        path, source, target = stack.pop()
        pairs.append((source, target))
        if recursive and ctx.vfs.lstat(path).type == "directory":
            stack.extend((posixpath.join(path, entry.name), posixpath.join(source, entry.name),
                          posixpath.join(target, entry.name))
                         for entry in reversed(list_entries(ctx.vfs, path)))
    return pairs


async def _copy(ctx: Context, copy: _Transfer, *, recursive: bool) -> None:
    try:
        # Without -r a symlink is copied as the file it points to; with -r as a link (cp -P).
        node = (ctx.vfs.lstat if recursive else ctx.vfs.stat)(copy.source_path)
    except OSError as exc:
        raise Refused(f"cannot stat {quote_arg(copy.source)}: {describe(exc)}") from exc
    if node.type == "directory" and not recursive:
        raise Refused(f"-r not specified; omitting directory {quote_arg(copy.source)}")
    if node.type == "directory" and (copy.into_itself or copy.target_path == copy.source_path):
        raise Refused(f"cannot copy a directory, {quote_arg(copy.source)}, into itself, "
                      f"{quote_arg(copy.target)}")
    if node.type != "directory" and _same_file(ctx, copy):
        raise Refused(f"{quote_arg(copy.source)} and {quote_arg(copy.target)} are the same file")
    try:
        if recursive:
            await ctx.vfs.cp(copy.source_path, copy.target_path, recursive=True)
        else:
            await ctx.vfs.copy_file(copy.source_path, copy.target_path)
    except OSError as exc:
        raise Refused(f"cannot copy {quote_arg(copy.source)} to {quote_arg(copy.target)}: "
                      f"{describe(exc)}") from exc


async def _preserve(ctx: Context, source: str, target: str) -> None:
    """cp -p: give every copied node the mode and times of its original, directories after
    what they hold (writing into a directory changes its times)."""
    pending: list[tuple[str, str]] = []
    stack = [(source, target)]
    while stack:
        original, copied = stack.pop()
        pending.append((original, copied))
        if ctx.vfs.lstat(original).type == "directory":
            stack.extend((posixpath.join(original, entry.name), posixpath.join(copied, entry.name))
                         for entry in list_entries(ctx.vfs, original))
            await cancel.checkpoint("cp", len(pending), 0, "entries")
    for original, copied in reversed(pending):
        node = ctx.vfs.lstat(original)
        if node.type == "symlink":
            continue  # a link's own mode and times are not settable here
        await ctx.vfs.chmod(copied, node.mode & 0o7777)
        await ctx.vfs.utimes(copied, node.atime_ms, node.mtime_ms)


def _same_file(ctx: Context, copy: _Transfer) -> bool:
    """Copying a file onto itself would truncate it first; coreutils refuses."""
    if copy.source_path == copy.target_path:
        return True
    try:
        return ctx.vfs.realpath(copy.source_path) == ctx.vfs.realpath(copy.target_path)
    except OSError:
        return False

