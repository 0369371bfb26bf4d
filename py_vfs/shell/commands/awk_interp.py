"""awk's evaluator: statements and expressions of ``awk_parser``'s tuples, run against the
variables, arrays, the current record and the streams of one program run.

Everything is async (`getline`, `system` and pipes run commands of our shell). Loops, records
and calls count steps: every ``TICK`` steps the line's budget is charged one command and
Ctrl-C is looked at (``cancel.checkpoint``). Calls nest at most ``MAX_CALL_DEPTH`` deep, arrays
hold at most ``MAX_ELEMENTS`` elements each, strings ``limits.MAX_VALUE`` characters.
"""

from __future__ import annotations

import math
from typing import Any

from ...core import cancel
from ..limits import budget, check_value
from .awk_builtins import call_builtin
from .awk_parser import Node, Program
from .awk_record import Record
from .awk_regex import Regex, compile_ere
from .awk_values import (
    UNINIT,
    AwkError,
    StrNum,
    Value,
    compare,
    format_values,
    number_text,
    to_num,
    to_str,
    truth,
)

MAX_CALL_DEPTH = 100
MAX_ELEMENTS = 4_000_000
TICK = 256

Array = dict[str, Any]


class Next(Exception):
    """`next`: on to the next record."""


class NextFile(Exception):
    """`nextfile`: on to the next input file."""


class Exit(Exception):
    """`exit [status]`."""

    def __init__(self, status: int | None) -> None:
        super().__init__(status)
        self.status = status


class _Return(Exception):
    def __init__(self, value: Value) -> None:
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Interpreter:
    """One run of a program: globals, the call stack, the record, I/O hooks (set by the
    command: ``streams``, ``main_getline``, ``run_shell``)."""

    def __init__(self, program: Program, streams: Any) -> None:
        self.program = program
        self.streams = streams
        self.globals: dict[str, Any] = {}
        self.frames: list[list[Any]] = [[]]
        self.record = Record()
        self.steps = 0
        self.depth = 0
        self.range_active = [False] * len(program.rules)
        self.main_getline: Any = None  # async () -> str | None: the next main-input record
        self.run_shell: Any = None  # async (line) -> status: system()
        self.seed = 0.0
        self.random: Any = None
        self.expr_ops = {
            "regex": self.e_regex, "local": self.e_local, "field": self.e_field,
            "index": self.e_index, "in": self.e_in, "assign": self.e_assign, "cond": self.e_cond,
            "and": self.e_and, "or": self.e_or, "not": self.e_not, "match": self.e_match,
            "cmp": self.e_cmp, "concat": self.e_concat, "binary": self.e_binary,
            "neg": self.e_neg, "pos": self.e_pos, "preinc": self.e_preinc,
            "postinc": self.e_postinc, "call": self.e_call, "builtin": self.e_builtin,
            "getline": self.e_getline, "cmdgetline": self.e_cmdgetline, "group": self.e_group,
            "tuple": self.e_tuple,
        }
        self.stmt_ops = {
            "block": self.s_block, "expr": self.s_expr, "print": self.s_print,
            "printf": self.s_print, "if": self.s_if, "while": self.s_while, "do": self.s_do,
            "for": self.s_for, "forin": self.s_forin, "next": self.s_next,
            "nextfile": self.s_nextfile, "exit": self.s_exit, "return": self.s_return,
            "break": self.s_break, "continue": self.s_continue, "delete": self.s_delete,
        }

    # -- helpers -------------------------------------------------------------------------
    async def tick(self) -> None:
        """Count a step; every ``TICK`` charge the budget and let Ctrl-C in."""
        self.steps += 1
        if self.steps % TICK == 0:
            budget().command()
            await cancel.checkpoint("awk", 0, 0, "steps")

    def var(self, name: str) -> Any:
        """A global's value (UNINIT when unset)."""
        return self.globals.get(name, UNINIT)

    def convfmt(self) -> str:
        """CONVFMT, as a string."""
        return to_str(self.globals.get("CONVFMT", "%.6g"))

    def text(self, value: Value) -> str:
        """``value`` as a string (numbers through CONVFMT)."""
        if isinstance(value, str):
            return value
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return to_str(value, self.convfmt())

    def key(self, subs: list[Value]) -> str:
        """The array subscript of these values (joined by SUBSEP)."""
        if len(subs) == 1:
            return self.text(subs[0])
        return self.text(self.var("SUBSEP")).join(self.text(s) for s in subs)

    async def subscript(self, nodes: list[Node]) -> str:
        """The subscript the expressions ``nodes`` make."""
        return self.key([await self.ev(node) for node in nodes])

    def array(self, node: Node) -> Array:
        """The array a name stands for (created when the name was never set)."""
        if node[0] == "local":
            frame = self.frames[-1]
            value = frame[node[1]]
            if value is UNINIT:
                value = frame[node[1]] = {}
        else:
            value = self.globals.get(node[1], UNINIT)
            if value is UNINIT:
                value = self.globals[node[1]] = {}
        if not isinstance(value, dict):
            raise AwkError(f"fatal: attempt to use scalar `{node[-1]}' as an array")
        return value

    def scalar(self, value: Any, name: str) -> Value:
        """``value`` checked not to be an array."""
        if isinstance(value, dict):
            raise AwkError(f"fatal: attempt to use array `{name}' in a scalar context")
        return value

    def store(self, array: Array, key: str, value: Value) -> None:
        """array[key] = value, within ``MAX_ELEMENTS``."""
        if key not in array and len(array) >= MAX_ELEMENTS:
            raise AwkError(f"fatal: more than {MAX_ELEMENTS} elements in one array")
        array[key] = value

    def regex_of(self, value: Value | Regex) -> Regex:
        """A value used as a regular expression."""
        if isinstance(value, Regex):
            return value
        return compile_ere(self.text(value))

    async def pattern(self, node: Node) -> Regex:
        """The regular expression of a `~` operand or builtin argument."""
        if node[0] == "regex":
            return compile_ere(node[1])
        return self.regex_of(await self.ev(node))

    def set_record(self, text: str) -> None:
        """$0 = text, split under the current FS."""
        check_value("awk record", len(text))
        self.record.set(text, self.text(self.var("FS")), self.text(self.var("RS")) == "")

    async def assign(self, target: Node, value: Value) -> Value:
        """Store ``value`` in the lvalue ``target``; the value."""
        kind = target[0]
        if kind == "var":
            if isinstance(self.globals.get(target[1]), dict):
                raise AwkError(f"fatal: attempt to use array `{target[1]}' in a scalar context")
            self.globals[target[1]] = value
        elif kind == "local":
            self.frames[-1][target[1]] = value
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
            return node[1]  # type: ignore[no-any-return]
        if kind == "var":
            value = self.globals.get(node[1], UNINIT)
            if isinstance(value, dict):
                raise AwkError(f"fatal: attempt to use array `{node[1]}' in a scalar context")
            return value  # type: ignore[no-any-return]
        if kind == "nf":
            return float(self.record.nf())
        return await self.expr_ops[kind](node)  # type: ignore[no-any-return]

    async def e_regex(self, node: Node) -> Value:
        return 1.0 if compile_ere(node[1]).search(self.record.text) else 0.0

    async def e_local(self, node: Node) -> Value:
        return self.scalar(self.frames[-1][node[1]], node[2])

    async def e_field(self, node: Node) -> Value:
        return self.record.get(int(to_num(await self.ev(node[1]))))

    async def e_index(self, node: Node) -> Value:
        array = self.array(node[1])
        key = await self.subscript(node[2])
        value = array.get(key)
        if value is None:
            self.store(array, key, UNINIT)
            return UNINIT
        return value  # type: ignore[no-any-return]

    async def e_in(self, node: Node) -> Value:
        key = await self.subscript(node[1])
        return 1.0 if key in self.array(node[2]) else 0.0

    async def e_group(self, node: Node) -> Value:
        return await self.ev(node[1])

    async def e_tuple(self, node: Node) -> Value:
        raise AwkError("fatal: a parenthesized list outside print or `in'")

    async def e_assign(self, node: Node) -> Value:
        _, op, target, expr = node
        value = await self.ev(expr)
        if isinstance(value, dict):
            raise AwkError("fatal: attempt to use an array in a scalar context")
        if op != "=":
            value = self.arith(op[0], to_num(await self.ev(target)), to_num(value))
        return await self.assign(target, value)

    async def e_cond(self, node: Node) -> Value:
        return await self.ev(node[2] if truth(await self.ev(node[1])) else node[3])

    async def e_and(self, node: Node) -> Value:
        return 1.0 if truth(await self.ev(node[1])) and truth(await self.ev(node[2])) else 0.0

    async def e_or(self, node: Node) -> Value:
        return 1.0 if truth(await self.ev(node[1])) or truth(await self.ev(node[2])) else 0.0

    async def e_not(self, node: Node) -> Value:
        return 0.0 if truth(await self.ev(node[1])) else 1.0

    async def e_match(self, node: Node) -> Value:
        text = self.text(await self.ev(node[2]))
        found = (await self.pattern(node[3])).search(text)
        return 1.0 if found != node[1] else 0.0

    async def e_cmp(self, node: Node) -> Value:
        left, right = await self.ev(node[2]), await self.ev(node[3])
        return 1.0 if compare(node[1], left, right, self.convfmt()) else 0.0

    async def e_concat(self, node: Node) -> Value:
        left = self.text(await self.ev(node[1]))
        right = self.text(await self.ev(node[2]))
        check_value("awk string", len(left) + len(right))
        return left + right

    async def e_binary(self, node: Node) -> Value:
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

    async def e_neg(self, node: Node) -> Value:
        return -to_num(await self.ev(node[1]))

    async def e_pos(self, node: Node) -> Value:
        return to_num(await self.ev(node[1]))

    async def e_preinc(self, node: Node) -> Value:
        value = to_num(await self.ev(node[2])) + node[1]
        return await self.assign(node[2], value)

    async def e_postinc(self, node: Node) -> Value:
        value = to_num(await self.ev(node[2]))
        await self.assign(node[2], value + node[1])
        return value

    async def e_builtin(self, node: Node) -> Value:
        return await call_builtin(self, node[1], node[2])

    async def e_call(self, node: Node) -> Value:
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
        except _Return as result:
            return result.value
        finally:
            self.frames.pop()
            self.depth -= 1
        return UNINIT

    async def e_getline(self, node: Node) -> Value:
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

    async def e_cmdgetline(self, node: Node) -> Value:
        command = self.text(await self.ev(node[1]))
        reader = await self.streams.reader(command, True, None)
        return await self.read_into(reader, node[2], count=True)

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

    # -- statements ----------------------------------------------------------------------
    async def run(self, node: Node) -> None:
        """Run the statement ``node``."""
        await self.stmt_ops[node[0]](node)

    async def s_block(self, node: Node) -> None:
        for statement in node[1]:
            await self.stmt_ops[statement[0]](statement)

    async def s_expr(self, node: Node) -> None:
        await self.ev(node[1])

    async def s_print(self, node: Node) -> None:
        _, args, redirect, target = node
        if node[0] == "printf":
            values = [await self.ev(arg) for arg in args]
            fmt = self.text(values[0])
            text = format_values(fmt, values[1:], self.convfmt())
        elif not args:
            text = self.record.text + self.text(self.var("ORS"))
        else:
            ofmt = self.text(self.var("OFMT"))
            parts = []
            for arg in args:
                value = await self.ev(arg)
                parts.append(number_text(value, ofmt) if isinstance(value, float)
                             else value)
            text = self.text(self.var("OFS")).join(parts) + self.text(self.var("ORS"))
        check_value("awk output", len(text))
        name = self.text(await self.ev(target)) if target is not None else ""
        await self.streams.print(text, redirect, name)

    async def s_if(self, node: Node) -> None:
        if truth(await self.ev(node[1])):
            await self.run(node[2])
        elif node[3] is not None:
            await self.run(node[3])

    async def s_while(self, node: Node) -> None:
        while truth(await self.ev(node[1])):
            await self.tick()
            try:
                await self.run(node[2])
            except _Break:
                break
            except _Continue:
                continue

    async def s_do(self, node: Node) -> None:
        while True:
            await self.tick()
            try:
                await self.run(node[1])
            except _Break:
                break
            except _Continue:
                pass
            if not truth(await self.ev(node[2])):
                break

    async def s_for(self, node: Node) -> None:
        _, init, condition, step, body = node
        if init is not None:
            await self.run(init)
        while condition is None or truth(await self.ev(condition)):
            await self.tick()
            try:
                await self.run(body)
            except _Break:
                break
            except _Continue:
                pass
            if step is not None:
                await self.run(step)

    async def s_forin(self, node: Node) -> None:
        _, variable, array_node, body = node
        array = self.array(array_node)
        for key in list(array):
            if key not in array:
                continue
            await self.tick()
            await self.assign(variable, StrNum(key))
            try:
                await self.run(body)
            except _Break:
                break
            except _Continue:
                continue

    async def s_next(self, node: Node) -> None:
        raise Next

    async def s_nextfile(self, node: Node) -> None:
        raise NextFile

    async def s_exit(self, node: Node) -> None:
        raise Exit(None if node[1] is None else int(to_num(await self.ev(node[1]))) & 255)

    async def s_return(self, node: Node) -> None:
        value = UNINIT if node[1] is None else await self.ev(node[1])
        raise _Return(value)

    async def s_break(self, node: Node) -> None:
        raise _Break

    async def s_continue(self, node: Node) -> None:
        raise _Continue

    async def s_delete(self, node: Node) -> None:
        array = self.array(node[1])
        if node[2] is None:
            array.clear()
        else:
            array.pop(await self.subscript(node[2]), None)
