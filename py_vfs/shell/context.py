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

from py_vfs import paths
from py_vfs.shell.format import quote_arg, quote_name, visible

if TYPE_CHECKING:
    from py_vfs.mounts.host import MountHost
    from py_vfs.node import DirEntry
    from py_vfs.preview import PreviewHost
    from py_vfs.shell.disk import Disk

HOME = "/"  # where `cd` with no argument and `~` lead; the VFS has no users


class Session(Protocol):
    """What commands may read and change of the shell running them (``Shell`` is one)."""

    cwd: str  # the current directory, absolute; `cd` sets it
    previews: PreviewHost  # mints the preview roots of `open` and `serve`
    host: MountHost  # where `mount` gets its folders
    scoop_name: str | None  # the scoop the shell is in (`scoop NAME`), or None

    def enter_scoop(self, name: str, view: Any) -> None:
        """Run the next lines inside ``view``, the scoop ``name``'s restricted view."""

    def leave_scoop(self) -> None:
        """Back to the disk the shell was on before ``enter_scoop``."""


class Sink:
    """Collects one output stream as bytes, so `cat img.png > copy.png` copies the bytes
    unchanged; text is decoded (errors replaced) only when shown to the user."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, text: str) -> None:
        """Add text, encoded as UTF-8 (a lone surrogate becomes "?")."""
        self.data += text.encode("utf-8", "replace")

    def write_bytes(self, data: bytes) -> None:
        """Add bytes unchanged (file content from `cat`)."""
        self.data += data

    def text(self) -> str:
        """Everything written, decoded for display (invalid UTF-8 replaced)."""
        return self.data.decode("utf-8", "replace")


class FileSink(Sink):
    """Output redirected to a file; written in one VFS call when the command ends."""

    def __init__(self, path: str, display: str, *, append: bool) -> None:
        super().__init__()
        self.path = path
        self.display = display
        self.append = append

    async def flush(self, vfs: Disk) -> None:
        """Write what was collected to the file (appending for `>>`)."""
        if self.append:
            await vfs.append_file(self.path, bytes(self.data))
        else:
            await vfs.write_file(self.path, bytes(self.data))


@dataclass
class Context:
    """One command's run: its name, the disk, the session and its two output streams."""

    vfs: Disk
    session: Session
    name: str  # the command's name, which prefixes its error messages
    stdout: Sink
    stderr: Sink
    open_urls: list[str] = field(default_factory=list)  # for the page to open (open, serve)

    @property
    def cwd(self) -> str:
        """The session's current directory."""
        return self.session.cwd

    def out(self, text: str) -> None:
        """Write text to the command's standard output."""
        self.stdout.write(text)

    def err(self, message: str) -> None:
        """Report one failure the way coreutils does: `cmd: message`. Names in ``message`` are
        quoted already (``quote_arg``); ``visible`` is the net for anything else."""
        self.stderr.write(visible(f"{quote_name(self.name)}: {message}") + "\n")

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
