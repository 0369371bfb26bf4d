"""`test EXPR` and `[ EXPR ]`: file tests over the VFS, string and integer comparisons,
``!``, ``-a``, ``-o`` and parentheses, read as POSIX says (by the number of arguments first,
so `[ -n ]` and `[ = ]` mean what they mean in bash). Status 0 true, 1 false, 2 an error."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..context import Context
from .registry import command

UNARY = set("efdLhsrwxnzbcpSgukOGt")
BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot",
          "-ef"}


class _TestError(Exception):
    """A malformed expression: status 2."""


class _Test:
    def __init__(self, ctx: Context, args: list[str]) -> None:
        self.ctx = ctx
        self.args = args
        self.pos = 0

    def evaluate(self) -> bool:
        args = self.args
        count = len(args)
        if count == 0:
            return False
        if count == 1:
            return args[0] != ""
        if count == 2:
            if args[0] == "!":
                return args[1] == ""
            return self.unary(args[0], args[1])
        if count == 3:
            if args[1] in BINARY:
                return self.binary(args[0], args[1], args[2])
            if args[1] in ("-a", "-o"):
                left, right = args[0] != "", args[2] != ""
                return (left and right) if args[1] == "-a" else (left or right)
            if args[0] == "!":
                return not _Test(self.ctx, args[1:]).evaluate()
            if args[0] == "(" and args[2] == ")":
                return args[1] != ""
        if count == 4 and args[0] == "!":
            return not _Test(self.ctx, args[1:]).evaluate()
        if count == 4 and args[0] == "(" and args[3] == ")":
            return _Test(self.ctx, args[1:3]).evaluate()
        result = self.or_()
        if self.pos < count:
            raise _TestError(f"{args[self.pos]}: unexpected argument" if self.pos else
                             "too many arguments")
        return result

    def peek(self) -> str | None:
        return self.args[self.pos] if self.pos < len(self.args) else None

    def or_(self) -> bool:
        return self.joined("-o", self.and_, any)

    def and_(self) -> bool:
        return self.joined("-a", self.not_, all)

    def joined(self, op: str, operand: Callable[[], bool],
               join: Callable[[list[bool]], bool]) -> bool:
        """Operands separated by ``op``, every one of them read (and tested), then joined."""
        results = [operand()]
        while self.peek() == op:
            self.pos += 1
            results.append(operand())
        return join(results)

    def not_(self) -> bool:
        if self.peek() == "!":
            self.pos += 1
            return not self.not_()
        return self.primary()

    def primary(self) -> bool:
        args, pos = self.args, self.pos
        token = self.peek()
        if token is None:
            raise _TestError("argument expected")
        if token == "(":
            self.pos += 1
            result = self.or_()
            if self.peek() != ")":
                raise _TestError("`)' expected")
            self.pos += 1
            return result
        if pos + 2 < len(args) and args[pos + 1] in BINARY:
            self.pos += 3
            return self.binary(token, args[pos + 1], args[pos + 2])
        if re.fullmatch(r"-[a-zA-Z]", token) and pos + 1 < len(args):
            self.pos += 2
            return self.unary(token, args[pos + 1])
        self.pos += 1
        return token != ""

    def unary(self, op: str, operand: str) -> bool:
        if len(op) != 2 or op[0] != "-" or op[1] not in UNARY:
            raise _TestError(f"{op}: unary operator expected")
        letter = op[1]
        if letter == "n":
            return operand != ""
        if letter == "z":
            return operand == ""
        if letter == "t" or not operand:
            return False
        vfs = self.ctx.vfs
        try:
            path = self.ctx.resolve(operand)
            node = vfs.lstat(path) if letter in "Lh" else vfs.stat(path)
        except OSError:
            return False
        checks = {
            "e": True, "f": node.type == "file", "d": node.type == "directory",
            "L": node.type == "symlink", "h": node.type == "symlink", "s": node.size > 0,
            "r": True, "w": bool(node.mode & 0o222), "x": bool(node.mode & 0o111),
            "O": True, "G": True,
        }
        return checks.get(letter, False)

    def binary(self, left: str, op: str, right: str) -> bool:
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op == "<":
            return left < right
        if op == ">":
            return left > right
        if op in ("-nt", "-ot", "-ef"):
            return self.compare_files(left, op, right)
        a, b = _integer(left), _integer(right)
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b,
                "-ge": a >= b}[op]

    def compare_files(self, left: str, op: str, right: str) -> bool:
        vfs = self.ctx.vfs
        stats = []
        for name in (left, right):
            try:
                stats.append(vfs.stat(self.ctx.resolve(name)))
            except OSError:
                stats.append(None)
        a, b = stats
        if op == "-ef":
            return a is not None and b is not None and \
                vfs.realpath(self.ctx.resolve(left)) == vfs.realpath(self.ctx.resolve(right))
        if op == "-nt":
            return a is not None and (b is None or a.mtime_ms > b.mtime_ms)
        return b is not None and (a is None or a.mtime_ms < b.mtime_ms)


def _integer(text: str) -> int:
    if not re.fullmatch(r"\s*[-+]?\d+\s*", text):
        raise _TestError(f"{text}: integer expression expected")
    return int(text)


async def _run(ctx: Context, args: list[str]) -> int:
    try:
        return 0 if _Test(ctx, args).evaluate() else 1
    except _TestError as exc:
        ctx.err(str(exc))
        return 2


@command("test EXPR", "evaluate a condition: file tests, string and integer comparisons",
         help_flag=False)
async def test(ctx: Context, args: list[str]) -> int:
    """Unary: -e -f -d -L/-h -s -r -w -x (a path on the disk), -n -z (a string); binary: = !=
    < > (strings), -eq -ne -lt -le -gt -ge (integers), -nt -ot -ef (files); ! -a -o and
    parentheses combine them. Status 0 when true, 1 when false, 2 for a malformed
    expression."""
    return await _run(ctx, args)


@command("[ EXPR ]", "the same as test, with a closing ]", help_flag=False)
async def bracket(ctx: Context, args: list[str]) -> int:
    """`[ EXPR ]` is `test EXPR`; the last argument must be `]`."""
    if not args or args[-1] != "]":
        ctx.err("missing `]'")
        return 2
    return await _run(ctx, args[:-1])
