"""Running a Python script in this Python (Pyodide in the page, CPython in ``python -m py_vfs
shell``): ``python FILE``, ``python -c CODE``, an executable ``.py`` run by name.

A run gets fresh globals: ``__name__ == "__main__"``, ``vfs`` (the shell's disk, or its scoop's
view: ``await vfs.read_file(path)``...), ``cwd`` (the shell's directory; in the page Python's
own ``open()``, ``os``, ``pathlib``... see the VFS at the shell's paths, ``os.getcwd()`` being
``cwd``: py_vfs/pyhost) and ``env`` (the exported variables; a
dict, since ``os.environ`` is the whole process's). Top-level ``await`` is allowed.

``sys.argv``, ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` are the run's: the three streams are
switches that send each call to the streams of the run whose task makes it (a context
variable), so two scripts in one pipeline write where each should; outside a run they are the
process's own.

Python's reads and writes are synchronous and the pipeline's are not. Where the call may block
(``blocking.can_block``: in the page, with JSPI) each read of ``sys.stdin`` waits for the
pipeline's next piece and each write goes out at once, while the page's event loop runs the
other stages; Ctrl-C ends a script waiting there (status 130). Elsewhere (CPython's shell,
Pyodide without JSPI) output goes out whenever the script awaits and at its end, what a script
writes without awaiting is held up to ``HELD_LIMIT`` bytes (past which its write raises
``OSError`` EFBIG), and standard input is read before the script starts (up to
``STDIN_LIMIT`` bytes).
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextlib
import errno
import inspect
import io
import linecache
import os
import sys
import traceback
from collections.abc import Generator
from contextvars import ContextVar
from typing import Any

from .. import pyhost
from ..core import blocking, cancel
from .context import Context
from .control import INTERRUPTED, Interrupted, interruptible
from .pipes import SIGPIPE_STATUS, BrokenPipe, Input, NoInput, Output
from .realm import code_start, confined, run_in_realm

HELD_LIMIT = 64 << 20  # what a script may write between two awaits
STDIN_LIMIT = 64 << 20  # what is read of standard input for the script


class _Sink(io.RawIOBase):
    """A script's stdout or stderr: bytes held until the runner hands them on (``drain``)."""

    def __init__(self, output: Output, blocks: bool) -> None:
        super().__init__()
        self.output = output
        self.blocks = blocks  # each write goes out at once (blocking.block_on)
        self.held = bytearray()
        self.broken = False  # the reader is gone: the next write raises BrokenPipeError

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        piece = bytes(data)
        if self.broken:
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        if self.blocks:
            self.held += piece
            _blocked(self.drain(), "write")
            if self.broken:
                raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
            return len(piece)
        if len(self.held) + len(piece) > HELD_LIMIT:
            raise OSError(errno.EFBIG, f"more than {HELD_LIMIT} bytes written without an "
                                       "await: await something (asyncio.sleep(0)) to let it out")
        self.held += piece
        return len(piece)

    def isatty(self) -> bool:
        return self.output.isatty

    async def drain(self) -> None:
        """Hand on what is held; a reader that is gone marks the sink broken."""
        if not self.held or self.broken:
            return
        piece = bytes(self.held)
        self.held.clear()
        try:
            await self.output.write(piece)
        except BrokenPipe:
            self.broken = True


class _Source(io.RawIOBase):
    """A script's stdin where the call may block: each read waits for the pipeline's next piece
    (what the script wrote is out first, so a prompt shows before its answer is read)."""

    def __init__(self, stdin: Input, sinks: tuple[_Sink, ...]) -> None:
        super().__init__()
        self.stdin = stdin
        self.sinks = sinks
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self.pending:
            for sink in self.sinks:
                _blocked(sink.drain(), "write")
            self.pending = _blocked(self.stdin.read(), "read")
        count = min(len(buffer), len(self.pending))
        buffer[:count] = self.pending[:count]
        self.pending = self.pending[count:]
        return count


def _blocked(awaitable: Any, syscall: str) -> Any:
    """``awaitable``'s result, the script blocked on it; the call's signal aborting ends the
    wait with ``Interrupted`` (Ctrl-C while a script waits for input)."""
    signal = cancel.SIGNAL.get()

    async def waited() -> Any:
        task = asyncio.ensure_future(awaitable)
        if signal is None:
            return await task
        woken = asyncio.get_running_loop().create_future()
        remove = signal.on_abort(lambda: woken.done() or woken.set_result(None))
        try:
            await asyncio.wait([task, woken], return_when=asyncio.FIRST_COMPLETED)
        finally:
            remove()
        if task.done():
            return task.result()
        return _ABORTED

    if signal is not None and signal.aborted:
        raise Interrupted()
    result = blocking.block_on(waited())
    if result is _ABORTED:
        raise Interrupted()
    return result


_ABORTED = object()  # what a blocked wait gives when the call's signal aborted it


class _Streams:
    """One run's three standard streams."""

    def __init__(self, stdin: io.RawIOBase, stdout: _Sink, stderr: _Sink) -> None:
        self.stdin = io.TextIOWrapper(io.BufferedReader(stdin), encoding="utf-8",
                                      errors="replace")
        self.stdout = io.TextIOWrapper(stdout, encoding="utf-8", errors="surrogateescape",
                                       write_through=True)
        self.stderr = io.TextIOWrapper(stderr, encoding="utf-8", errors="backslashreplace",
                                       write_through=True)
        self.sinks = (stdout, stderr)


_CURRENT: ContextVar[_Streams | None] = ContextVar("py_vfs_python_streams", default=None)


class _Switch:
    """``sys.stdout`` (or stdin, stderr) while scripts run: the current run's stream, else the
    process's own."""

    def __init__(self, name: str, own: Any) -> None:
        self._name = name
        self.own = own

    def _target(self) -> Any:
        streams = _CURRENT.get()
        return self.own if streams is None else getattr(streams, self._name)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._target(), attribute)

    def __iter__(self) -> Any:
        return iter(self._target())


_runs = [0]  # how many scripts run now: the switches are in place while any does


def _install() -> None:
    if _runs[0] == 0:
        for name in ("stdin", "stdout", "stderr"):
            setattr(sys, name, _Switch(name, getattr(sys, name)))
    _runs[0] += 1


def _uninstall() -> None:
    _runs[0] -= 1
    if _runs[0] == 0:
        for name in ("stdin", "stdout", "stderr"):
            switch = getattr(sys, name)
            if isinstance(switch, _Switch):
                setattr(sys, name, switch.own)


class _Flushing:
    """Awaits the script's coroutine, handing its output on each time it suspends (so output
    streams while the script awaits, with no task of its own)."""

    def __init__(self, coroutine: Any, sinks: tuple[_Sink, ...]) -> None:
        self.coroutine = coroutine
        self.sinks = sinks

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine = self.coroutine
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                try:
                    yielded = coroutine.throw(thrown) if thrown else coroutine.send(sent)
                except StopIteration as stop:
                    return stop.value
                sent, thrown = None, None
                for sink in self.sinks:
                    yield from sink.drain().__await__()
                try:
                    sent = yield yielded
                except BaseException as exc:  # a cancel: the script may catch it
                    thrown = exc
        finally:
            coroutine.close()


async def _stdin_bytes(ctx: Context) -> bytes:
    if isinstance(ctx.stdin, NoInput):
        return b""
    data = bytearray()
    while len(data) <= STDIN_LIMIT and (chunk := await ctx.stdin.read()):
        data += chunk
    if len(data) > STDIN_LIMIT:
        raise OSError(errno.EFBIG, f"standard input beyond {STDIN_LIMIT} bytes")
    return bytes(data)


async def run_python(ctx: Context, source: str | bytes, filename: str, argv: list[str]) -> int:
    """Run ``source`` as the script ``filename`` with ``sys.argv == argv``; its exit status:
    0, ``SystemExit``'s code, 1 for an uncaught exception (its traceback on stderr), 130 when
    the call's signal aborts it. A shell confined to a view (a scoop) runs it in the view's
    realm instead (py_vfs/shell/realm.py), never in this Python."""
    if confined(ctx):
        text = source if isinstance(source, str) else source.decode("utf-8", "replace")
        return await run_in_realm(ctx, code_start(ctx, "python", filename, text, argv))
    return await run_here(ctx, source, filename, argv)


async def run_here(ctx: Context, source: str | bytes, filename: str, argv: list[str]) -> int:
    """``run_python`` in this Python: the run's globals, streams and file API bound here."""
    try:
        code = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                       dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        ctx.stderr.write_nowait("".join(traceback.format_exception_only(exc)))
        return 1
    text = source if isinstance(source, str) else source.decode("utf-8", "replace")
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    blocks = blocking.can_block()
    sinks = (_Sink(ctx.stdout, blocks), _Sink(ctx.stderr, blocks))
    if blocks and not isinstance(ctx.stdin, NoInput):
        stdin: io.RawIOBase = _Source(ctx.stdin, sinks)
    else:
        try:
            stdin = io.BytesIO(await _stdin_bytes(ctx))
        except OSError as exc:
            ctx.err(str(exc.strerror or exc))
            return 1
    streams = _Streams(stdin, *sinks)
    namespace = {"__name__": "__main__", "__file__": filename, "__builtins__": builtins,
                 "vfs": ctx.vfs, "cwd": ctx.cwd, "env": dict(ctx.env)}
    token = _CURRENT.set(streams)
    saved_argv = sys.argv
    sys.argv = list(argv)
    _install()
    # In the page, Python's own file API sees the run's VFS and cwd (py_vfs/pyhost); elsewhere
    # the VFS runs on this thread's loop, which a synchronous call cannot wait for.
    host = pyhost.session(pyhost.Binding(pyhost.PageRunner(), ctx.cwd)) if blocks \
        else contextlib.nullcontext()
    try:
        with host:
            async with interruptible():
                status = await _execute(code, namespace, streams, filename)
    except Interrupted:
        status = INTERRUPTED
    finally:
        _uninstall()
        sys.argv = saved_argv
        _CURRENT.reset(token)
        linecache.cache.pop(filename, None)
    if status == INTERRUPTED:  # what it wrote after its last await is dropped, as with ^C
        return status
    for sink in sinks:
        await sink.drain()
    return SIGPIPE_STATUS if sinks[0].broken and status != 0 else status


async def _execute(code: Any, namespace: dict[str, Any], streams: _Streams,
                   filename: str) -> int:
    try:
        result = eval(code, namespace)  # running the user's script is the point
        if inspect.iscoroutine(result):
            await _Flushing(result, streams.sinks)
        return 0
    except SystemExit as exc:
        return _exit_status(exc, streams)
    except Interrupted:
        raise
    except Exception as exc:
        if isinstance(exc, BrokenPipeError) and streams.sinks[0].broken:
            return SIGPIPE_STATUS
        streams.stderr.write(_traceback(exc, filename))
        return 1
    finally:
        for stream in (streams.stdout, streams.stderr):
            stream.flush()


def _exit_status(exc: SystemExit, streams: _Streams) -> int:
    """``sys.exit(n)``: n; ``sys.exit("message")``: the message on stderr and 1, as CPython."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    streams.stderr.write(f"{exc.code}\n")
    return 1


def _traceback(exc: BaseException, filename: str) -> str:
    """The traceback CPython prints, from the script's first frame on (not the runner's)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))


async def run_python_file(ctx: Context, path: str, args: list[str]) -> int:
    """Run the script at ``path`` (absolute) with ``args``: ``sys.argv`` is ``[path, *args]``."""
    data = await ctx.vfs.read_file(path)
    return await run_python(ctx, data, path, [path, *args])
