"""Compound commands: ``{ ...; }``, ``( ... )``, ``if``, ``for``, ``while``/``until`` and
``case``. Loops pass a safe point every iteration, so Ctrl-C stops even ``while true; do :;
done``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from ..core.globs import compile_glob
from .arith import ArithError, evaluate
from .control import LoopControl, cancel_point
from .syntax import ArithCommand, Case, For, Group, If, Node, Sequence, While
from .words import ExpansionError

if TYPE_CHECKING:
    from .redirects import Streams
    from .variables import Variables
    from .words import Expander


class Shell(Protocol):
    """What compound commands need of the interpreter (``interpreter.Shell``)."""

    variables: Variables
    status: int
    condition_depth: int  # inside a condition: `set -e` does not apply
    loop_depth: int

    def fork(self) -> Shell:
        """A subshell."""

    def expander(self, io: Streams) -> Expander:
        """Expands words against the shell's state now."""

    async def sequence(self, seq: Sequence, io: Streams) -> int:
        """Run a list of commands."""

    async def subshell_run(self, run: Callable[[], Awaitable[int]], io: Streams) -> int:
        """Run a subshell's body; ``exit`` and ``set -e`` end it with their status."""

    async def finish(self, io: Streams, status: int) -> int:
        """A subshell ending with ``status``: its EXIT trap runs; the status it ends with."""


async def run_compound(shell: Shell, node: Node, io: Streams) -> int:
    """Run one compound command in ``shell``; its status."""
    if isinstance(node, Group):
        if not node.subshell:
            return await shell.sequence(node.body, io)
        child = shell.fork()
        status = await child.finish(io, await child.subshell_run(
            lambda: child.sequence(node.body, io), io))
        shell.status = status
        return status
    if isinstance(node, If):
        return await _if(shell, node, io)
    if isinstance(node, For):
        return await _for(shell, node, io)
    if isinstance(node, While):
        return await _while(shell, node, io)
    if isinstance(node, ArithCommand):
        return await _arith(shell, node, io)
    assert isinstance(node, Case)
    return await _case(shell, node, io)


async def _condition(shell: Shell, cond: Sequence, io: Streams) -> int:
    shell.condition_depth += 1
    try:
        return await shell.sequence(cond, io)
    finally:
        shell.condition_depth -= 1


async def _if(shell: Shell, node: If, io: Streams) -> int:
    for cond, body in node.clauses:
        if await _condition(shell, cond, io) == 0:
            return await shell.sequence(body, io)
    if node.otherwise is not None:
        return await shell.sequence(node.otherwise, io)
    shell.status = 0
    return 0


async def _loop_body(shell: Shell, body: Sequence, io: Streams) -> tuple[int, bool]:
    """Run one iteration; (status, whether the loop goes on)."""
    await cancel_point()
    shell.loop_depth += 1
    try:
        return await shell.sequence(body, io), True
    except LoopControl as exc:
        if exc.count > 1:
            exc.count -= 1
            raise
        return shell.status, exc.again
    finally:
        shell.loop_depth -= 1


async def _for(shell: Shell, node: For, io: Streams) -> int:
    if node.words is None:
        values = list(shell.variables.positional)
    else:
        try:
            values = await shell.expander(io).fields(node.words)
        except ExpansionError as exc:
            io.stderr.write_nowait(f"sh: {exc}\n")
            return 1
    pending = iter(values)

    async def turn() -> bool:
        value = next(pending, None)
        if value is None:
            return False
        shell.variables.set(node.name, value)
        return True

    return await _loop(shell, node.body, io, turn)


async def _while(shell: Shell, node: While, io: Streams) -> int:
    async def turn() -> bool:
        await cancel_point()
        return (await _condition(shell, node.cond, io) == 0) != node.until

    return await _loop(shell, node.body, io, turn)


async def _loop(shell: Shell, body: Sequence, io: Streams,
                turn: Callable[[], Awaitable[bool]]) -> int:
    """Run ``body`` as long as ``turn()`` starts another turn and the body does not break out;
    the status is the last turn's (0 when there was none)."""
    status = 0
    while await turn():
        status, going = await _loop_body(shell, body, io)
        if not going:
            break
    shell.status = status
    return status


async def _arith(shell: Shell, node: ArithCommand, io: Streams) -> int:
    expr = await shell.expander(io).string(node.expr)
    variables = shell.variables
    try:
        value = evaluate(expr, lambda name: variables.get(name) or "",
                         lambda name, text: variables.set(name, text))
    except ArithError as exc:
        io.stderr.write_nowait(f"sh: ((: {expr.lstrip()}: {exc}\n")
        return 1
    return 0 if value else 1


async def _case(shell: Shell, node: Case, io: Streams) -> int:
    expander = shell.expander(io)
    try:
        subject = await expander.string(node.word)
        for patterns, body in node.items:
            for pattern in patterns:
                if compile_glob(await expander.pattern(pattern), "sh",
                                pathname=False).match(subject):
                    return await shell.sequence(body, io)
    except ExpansionError as exc:
        io.stderr.write_nowait(f"sh: {exc}\n")
        return 1
    shell.status = 0
    return 0
