"""awk's run state: globals, the call stack, the current record, and the values and arrays
they hold, with the memory they count toward the line's budget (``store``, ``track``); the
evaluator (awk_interp.py) computes over it.
"""

from __future__ import annotations

from typing import Any

from ...core import cancel
from .. import limits
from ..limits import budget, check_value
from .awk_parser import Node, Program
from .awk_record import Record
from .awk_regex import Regex, compile_ere
from .awk_values import (
    UNINIT,
    AwkError,
    Value,
    to_str,
)

MAX_ELEMENTS = 4_000_000
BIG_VALUE = 1 << 20  # a variable's value counted toward the budget from this size (``track``)
TICK = 256

Array = dict[str, Any]


def _size(value: Any) -> int:
    """What an element's value counts toward the arrays' budget."""
    return 64 + (len(value) if isinstance(value, str) else 0)


class State:
    """One program run's variables, arrays and record."""

    def __init__(self, program: Program, streams: Any) -> None:
        self.program = program
        self.streams = streams
        self.globals: dict[str, Any] = {}
        self.frames: list[list[Any]] = [[]]
        self.record = Record()
        self.steps = 0
        self.held = 0  # characters held by the arrays (``store``)
        self.big: dict[Any, int] = {}  # variables holding over BIG_VALUE characters
        self.big_total = 0
        self.depth = 0
        self.range_active = [False] * len(program.rules)
        self.main_getline: Any = None  # async () -> str | None: the next main-input record
        self.run_shell: Any = None  # async (line) -> status: system()
        self.seed = 0.0
        self.random: Any = None

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
        if node[0] not in ("var", "local"):
            raise AwkError("fatal: an array is needed here, not an expression")
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
        """array[key] = value, within ``MAX_ELEMENTS`` an array and the shell's
        ``limits.MAX_VARIABLES`` characters in all arrays (64 an element, as variables)."""
        old = array.get(key)
        if old is None:
            if len(array) >= MAX_ELEMENTS:
                raise AwkError(f"fatal: more than {MAX_ELEMENTS} elements in one array")
            change = len(key) + _size(value)
        else:
            change = _size(value) - _size(old)
        self.held += change
        if change > 0 and self.held > limits.MAX_VARIABLES:
            raise limits.exceeded("awk", f"arrays over {limits.MAX_VARIABLES} characters")
        array[key] = value

    def track(self, key: Any, value: Value) -> None:
        """Count a variable's value over ``BIG_VALUE`` characters toward the shell's
        ``limits.MAX_VARIABLES`` (smaller ones are bounded by how many variables there are)."""
        old = self.big.pop(key, 0)
        size = len(value) if type(value) is not float and len(value) > BIG_VALUE else 0
        self.big_total += size - old
        if size:
            self.big[key] = size
            if self.big_total > limits.MAX_VARIABLES:
                raise limits.exceeded("awk", f"variables over {limits.MAX_VARIABLES} characters")

    def remove(self, array: Array, key: str) -> None:
        """delete array[key]."""
        old = array.pop(key, None)
        if old is not None:
            self.held -= len(key) + _size(old)

    def clear(self, array: Array) -> None:
        """delete array: every element."""
        self.held -= sum(len(key) + _size(value) for key, value in array.items())
        array.clear()

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
        fs, rs = self.globals.get("FS", " "), self.globals.get("RS", "\n")
        self.record.set(text, fs if type(fs) is str else self.text(fs),
                        (rs if type(rs) is str else self.text(rs)) == "")
