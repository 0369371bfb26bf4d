"""Set up a command's redirections: its file descriptors 0, 1 and 2 after ``<``, ``>``,
``>>``, ``&>``, ``2>&1``, here-documents and here-strings, left to right as sh does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .context import FileOutput, describe, ensure_parent_dir, is_dir, resolve
from .format import quote_name
from .pipes import BytesInput, Discard, Input, NoInput, Output, StreamInput
from .syntax import Redirect

if TYPE_CHECKING:
    from .disk import Disk
    from .words import Expander

Stream = Input | Output


class RedirectError(Exception):
    """A redirection that cannot be set up; sh then skips the command with status 1."""


class Streams:
    """A command's file descriptors 0, 1 and 2."""

    def __init__(self, stdin: Input, stdout: Output, stderr: Output) -> None:
        self.fds: dict[int, Stream] = {0: stdin, 1: stdout, 2: stderr}

    @property
    def stdin(self) -> Input:
        """File descriptor 0."""
        stream = self.fds[0]
        return stream if isinstance(stream, Input) else NoInput()

    @property
    def stdout(self) -> Output:
        """File descriptor 1."""
        stream = self.fds[1]
        return stream if isinstance(stream, Output) else Discard()

    @property
    def stderr(self) -> Output:
        """File descriptor 2."""
        stream = self.fds[2]
        return stream if isinstance(stream, Output) else Discard()

    def with_(self, **streams: Stream) -> Streams:
        """A copy with some streams replaced (a pipeline stage, a substitution)."""
        copy = Streams(self.stdin, self.stdout, self.stderr)
        copy.fds = dict(self.fds)
        for name, stream in streams.items():
            copy.fds[{"stdin": 0, "stdout": 1, "stderr": 2}[name]] = stream
        return copy

    async def apply(self, redirects: list[Redirect], vfs: Disk, cwd: str,
                    expander: Expander, files: list[FileOutput]) -> Streams:
        """A copy of these streams with ``redirects`` applied; ``RedirectError`` if one
        fails. The files opened are added to ``files``: the caller closes (writes) them when
        the command ends, also after a failure."""
        result = self.with_()
        for redirect in redirects:
            fd = redirect.fd
            if fd not in (0, 1, 2):
                raise RedirectError(f"{fd}: redirecting this file descriptor is not supported")
            if redirect.op == "close":
                result.fds[fd] = NoInput() if fd == 0 else Discard()
            elif redirect.dup is not None:
                if redirect.dup not in result.fds:
                    raise RedirectError(f"{redirect.dup}: Bad file descriptor")
                result.fds[fd] = result.fds[redirect.dup]
            elif redirect.op == "<<":
                assert redirect.heredoc is not None and redirect.heredoc.body is not None
                result.fds[fd] = BytesInput(await expander.string(redirect.heredoc.body))
            elif redirect.op == "<<<":
                assert redirect.target is not None
                result.fds[fd] = BytesInput(await expander.string(redirect.target) + "\n")
            else:
                assert redirect.target is not None
                names = await expander.fields([redirect.target])
                if len(names) != 1:
                    raise RedirectError(f"{redirect.target.text}: ambiguous redirect")
                if redirect.op == "<":
                    result.fds[fd] = _input(vfs, cwd, names[0])
                    continue
                if names[0] == DEV_NULL:
                    result.fds[fd] = Discard()
                    if redirect.op in ("&>", "&>>"):
                        result.fds[2] = result.fds[fd]
                    continue
                sink = _output(vfs, cwd, names[0], append=redirect.op in (">>", "&>>"))
                files.append(sink)
                result.fds[fd] = sink
                if redirect.op in ("&>", "&>>"):
                    result.fds[2] = sink
        return result


DEV_NULL = "/dev/null"  # no such file on the disk: the shell gives it its usual meaning


def _input(vfs: Disk, cwd: str, name: str) -> Input:
    if name == DEV_NULL:
        return NoInput()
    try:
        path = resolve(cwd, name)
        if vfs.stat(path).type == "directory":
            raise RedirectError(f"{quote_name(name)}: Is a directory")
    except OSError as exc:
        raise RedirectError(f"{quote_name(name)}: {describe(exc)}") from exc
    stream = StreamInput(vfs.open_read(path))
    stream.path = path
    return stream


def _output(vfs: Disk, cwd: str, name: str, *, append: bool) -> FileOutput:
    """Check a redirection target before the command runs, as open(2) would."""
    try:
        path = resolve(cwd, name)
        ensure_parent_dir(vfs, path)
    except OSError as exc:
        raise RedirectError(f"{quote_name(name)}: {describe(exc)}") from exc
    if is_dir(vfs, path):
        raise RedirectError(f"{quote_name(name)}: Is a directory")
    sink = FileOutput(vfs, path, name, append=append)
    try:
        sink.open()
    except OSError as exc:  # EROFS on a read-only mount, EACCES outside a view
        raise RedirectError(f"{quote_name(name)}: {describe(exc)}") from exc
    return sink
