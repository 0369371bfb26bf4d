"""What a command sees while it runs: the disk, the session's state, and where its output goes.

This module sits below the interpreter and the commands: it imports neither. A command reaches
the shell that runs it only through ``Session``, the few things that outlive one command (the
current directory, where preview URLs and mounted folders come from), so the commands never
import the interpreter and the interpreter imports the commands without a cycle.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from ..core import paths
from .format import quote_arg, quote_name, visible
from .limits import budget
from .pipes import Input, NoInput, Output

if TYPE_CHECKING:
    from ..core.node import DirEntry
    from ..defaults import Bundle
    from ..disk.streams import WriteStream
    from ..hosts.preview import PreviewHost
    from ..mounts.host import MountHost
    from .disk import Disk
    from .variables import Variables


class Session(Protocol):
    """What commands may read and change of the shell running them (``Shell`` is one)."""

    cwd: str  # the current directory, absolute; `cd` sets it
    previews: PreviewHost  # mints the preview roots of `open` and `serve`
    host: MountHost  # where `mount` gets its folders
    defaults: Bundle | None  # the default content `reset --defaults` puts back (None: none)
    scoop_name: str | None  # the scoop the shell is in (`scoop NAME`), or None
    variables: Variables  # shell variables, the exported ones, positional parameters, options
    aliases: dict[str, str]  # `alias NAME=VALUE`
    functions: dict[str, Any]  # name -> the function's body (a syntax tree)
    status: int  # $?, the status of the last command
    function_depth: int  # functions running (`local` and `return` need one)
    loop_depth: int  # loops running (`break` and `continue` need one)
    script_depth: int  # scripts and sourced files running
    subshell: bool  # a subshell: ( ), a pipeline stage, $( )
    traps: dict[str, str]  # `trap ACTION NAME`: name (EXIT, ERR, INT...) -> action

    def enter_scoop(self, name: str, view: Any) -> None:
        """Run the next lines inside ``view``, the scoop ``name``'s restricted view."""

    def leave_scoop(self) -> None:
        """Back to the disk the shell was on before ``enter_scoop``."""

    def environment(self) -> dict[str, str]:
        """The exported variables and their values."""

    async def run_argv(self, argv: list[str], stdin: Input, stdout: Output,
                       stderr: Output, *, functions: bool = True) -> int:
        """Run one command (a builtin, a function unless ``functions`` is false, a script)
        with these arguments and streams; its exit status."""

    async def run_here(self, text: str, argv: list[str] | None, stdin: Input,
                       stdout: Output, stderr: Output) -> int:
        """Run ``text`` in this shell, as `source` (``argv``: ``$0`` and the positional
        parameters; None keeps them) and `eval` do; its status."""

    async def run_child(self, text: str, argv: list[str], stdin: Input, stdout: Output,
                        stderr: Output, options: dict[str, bool]) -> int:
        """Run ``text`` as a shell script in a new shell process (its own variables,
        functions and traps; the exported variables inherited) with ``$0`` ``argv[0]``,
        ``$1``... the rest and ``options`` (errexit...) set; its status."""

    def find_script(self, name: str) -> str | None:
        """The path of the script that would run as command ``name``, or None."""


class FileOutput(Output):
    """Output redirected to a file. With `>` the bytes stream into the disk a chunk at a time
    and the file is replaced when the command ends (one commit: a reader never sees half of
    it); with `>>` they are collected and appended then, in one VFS call."""

    def __init__(self, vfs: Disk, path: str, display: str, *, append: bool) -> None:
        super().__init__()
        self.vfs = vfs
        self.path = path
        self.display = display  # the name as typed, for error messages
        self.append = append
        self.appends_to = path if append else None
        self._collected = bytearray()
        self._stream: WriteStream | None = None

    def open(self) -> None:
        """Start the `>` stream now, as open(2) does before the command runs: a target that
        can never be written (read-only mount, outside a view) fails the redirection."""
        if not self.append and self._stream is None:
            self._stream = self.vfs.stream_writer(self.path)

    async def _send(self, data: bytes) -> None:
        if self.append:
            self._collected += data
            return
        if self._stream is None:
            self._stream = self.vfs.stream_writer(self.path)
        await self._stream.write(data)

    async def close(self) -> None:
        """Write the file, also when the command failed (so `> f` alone makes an empty f)."""
        await self.flush()
        if self.append:
            await self.vfs.append_file(self.path, bytes(self._collected))
            return
        stream = self._stream or self.vfs.stream_writer(self.path)
        self._stream = None
        await stream.close()


@dataclass
class Context:
    """One command's run: its name, the disk, the session and its two output streams."""

    vfs: Disk
    session: Session
    name: str  # the command's name, which prefixes its error messages
    stdin: Input
    stdout: Output
    stderr: Output
    open_urls: list[str] = field(default_factory=list)  # for the page to open (open, serve)
    # The line to run once the user confirms (`reset --defaults`): a terminal asks y/N.
    confirm: list[str] = field(default_factory=list)
    builtin: bool = False  # a builtin of bash: its errors are the shell's (`sh: cd: ...`)

    @property
    def cwd(self) -> str:
        """The session's current directory."""
        return self.session.cwd

    @property
    def env(self) -> dict[str, str]:
        """The exported variables, as a child process would see them (scripts, `env`)."""
        return self.session.environment()

    def out(self, text: str | bytes) -> None:
        """Queue a little output (a listing, a line): it goes out when the command next awaits
        ``write`` or ends. Large or unbounded output uses ``write``."""
        self.stdout.write_nowait(text)

    async def write(self, data: str | bytes) -> None:
        """Write to standard output, waiting while a pipe's reader is behind (a command that
        streams, such as cat or yes, writes so: it holds one chunk, not the whole output)."""
        await self.stdout.write(data)

    async def run(self, argv: list[str], *, stdin: Input | None = None,
                  stdout: Output | None = None) -> int:
        """Run another command with these arguments (xargs, find -exec), with this command's
        streams unless given; its status. It counts against the line's commands (Limits)."""
        budget().command()
        return await self.session.run_argv(argv, stdin or NoInput(),
                                           stdout or self.stdout, self.stderr)

    def err(self, message: str) -> None:
        """Report one failure the way coreutils does, `cmd: message`, or a builtin of bash the
        way bash does, `sh: cmd: message`. Names in ``message`` are quoted already
        (``quote_arg``); ``visible`` is the net for anything else."""
        if self.builtin:
            self.say(f"{self.name}: {message}")
        else:
            self.stderr.write_nowait(visible(f"{quote_name(self.name)}: {message}") + "\n")

    def say(self, message: str) -> None:
        """Report a failure as the shell itself does: `sh: message` (`source` of a missing
        file names only the file, as bash does)."""
        self.stderr.write_nowait(visible(f"sh: {message}") + "\n")

    def resolve(self, path: str) -> str:
        """The absolute path of an operand, relative to the current directory."""
        return resolve(self.cwd, path)


def resolve(cwd: str, path: str) -> str:
    """The absolute path the VFS needs for a path the user typed, relative to the shell's cwd.

    An empty operand names no file (coreutils: `cat ''` fails), rather than the cwd."""
    if path == "":
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if not path.startswith("/"):
        path = paths.join(cwd, path)
    return paths.normalize(path)


def describe(exc: BaseException) -> str:
    """The reason part of an error message ("No such file or directory"), as coreutils prints
    it after the operand; FsError and OSError both carry it as strerror."""
    strerror = getattr(exc, "strerror", None)
    hint = getattr(exc, "hint", None)
    if strerror:
        return f"{strerror} ({visible(hint)})" if hint else str(strerror)
    number = getattr(exc, "errno", None)
    if isinstance(number, int):
        return os.strerror(number)
    return visible(str(exc)) or type(exc).__name__


async def each_operand(ctx: Context, operands: list[str],
                       action: Callable[[str], Awaitable[None]], failure: str) -> int:
    """Apply ``action`` to every operand as coreutils does: a failing operand is reported as
    ``failure`` (formatted with ``name``, the operand as ls shows it, or ``arg``, always quoted)
    plus the reason, the rest still run, and the status is 1 when any failed."""
    status = 0
    for name in operands:
        try:
            await action(name)
        except OSError as exc:
            shown = failure.format(name=quote_name(name), arg=quote_arg(name))
            ctx.err(f"{shown}: {describe(exc)}")
            status = 1
    return status


def refuse_own_output(ctx: Context, path: str | None) -> None:
    """GNU cat's check before it reads ``path``: when it is the non-empty file the command's
    output is appended to (`cat f >> f`, through a symlink too), reading it would feed the
    command its own output: OSError `input file is output file`, and nothing is read."""
    target = ctx.stdout.appends_to
    if path is None or target is None:
        return
    try:
        same = ctx.vfs.realpath(path) == ctx.vfs.realpath(target) and ctx.vfs.stat(path).size
    except OSError:
        return
    if same:
        raise OSError(errno.EINVAL, "input file is output file")


def is_dir(vfs: Disk, path: str) -> bool:
    """True for a directory or a symlink to one, which is what "into a directory" means for
    mv, cp and cd."""
    try:
        return vfs.stat(path).type == "directory"
    except OSError:
        return False


def list_names(vfs: Disk, path: str) -> list[str]:
    """The names in a directory: ``readdir`` without types gives names only."""
    return cast("list[str]", vfs.readdir(path))


def list_entries(vfs: Disk, path: str) -> list[DirEntry]:
    """The entries of a directory with their types, from one ``readdir``."""
    return cast("list[DirEntry]", vfs.readdir(path, with_types=True))


def lexists(vfs: Disk, path: str) -> bool:
    """Like os.path.lexists: a dangling symlink still exists as a name."""
    try:
        vfs.lstat(path)
    except OSError:
        return False
    return True


def ensure_parent_dir(vfs: Disk, path: str) -> None:
    """Fail like open(2) when the parent is missing: the VFS's write_file would create it,
    but `echo hi > nope/f` and `touch nope/f` must fail in a shell."""
    parent = posixpath.dirname(path)
    if vfs.stat(parent).type != "directory":
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), parent)
