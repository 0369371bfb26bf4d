"""Run a parsed line: the AND-OR list, word expansion, redirections and command dispatch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from py_vfs.mounts.host import LocalHost, MountHost
from py_vfs.preview import LocalPreviews, PreviewHost
from py_vfs.shell.commands import COMMANDS, UsageError
from py_vfs.shell.context import (
    Context,
    FileSink,
    Sink,
    describe,
    ensure_parent_dir,
    is_dir,
    resolve,
)
from py_vfs.shell.expand import expand_word
from py_vfs.shell.format import quote_name, visible
from py_vfs.shell.parser import Command, ParseError, Redirect, parse
from py_vfs.view_hosts import ViewHost, ViewPreviews

if TYPE_CHECKING:
    from py_vfs.defaults import Bundle
    from py_vfs.shell.disk import Disk

NOT_FOUND = 127


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


def _internal_error(state: _Run, exc: Exception) -> int:
    """An exception no command expected (a bug): one line on stderr and status 1, instead of a
    traceback on CPython or a bare EIO in the page; the rest of the line still runs."""
    first = (str(exc).splitlines() or [""])[0]
    state.stderr.write(visible(f"sh: internal error: {type(exc).__name__}"
                               f"{': ' + first if first else ''}") + "\n")
    return 1


class _RedirectError(Exception):
    """A redirection that cannot be set up; sh then skips the command with status 1."""


@dataclass
class _Run:
    """The state of one `Shell.run` call: the terminal's two streams and the opened URLs."""

    stdout: Sink = field(default_factory=Sink)
    stderr: Sink = field(default_factory=Sink)
    open_urls: list[str] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)


class Shell:
    """An sh-like interpreter whose only state between lines is the current directory.

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

    async def run(self, line: str) -> ShellResult:
        """Parse and run one line; never raises: a syntax error is status 2 with nothing run,
        an unexpected exception is `sh: internal error: ...` with status 1."""
        state = _Run()
        try:
            steps = parse(line)
        except ParseError as exc:
            state.stderr.write(visible(f"sh: {exc}") + "\n")
            return self._result(state, exc.code)
        except Exception as exc:  # a bug, not the user's line: say so, do not die
            return self._result(state, _internal_error(state, exc))
        status = 0
        for step in steps:
            # sh's AND-OR list: a skipped command leaves the status as it was, so in
            # `false && a || b`, b runs.
            if (step.connector == "&&" and status != 0) or (step.connector == "||" and status == 0):
                continue
            try:
                status = await self._execute(step.command, state)
            except Exception as exc:
                status = _internal_error(state, exc)
        return self._result(state, status)

    def _result(self, state: _Run, code: int) -> ShellResult:
        return ShellResult(state.stdout.text(), state.stderr.text(), code,
                           state.open_urls, self.cwd, self.scoop_name,
                           state.confirm[-1] if state.confirm else None)

    async def _execute(self, command: Command, state: _Run) -> int:
        words = [arg for word in command.words for arg in expand_word(self.vfs, self.cwd, word)]
        streams: dict[int, Sink] = {1: state.stdout, 2: state.stderr}
        files: list[FileSink] = []
        try:
            for redirect in command.redirects:
                streams[redirect.fd] = self._open(redirect, streams, files)
        except _RedirectError as exc:
            state.stderr.write(visible(f"sh: {exc}") + "\n")
            return 1
        status = 0
        if words:
            context = Context(self.vfs, self, words[0], streams[1], streams[2], state.open_urls,
                              state.confirm)
            status = await self._dispatch(context, words[1:])
        for sink in files:
            try:
                await sink.flush(self.vfs)
            except OSError as exc:
                state.stderr.write(visible(f"sh: {quote_name(sink.display)}: {describe(exc)}")
                                   + "\n")
                status = 1
        return status

    def _open(self, redirect: Redirect, streams: dict[int, Sink], files: list[FileSink]) -> Sink:
        """Check a redirection target before the command runs, as open(2) would; the output is
        written once the command ends, in a single VFS call."""
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
        sink = FileSink(path, name, append=redirect.append)
        files.append(sink)
        return sink

    async def _dispatch(self, context: Context, args: list[str]) -> int:
        spec = COMMANDS.get(context.name)
        if spec is None:
            context.stderr.write(visible(f"sh: {quote_name(context.name)}: command not found")
                                 + "\n")
            return NOT_FOUND
        try:
            return await spec.run(context, args)
        except UsageError as exc:
            context.err(str(exc))
            return 2
        except OSError as exc:
            context.err(describe(exc))
            return 1
