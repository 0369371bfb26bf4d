"""What a mounted folder must offer: a few synchronous primitives on paths inside it.

A backend knows nothing of POSIX rules or of the VFS around it: the mount layer (``side``) checks
every precondition with ``stat`` and ``list`` first and only then asks for the one change, so two
very different backends (a host directory through ``os``, a browser folder through the File System
Access API) answer every operation with the same codes.

Paths are ``Rel``: the tuple of names below the mount's root (``()`` is the root). Names are
already validated (no ``/``, no ``.`` or ``..``). The methods are synchronous because much of the
VFS API is (``stat``, ``readdir``, ``walk``...); the browser backend blocks on its promises through
JSPI (see ``fsa``). Failures raise ``BackendError`` with a POSIX code; the mount layer turns it
into an ``FsError`` naming the user's path.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

Rel = tuple[str, ...]

FILE = "file"
DIRECTORY = "directory"


class BackendError(Exception):
    """A primitive failed; ``code`` is the POSIX code (ENOENT, ENOTDIR, EACCES...)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


class Entry(NamedTuple):
    """One name in a mounted folder. ``mtime_ms`` is None where the folder keeps none (the
    File System Access API has no times for directories)."""

    name: str
    kind: str
    size: int = 0
    mtime_ms: float | None = None


class Writer(Protocol):
    """A file being written. Its new content replaces the old one at ``close``; ``abort`` keeps
    the old one (and removes the file if the writer created it)."""

    def write(self, data: bytes) -> None:
        """Append ``data`` to the file being written."""

    def close(self) -> None:
        """The file now holds what was written."""

    def abort(self) -> None:
        """Give up: the file stays as it was."""


class Backend(Protocol):
    """The primitives of one mounted folder (see the module docstring for the contract)."""

    @property
    def name(self) -> str:
        """The folder's own name, shown by ``mount list``."""
        ...

    def stat(self, rel: Rel) -> Entry:
        """Kind, size and mtime (ENOENT, ENOTDIR on the way)."""
        ...

    def list(self, rel: Rel, *, detail: bool = False) -> list[Entry]:
        """The entries of a directory, in any order; sizes and mtimes only with ``detail``."""
        ...

    def read(self, rel: Rel, start: int = 0, end: int | None = None) -> bytes:
        """The bytes ``[start, end)`` of a file, read now (never cached)."""
        ...

    def open_writer(self, rel: Rel, *, keep: bool = False) -> Writer:
        """Create or replace the file at ``rel`` (its parent exists); ``keep`` starts from the
        current content and writes after it (append)."""
        ...

    def truncate(self, rel: Rel, length: int) -> None:
        """Cut or extend (with zeros) the file at ``rel`` to ``length`` bytes."""

    def touch(self, rel: Rel) -> None:
        """Set an existing entry's mtime to now, where the folder allows it."""
        ...

    def set_times(self, rel: Rel, atime_ms: float, mtime_ms: float) -> None:
        """Set times where the folder allows it; elsewhere do nothing."""
        ...

    def mkdir(self, rel: Rel) -> None:
        """Create a directory whose parent exists and whose name is free."""
        ...

    def remove(self, rel: Rel) -> None:
        """Remove a file, or a directory with everything below it."""
        ...

    def move(self, src: Rel, dst: Rel) -> None:
        """Move an entry to a free name (or onto a file, which it replaces)."""
        ...

    def same_entry(self, a: Rel, b: Rel) -> bool:
        """Whether two existing names lead to one entry (``a`` and ``A`` on a case-insensitive
        folder): a rename between them must not remove the "other" one first."""
        ...
