"""awk's evaluator: statements and expressions of ``awk_parser``'s tuples, run against the
variables, arrays, the current record and the streams of one program run.

Everything is async (`getline`, `system` and pipes run commands of our shell). Loops, records
and calls count steps: every ``TICK`` steps the line's budget is charged one command and
Ctrl-C is looked at (``cancel.checkpoint``). Calls nest at most ``MAX_CALL_DEPTH`` deep, arrays
hold at most ``MAX_ELEMENTS`` elements each, strings ``limits.MAX_VALUE`` characters.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from ..limits import check_value
from . import awk_state
from .awk_builtins import call_builtin
from .awk_parser import Node, Program
from .awk_regex import compile_ere
from .awk_state import State
from .awk_values import (
    UNINIT,
    AwkError,
    StrNum,
    Value,
    compare,
    to_num,
    truth,
)

MAX_CALL_DEPTH = 100
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne}





class Next(Exception):
    """`next`: on to the next record."""


class NextFile(Exception):
    """`nextfile`: on to the next input file."""


class Exit(Exception):
    """`exit [status]`."""

    def __init__(self, status: int | None) -> None:
        super().__init__(status)
        self.status = status


class ReturnValue(Exception):
    """`return value` out of a function."""

    def __init__(self, value: Value) -> None:
        super().__init__()
        self.value = value


class BreakLoop(Exception):
    """`break`."""


class ContinueLoop(Exception):
    """`continue`."""


class Evaluator(State):
    """One run of a program: globals, the call stack, the record, I/O hooks (set by the
    command: ``streams``, ``main_getline``, ``run_shell``); expressions here, statements in
    ``awk_exec.Interpreter``."""

    def __init__(self, program: Program, streams: Any) -> None:
        super().__init__(program, streams)
        self.expr_ops = {
            "regex": self._e_regex, "local": self._e_local, "field": self._e_field,
            "index": self._e_index, "in": self._e_in, "assign": self._e_assign,
            "cond": self._e_cond, "and": self._e_and, "or": self._e_or, "not": self._e_not,
            "match": self._e_match,
            "cmp": self._e_cmp, "concat": self._e_concat, "binary": self._e_binary,
            "chain": self._e_chain,
            "neg": self._e_neg, "pos": self._e_pos, "preinc": self._e_preinc,
            "postinc": self._e_postinc, "call": self._e_call, "builtin": self._e_builtin,
            "getline": self._e_getline, "cmdgetline": self._e_cmdgetline, "group": self._e_group,
            "tuple": self._e_tuple,
        }
        self.stmt_ops: dict[str, Any] = {}  # the statements' (``awk_exec``)

    async def assign(self, target: Node, value: Value) -> Value:
        """Store ``value`` in the lvalue ``target``; the value."""
        kind = target[0]
        if kind == "var":
            if isinstance(self.globals.get(target[1]), dict):
                raise AwkError(f"fatal: attempt to use array `{target[1]}' in a scalar context")
            self.globals[target[1]] = value
            if self.big or (type(value) is not float and len(value) > awk_state.BIG_VALUE):
                self.track(target[1], value)
        elif kind == "local":
            frame = self.frames[-1]
            frame[target[1]] = value
            if self.big or (type(value) is not float and len(value) > awk_state.BIG_VALUE):
                self.track((id(frame), target[1]), value)
        elif kind == "field":
            index = int(to_num(await self.ev(target[1])))
            if index == 0:
                self.set_record(self.text(value))
            else:
                self.record.assign(index, self.text(value), self.text(self.var("OFS")))
        elif kind == "index":
            array = self.array(target[1])
            self.store(array, await self.subscript(target[2]), value)
        elif kind == "nf":
            self.record.set_nf(int(to_num(value)), self.text(self.var("OFS")))
        else:
            raise AwkError("fatal: assignment to a non-variable")
        return value

    # -- expressions ---------------------------------------------------------------------
    async def ev(self, node: Node) -> Value:
        """The value of the expression ``node``."""
        kind = node[0]
        if kind == "num" or kind == "str":
            return node[1]
        if kind == "var":
            value = self.globals.get(node[1], UNINIT)
            if isinstance(value, dict):
                raise AwkError(f"fatal: attempt to use array `{node[1]}' in a scalar context")
            return value
        if kind == "nf":
            return float(self.record.nf())
        return await self.expr_ops[kind](node)

    async def _e_regex(self, node: Node) -> Value:
        return 1.0 if compile_ere(node[1]).search(self.record.text) else 0.0

    async def _e_local(self, node: Node) -> Value:
        return self.scalar(self.frames[-1][node[1]], node[2])

    async def _e_field(self, node: Node) -> Value:
        return self.record.get(int(to_num(await self.ev(node[1]))))

    async def _e_index(self, node: Node) -> Value:
        array = self.array(node[1])
        key = await self.subscript(node[2])
        value = array.get(key)
        if value is None:
            self.store(array, key, UNINIT)
            return UNINIT
        return value

    async def _e_in(self, node: Node) -> Value:
        key = await self.subscript(node[1])
        return 1.0 if key in self.array(node[2]) else 0.0

    async def _e_group(self, node: Node) -> Value:
        return await self.ev(node[1])

    async def _e_tuple(self, node: Node) -> Value:
        raise AwkError("fatal: a parenthesized list outside print or `in'")

    async def _e_assign(self, node: Node) -> Value:
        _, op, target, expr = node
        value = await self.ev(expr)
        if isinstance(value, dict):
            raise AwkError("fatal: attempt to use an array in a scalar context")
        if op != "=":
            value = self.arith(op[0], to_num(await self.ev(target)), to_num(value))
        return await self.assign(target, value)

    async def _e_cond(self, node: Node) -> Value:
        return await self.ev(node[2] if truth(await self.ev(node[1])) else node[3])

    async def _e_and(self, node: Node) -> Value:
        for item in node[1]:  # a chain a && b && c, flat: no recursion per operand
            if not truth(await self.ev(item)):
                return 0.0
        return 1.0

    async def _e_or(self, node: Node) -> Value:
        for item in node[1]:
            if truth(await self.ev(item)):
                return 1.0
        return 0.0

    async def _e_not(self, node: Node) -> Value:
        return 0.0 if truth(await self.ev(node[1])) else 1.0

    async def _e_match(self, node: Node) -> Value:
        text = self.text(await self.ev(node[2]))
        found = (await self.pattern(node[3])).search(text)
        return 1.0 if found != node[1] else 0.0

    async def _e_cmp(self, node: Node) -> Value:
        left, right = await self.ev(node[2]), await self.ev(node[3])
        if type(left) is float and type(right) is float:  # the common case, without CONVFMT
            return 1.0 if _COMPARE[node[1]](left, right) else 0.0
        return 1.0 if compare(node[1], left, right, self.convfmt()) else 0.0

    async def _e_concat(self, node: Node) -> Value:
        parts = [self.text(await self.ev(item)) for item in node[1]]
        check_value("awk string", sum(map(len, parts)))
        return "".join(parts)

    async def _e_chain(self, node: Node) -> Value:
        value = to_num(await self.ev(node[1]))
        for op, item in node[2]:  # a + b - c..., flat: no recursion per operand
            value = self.arith(op, value, to_num(await self.ev(item)))
        return value

    async def _e_binary(self, node: Node) -> Value:
        left = to_num(await self.ev(node[2]))
        return self.arith(node[1], left, to_num(await self.ev(node[3])))

    def arith(self, op: str, left: float, right: float) -> float:
        """``left op right`` for `+ - * / % ^`."""
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/":
            if right == 0:
                raise AwkError("fatal: division by zero attempted")
            return left / right
        if op == "%":
            if right == 0:
                raise AwkError("fatal: division by zero attempted in `%'")
            return math.fmod(left, right)
        try:
            return math.pow(left, right)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.nan

    async def _e_neg(self, node: Node) -> Value:
        return -to_num(await self.ev(node[1]))

    async def _e_pos(self, node: Node) -> Value:
        return to_num(await self.ev(node[1]))

    async def _e_preinc(self, node: Node) -> Value:
        value = to_num(await self.ev(node[2])) + node[1]
        return await self.assign(node[2], value)

    async def _e_postinc(self, node: Node) -> Value:
        value = to_num(await self.ev(node[2]))
        await self.assign(node[2], value + node[1])
        return value

    async def _e_builtin(self, node: Node) -> Value:
        return await call_builtin(self, node[1], node[2])

    async def _e_call(self, node: Node) -> Value:
        function = self.program.functions[node[1]]
        args = node[2]
        if len(args) > len(function.params):
            raise AwkError(f"fatal: function `{node[1]}' called with more arguments than "
                           "declared")
        if self.depth >= MAX_CALL_DEPTH:
            raise AwkError(f"fatal: function calls nested more than {MAX_CALL_DEPTH} deep")
        frame: list[Any] = []
        for position in range(len(function.params)):
            if position >= len(args):
                frame.append(UNINIT)
                continue
            arg = args[position]
            if arg[0] in ("var", "local"):
                value = self.globals.get(arg[1], UNINIT) if arg[0] == "var" else \
                    self.frames[-1][arg[1]]
                if value is UNINIT and position in function.arrays:
                    value = self.array(arg)
                frame.append(value)
            else:
                frame.append(await self.ev(arg))
        await self.tick()
        self.frames.append(frame)
        self.depth += 1
        try:
            await self.run(function.body)
        except ReturnValue as result:
            return result.value
        finally:
            done = self.frames.pop()
            for local in done[len(args):]:
                if isinstance(local, dict):  # a local array: gone with its call
                    self.clear(local)
            if self.big:
                for index in range(len(done)):
                    self.track((id(done), index), 0.0)
            self.depth -= 1
        return UNINIT

    async def _e_getline(self, node: Node) -> Value:
        _, target, source = node
        if source is None:
            got = await self.main_getline()
            if got is None:
                return 0.0
            if target is None:
                self.set_record(got)
            else:
                await self.assign(target, StrNum(got))
            return 1.0
        reader = await self.streams.reader(self.text(await self.ev(source)), False,
                                           self.streams.stdin)
        return await self.read_into(reader, target, count=False)

    async def _e_cmdgetline(self, node: Node) -> Value:
        command = self.text(await self.ev(node[1]))
        reader = await self.streams.reader(command, True, None)
        return await self.read_into(reader, node[2], count=False)  # gawk leaves NR

    async def read_into(self, reader: Any, target: Node | None, *, count: bool) -> Value:
        """One record of ``reader`` into $0 or ``target``: 1, 0 at the end, -1 on error."""
        if reader is None:
            return -1.0
        got = await reader.read(self.text(self.var("RS")))
        if got is None:
            return 0.0
        self.globals["RT"] = got[1]
        if count:
            self.globals["NR"] = to_num(self.var("NR")) + 1
        if target is None:
            self.set_record(got[0])
            if count:
                self.globals["FNR"] = to_num(self.var("FNR")) + 1
        else:
            await self.assign(target, StrNum(got[0]))
        return 1.0

    async def run(self, node: Node) -> None:
        """Run the statement ``node``."""
        await self.stmt_ops[node[0]](node)
