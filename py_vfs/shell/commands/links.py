"""Symbolic links: ln makes them, readlink and realpath read and resolve them.

The VFS has symlinks but no hard links: `ln` without -s fails with EPERM, as Linux does on a
file system that cannot link.
"""

from __future__ import annotations

import errno
import posixpath
from collections import deque

from ...core.errors import FsError
from ..context import Context, describe, is_dir, lexists
from ..disk import Disk
from ..format import quote_arg, quote_name, shown_name
from .options import parse
from .registry import GNU, UsageError, command

MAX_LINKS = 40  # symlinks followed while resolving one path (Linux's MAXSYMLINKS): ELOOP beyond


def _error(code: int, path: str) -> OSError:
    """The error of ``code``, worded as glibc words it (Emscripten's strerror differs)."""
    return FsError.of(errno.errorcode[code], "ln", path)


def canonical(vfs: Disk, path: str, missing: str) -> str:
    """``path`` (absolute) with every symlink, `.` and `..` resolved, step by step as
    GNU's canonicalize does. ``missing`` says what may not exist: "e" nothing, "f" the last
    component only, "m" anything (the rest is then taken as it is written)."""
    todo = deque(part for part in path.split("/") if part not in ("", "."))
    resolved = "/"
    followed = 0
    while todo:
        part = todo.popleft()
        if part == "..":
            resolved = posixpath.dirname(resolved)
            continue
        candidate = posixpath.join(resolved, part)
        rest = any(p not in ("", ".") for p in todo)
        try:
            node = vfs.lstat(candidate)
        except OSError:
            if missing == "e" or (missing == "f" and rest):
                raise
            resolved = candidate
            continue
        if node.type == "symlink":
            followed += 1
            if followed > MAX_LINKS:
                raise _error(errno.ELOOP, candidate)
            target = vfs.readlink(candidate)
            if target.startswith("/"):
                resolved = "/"
            todo.extendleft(reversed([p for p in target.split("/") if p not in ("", ".")]))
            continue
        if rest and node.type != "directory" and missing != "m":
            raise _error(errno.ENOTDIR, candidate)
        resolved = candidate
    return resolved


def _joined(ctx: Context, name: str) -> str:
    """The operand made absolute but not normalized: `l/..` is the parent of what l points
    to, not the directory holding l (readlink -f and realpath resolve physically)."""
    ctx.resolve(name)  # an empty operand names no file
    return name if name.startswith("/") else posixpath.join(ctx.cwd, name)


@command("ln [-fnsv] TARGET... [LINK|DIR]", "make symbolic links (-s; the VFS has no hard links)",
         errors=GNU)
async def ln(ctx: Context, args: list[str]) -> int:
    """Make LINK a symlink holding TARGET, or one link per TARGET inside DIR (named as the
    target's last component); with one operand, that link in the current directory. The
    target is stored as typed (relative to the link's directory). -s is required (no hard
    links: EPERM); -f replaces an existing LINK; -n treats a LINK that is a symlink to a
    directory as a file (replaced with -f, not entered); -v names each link made."""
    options = parse(args, "fnsvT", long={"symbolic": False, "force": False,
                                         "no-dereference": False, "verbose": False})
    operands = options.operands
    if not operands:
        raise UsageError("missing file operand")
    symbolic = "s" in options or "symbolic" in options
    force = "f" in options or "force" in options
    no_deref = bool({"n", "T", "no-dereference"} & options.flags)
    alone = len(operands) == 1
    if alone:
        operands = [operands[0], "."]
    *targets, last = operands
    last_path = ctx.resolve(last)
    if no_deref:
        into = lexists(ctx.vfs, last_path) and ctx.vfs.lstat(last_path).type == "directory"
    else:
        into = is_dir(ctx.vfs, last_path)
    if len(targets) > 1 and not into:
        code = errno.ENOTDIR if lexists(ctx.vfs, last_path) else errno.ENOENT
        ctx.err(f"target {quote_arg(last)}: {describe(_error(code, last_path))}")
        return 1
    status = 0
    for target in targets:
        if into:
            base = posixpath.basename(target.rstrip("/")) or target
            link = base if alone else posixpath.join(last, base)
            path = posixpath.join(last_path, base)
        else:
            link, path = last, last_path
        kind = "symbolic link" if symbolic else "hard link"
        try:
            if not symbolic:
                raise _error(errno.EPERM, path)
            if lexists(ctx.vfs, path):
                if not force:
                    raise _error(errno.EEXIST, path)
                if ctx.vfs.lstat(path).type == "directory":
                    ctx.err(f"{quote_arg(link)}: cannot overwrite directory")
                    status = 1
                    continue
                await ctx.vfs.unlink(path)
            await ctx.vfs.symlink(target, path)
        except OSError as exc:
            arrow = "" if exc.errno == errno.EEXIST else f" -> {quote_arg(target)}"
            if not symbolic:
                arrow = f" => {quote_arg(target)}"
            ctx.err(f"failed to create {kind} {quote_arg(link)}{arrow}: {describe(exc)}")
            status = 1
            continue
        if "v" in options or "verbose" in options:
            ctx.out(f"{quote_arg(link)} -> {quote_arg(target)}\n")
    return status


@command("readlink [-efmnqsv] PATH...", "print a symlink's target, or a canonical path (-f -e -m)",
         errors=GNU)
async def readlink(ctx: Context, args: list[str]) -> int:
    """Print the target each symlink holds, as written; a PATH that is not a symlink prints
    nothing and makes the status 1. -f: the canonical path instead (every link, `.` and `..`
    resolved; all but the last component must exist); -e: all must exist; -m: none need;
    -n: no newline after the last; -v: say why a PATH failed (-q, -s: do not)."""
    options = parse(args, "efmnqsvz", long={"canonicalize": False,
                                            "canonicalize-existing": False,
                                            "canonicalize-missing": False,
                                            "no-newline": False, "verbose": False})
    if not options.operands:
        raise UsageError("missing operand")
    modes = {"f": "f", "canonicalize": "f", "e": "e", "canonicalize-existing": "e",
             "m": "m", "canonicalize-missing": "m"}
    mode = next((modes[flag] for flag in reversed(options.order) if flag in modes), None)
    end = "\0" if "z" in options else "\n"
    lines = []
    status = 0
    for name in options.operands:
        try:
            path = _joined(ctx, name)
            lines.append(canonical(ctx.vfs, path, mode) if mode else ctx.vfs.readlink(path))
        except OSError as exc:
            if "v" in options or "verbose" in options:
                ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 1
    no_newline = ("n" in options or "no-newline" in options) and len(options.operands) == 1
    lines = lines if end == "\0" else [shown_name(line) for line in lines]
    text = end.join(lines) + ("" if no_newline or not lines else end)
    ctx.out(text)
    return status


@command("realpath [-emsqz] [--relative-to=DIR] PATH...",
         "print the canonical absolute path of each PATH", errors=GNU)
async def realpath(ctx: Context, args: list[str]) -> int:
    """Print each PATH with every symlink, `.` and `..` resolved; all but the last
    component must exist (-e: all of it; -m: none). -s (--no-symlinks): only `.` and `..`
    are resolved, symlinks left as they are; --relative-to=DIR prints the result relative to
    DIR (resolved the same way); -q: no messages; -z: NUL after each, not newline."""
    options = parse(args, "emsqzP", long={"canonicalize-existing": False,
                                           "canonicalize-missing": False, "strip": False,
                                           "no-symlinks": False, "quiet": False,
                                           "relative-to": True,
                                           "zero": False})
    if not options.operands:
        raise UsageError("missing operand")
    existing = "e" in options or "canonicalize-existing" in options
    mode = "e" if existing else "m" if "m" in options or "canonicalize-missing" in options \
        else "f"
    plain = bool({"s", "strip", "no-symlinks"} & options.flags)
    quiet = "q" in options or "quiet" in options

    def resolved(name: str) -> str:
        path = ctx.resolve(name) if plain else _joined(ctx, name)
        if not plain:
            return canonical(ctx.vfs, path, mode)
        if mode != "m":
            canonical(ctx.vfs, path, mode)  # the existence rules hold with -s too
        return path

    base = None
    status = 0
    try:
        if "relative-to" in options.values:
            base = resolved(options.values["relative-to"])
    except OSError as exc:
        if not quiet:
            ctx.err(f"{quote_name(options.values['relative-to'])}: {describe(exc)}")
        return 1
    end = "\0" if "z" in options or "zero" in options else "\n"
    for name in options.operands:
        try:
            path = resolved(name)
        except OSError as exc:
            if not quiet:
                ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 1
            continue
        shown = posixpath.relpath(path, base) if base else path
        ctx.out((shown if end == "\0" else shown_name(shown)) + end)
    return status
