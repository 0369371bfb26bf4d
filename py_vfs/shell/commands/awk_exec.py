"""awk's statements: blocks, `if`, the loops, `print`/`printf` with their redirections,
`next`, `nextfile`, `exit`, `return`, `break`, `continue` and `delete`, over the expressions of
``awk_interp.Evaluator``.
"""

from __future__ import annotations

from ..limits import check_value
from .awk_interp import (
    BreakLoop,
    ContinueLoop,
    Evaluator,
    Exit,
    Next,
    NextFile,
    ReturnValue,
)
from .awk_parser import Node, Program
from .awk_values import UNINIT, StrNum, format_values, number_text, to_num, truth


class Interpreter(Evaluator):
    """A program's run: ``Evaluator`` with the statements."""

    def __init__(self, program: Program, streams: object) -> None:
        """Ready to run ``program`` with ``streams`` (``awk_io.Streams``)."""
        super().__init__(program, streams)
        self.stmt_ops.update({
            "block": self._s_block, "expr": self._s_expr, "print": self._s_print,
            "printf": self._s_print, "if": self._s_if, "while": self._s_while, "do": self._s_do,
            "for": self._s_for, "forin": self._s_forin, "next": self._s_next,
            "nextfile": self._s_nextfile, "exit": self._s_exit, "return": self._s_return,
            "break": self._s_break, "continue": self._s_continue, "delete": self._s_delete,
        })

    async def _s_block(self, node: Node) -> None:
        for statement in node[1]:
            await self.stmt_ops[statement[0]](statement)

    async def _s_expr(self, node: Node) -> None:
        await self.ev(node[1])

    async def _s_print(self, node: Node) -> None:
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

    async def _s_if(self, node: Node) -> None:
        if truth(await self.ev(node[1])):
            await self.run(node[2])
        elif node[3] is not None:
            await self.run(node[3])

    async def _s_while(self, node: Node) -> None:
        while truth(await self.ev(node[1])):
            await self.tick()
            try:
                await self.run(node[2])
            except BreakLoop:
                break
            except ContinueLoop:
                continue

    async def _s_do(self, node: Node) -> None:
        while True:
            await self.tick()
            try:
                await self.run(node[1])
            except BreakLoop:
                break
            except ContinueLoop:
                pass
            if not truth(await self.ev(node[2])):
                break

    async def _s_for(self, node: Node) -> None:
        _, init, condition, step, body = node
        if init is not None:
            await self.run(init)
        while condition is None or truth(await self.ev(condition)):
            await self.tick()
            try:
                await self.run(body)
            except BreakLoop:
                break
            except ContinueLoop:
                pass
            if step is not None:
                await self.run(step)

    async def _s_forin(self, node: Node) -> None:
        _, variable, array_node, body = node
        array = self.array(array_node)
        for key in list(array):
            if key not in array:
                continue
            await self.tick()
            await self.assign(variable, StrNum(key))
            try:
                await self.run(body)
            except BreakLoop:
                break
            except ContinueLoop:
                continue

    async def _s_next(self, node: Node) -> None:
        raise Next

    async def _s_nextfile(self, node: Node) -> None:
        raise NextFile

    async def _s_exit(self, node: Node) -> None:
        raise Exit(None if node[1] is None else int(to_num(await self.ev(node[1]))) & 255)

    async def _s_return(self, node: Node) -> None:
        value = UNINIT if node[1] is None else await self.ev(node[1])
        raise ReturnValue(value)

    async def _s_break(self, node: Node) -> None:
        raise BreakLoop

    async def _s_continue(self, node: Node) -> None:
        raise ContinueLoop

    async def _s_delete(self, node: Node) -> None:
        array = self.array(node[1])
        if node[2] is None:
            self.clear(array)
        else:
            self.remove(array, await self.subscript(node[2]))
