"""Steps opened from JS (``vfs.step(fn)``): stepBegin, stepOp and stepEnd by id, answered for
the WebAPI (py_vfs/web/webapi.py) that began each step."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from ..core.errors import FsError
from ..fs.step import Step
from .protocol import NOT_IN_STEP


class StepHost(Protocol):
    """What a step needs of the API that begins it: its disk (or view), and its operations
    over a target (the step's transaction)."""

    vfs: Any

    def operations(self, target: Any) -> dict[str, Callable[..., Any]]:
        """The operation table over ``target``."""


class Steps:
    """The steps the page has open (JS ``vfs.step``): stepBegin, stepOp, stepEnd by id. One
    registry serves an API and its views' child APIs; a step answers only the API that began
    it (a view cannot reach the disk's own steps by their ids)."""

    def __init__(self) -> None:
        self.running: dict[int, tuple[Step, dict[str, Callable[..., Any]], StepHost]] = {}
        self._next = 1
        self._idle: asyncio.Event | None = None

    async def idle(self) -> None:
        while self.running:
            if self._idle is None:
                self._idle = asyncio.Event()
            await self._idle.wait()

    def table(self, api: StepHost) -> dict[str, Callable[..., Any]]:
        return {"stepBegin": lambda: self.begin(api),
                "stepOp": lambda step_id, op, *args: self.op(api, step_id, op, *args),
                "stepEnd": lambda step_id, commit: self.end(api, step_id, commit)}

    async def begin(self, api: StepHost) -> int:
        step = Step(api.vfs)
        tx = await step.begin(owned=False)
        step_id, self._next = self._next, self._next + 1
        ops = {name: f for name, f in api.operations(tx).items() if name not in NOT_IN_STEP}
        self.running[step_id] = (step, ops, api)
        return step_id

    def op(self, api: StepHost, step_id: int, op: str, *args: Any) -> Any:
        _, ops = self._found(api, step_id, op)
        if op not in ops:
            raise FsError.of("EINVAL", op, None)
        return ops[op](*args)

    async def end(self, api: StepHost, step_id: int, commit: bool) -> None:
        step, _ = self._found(api, step_id, "stepEnd")
        try:
            await step.end(commit=bool(commit))
        finally:
            del self.running[step_id]
            if not self.running and self._idle is not None:
                self._idle.set()
                self._idle = None

    def _found(self, api: StepHost, step_id: int, op: str
               ) -> tuple[Step, dict[str, Callable[..., Any]]]:
        if step_id not in self.running or self.running[step_id][2] is not api:
            raise FsError.of("EINVAL", op, None)
        return self.running[step_id][:2]
