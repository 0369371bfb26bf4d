"""diff of two paths, files or directories, as GNU diff compares them.

Two directories: their entries in name order (bytes, the C locale); a name in one only is
`Only in DIR: NAME` (with -N it is compared with an empty file, or a directory walked against
nothing), a pair of files is diffed under a header `diff OPTIONS A/NAME B/NAME` (the options as
they were typed), a pair of subdirectories is `Common subdirectories: A and B` or, with -r,
compared in turn; a file facing a directory is said so. Symlinks are followed, as GNU does; a
directory met again below itself is a `recursive directory loop` (status 2) instead of a walk
without end, and ``MAX_DEPTH`` bounds the walk anyway.
"""

from __future__ import annotations

import errno
import fnmatch
from dataclasses import dataclass, field

from ...core import cancel
from ..context import Context, describe
from ..format import shown_name
from ..pipes import StreamInput
from .diff_format import lines, normal_diff, stamp, unified_diff

MAX_DEPTH = 512  # directory levels diff -r walks below its operands


@dataclass
class DiffJob:
    """What the command line asked."""
    unified: bool = False
    context: int = 3
    brief: bool = False
    same: bool = False  # -s: say so of identical files too
    recursive: bool = False
    new_file: bool = False  # -N: a missing file is an empty one
    switches: str = ""  # the options as typed, for `diff -r A/x B/x` headers
    exclude: list[str] = field(default_factory=list)  # -x PATTERN: names left out
    compared: int = 0  # files compared so far (for cancellation)


@dataclass
class _Side:
    path: str | None  # absolute, None when missing (-N) or standard input
    shown: str  # as the user named it
    kind: str  # "file", "directory", "missing", "stdin"
    mtime_ms: float | None = None


def _join(shown: str, name: str) -> str:
    return shown + name if shown.endswith("/") else f"{shown}/{name}"


def side(ctx: Context, shown: str, path: str | None) -> _Side:
    """What an operand or an entry names (OSError when it cannot be looked at)."""
    if shown == "-" and path is None:
        return _Side(None, shown, "stdin")
    if path is None:
        return _Side(None, shown, "missing")
    node = ctx.vfs.stat(path)
    kind = "directory" if node.type == "directory" else "file"
    return _Side(path, shown, kind, node.mtime_ms)


async def _content(ctx: Context, one: _Side) -> bytes:
    if one.kind == "missing":
        return b""
    if one.kind == "stdin":
        return await ctx.stdin.read_all()
    assert one.path is not None
    return await StreamInput(ctx.vfs.open_read(one.path)).read_all()


class Walk:
    """One diff: compares pairs of sides and prints what GNU diff prints; ``status`` is the
    worst so far (0 same, 1 different, 2 trouble)."""

    def __init__(self, ctx: Context, job: DiffJob) -> None:
        self.ctx, self.job, self.status = ctx, job, 0
        self.stack: list[str] = []  # the real paths of the directories being walked

    def note(self, status: int) -> None:
        """Keep the worst status."""
        self.status = max(self.status, status)

    async def files(self, a: _Side, b: _Side, top: bool) -> None:
        """Two files (or a file and a missing one with -N)."""
        ctx, job = self.ctx, self.job
        job.compared += 1
        await cancel.checkpoint("diff", job.compared, job.compared, "files")
        first, second = await _content(ctx, a), await _content(ctx, b)
        names = (shown_name(a.shown), shown_name(b.shown))
        if first == second:
            if job.same:
                ctx.out(f"Files {names[0]} and {names[1]} are identical\n")
            return
        self.note(1)
        if job.brief:
            ctx.out(f"Files {names[0]} and {names[1]} differ\n")
            return
        if b"\0" in first[:32768] or b"\0" in second[:32768]:
            ctx.out(f"Binary files {names[0]} and {names[1]} differ\n")
            return
        if not top:
            ctx.out(f"diff{job.switches} {names[0]} {names[1]}\n")
        old, new = lines(first), lines(second)
        if job.unified:
            stamps = (stamp(a.mtime_ms if a.kind != "missing" else 0),
                      stamp(b.mtime_ms if b.kind != "missing" else 0))
            text = unified_diff(old, new, names, stamps, job.context)
        else:
            text = normal_diff(old, new)
        await ctx.write(text.encode("utf-8", "surrogateescape"))

    async def directories(self, a: _Side, b: _Side, depth: int) -> None:
        """Two directories (or one and a missing one with -N -r)."""
        ctx = self.ctx
        real = [ctx.vfs.realpath(one.path) for one in (a, b) if one.path is not None]
        if any(path in self.stack for path in real) or depth > MAX_DEPTH:
            looped = next((one for one in (a, b) if one.path is not None), a)
            ctx.err(f"{shown_name(looped.shown)}: recursive directory loop")
            self.note(2)
            return
        self.stack.extend(real)
        try:
            await self._entries(a, b, depth)
        finally:
            del self.stack[len(self.stack) - len(real):]

    async def _entries(self, a: _Side, b: _Side, depth: int) -> None:
        ctx, job = self.ctx, self.job
        listed = []
        for one in (a, b):
            names = ctx.vfs.readdir(one.path) if one.path is not None else []
            listed.append({str(name) for name in names})
        names = {name for name in listed[0] | listed[1]
                 if not any(fnmatch.fnmatchcase(name, pattern) for pattern in job.exclude)}
        for name in sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape")):
            pair = []
            try:
                for one, names in zip((a, b), listed, strict=True):
                    pair.append(side(ctx, _join(one.shown, name),
                                     f"{one.path}/{name}" if name in names else None))
            except OSError as exc:
                ctx.err(f"{shown_name(_join((a, b)[len(pair)].shown, name))}: {describe(exc)}")
                self.note(2)
                continue
            left, right = pair
            lone = left if right.kind == "missing" else right if left.kind == "missing" else None
            if lone is not None and not (job.new_file and (lone.kind == "file"
                                                           or job.recursive)):
                owner = a if lone is left else b
                ctx.out(f"Only in {shown_name(owner.shown)}: {shown_name(name)}\n")
                self.note(1)
                continue
            try:
                await self.pair(left, right, depth + 1)
            except OSError as exc:
                ctx.err(f"{shown_name(left.shown)}: {describe(exc)}")
                self.note(2)

    async def pair(self, a: _Side, b: _Side, depth: int) -> None:
        """Compare whatever ``a`` and ``b`` are, ``depth`` levels below the operands."""
        job = self.job
        kinds = {a.kind, b.kind}
        if kinds <= {"directory", "missing"}:
            if depth and not job.recursive:
                self.ctx.out(f"Common subdirectories: {shown_name(a.shown)} and "
                             f"{shown_name(b.shown)}\n")
                return
            await self.directories(a, b, depth)
            return
        if "directory" in kinds:
            shown = [shown_name(one.shown) for one in (a, b)]
            what = ["directory" if one.kind == "directory" else "regular file"
                    for one in (a, b)]
            self.ctx.out(f"File {shown[0]} is a {what[0]} while file {shown[1]} is a "
                         f"{what[1]}\n")
            self.note(1)
            return
        await self.files(a, b, depth == 0)


async def diff_paths(ctx: Context, job: DiffJob, operands: list[str]) -> int:
    """`diff [OPTIONS] A B`: compare the two operands (files, directories, `-`); status 0
    same, 1 different, 2 trouble."""
    walk = Walk(ctx, job)
    found: list[_Side | None] = []
    for name in operands:
        try:
            found.append(side(ctx, name, None if name == "-" else ctx.resolve(name)))
        except OSError as exc:
            if job.new_file and getattr(exc, "errno", None) == errno.ENOENT:
                found.append(None)
                continue
            ctx.err(f"{shown_name(name)}: {describe(exc)}")
            return 2
    if found[0] is None and found[1] is None:
        for name in operands:
            ctx.err(f"{shown_name(name)}: No such file or directory")
        return 2
    a = found[0] or _Side(None, operands[0], "missing")
    b = found[1] or _Side(None, operands[1], "missing")
    # A directory against a file or `-`: the file of the same name in the directory.
    try:
        if a.kind == "directory" and b.kind in ("file", "stdin"):
            a = _inside(ctx, a, operands[1])
        elif b.kind == "directory" and a.kind in ("file", "stdin"):
            b = _inside(ctx, b, operands[0])
    except OSError as exc:
        ctx.err(describe(exc) if "-" in operands else f"{exc.filename}: {describe(exc)}")
        return 2
    if {a.kind, b.kind} == {"missing", "directory"}:
        await walk.directories(a, b, 0)
    else:
        try:
            await walk.pair(a, b, 0)
        except OSError as exc:
            ctx.err(describe(exc))
            return 2
    return walk.status


def _inside(ctx: Context, directory: _Side, name: str) -> _Side:
    base = name.rstrip("/").rsplit("/", 1)[-1]
    if name == "-":
        raise OSError(errno.EINVAL, "cannot compare '-' to a directory")
    shown = _join(directory.shown, base)
    assert directory.path is not None
    try:
        return side(ctx, shown, f"{directory.path}/{base}")
    except OSError as exc:
        exc.filename = shown_name(shown)
        raise
