"""How a parsed program runs: lists, pipelines, compound commands, simple commands with their
expansions and redirections, functions, and the dispatch of a command to a builtin, a
function or a script. ``Shell`` (interpreter.py) is an ``Execution`` with its session state."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from ..views.page_disks import working
from . import scripts
from .commands import COMMANDS
from .compound import run_compound
from .context import Context, FileOutput, describe
from .control import (
    ControlFlow,
    ExitShell,
    Interrupted,
    LoopControl,
    ReturnFrom,
    cancel_point,
)
from .format import quote_name, visible
from .limits import budget, run_stages
from .pipes import SIGPIPE_STATUS, BrokenPipe, Collect, NoInput, Output, Pipe
from .redirects import RedirectError, Streams
from .syntax import AndOr, FunctionDef, Node, Pipeline, Redirected, Sequence, Simple
from .timing import Stopwatch
from .traps import err_trap, exit_trap
from .variables import Variables
from .words import Expander, ExpansionError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

PID = 4242  # what $$ says: there are no processes


def say(stderr: Output, message: str) -> None:
    """One line of the shell's own on stderr: ``sh: message``, its control characters shown."""
    stderr.write_nowait(visible(f"sh: {message}") + "\n")


def internal_error(stderr: Output, exc: Exception) -> int:
    """An exception no command expected (a bug): one line on stderr and status 1, instead of a
    traceback on CPython or a bare EIO in the page; the rest of the line still runs."""
    first = (str(exc).splitlines() or [""])[0]
    say(stderr, f"internal error: {type(exc).__name__}{': ' + first if first else ''}")
    return 1


class Execution:
    """The running of syntax nodes over a shell's state (its variables, functions, aliases,
    status and depths, which ``Shell`` holds)."""

    variables: Variables
    functions: dict[str, Node]
    aliases: dict[str, str]
    status: int
    traps: dict[str, str]
    in_trap: bool
    function_depth: int
    condition_depth: int

    # -- lists and pipelines ----------------------------------------------------------------

    async def sequence(self, seq: Sequence, io: Streams) -> int:
        """Run the and-or lists one after the other; the status is the last one's."""
        status = 0
        for item in seq.items:
            try:
                status = await self.and_or(item, io)
            except (ControlFlow, BrokenPipe, ExpansionError):
                raise
            except Exception as exc:  # a bug, not the user's program: say so, go on
                status = self.status = internal_error(io.stderr, exc)
        return status

    async def and_or(self, node: AndOr, io: Streams) -> int:
        """``a && b || c``: a skipped pipeline leaves the status as it was."""
        self.condition_depth += bool(node.rest)
        try:
            status = await self.pipeline(node.first, io)
            for index, (connector, pipeline) in enumerate(node.rest):
                if (connector == "&&") != (status == 0):
                    continue
                if index == len(node.rest) - 1:
                    self.condition_depth -= 1
                    try:
                        status = await self.pipeline(pipeline, io)
                    finally:
                        self.condition_depth += 1
                else:
                    status = await self.pipeline(pipeline, io)
        finally:
            self.condition_depth -= bool(node.rest)
        return status

    async def pipeline(self, pipeline: Pipeline, io: Streams) -> int:
        """Run the stages at once, each reading the previous one's output through a bounded
        pipe; each stage of a pipeline runs in a subshell, as in bash without lastpipe. The
        status is the last stage's (``set -o pipefail``: the last failing one's), inverted by
        ``!``; ``time`` reports how long it took on standard error (timing.py)."""
        if pipeline.timed is None:
            return await self._pipeline(pipeline, io)
        watch = Stopwatch()
        try:
            return await self._pipeline(pipeline, io)
        finally:
            io.stderr.write_nowait(watch.report(self.variables.get("TIMEFORMAT"),
                                                posix=pipeline.timed == "posix"))

    async def _pipeline(self, pipeline: Pipeline, io: Streams) -> int:
        budget().command()
        await cancel_point()
        if pipeline.negate:
            self.condition_depth += 1
        try:
            if len(pipeline.commands) == 1:
                statuses = [await self.command(pipeline.commands[0], io)]
            else:
                statuses = await self._stages(pipeline.commands, io)
        finally:
            if pipeline.negate:
                self.condition_depth -= 1
        status = statuses[-1]
        if self.variables.options.pipefail:
            status = next((s for s in reversed(statuses) if s), 0)
        if pipeline.negate:
            status = int(status == 0)
        self.status = status
        if status and not self.condition_depth and not pipeline.negate:
            await err_trap(self, io, status)
            if self.variables.options.errexit:
                raise ExitShell(status)
        return status

    async def _stages(self, commands: list[Node], io: Streams) -> list[int]:
        pipes = [Pipe() for _ in commands[1:]]

        async def stage(index: int) -> int:
            stdin = pipes[index - 1].reader if index else io.stdin
            stdout = pipes[index].writer if index < len(pipes) else io.stdout
            shell = self.fork()
            streams = io.with_(stdin=stdin, stdout=stdout)
            try:
                return await shell.finish(streams, await shell.subshell_run(
                    lambda: shell.command(commands[index], streams), streams))
            except BrokenPipe:
                return SIGPIPE_STATUS
            finally:
                if index < len(pipes):
                    await pipes[index].writer.close()
                if index:
                    pipes[index - 1].reader.close()

        results = await run_stages(len(commands), stage)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return [result for result in results if not isinstance(result, BaseException)]

    async def subshell_run(self, run: Callable[[], Awaitable[int]], io: Streams) -> int:
        """Run a subshell's body (a pipeline stage, ``( )``): ``exit``, ``set -e`` and an
        expansion error end it with their status; ``break``/``return`` leave it."""
        try:
            return await run()
        except (ExitShell, ExpansionError) as exc:
            if isinstance(exc, ExpansionError):
                say(io.stderr, str(exc))
            return exc.status
        except (LoopControl, ReturnFrom):
            return self.status

    async def finish(self, io: Streams, status: int) -> int:
        """A shell process (script, subshell, stage, substitution) ending with ``status``:
        its EXIT trap runs; the status it ends with."""
        if not self.traps:
            return status
        return await exit_trap(self, io, status)

    # -- commands ---------------------------------------------------------------------------

    async def command(self, node: Node, io: Streams) -> int:
        """Run one command of a pipeline: simple or compound."""
        if isinstance(node, Simple):
            return await self.simple(node, io)
        if isinstance(node, Redirected):
            files: list[FileOutput] = []
            try:
                inner = await io.apply(node.redirects, self.vfs, self.cwd, self.expander(io),
                                     files)
            except RedirectError as exc:
                say(io.stderr, str(exc))
                return await self._close(files, io, 1)
            except ExpansionError:
                await self._close(files, io, 1)
                raise
            return await self._close(files, io, await self.command(node.command, inner))
        if isinstance(node, FunctionDef):
            self.functions[node.name] = node.body
            return 0
        return await self.compound(node, io)

    async def compound(self, node: Node, io: Streams) -> int:
        """``{ }``, ``( )``, if, for, while/until, case."""
        return await run_compound(self, node, io)

    def expander(self, io: Streams) -> Expander:
        """Expands words against this shell's state now; substitutions' errors go to
        ``io``'s stderr, and their status is ``$?`` for the words after them (as in bash:
        `echo $(false) $?` prints 1)."""
        async def substitute(text: str) -> str:
            output = await self._substitute(text, io.stderr)
            expander.status = self.status
            return output

        expander = Expander(self.variables, self.status, self.vfs, self.cwd, substitute, PID)
        return expander

    async def _substitute(self, text: str, stderr: Output) -> str:
        """``$(...)``: the program's output, run in a subshell (its status becomes $?)."""
        child = self.fork()
        child.variables.options.errexit = False  # bash's default (no inherit_errexit)
        out = Collect()
        io = Streams(NoInput(), out, stderr)

        async def run() -> int:
            return await child.finish(io, await child.run_text(text, io))

        status = await child.nested(run)
        self.status = status
        self.substitution_status = status
        return out.text()

    async def simple(self, node: Simple, io: Streams) -> int:
        """Expand, redirect, then run a simple command (or make its assignments)."""
        self.substitution_status = None
        expander = self.expander(io)
        files: list[FileOutput] = []
        try:
            argv = await expander.fields(node.words)
            values = {a.name: (self.variables.get(a.name) or "" if a.append else "")
                      + await expander.string(a.value, a.name) for a in node.assigns}
            streams = await io.apply(node.redirects, self.vfs, self.cwd, expander, files)
        except RedirectError as exc:
            say(io.stderr, str(exc))
            self.status = 1
            return await self._close(files, io, 1)
        except ExpansionError:
            await self._close(files, io, 1)
            raise
        if self.variables.options.xtrace:
            shown = [f"{name}={value}" for name, value in values.items()] + argv
            streams.stderr.write_nowait("+ " + " ".join(quote_name(a) for a in shown) + "\n")
        if not argv:
            for name, value in values.items():
                self.variables.set(name, value)
            status = self.substitution_status or 0
            return await self._close(files, io, status)
        if values:  # a scope only when there are some: `local` writes to the function's
            self.variables.push(values)
        try:
            return await self._close(files, io, await self.invoke(argv, streams))
        finally:
            if values:
                self.variables.pop()

    async def _close(self, files: list[FileOutput], io: Streams, status: int) -> int:
        for sink in files:
            try:
                await sink.close()
            except OSError as exc:
                say(io.stderr, f"{quote_name(sink.display)}: {describe(exc)}")
                status = 1
        return status

    async def invoke(self, argv: list[str], io: Streams, *, functions: bool = True) -> int:
        """Run a function (unless ``functions`` is false), a builtin or command, or a script,
        in that order (py_vfs/shell/commands/meanings.py)."""
        name = argv[0]
        body = self.functions.get(name) if functions else None
        if body is not None:
            return await self._call(body, argv, io)
        spec = COMMANDS.get(name)
        context = Context(self.vfs, self, name, io.stdin, io.stdout, io.stderr,
                          self._run.open_urls, self._run.confirm,
                          builtin=spec is not None and spec.builtin)
        # Not a builtin: a script, found and run by scripts.py (127 or 126 when it cannot be).
        run = spec.invoke if spec is not None else scripts.run_command
        try:
            # What the command's Python reaches, by open() or fsspec (page_disks.py).
            with working(self.vfs), budget().holding(argv):
                status = await run(context, argv[1:])
        except BrokenPipe:
            return SIGPIPE_STATUS
        except OSError as exc:
            if exc.errno == errno.ECANCELED:
                raise Interrupted() from exc
            context.err(describe(exc))
            status = 1
        try:
            await io.stdout.flush()
        except BrokenPipe:
            return SIGPIPE_STATUS
        return status

    async def _call(self, body: Node, argv: list[str], io: Streams) -> int:
        variables = self.variables
        saved = variables.positional
        variables.positional = argv[1:]
        variables.push()
        self.function_depth += 1
        try:
            with budget().holding(argv):  # its arguments, while it runs (deep calls add up)
                return await self.nested(lambda: self.command(body, io))
        except ReturnFrom as exc:
            return exc.status
        finally:
            self.function_depth -= 1
            variables.pop()
            variables.positional = saved
