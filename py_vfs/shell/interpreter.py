"""Run a parsed line: the AND-OR list, word expansion, redirections and command dispatch."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from py_vfs.cancel import SIGNAL
from py_vfs.mounts.host import LocalHost, MountHost
from py_vfs.preview import LocalPreviews, PreviewHost
from py_vfs.shell.commands import COMMANDS, UsageError
from py_vfs.shell.context import (
    Context,
    FileOutput,
    describe,
    ensure_parent_dir,
    is_dir,
    resolve,
)
from py_vfs.shell.expand import expand_word
from py_vfs.shell.format import quote_name, visible
from py_vfs.shell.parser import Command, ParseError, Redirect, parse
from py_vfs.shell.pipes import (
    SIGPIPE_STATUS,
    BrokenPipe,
    Collect,
    Input,
    NoInput,
    Output,
    Pipe,
)
from py_vfs.view_hosts import ViewHost, ViewPreviews

if TYPE_CHECKING:
    from py_vfs.defaults import Bundle
    from py_vfs.shell.disk import Disk

NOT_FOUND = 127
INTERRUPTED = 130  # 128 + SIGINT: a command stopped by Ctrl-C (its call's signal aborted)


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


def _internal_error(stderr: Output, exc: Exception) -> int:
    """An exception no command expected (a bug): one line on stderr and status 1, instead of a
    traceback on CPython or a bare EIO in the page; the rest of the line still runs."""
    first = (str(exc).splitlines() or [""])[0]
    stderr.write_nowait(visible(f"sh: internal error: {type(exc).__name__}"
                                f"{': ' + first if first else ''}") + "\n")
    return 1


class _RedirectError(Exception):
    """A redirection that cannot be set up; sh then skips the command with status 1."""


@dataclass
class _Run:
    """The state of one `Shell.run` call: its three streams and what the page should do."""

    stdin: Input
    stdout: Output
    stderr: Output
    open_urls: list[str] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)


class Shell:
    """An sh-like interpreter whose state between lines is the current directory and the
    variables.

    It is the ``Session`` its commands see (``context.Session``): ``cwd``, ``previews``,
    ``host`` and ``defaults``; the language it reads is described in docs/shell.md."""

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
        self.cwd = "/"
        # The shipped default content (py_vfs/defaults.py), for `reset --defaults`.
        self.defaults = defaults
        self.scoop_name: str | None = None
        self._outside: tuple[Disk, str, PreviewHost, MountHost] | None = None  # for `exit`
        self._run: _Run | None = None  # the line running now (for `run_argv`)

    def enter_scoop(self, name: str, view: Any) -> None:
        """Run the next lines inside the scoop's view, from its workspace; its preview roots
        are the view's (readable folders only), and it mounts only where it may write."""
        self._outside = (self.vfs, self.cwd, self.previews, self.host)
        self.vfs, self.previews = view, ViewPreviews(view, self.previews)
        self.host = ViewHost(view, self.host)
        self.cwd, self.scoop_name = f"/scoops/{name}/workspace", name

    def leave_scoop(self) -> None:
        """Back to the disk and the directory the shell was on."""
        assert self._outside is not None
        self.vfs, self.cwd, self.previews, self.host = self._outside
        self._outside, self.scoop_name = None, None

    def environment(self) -> dict[str, str]:
        """The exported variables (none yet)."""
        return {}

    async def run(self, line: str, *, stdin: Input | None = None,
                  stdout: Output | None = None, stderr: Output | None = None) -> ShellResult:
        """Parse and run one line; never raises: a syntax error is status 2 with nothing run,
        an unexpected exception is `sh: internal error: ...` with status 1.

        Output goes to ``stdout`` and ``stderr`` as it is written when they are given (the
        terminal shows it at once); otherwise it is collected into the result. ``stdin`` is
        what the line reads (nothing by default)."""
        state = _Run(stdin or NoInput(), stdout or Collect(), stderr or Collect())
        self._run = state
        try:
            code = await self._run_line(line, state)
        finally:
            self._run = None
            for stream in (state.stdout, state.stderr):
                with contextlib.suppress(BrokenPipe):
                    await stream.flush()
        return ShellResult(_collected(state.stdout), _collected(state.stderr), code,
                           state.open_urls, self.cwd, self.scoop_name,
                           state.confirm[-1] if state.confirm else None)

    async def _run_line(self, line: str, state: _Run) -> int:
        try:
            steps = parse(line)
        except ParseError as exc:
            state.stderr.write_nowait(visible(f"sh: {exc}") + "\n")
            return exc.code
        except Exception as exc:  # a bug, not the user's line: say so, do not die
            return _internal_error(state.stderr, exc)
        status = 0
        for step in steps:
            # sh's AND-OR list: a skipped command leaves the status as it was, so in
            # `false && a || b`, b runs.
            if (step.connector == "&&" and status != 0) or (step.connector == "||" and status == 0):
                continue
            try:
                status = await self._pipeline(step.pipeline, state)
            except Exception as exc:
                status = _internal_error(state.stderr, exc)
            signal = SIGNAL.get()
            if signal is not None and signal.aborted:
                return INTERRUPTED  # Ctrl-C ends the whole line, as in bash
        return status

    async def _pipeline(self, commands: list[Command], state: _Run) -> int:
        """Run the stages at once, each reading the previous one's output through a bounded
        pipe; the status is the last stage's."""
        if len(commands) == 1:
            return await self._execute(commands[0], state.stdin, state.stdout, state)
        pipes = [Pipe() for _ in commands[1:]]

        async def stage(index: int) -> int:
            stdin = pipes[index - 1].reader if index else state.stdin
            stdout = pipes[index].writer if index < len(pipes) else state.stdout
            try:
                return await self._execute(commands[index], stdin, stdout, state)
            except Exception as exc:
                return _internal_error(state.stderr, exc)
            finally:
                if index < len(pipes):
                    await pipes[index].writer.close()
                if index:
                    pipes[index - 1].reader.close()

        statuses = await asyncio.gather(*(stage(i) for i in range(len(commands))))
        return statuses[-1]

    async def _execute(self, command: Command, stdin: Input, stdout: Output,
                       state: _Run) -> int:
        words = [arg for word in command.words for arg in expand_word(self.vfs, self.cwd, word)]
        streams: dict[int, Output] = {1: stdout, 2: state.stderr}
        files: list[FileOutput] = []
        try:
            for redirect in command.redirects:
                streams[redirect.fd] = self._open(redirect, streams, files)
        except _RedirectError as exc:
            state.stderr.write_nowait(visible(f"sh: {exc}") + "\n")
            return 1
        status = 0
        if words:
            status = await self._command(words, stdin, streams[1], streams[2], state)
        for sink in files:
            try:
                await sink.close()
            except OSError as exc:
                state.stderr.write_nowait(
                    visible(f"sh: {quote_name(sink.display)}: {describe(exc)}") + "\n")
                status = 1
        return status

    def _open(self, redirect: Redirect, streams: dict[int, Output],
              files: list[FileOutput]) -> Output:
        """Check a redirection target before the command runs, as open(2) would."""
        if redirect.dup is not None:
            return streams[redirect.dup]
        assert redirect.target is not None
        names = expand_word(self.vfs, self.cwd, redirect.target)
        if len(names) != 1:
            raise _RedirectError(f"{redirect.target.text}: ambiguous redirect")  # bash: as typed
        name = names[0]
        try:
            path = resolve(self.cwd, name)
            ensure_parent_dir(self.vfs, path)
        except OSError as exc:
            raise _RedirectError(f"{quote_name(name)}: {describe(exc)}") from exc
        if is_dir(self.vfs, path):
            raise _RedirectError(f"{quote_name(name)}: Is a directory")
        sink = FileOutput(self.vfs, path, name, append=redirect.append)
        files.append(sink)
        return sink

    async def run_argv(self, argv: list[str], stdin: Input, stdout: Output,
                       stderr: Output) -> int:
        """Run one command with these arguments and streams (xargs, find -exec)."""
        state = self._run or _Run(stdin, stdout, stderr)
        return await self._command(argv, stdin, stdout, stderr, state)

    async def _command(self, argv: list[str], stdin: Input, stdout: Output, stderr: Output,
                       state: _Run) -> int:
        context = Context(self.vfs, self, argv[0], stdin, stdout, stderr, state.open_urls,
                          state.confirm)
        spec = COMMANDS.get(context.name)
        if spec is None:
            stderr.write_nowait(visible(f"sh: {quote_name(context.name)}: command not found")
                                + "\n")
            return NOT_FOUND
        try:
            status = await spec.invoke(context, argv[1:])
        except UsageError as exc:
            context.err(str(exc))
            status = 2
        except BrokenPipe:
            return SIGPIPE_STATUS
        except OSError as exc:
            if getattr(exc, "code", None) == "ECANCELED":
                return INTERRUPTED  # bash prints nothing for ^C; the terminal shows ^C
            context.err(describe(exc))
            status = 1
        try:
            await stdout.flush()
        except BrokenPipe:
            return SIGPIPE_STATUS
        return status


def _collected(stream: Output) -> str:
    return stream.text() if isinstance(stream, Collect) else ""
