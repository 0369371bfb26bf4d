"""find: walk trees and act on what an expression selects, as GNU findutils does.

The walk is depth first, each directory before what it holds (after, with -depth or -delete),
entries in readdir order, which in the VFS is sorted by name (GNU goes in the file system's
order). Symlinks are never followed (find -P). The walk keeps an explicit stack, so any depth
the VFS allows (PATH_MAX bounds it) is walked, and it stops at a Ctrl-C between directories.
"""

from __future__ import annotations

import fnmatch
import math
import posixpath
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core import cancel
from ..context import Context, describe, list_entries, list_names
from ..format import quote_arg, shown_name
from .registry import command

if TYPE_CHECKING:
    from ...core.node import Stat
    from ..disk import Disk

TYPES = {"f": "file", "d": "directory", "l": "symlink"}
UNITS = {"c": 1, "w": 2, "b": 512, "k": 1024, "M": 1024**2, "G": 1024**3}
DAY_MS = 86_400_000
MAX_BATCH = 1000  # paths per command of `-exec ... {} +` (GNU: as many as ARG_MAX allows)


class FindError(Exception):
    """A bad expression, worded as GNU find words it (status 1)."""


@dataclass
class Visit:
    """One node the walk reached: its path as shown, its absolute path, its type (from
    readdir), its depth; its lstat is looked up only when a test needs it (a path lookup
    costs as much as the path is deep)."""

    shown: str
    path: str
    kind: str
    depth: int
    vfs: Disk
    prune: bool = False
    _node: Stat | None = None

    @property
    def node(self) -> Stat:
        """The node's lstat."""
        if self._node is None:
            self._node = self.vfs.lstat(self.path)
        return self._node


Test = Callable[[Visit], Awaitable[bool]]


@dataclass
class _Plan:
    """The parsed command line: start points, the expression, the global options."""

    starts: list[str]
    test: Test
    maxdepth: int | None = None
    mindepth: int = 0
    depth_first: bool = False
    batches: list[_Batch] = field(default_factory=list)


@dataclass
class _Batch:
    """`-exec CMD {} +`: paths gathered and run in groups."""

    argv: list[str]
    paths: list[str] = field(default_factory=list)
    status: int = 0


@command("find [PATH...] [EXPRESSION]", "search directory trees for what an expression selects")
async def find(ctx: Context, args: list[str]) -> int:
    """Walk each PATH (default .) and evaluate EXPRESSION for every node; prints the path of
    each node it is true for unless the expression has an action.

    Tests: -name/-iname PATTERN (the last component; * ? [...] as in the shell, `*` also
    matches a leading dot), -path/-ipath PATTERN (the whole path as printed), -type f|d|l
    (or a comma list), -size [+-]N[cwbkMG], -mtime/-mmin [+-]N, -newer FILE, -empty, -true,
    -false. Options: -maxdepth N, -mindepth N, -depth. Actions: -print, -print0, -delete,
    -prune, -exec CMD {} ; (per node, true when CMD exits 0), -exec CMD {} + (paths in
    batches). Operators: ! or -not, -a or -and (also implied), -o or -or, ( ... ), as GNU
    find."""
    try:
        plan = _Parser(ctx, args).parse()
    except FindError as exc:
        ctx.err(str(exc))
        return 1
    status = 0
    for start in plan.starts:
        if not await _walk(ctx, plan, start):
            status = 1
    for batch in plan.batches:
        await _flush(ctx, batch)
        status = status or batch.status
    return status


async def _walk(ctx: Context, plan: _Plan, start: str) -> bool:
    """Evaluate the expression over one start point's tree; False when something failed."""
    try:
        path = ctx.resolve(start)
        node = ctx.vfs.lstat(path)
    except OSError as exc:
        ctx.err(f"{quote_arg(start)}: {describe(exc)}")
        return False
    ok = True
    # The stack holds what is left to do: (visit, whether its entries were pushed already).
    stack: list[tuple[Visit, bool]] = [(Visit(start, path, node.type, 0, ctx.vfs, _node=node),
                                        False)]
    seen = 0
    while stack:
        visit, expanded = stack.pop()
        descend = visit.kind == "directory" and (
            plan.maxdepth is None or visit.depth < plan.maxdepth)
        if expanded or not plan.depth_first or not descend:
            if visit.depth >= plan.mindepth:
                ok = await _evaluate(ctx, plan, visit) and ok
            if expanded or plan.depth_first or not descend or visit.prune:
                continue
        if plan.depth_first:
            stack.append((visit, True))
        try:
            entries = list_entries(ctx.vfs, visit.path)
        except OSError as exc:
            ctx.err(f"{quote_arg(visit.shown)}: {describe(exc)}")
            ok = False
            continue
        join = "" if visit.shown.endswith("/") else "/"
        children = [(Visit(visit.shown + join + entry.name, posixpath.join(visit.path, entry.name),
                           entry.type, visit.depth + 1, ctx.vfs), False) for entry in entries]
        stack.extend(reversed(children))
        seen += 1
        await cancel.checkpoint("find", seen, 0, "directories")
    return ok


async def _evaluate(ctx: Context, plan: _Plan, visit: Visit) -> bool:
    """Run the expression on one node; False when an action on it failed."""
    try:
        await plan.test(visit)
    except _ActionFailed:
        return False
    return True


class _ActionFailed(Exception):
    """An action (-delete) failed on one node; reported already, the walk goes on."""


class _Parser:
    """GNU find's expression grammar: or-expressions of and-expressions of negations of
    primaries and parenthesised expressions."""

    def __init__(self, ctx: Context, args: list[str]) -> None:
        self.ctx = ctx
        at = next((i for i, arg in enumerate(args)
                   if (arg.startswith("-") and arg != "-") or arg in ("!", "(")), len(args))
        self.starts = args[:at] or ["."]
        self.tokens = args[at:]
        self.pos = 0
        self.plan = _Plan(self.starts, _always)
        self.has_action = False
        self.now_ms = time.time() * 1000

    def parse(self) -> _Plan:
        test = self._or() if self.tokens else _always
        if self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            if token == ")":
                raise FindError("invalid expression; you have too many ')'")
            raise FindError(f"paths must precede expression: `{token}'")
        if not self.has_action:
            test = _and(test, self._print("\n"))
        self.plan.test = test
        return self.plan

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _next(self) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def _argument(self, primary: str) -> str:
        if self.pos >= len(self.tokens):
            raise FindError(f"missing argument to `{primary}'")
        return self._next()

    def _or(self) -> Test:
        test = self._and()
        while self._peek() in ("-o", "-or"):
            self._next()
            if self._peek() in (None, ")"):
                raise FindError("invalid expression; you have used a binary operator '-o' "
                                "with nothing after it.")
            test = _either(test, self._and())
        return test

    def _and(self) -> Test:
        test = self._not()
        while (token := self._peek()) is not None and token not in ("-o", "-or", ")"):
            if token in ("-a", "-and"):
                self._next()
            test = _and(test, self._not())
        return test

    def _not(self) -> Test:
        token = self._peek()
        if token in ("!", "-not"):
            self._next()
            inner = self._not()

            async def negated(visit: Visit) -> bool:
                return not await inner(visit)

            return negated
        if token == "(":
            self._next()
            if self._peek() == ")":
                raise FindError("invalid expression; empty parentheses are not allowed.")
            inner = self._or()
            if self._peek() != ")":
                raise FindError("invalid expression; I was expecting to find a ')' somewhere "
                                "but did not see one.")
            self._next()
            return inner
        if token is None:
            raise FindError("invalid expression")
        return self._primary(self._next())

    def _primary(self, primary: str) -> Test:
        simple = {"-true": _always, "-false": _never, "-empty": self._empty,
                  "-print": self._print("\n"), "-print0": self._print("\0"),
                  "-prune": _prune, "-delete": self._delete}
        if primary in simple:
            if primary in ("-print", "-print0", "-delete"):
                self.has_action = True
            if primary == "-delete":
                self.plan.depth_first = True
            return simple[primary]
        if primary in ("-depth", "-d"):
            self.plan.depth_first = True
            return _always
        if primary in ("-maxdepth", "-mindepth"):
            value = self._argument(primary)
            if not value.isdigit():
                raise FindError(f"Expected a positive decimal integer argument to {primary}, "
                                f"but got {quote_arg(value)}")
            if primary == "-maxdepth":
                self.plan.maxdepth = int(value)
            else:
                self.plan.mindepth = int(value)
            return _always
        if primary in ("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"):
            return _match(primary, self._argument(primary))
        if primary == "-type":
            return _type(self._argument(primary))
        if primary == "-size":
            return _size(self._argument(primary))
        if primary in ("-mtime", "-mmin"):
            return _age(primary, self._argument(primary), self.now_ms)
        if primary == "-newer":
            return self._newer(self._argument(primary))
        if primary in ("-exec", "-execdir", "-ok"):
            if primary != "-exec":
                raise FindError(f"{primary} is not supported (no terminal input, no "
                                "per-directory runs); use -exec")
            self.has_action = True
            return self._exec()
        if not primary.startswith("-"):
            raise FindError(f"paths must precede expression: `{primary}'")
        raise FindError(f"unknown predicate `{primary}'")

    def _print(self, end: str) -> Test:
        async def show(visit: Visit) -> bool:
            await self.ctx.write((visit.shown if end == "\0" else shown_name(visit.shown)) + end)
            return True
        return show

    async def _empty(self, visit: Visit) -> bool:
        if visit.kind == "directory":
            try:
                return not list_names(self.ctx.vfs, visit.path)
            except OSError:
                return False
        return visit.kind == "file" and visit.node.size == 0

    async def _delete(self, visit: Visit) -> bool:
        if visit.shown in (".", ".."):
            return True  # GNU never deletes the start point "."
        try:
            if visit.kind == "directory":
                await self.ctx.vfs.rmdir(visit.path)
            else:
                await self.ctx.vfs.unlink(visit.path)
        except OSError as exc:
            self.ctx.err(f"cannot delete {quote_arg(visit.shown)}: {describe(exc)}")
            raise _ActionFailed from exc
        return True

    def _newer(self, reference: str) -> Test:
        try:
            mtime = self.ctx.vfs.stat(self.ctx.resolve(reference)).mtime_ms
        except OSError as exc:
            raise FindError(f"{quote_arg(reference)}: {describe(exc)}") from exc

        async def newer(visit: Visit) -> bool:
            return visit.node.mtime_ms > mtime
        return newer

    def _exec(self) -> Test:
        argv: list[str] = []
        while True:
            if self.pos >= len(self.tokens):
                raise FindError("missing argument to `-exec'")
            token = self._next()
            if token == ";" or (token == "+" and argv and argv[-1] == "{}"):
                break
            argv.append(token)
        if not argv:
            raise FindError("missing argument to `-exec'")
        if token == "+":
            batch = _Batch(argv[:-1])
            self.plan.batches.append(batch)

            async def gather(visit: Visit) -> bool:
                batch.paths.append(visit.shown)
                if len(batch.paths) >= MAX_BATCH:
                    await _flush(self.ctx, batch)
                return True
            return gather

        async def run(visit: Visit) -> bool:
            await self.ctx.stdout.flush()
            status = await self.ctx.run([arg.replace("{}", visit.shown) for arg in argv])
            return status == 0
        return run


async def _flush(ctx: Context, batch: _Batch) -> None:
    """Run `-exec CMD {} +` on the paths gathered so far; a failure makes find's status 1."""
    if batch.paths:
        await ctx.stdout.flush()
        if await ctx.run([*batch.argv, *batch.paths]) != 0:
            batch.status = 1
        batch.paths.clear()


async def _always(visit: Visit) -> bool:
    return True


async def _never(visit: Visit) -> bool:
    return False


async def _prune(visit: Visit) -> bool:
    visit.prune = True
    return True


def _and(left: Test, right: Test) -> Test:
    async def both(visit: Visit) -> bool:
        return await left(visit) and await right(visit)
    return both


def _either(left: Test, right: Test) -> Test:
    async def one(visit: Visit) -> bool:
        return await left(visit) or await right(visit)
    return one


def _match(primary: str, pattern: str) -> Test:
    """-name and -path: fnmatch without FNM_PERIOD (a `*` matches a leading dot)."""
    fold = primary.startswith("-i")
    regex = re.compile(fnmatch.translate(pattern), re.IGNORECASE if fold else 0)
    whole = "path" in primary

    async def matches(visit: Visit) -> bool:
        name = visit.shown if whole else posixpath.basename(visit.shown.rstrip("/")) or "/"
        return regex.match(name) is not None
    return matches


def _type(letters: str) -> Test:
    kinds = set()
    for letter in letters.split(","):
        if letter in TYPES:
            kinds.add(TYPES[letter])
        elif letter in ("b", "c", "p", "s", "D"):
            kinds.add(letter)  # kinds the VFS has none of: never true
        else:
            raise FindError(f"Unknown argument to -type: {letter}")

    async def typed(visit: Visit) -> bool:
        return visit.kind in kinds
    return typed


def _compare(value: float, spec: str) -> bool:
    """GNU's numeric arguments: +N more than N, -N less than N, N exactly."""
    number = int(spec.lstrip("+-"))
    if spec.startswith("+"):
        return value > number
    if spec.startswith("-"):
        return value < number
    return value == number


def _size(spec: str) -> Test:
    match = re.fullmatch(r"([+-]?\d+)([cwbkMG]?)", spec)
    if not match:
        raise FindError(f"invalid -size type {quote_arg(spec)}")
    count, unit = match.groups()
    size = UNITS[unit or "b"]

    async def sized(visit: Visit) -> bool:
        # Rounded up to whole units, as GNU does (so -size -1M is only the empty files).
        return _compare(math.ceil(visit.node.size / size), count)
    return sized


def _age(primary: str, spec: str, now_ms: float) -> Test:
    if not re.fullmatch(r"[+-]?\d+", spec):
        raise FindError(f"invalid argument {quote_arg(spec)} to {quote_arg(primary)}")
    unit = DAY_MS if primary == "-mtime" else 60_000

    async def aged(visit: Visit) -> bool:
        age = (now_ms - visit.node.mtime_ms) / unit
        # -mtime counts whole days (rounded down); -mmin compares the exact minutes rounded up.
        return _compare(math.floor(age) if unit == DAY_MS else math.ceil(age), spec)
    return aged

