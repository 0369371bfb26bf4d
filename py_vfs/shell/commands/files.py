"""Commands that read, create, move and delete files.

Each one goes on with its remaining operands after one fails and then exits 1, as coreutils
does, so `rm a b c` still removes b and c when a is missing.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from py_vfs.shell.commands.registry import UsageError, command, parse_flags, require_operands
from py_vfs.shell.context import Context, describe, each_operand, is_dir
from py_vfs.shell.format import quote_arg


class _Refused(Exception):
    """An operand a command will not touch; the message is complete as coreutils words it."""


@command("cat [FILE...]", "print the contents of files, one after another")
async def cat(ctx: Context, args: list[str]) -> int:
    """Write each file's bytes to stdout unchanged (binary content included), a chunk at a
    time; no FILE, or `-`, is standard input."""
    _, operands = parse_flags(args, "")

    async def show(name: str) -> None:
        source = ctx.stdin.chunks() if name == "-" else ctx.vfs.open_read(ctx.resolve(name))
        async for piece in source:
            await ctx.write(piece)

    return await each_operand(ctx, operands or ["-"], show, "{name}")


@command("mkdir [-p] DIR...", "create directories (-p: with their parents, no error if present)")
async def mkdir(ctx: Context, args: list[str]) -> int:
    """Create each directory; with -p, parents too and no error if present."""
    flags, operands = parse_flags(args, "p")
    require_operands(operands)

    async def make(name: str) -> None:
        path = ctx.resolve(name)
        if "p" not in flags:
            await ctx.vfs.mkdir(path)
        elif not is_dir(ctx.vfs, path):
            await ctx.vfs.mkdir(path, recursive=True)

    return await each_operand(ctx, operands, make, "cannot create directory {arg}")


@command("rm [-r] [-f] PATH...", "remove files (-r: directories too; -f: ignore missing)")
async def rm(ctx: Context, args: list[str]) -> int:
    """Remove each operand (a symlink itself); -r for directories, -f for missing."""
    flags, operands = parse_flags(args, "rRf")
    recursive = bool(flags & {"r", "R"})
    force = "f" in flags
    if not force:
        require_operands(operands)
    status = 0
    for name in operands:
        try:
            await _remove(ctx, name, recursive=recursive)
        except FileNotFoundError as exc:
            if not force:
                ctx.err(f"cannot remove {quote_arg(name)}: {describe(exc)}")
                status = 1
        except OSError as exc:
            ctx.err(f"cannot remove {quote_arg(name)}: {describe(exc)}")
            status = 1
        except _Refused as exc:
            ctx.err(str(exc))
            status = 1
    return status


async def _remove(ctx: Context, name: str, *, recursive: bool) -> None:
    path = ctx.resolve(name)
    if recursive and path == "/":
        raise _Refused("it is dangerous to operate recursively on '/'")
    if recursive and posixpath.basename(name.rstrip("/")) in (".", ".."):
        raise _Refused(f"refusing to remove '.' or '..' directory: skipping {quote_arg(name)}")
    node = ctx.vfs.lstat(path)  # lstat: a symlink is removed itself, never what it points to
    if node.type != "directory":
        await ctx.vfs.unlink(path)
    elif recursive:
        await ctx.vfs.rm(path, recursive=True)
    else:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)


@command("rmdir DIR...", "remove empty directories")
async def rmdir(ctx: Context, args: list[str]) -> int:
    """Remove each empty directory."""
    _, operands = parse_flags(args, "")
    require_operands(operands)
    return await each_operand(ctx, operands, lambda name: ctx.vfs.rmdir(ctx.resolve(name)),
                              "failed to remove {arg}")


@command("touch FILE...", "create empty files, or set their times to now")
async def touch(ctx: Context, args: list[str]) -> int:
    """Create each missing file empty, or set an existing one's times to now."""
    _, operands = parse_flags(args, "")
    require_operands(operands)
    return await each_operand(ctx, operands, lambda name: ctx.vfs.touch(ctx.resolve(name)),
                              "cannot touch {arg}")


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


def _transfers(ctx: Context, operands: list[str]) -> list[_Transfer]:
    """Apply the rule shared by mv and cp: a target that is an existing directory receives the
    sources under their own names; several sources require such a directory."""
    if not operands:
        raise UsageError("missing file operand")
    if len(operands) == 1:
        raise UsageError(f"missing destination file operand after {quote_arg(operands[0])}")
    *sources, target = operands
    try:
        target_path = ctx.resolve(target)
    except OSError as exc:
        raise _Refused(f"target {quote_arg(target)}: {describe(exc)}") from exc
    into = is_dir(ctx.vfs, target_path)
    if len(sources) > 1 and not into:
        raise _Refused(f"target {quote_arg(target)} is not a directory")
    transfers = []
    for source in sources:
        try:
            source_path = ctx.resolve(source)
        except OSError as exc:
            raise _Refused(f"cannot stat {quote_arg(source)}: {describe(exc)}") from exc
        if into:
            base = posixpath.basename(source_path)
            shown = target if target.endswith("/") else target + "/"
            transfers.append(_Transfer(source, source_path, shown + base,
                                       posixpath.join(target_path, base)))
        else:
            transfers.append(_Transfer(source, source_path, target, target_path))
    return transfers


async def _each_transfer(ctx: Context, operands: list[str], run: TransferRun) -> int:
    try:
        transfers = _transfers(ctx, operands)
    except _Refused as exc:
        ctx.err(str(exc))
        return 1
    status = 0
    for transfer in transfers:
        try:
            await run(ctx, transfer)
        except _Refused as exc:
            ctx.err(str(exc))
            status = 1
    return status


@command("mv SRC... DST", "move or rename; into DST if it is a directory")
async def mv(ctx: Context, args: list[str]) -> int:
    """Rename, or move into a directory; across a mount, copy then remove."""
    _, operands = parse_flags(args, "")
    return await _each_transfer(ctx, operands, _move)


async def _move(ctx: Context, move: _Transfer) -> None:
    try:
        ctx.vfs.lstat(move.source_path)
    except OSError as exc:
        raise _Refused(f"cannot stat {quote_arg(move.source)}: {describe(exc)}") from exc
    if move.target_path == move.source_path:
        raise _Refused(f"{quote_arg(move.source)} and {quote_arg(move.target)} are the same file")
    if move.into_itself:
        raise _Refused(f"cannot move {quote_arg(move.source)} to a subdirectory of itself, "
                       f"{quote_arg(move.target)}")
    try:
        try:
            await ctx.vfs.rename(move.source_path, move.target_path)
        except OSError as exc:
            if getattr(exc, "code", None) != "EXDEV":
                raise
            await _move_across(ctx, move)
    except OSError as exc:
        raise _Refused(f"cannot move {quote_arg(move.source)} to {quote_arg(move.target)}: "
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
            raise _Refused(f"cannot overwrite directory {quote_arg(move.target)} "
                           "with non-directory")
        if source_is_dir and existing.type != "directory":
            raise _Refused(f"cannot overwrite non-directory {quote_arg(move.target)} "
                           f"with directory {quote_arg(move.source)}")
        if source_is_dir and ctx.vfs.readdir(move.target_path):
            raise OSError(errno.ENOTEMPTY, os.strerror(errno.ENOTEMPTY), move.target_path)
    await ctx.vfs.cp(move.source_path, move.target_path, recursive=True)
    await ctx.vfs.rm(move.source_path, recursive=True)


@command("cp [-r] SRC... DST", "copy files (-r: directories too); into DST if it is a directory")
async def cp(ctx: Context, args: list[str]) -> int:
    """Copy files, or trees with -r; a symlink is followed without -r."""
    flags, operands = parse_flags(args, "rR")
    recursive = bool(flags & {"r", "R"})

    async def copy(ctx: Context, transfer: _Transfer) -> None:
        await _copy(ctx, transfer, recursive=recursive)

    return await _each_transfer(ctx, operands, copy)


async def _copy(ctx: Context, copy: _Transfer, *, recursive: bool) -> None:
    try:
        # Without -r a symlink is copied as the file it points to; with -r as a link (cp -P).
        node = (ctx.vfs.lstat if recursive else ctx.vfs.stat)(copy.source_path)
    except OSError as exc:
        raise _Refused(f"cannot stat {quote_arg(copy.source)}: {describe(exc)}") from exc
    if node.type == "directory" and not recursive:
        raise _Refused(f"-r not specified; omitting directory {quote_arg(copy.source)}")
    if node.type == "directory" and (copy.into_itself or copy.target_path == copy.source_path):
        raise _Refused(f"cannot copy a directory, {quote_arg(copy.source)}, into itself, "
                       f"{quote_arg(copy.target)}")
    if node.type != "directory" and _same_file(ctx, copy):
        raise _Refused(f"{quote_arg(copy.source)} and {quote_arg(copy.target)} are the same file")
    try:
        if recursive:
            await ctx.vfs.cp(copy.source_path, copy.target_path, recursive=True)
        else:
            await ctx.vfs.copy_file(copy.source_path, copy.target_path)
    except OSError as exc:
        raise _Refused(f"cannot copy {quote_arg(copy.source)} to {quote_arg(copy.target)}: "
                       f"{describe(exc)}") from exc


def _same_file(ctx: Context, copy: _Transfer) -> bool:
    """Copying a file onto itself would truncate it first; coreutils refuses."""
    if copy.source_path == copy.target_path:
        return True
    try:
        return ctx.vfs.realpath(copy.source_path) == ctx.vfs.realpath(copy.target_path)
    except OSError:
        return False

