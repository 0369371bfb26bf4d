"""The shell: a session (its directory, variables, functions, aliases, scoop) that reads lines
and programs and runs them (``execute.py``). The language is described in docs/shell.md."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..hosts.preview import LocalPreviews, PreviewHost
from ..hosts.view_hosts import ViewHost, ViewPreviews
from ..mounts.host import LocalHost, MountHost
from . import scripts
from .context import is_dir
from .control import (
    INTERRUPTED,
    ExitShell,
    Interrupted,
    LoopControl,
    ReturnFrom,
)
from .execute import Execution, say
from .limits import budgeted
from .parser import ParseError, parse
from .pipes import BrokenPipe, Collect, Input, NoInput, Output
from .redirects import Streams
from .syntax import Node
from .trust import default_path
from .variables import Variables
from .words import ExpansionError

if TYPE_CHECKING:
    from ..defaults import Bundle
    from .disk import Disk

MAX_CALL_DEPTH = 24  # nested function calls, sourced files, scripts and substitutions


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


@dataclass
class _Run:
    """What one `Shell.run` call collects for the page: URLs to open, a line to confirm."""

    open_urls: list[str] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)


class Shell(Execution):
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
        self.traps: dict[str, str] = {}  # `trap ACTION NAME`: EXIT, ERR... (traps.py)
        self.in_trap = False  # running a trap's action: ERR does not fire again inside it
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

    def fork(self, variables: Variables | None = None) -> Shell:
        """A subshell: a copy whose directory, variables (``variables`` when given),
        functions and aliases are its own."""
        child = object.__new__(Shell)
        child.__dict__.update(self.__dict__)
        child.variables, child.functions, child.aliases = (
            variables or self.variables.copy(), dict(self.functions), dict(self.aliases))
        child.subshell = True
        child.traps = {}  # as in bash, a subshell starts with no traps of its own
        return child

    def spawn(self, argv: list[str]) -> Shell:
        """The state of a new shell process running a script (``sh FILE``, ``./s.sh``): the
        directory and the exported variables of this one, and nothing else of it (no other
        variable, function, alias, trap nor option); ``$0`` is ``argv[0]``, ``$1``... the
        rest. Its depth goes on from this shell's, so a script calling itself is bounded."""
        child = self.fork(self.variables.spawn(argv))
        child.functions, child.aliases, child.in_trap = {}, {}, False
        child.function_depth = child.loop_depth = child.condition_depth = 0
        child.script_depth = 0  # `return` at a script's top level is an error, as in bash
        child.status = 0  # $? starts at 0
        return child

    async def run_child(self, text: str, argv: list[str], stdin: Input, stdout: Output,
                        stderr: Output, options: dict[str, bool]) -> int:
        """Run a shell script's ``text`` as a new shell process would (``spawn``), with
        ``options`` (name -> on) set first (``sh -e``); its status: ``exit``'s, else its
        last command's, after its EXIT trap ran."""
        child = self.spawn(argv)
        for name, on in options.items():
            setattr(child.variables.options, name, on)
        io = Streams(stdin, stdout, stderr)

        async def run() -> int:
            return await child.finish(io, await child.run_text(text, io))

        return await child.nested(run)

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
        found = scripts.locate(self.vfs, self.cwd, name, self.environment(), every=False)
        return found[0].path if found else None

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
            say(io.stderr, str(exc))
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
            say(io.stderr, str(exc))
            self.status = exc.code
            return exc.code
        for warning in program.warnings:
            say(io.stderr, warning)
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
        except RecursionError:  # Python's stack ran out first (a tracer, a small wasm stack)
            raise ExpansionError(f"maximum nesting level exceeded ({MAX_CALL_DEPTH})") from None
        finally:
            self.depth -= 1

    async def run_here(self, text: str, argv: list[str] | None, stdin: Input,
                       stdout: Output, stderr: Output) -> int:
        """Run ``text`` in this shell (`source` with ``argv``, `eval` without)."""
        io = Streams(stdin, stdout, stderr)
        if argv is None:
            return await self.nested(lambda: self.run_program(text, io))
        return await self.run_script(text, argv, io, source=True)

    async def run_argv(self, argv: list[str], stdin: Input, stdout: Output,
                       stderr: Output, *, functions: bool = True) -> int:
        """Run one command with these arguments and streams (xargs, find -exec; `command`
        without the functions)."""
        try:
            return await self.invoke(argv, Streams(stdin, stdout, stderr), functions=functions)
        except (ExitShell, ReturnFrom) as exc:
            return exc.status


def _collected(stream: Output) -> str:
    return stream.text() if isinstance(stream, Collect) else ""
