"""The JS API's shell calls (docs/api.md): ``vfs.shell(line, options)`` and
``vfs.complete(line, cursor)``, over one ``Shell`` per API (its cwd carries over).

``shell`` collects the line's output into the answer, or, given ``emit`` (the worker adds it
when the page passed ``onOutput``: web/worker/worker.mjs), hands each piece on as it is written:
``emit(stream, bytes)`` posts an ``output`` message to the page. Given ``read`` (the page
passed ``input``), the line's standard input is what the user types: each ``read()`` asks the
page for more (``inputWanted``) and resolves to it, None at the end (Ctrl-D). With ``isatty``
and ``read``, the output's ``terminal`` (py_vfs/shell/terminal.py) is the page's terminal:
its size (the options ``rows`` and ``cols``) and its keys (``read(True)``: raw input, which
`less` reads).

``interactive`` (the terminal's lines) adds what a terminal needs: an unfinished line (an open
quote, ``if`` without ``fi``: the parser's ``needs_more``) is not run but answered
``{more: true}`` (the terminal asks for the rest); ``!`` events are expanded (the expanded line
is echoed first, as bash does); the line is recorded in the history
(py_vfs/shell/history_file.py); the answer carries the history list and HOME. A line whose
call is cancelled (Ctrl-C) stops where it is and answers status 130, as the scripts expect.

``runPython`` (``vfs.runPython(code, options)``) runs ``code`` as the shell's ``python -c CODE
ARG...`` does (the same command, so the same ``run_python``, globals and view: a session inside
a scoop runs it in the scoop), in a copy of the session (``cwd`` applies to this run only, a
shell function named ``python`` does not stand in), with the same output and input streams as
``shell``; ``stdin`` (text or bytes) is its whole standard input instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..core import cancel
from ..core.errors import FsError
from ..shell import Shell
from ..shell.complete import complete
from ..shell.context import resolve
from ..shell.control import INTERRUPTED, Interrupted
from ..shell.history_file import HistoryError, history_of
from ..shell.parser import needs_more
from ..shell.pipes import BrokenPipe, BytesInput, Collect, Emit, Input, NoInput, Output, StreamInput
from ..shell.terminal import Terminal
from .options import flag

# emit(stream, data): None, or an awaitable while the page is behind (web/worker/worker.mjs).
Emitter = Callable[[str, bytes], Any]
# read(raw=False): an awaitable of the next bytes the user typed, None at the end (Ctrl-D);
# read(True) asks for the keys as typed (raw mode: no echo, no line editing).
Reader = Callable[..., Any]


class ShellOps:
    """The shell operations of one API (the disk's, or a view's)."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.history = history_of(shell)

    def table(self) -> dict[str, Callable[..., Any]]:
        """Operation name -> function, for ``WebAPI``'s table."""
        return {"shell": self.run, "runPython": self.run_python,
                "complete": lambda line, cursor: complete(self.shell, line, int(cursor)).to_dict()}

    async def run(self, line: str, options: Any = None, emit: Emitter | None = None,
                  read: Reader | None = None) -> dict[str, Any]:
        """One line; see the module docstring."""
        interactive = flag(options, "interactive")
        isatty = flag(options, "isatty")
        terminal = None
        if isatty and read is not None:
            terminal = Terminal(_raw_reader(read), _option(options, "rows"),
                                _option(options, "cols"))
        stdout = _emitting(emit, "stdout", isatty, terminal)
        stderr = _emitting(emit, "stderr", isatty, terminal)
        extra: dict[str, Any] = {}
        if interactive:
            history = self.history
            await history.ensure_loaded()
            if needs_more(line, self.shell.aliases):
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
        stdin = None if read is None else StreamInput(
            _typed(read) if terminal is None else _cooked(terminal))
        if stdin is not None:
            stdin.terminal = terminal
        result = await self.shell.run(line, stdin=stdin, stdout=stdout, stderr=stderr)
        if interactive:
            extra.update(self._session())
            if extra["echo"] is not None and stdout is None:
                result.stdout = extra["echo"] + "\n" + result.stdout
        return {"stdout": result.stdout, "stderr": result.stderr, "code": result.code,
                "cwd": result.cwd, "open": list(result.open_urls), "scoop": result.scoop,
                "confirm": result.confirm, **extra}

    async def run_python(self, code: str, options: Any = None, emit: Emitter | None = None,
                         read: Reader | None = None) -> dict[str, Any]:
        """``code`` run as ``python -c code *args``: ``{stdout, stderr, code}``; see the module
        docstring. A ``cwd`` that is not a directory fails the call (ENOENT, ENOTDIR)."""
        options = options or {}
        shell = self.shell.fork()
        shell.functions = {}
        if options.get("cwd") is not None:
            path = resolve(shell.cwd, options["cwd"])
            if not shell.vfs.stat(path).is_dir:
                raise FsError.of("ENOTDIR", "chdir", options["cwd"])
            shell.cwd = path
        if read is not None and options.get("stdin") is not None:
            raise FsError.of("EINVAL", "runPython").with_hint("give stdin or input, not both")
        stdin: Input = NoInput()
        if read is not None:
            stdin = StreamInput(_typed(read))
        elif options.get("stdin") is not None:
            given = options["stdin"]  # text, or bytes (a memoryview from JS)
            stdin = BytesInput(given if isinstance(given, str) else bytes(given))
        stdout = _emitting(emit, "stdout", False) or Collect()
        stderr = _emitting(emit, "stderr", False) or Collect()
        argv = ["python", "-c", code, *options.get("args", [])]
        try:
            status = await shell.run_argv(argv, stdin, stdout, stderr)
        except Interrupted:
            status = INTERRUPTED
        for stream in (stdout, stderr):
            with contextlib.suppress(BrokenPipe, OSError):
                await stream.flush()
        return {"stdout": _text(stdout), "stderr": _text(stderr), "code": status}

    def _session(self) -> dict[str, Any]:
        return {"history": list(self.history.entries),
                "home": self.shell.environment().get("HOME") or "/"}

    async def _answer(self, message: str, code: int, stderr: Output | None,
                      interactive: bool) -> dict[str, Any]:
        if stderr is not None:
            await stderr.write(message)
        return {"stdout": "", "stderr": "" if stderr is not None else message, "code": code,
                "cwd": self.shell.cwd, "open": [], "scoop": self.shell.scoop_name,
                "confirm": None, **(self._session() if interactive else {})}


def _text(stream: Output) -> str:
    """What a collected stream holds ("" for one handed on as it was written)."""
    return stream.text() if isinstance(stream, Collect) else ""


async def _typed(read: Reader) -> AsyncIterator[bytes]:
    """What the user types, as the command asks for it (Uint8Array in the page)."""
    while True:
        data = await read()
        if data is None:
            return
        piece = data.to_bytes() if hasattr(data, "to_bytes") else bytes(data)
        if piece:
            yield piece


def _option(options: Any, name: str) -> Any:
    return options.get(name) if isinstance(options, dict) else None


def _raw_reader(read: Reader) -> Callable[..., Any]:
    """``read`` as the terminal calls it, its answer as bytes (or None)."""
    async def typed(*raw: bool) -> bytes | None:
        data = await read(*raw)
        if data is None:
            return None
        return data.to_bytes() if hasattr(data, "to_bytes") else bytes(data)
    return typed


async def _cooked(terminal: Terminal) -> AsyncIterator[bytes]:
    """The line's standard input on the terminal: its cooked lines, in turn with its keys."""
    while True:
        piece = await terminal.line()
        if piece is None:
            return
        if piece:
            yield piece


def _emitting(emit: Emitter | None, stream: str, isatty: bool,
              terminal: Terminal | None = None) -> Output | None:
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

    return Emit(send, isatty=isatty, terminal=terminal)
