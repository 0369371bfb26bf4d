"""What the shell needs of the file system: the public ``VFS`` methods it calls, as a Protocol.

The shell is typed against ``Disk`` instead of the ``VFS`` class, so it never imports
``py_vfs.vfs`` and uses nothing of it but these methods (no private member). Only the
parameters the shell passes are declared; ``VFS`` satisfies ``Disk`` structurally, and
``tests/unit/test_shell_structure.py`` checks that every method here exists on ``VFS`` with
these parameters, so a change of the VFS's API that the shell would not survive fails there and
not in a user's terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import AsyncIterable, Callable

    from ..core.node import DirEntry, Stat
    from ..data.query import Result
    from ..disk.check import Report
    from ..disk.streams import WriteStream
    from ..disk.usage import Usage


class Disk(Protocol):
    """The file-system calls of the shell; paths are absolute, failures raise ``OSError``
    (``FsError``) with ``errno`` and ``strerror`` set."""

    # ------------------------------------------------------------------ reading the tree
    def stat(self, path: str) -> Stat:
        """The node at ``path``, following symlinks."""
        ...

    def lstat(self, path: str) -> Stat:
        """The node at ``path`` itself, a symlink not followed."""
        ...

    def open_read(self, path: str, start: int = 0, end: int | None = None
                  ) -> AsyncIterable[bytes]:
        """A file's content (bytes ``start`` to ``end``), a chunk at a time (``import`` reads an
        archive so; `tail -f` what was appended)."""
        ...

    def watch(self, path: str, listener: Callable[[dict[str, str]], object],
              recursive: bool = False) -> Callable[[], None]:
        """Call ``listener(event)`` for each change at ``path``, made here or in another tab
        (`tail -f`); returns the function that stops it."""
        ...

    def stream_writer(self, path: str) -> WriteStream:
        """A writer that replaces (or creates) a file a chunk at a time, committed at close
        (``export`` writes an archive so)."""
        ...

    def exists(self, path: str) -> bool:
        """Whether ``path`` names a node, following symlinks."""
        ...

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """The names in a directory, sorted; with ``with_types``, entries with name and type."""
        ...

    def readlink(self, path: str) -> str:
        """The target a symlink holds, as it was written."""
        ...

    def realpath(self, path: str) -> str:
        """``path`` with every symlink resolved."""
        ...

    async def read_file(self, path: str) -> bytes | str:
        """A file's content (bytes when no encoding is asked, which is all the shell does)."""
        ...

    # ------------------------------------------------------------------ changing it
    async def write_file(self, path: str, data: bytes | str) -> None:
        """Replace a file's content, creating the file."""
        ...

    async def append_file(self, path: str, data: bytes | str) -> None:
        """Add ``data`` at the end of a file, creating it."""
        ...

    async def mkdir(self, path: str, *, recursive: bool = False) -> None:
        """Create a directory (with ``recursive``, its parents, and no error if present)."""
        ...

    async def rm(self, path: str, *, recursive: bool = False) -> None:
        """Remove a node; a directory and what it holds with ``recursive``."""
        ...

    async def rmdir(self, path: str) -> None:
        """Remove an empty directory."""
        ...

    async def unlink(self, path: str) -> None:
        """Remove a file or a symlink (never a directory)."""
        ...

    async def touch(self, path: str) -> None:
        """Create an empty file, or set an existing node's times to now."""
        ...

    async def symlink(self, target: str, path: str) -> None:
        """Make ``path`` a symlink holding ``target`` (``ln -s``)."""
        ...

    async def chmod(self, path: str, mode: int) -> None:
        """Set a node's mode bits (following symlinks)."""
        ...

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        """Set a node's access and modification times, in milliseconds."""
        ...

    async def rename(self, old: str, new: str) -> None:
        """Move a node, replacing what ``new`` names as rename(2) does; EXDEV across mounts."""
        ...

    async def copy_file(self, src: str, dst: str) -> None:
        """Copy one file's content (following symlinks) to ``dst``."""
        ...

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """Copy a node; a tree with ``recursive`` (symlinks copied as links)."""
        ...

    # ------------------------------------------------------------------ the disk as a whole
    async def check(self) -> Report:
        """Verify every entry, chunk, hash and size of the store (``fsck``)."""
        ...

    async def usage(self) -> Usage:
        """Counts, sizes and the quota (``df``)."""
        ...

    def mounts(self) -> list[dict[str, Any]]:
        """Every mount: path, folder name, readOnly, state."""
        ...

    # ------------------------------------------------------------------ the disk as data
    async def query(self, sql: str, params: Any = ()) -> Result:
        """One read-only SQL statement over the ``files`` and ``journal`` views."""
        ...

    async def scoop(self, name: str) -> Disk:
        """The scoop ``name``'s restricted view (not offered inside a view: `scoop` checks)."""
        ...

    def as_writer(self, writer: str) -> Disk:
        """The same disk with every change made by ``writer`` (the shell writes as ``shell``)."""
        ...

    async def journal(self, *, writer: str | None = None, path: str | None = None,
                      limit: int = 100) -> list[dict[str, Any]]:
        """The journal, newest first: revision, time, writer, operation, paths."""
        ...

    async def snapshot(self, name: str) -> dict[str, Any]:
        """Record the whole tree as snapshot ``name``."""
        ...

    async def snapshots(self) -> list[dict[str, Any]]:
        """Every snapshot: name, time, revision, writer."""
        ...

    async def diff(self, a: Any, b: Any = None) -> list[dict[str, Any]]:
        """What changed from state ``a`` to ``b`` (None: now)."""
        ...

    async def restore(self, state: Any = None, *, path: str | None = None) -> dict[str, Any]:
        """Put the disk, or ``path``, back as it was in ``state``; {revision, restored}."""
        ...
