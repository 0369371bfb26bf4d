"""The JS API's shell calls (docs/api.md): ``vfs.shell(line, options)`` and
``vfs.complete(line, cursor)``, over one ``Shell`` per API (its cwd carries over).

``shell`` collects the line's output into the answer, or, given ``emit`` (the worker adds it
when the page passed ``onOutput``: web/worker.mjs), hands each piece on as it is written:
``emit(stream, bytes)`` posts an ``output`` message to the page. ``interactive`` (the
terminal's lines) adds what a terminal needs: a line with an open quote is not run but answered
``{more: true}`` (the terminal asks for the rest), ``!`` events are expanded (the expanded line
is echoed first, as bash does), the line is recorded in the history
(py_vfs/shell/history_file.py) and the answer carries the history list and HOME. A line whose
call is cancelled (Ctrl-C) stops where it is and the call fails with ECANCELED: the shell's
status is 130.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from . import cancel
from .errors import FsError
from .shell import Shell
from .shell.complete import complete
from .shell.history_file import HistoryError
from .shell.parser import needs_more
from .shell.pipes import Emit, Output
from .web_args import flag

# emit(stream, data): None, or an awaitable while the page is behind (web/worker.mjs).
Emitter = Callable[[str, bytes], Any]


class ShellOps:
    """The shell operations of one API (the disk's, or a view's)."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell

    def table(self) -> dict[str, Callable[..., Any]]:
        """Operation name -> function, for ``WebAPI``'s table."""
        return {"shell": self.run,
                "complete": lambda line, cursor: complete(self.shell, line, int(cursor)).to_dict()}

    async def run(self, line: str, options: Any = None,
                  emit: Emitter | None = None) -> dict[str, Any]:
        """One line; see the module docstring."""
        interactive = flag(options, "interactive")
        isatty = flag(options, "isatty")
        stdout = _emitting(emit, "stdout", isatty)
        stderr = _emitting(emit, "stderr", isatty)
        extra: dict[str, Any] = {}
        if interactive:
            history = self.shell.history
            await history.ensure_loaded()
            if needs_more(line):
                return {"more": True}
            try:
                expanded = history.expand(line)
            except HistoryError as error:
                return await self._answer(f"sh: {error}\n", 1, stderr, interactive)
            if expanded != line and stdout is not None:
                stdout.write_nowait(expanded + "\n")
            extra["echo"] = expanded if expanded != line else None
            await history.add(expanded)
            line = expanded
        result = await self.shell.run(line, stdout=stdout, stderr=stderr)
        if interactive:
            extra.update(self._session())
            if extra["echo"] is not None and stdout is None:
                result.stdout = extra["echo"] + "\n" + result.stdout
        signal = cancel.SIGNAL.get()
        if signal is not None and signal.aborted:
            raise cancel.aborted("shell", "interrupted: status 130")
        return {"stdout": result.stdout, "stderr": result.stderr, "code": result.code,
                "cwd": result.cwd, "open": list(result.open_urls), "scoop": result.scoop,
                "confirm": result.confirm, **extra}

    def _session(self) -> dict[str, Any]:
        return {"history": list(self.shell.history.entries),
                "home": self.shell.environment().get("HOME") or "/"}

    async def _answer(self, message: str, code: int, stderr: Output | None,
                      interactive: bool) -> dict[str, Any]:
        if stderr is not None:
            await stderr.write(message)
        return {"stdout": "", "stderr": "" if stderr is not None else message, "code": code,
                "cwd": self.shell.cwd, "open": [], "scoop": self.shell.scoop_name,
                "confirm": None, **(self._session() if interactive else {})}


def _emitting(emit: Emitter | None, stream: str, isatty: bool) -> Output | None:
    if emit is None:
        return None

    async def send(data: bytes) -> None:
        waiting = emit(stream, data)
        if waiting is not None:  # the page is behind by more than the worker's window
            await waiting
        # The page's cancel message (Ctrl-C) gets in between two pieces of a long output; the
        # command itself stops at its next safe point or write.
        with contextlib.suppress(FsError):
            await cancel.checkpoint("shell", 0, 0, "pieces")

    return Emit(send, isatty=isatty)
