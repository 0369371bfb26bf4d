"""Run a parsed program: lists, pipelines, compound commands, functions, expansion,
redirections and command dispatch. The language is described in docs/shell.md."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..hosts.preview import LocalPreviews, PreviewHost
from ..hosts.view_hosts import ViewHost, ViewPreviews
from ..mounts.host import LocalHost, MountHost
from ..views.page_disks import working
from . import scripts
from .commands import COMMANDS
from .compound import run_compound
from .context import Context, FileOutput, describe, is_dir
from .control import (
    INTERRUPTED,
    ControlFlow,
    ExitShell,
    Interrupted,
    LoopControl,
    ReturnFrom,
    cancel_point,
)
from .format import quote_name, visible
from .limits import budget, budgeted, run_stages
from .parser import ParseError, parse
from .pipes import SIGPIPE_STATUS, BrokenPipe, Collect, Input, NoInput, Output, Pipe
from .redirects import RedirectError, Streams
from .syntax import AndOr, FunctionDef, Node, Pipeline, Redirected, Sequence, Simple
from .trust import default_path
from .variables import Variables
from .words import Expander, ExpansionError

if TYPE_CHECKING:
    from ..defaults import Bundle
    from .disk import Disk

PID = 4242  # what $$ says: there are no processes
MAX_CALL_DEPTH = 40  # nested function calls, sourced files and substitutions


@dataclass
class ShellResult:
    """What one line produced. Both surfaces show stdout and stderr exactly as they are."""

    stdout: str
    stderr: str
    code: int
    open_urls: list[str] = field(default_factory=list)
    cwd: str = "/"
    scoop: str | None = None  # the scoop the shell is in (`scoop NAME`), for the prompt
    # A command asked for confirmation: the line that does it once the user says yes (a
    # terminal asks "y/N" and runs it; a script gets status 1 and runs it itself).
    confirm: str | None = None


def _say(stderr: Output, message: str) -> None:
    stderr.write_nowait(visible(f"sh: {message}") + "\n")


def _internal_error(stderr: Output, exc: Exception) -> int:
    """An exception no command expected (a bug): one line on stderr and status 1, instead of a
    traceback on CPython or a bare EIO in the page; the rest of the line still runs."""
    first = (str(exc).splitlines() or [""])[0]
    _say(stderr, f"internal error: {type(exc).__name__}{': ' + first if first else ''}")
    return 1


@dataclass
class _Run:
    """What one `Shell.run` call collects for the page: URLs to open, a line to confirm."""

    open_urls: list[str] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)


class Shell:
    """An sh-like interpreter whose state between lines is the current directory, the
    variables, the functions and the aliases.

    It is the ``Session`` its commands see (``context.Session``); the language it reads is
    described in docs/shell.md."""

    def __init__(self, vfs: Disk, *, previews: PreviewHost | None = None,
                 host: MountHost | None = None, host_mounts: bool = False,
                 writer: str = "shell", defaults: Bundle | None = None) -> None:
        # Every change the shell makes is made by `writer` (the journal tells it apart).
        vfs = vfs.as_writer(writer)
        self.vfs = vfs
        # Mints the preview roots of `open` and `serve` (the page, in the browser).
        self.previews: PreviewHost = previews or LocalPreviews()
        # Where `mount` gets its folders. Without a host, host directories: only when
        # `host_mounts` (python -m py_vfs shell), else `mount` answers EACCES.
        self.host: MountHost = host or LocalHost(vfs, enabled=host_mounts)
        # The shipped default content (py_vfs/defaults.py), for `reset --defaults`.
        self.defaults = defaults
        self.scoop_name: str | None = None
        self._outside: tuple[Any, ...] | None = None  # what `exit` from a scoop restores
        self._run = _Run()  # the line running now
        self.variables = Variables()
        self.functions: dict[str, Node] = {}
        self.aliases: dict[str, str] = {}
        self.status = 0  # $?
        self.depth = 0  # function calls, sourced files, scripts and substitutions running
        self.function_depth = self.loop_depth = 0
        self.script_depth = 0  # scripts and sourced files running (exit ends them)
        self.subshell = False
        self.condition_depth = 0  # inside an if/while condition or before && ||: no errexit
        self.substitution_status: int | None = None  # of the last $(...) of a command
        home = "/workspace" if is_dir(vfs, "/workspace") else "/"
        for name, value in (("HOME", home), ("PATH", default_path(vfs)), ("PWD", "/")):
            self.variables.set(name, value, export=True)
        self._cwd = "/"

    @property
    def cwd(self) -> str:
        """The current directory, absolute; setting it sets ``$PWD`` too."""
        return self._cwd

    @cwd.setter
    def cwd(self, path: str) -> None:
        """Change directory (`cd`, `scoop`)."""
        self._cwd = path
        self.variables.set("PWD", path)

    def fork(self) -> Shell:
        """A subshell: a copy whose directory, variables, functions and aliases are its own."""
        child = object.__new__(Shell)
        child.__dict__.update(self.__dict__)
        child.variables, child.functions, child.aliases = (
            self.variables.copy(), dict(self.functions), dict(self.aliases))
        child.subshell = True
        return child

    def enter_scoop(self, name: str, view: Any) -> None:
        """Run the next lines in the scoop's view, from its workspace (previews and mounts
        through the view); its variables, options, functions and aliases go at `exit`."""
        self._outside = (self.vfs, self.cwd, self.previews, self.host, self.fork())
        self.variables.set("PATH", default_path(view))
        self.vfs, self.previews = view, ViewPreviews(view, self.previews)
        self.host = ViewHost(view, self.host)
        self.cwd, self.scoop_name = f"/scoops/{name}/workspace", name

    def leave_scoop(self) -> None:
        """Back to the disk, the directory and the state the shell had before."""
        assert self._outside is not None
        self.vfs, cwd, self.previews, self.host, cone = self._outside
        self.variables, self.functions, self.aliases = cone.variables, cone.functions, cone.aliases
        self.cwd, self._outside, self.scoop_name = cwd, None, None

    def environment(self) -> dict[str, str]:
        """The exported variables (what `env` prints and scripts see)."""
        return self.variables.exported()

    def find_script(self, name: str) -> str | None:
        """The path of the script that runs as command ``name`` ($PATH, or a path), or None."""
        return next(iter(scripts.find_scripts(self.vfs, self.cwd, name, self.environment())), None)

    async def run(self, line: str, *, stdin: Input | None = None,
                  stdout: Output | None = None, stderr: Output | None = None) -> ShellResult:
        """Parse and run one line (or a pasted block: one program); never raises: a syntax
        error is status 2 with nothing run, an unexpected exception is `sh: internal error:
        ...` with status 1, Ctrl-C (the call's signal aborted) stops it with status 130.

        Output goes to ``stdout`` and ``stderr`` as it is written when they are given (the
        terminal shows it at once); otherwise it is collected into the result. ``stdin`` is
        what the line reads (nothing by default)."""
        io = Streams(stdin or NoInput(), stdout or Collect(), stderr or Collect())
        self._run = _Run()
        try:
            code = self.status = await budgeted(self.run_text(line, io), io.stderr)
        finally:
            for stream in (io.stdout, io.stderr):
                with contextlib.suppress(BrokenPipe, OSError):
                    await stream.flush()
        return ShellResult(_collected(io.stdout), _collected(io.stderr), code,
                           self._run.open_urls, self.cwd, self.scoop_name,
                           self._run.confirm[-1] if self._run.confirm else None)

    async def run_text(self, text: str, io: Streams) -> int:
        """Parse and run a program in this shell; ``exit`` ends it (its status)."""
        try:
            self.status = await self.run_program(text, io)
        except ExpansionError as exc:
            _say(io.stderr, str(exc))
            self.status = exc.status
        except (ExitShell, ReturnFrom) as exc:
            self.status = exc.status
        except LoopControl:
            pass
        except Interrupted:
            self.status = INTERRUPTED
        return self.status

    async def run_program(self, text: str, io: Streams) -> int:
        """Parse ``text`` whole (a syntax error runs nothing: status 2), then run it here;
        ``exit``, ``return`` and Ctrl-C propagate to the caller."""
        try:
            program = parse(text, self.aliases)
        except ParseError as exc:
            _say(io.stderr, str(exc))
            self.status = exc.code
            return exc.code
        for warning in program.warnings:
            _say(io.stderr, warning)
        return await self.sequence(program, io)

    async def run_script(self, text: str, argv: list[str], io: Streams, *,
                         source: bool = False) -> int:
        """Run a script's text with ``$0`` ``argv[0]`` and ``$1``... the rest: ``source``d,
        in this shell (its variables and cd stay; ``return`` leaves it, ``exit`` ends the
        line, as in bash), else in a subshell (``exit`` ends the script)."""
        shell = self if source else self.fork()
        saved = (shell.variables.positional, shell.variables.arg0)
        if len(argv) > 1 or not source:
            shell.variables.positional = argv[1:]
        if not source:
            shell.variables.arg0 = argv[0]
        shell.script_depth += 1
        try:
            if not source:
                return await shell.nested(lambda: shell.run_text(text, io))
            try:
                return await shell.nested(lambda: shell.run_program(text, io))
            except ReturnFrom as exc:
                return exc.status
        finally:
            shell.script_depth -= 1
            if source and len(argv) > 1:
                shell.variables.positional = saved[0]

    async def nested(self, run: Callable[[], Awaitable[int]]) -> int:
        """Run a function call, a sourced file or a substitution, at most
        ``MAX_CALL_DEPTH`` deep (deeper: an error, not a RecursionError)."""
        if self.depth >= MAX_CALL_DEPTH:
            raise ExpansionError(f"maximum nesting level exceeded ({MAX_CALL_DEPTH})")
        self.depth += 1
        try:
            return await run()
        finally:
            self.depth -= 1

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
                status = self.status = _internal_error(io.stderr, exc)
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
        ``!``."""
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
        if status and self.variables.options.errexit and not self.condition_depth \
                and not pipeline.negate:
            raise ExitShell(status)
        return status

    async def _stages(self, commands: list[Node], io: Streams) -> list[int]:
        pipes = [Pipe() for _ in commands[1:]]

        async def stage(index: int) -> int:
            stdin = pipes[index - 1].reader if index else io.stdin
            stdout = pipes[index].writer if index < len(pipes) else io.stdout
            shell = self.fork()
            try:
                return await shell.command(commands[index], io.with_(stdin=stdin, stdout=stdout))
            except (ExitShell, ExpansionError) as exc:
                if isinstance(exc, ExpansionError):
                    _say(io.stderr, str(exc))
                return exc.status
            except (LoopControl, ReturnFrom):
                return shell.status
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
                _say(io.stderr, str(exc))
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
        out = Collect()
        io = Streams(NoInput(), out, stderr)
        status = await child.nested(lambda: child.run_text(text, io))
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
            _say(io.stderr, str(exc))
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
                _say(io.stderr, f"{quote_name(sink.display)}: {describe(exc)}")
                status = 1
        return status

    async def invoke(self, argv: list[str], io: Streams) -> int:
        """Run a function, a builtin or command, or a script, in that order."""
        name = argv[0]
        body = self.functions.get(name)
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

    async def run_here(self, text: str, argv: list[str] | None, stdin: Input,
                       stdout: Output, stderr: Output) -> int:
        """Run ``text`` in this shell (`source` with ``argv``, `eval` without)."""
        io = Streams(stdin, stdout, stderr)
        if argv is None:
            return await self.nested(lambda: self.run_program(text, io))
        return await self.run_script(text, argv, io, source=True)

    async def run_argv(self, argv: list[str], stdin: Input, stdout: Output,
                       stderr: Output) -> int:
        """Run one command with these arguments and streams (xargs, find -exec)."""
        try:
            return await self.invoke(argv, Streams(stdin, stdout, stderr))
        except (ExitShell, ReturnFrom) as exc:
            return exc.status


def _collected(stream: Output) -> str:
    return stream.text() if isinstance(stream, Collect) else ""
