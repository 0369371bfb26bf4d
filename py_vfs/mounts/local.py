"""A host directory as a mount, through ``os``: for ``python -m py_vfs shell`` on CPython, and for
the unit tests, which run the whole file API under a mount on CPython and in Pyodide (MEMFS).

Nothing below the mounted folder may lead outside it (docs/mounts.md, "Host folders"):

- every name is checked to be one plain component for the host (``check_name``): never ``.``,
  ``..``, ``/`` or NUL, and on Windows never ``\\`` or ``:`` (``..\\x``, ``C:x``, ``\\\\server``);
- symlinks of the host folder are followed only while they resolve inside it: a path whose real
  location (``os.path.realpath``) is outside the folder answers EACCES, for reads and writes alike
  (a link to ``/etc/passwd``, a link to ``../..`` and any path through it). A listing still shows
  such a link, as an empty file, so that its name explains the EACCES. The check is made before
  each call: a host process that swaps a directory for a link between the check and the call is
  outside what this guards against (the VFS itself cannot make links in a mount).

A write goes to a temporary file beside the target and replaces it at ``close``, as
``createWritable`` does with its swap file, so a reader never sees half a file and an aborted
write leaves the old content. The temporary name is dot-prefixed with a random part, created
exclusively (it never replaces a user's file), and hidden from listings only while this backend
is writing it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat as st
from collections.abc import Callable, Iterator
from typing import TypeVar

from .backend import DIRECTORY, FILE, BackendError, Entry, Rel

T = TypeVar("T")


@contextlib.contextmanager
def _mapped() -> Iterator[None]:
    """OSError from ``os`` becomes a BackendError with the POSIX code name."""
    try:
        yield
    except OSError as error:
        code = errno.errorcode.get(error.errno or 0, "EIO")
        raise BackendError(code, str(error)) from None


def _entry(name: str, result: os.stat_result) -> Entry:
    kind = DIRECTORY if st.S_ISDIR(result.st_mode) else FILE
    size = result.st_size if kind == FILE else 0
    return Entry(name, kind, size, result.st_mtime_ns / 1e6)


def check_name(name: str, flavour: str = os.name) -> None:
    """Refuse (EINVAL) a name that a host of path flavour ``flavour`` (``os.name``: "posix",
    "nt") would not take as one plain component of a path: "", ".", "..", a name holding "/" or
    NUL and, on Windows, one holding "\\" or ":" (a separator, a drive or a stream)."""
    if name in ("", ".", "..") or "/" in name or "\0" in name or (
            flavour == "nt" and ("\\" in name or ":" in name)):
        raise BackendError("EINVAL", f"{name!r} is not one plain name on this host")


class LocalWriter:
    """Writes into a fresh ``.pyvfs-<random>.tmp`` beside the target, renamed over it at close;
    ``in_flight`` holds the temporary path meanwhile (the backend hides it from listings)."""

    def __init__(self, target: str, keep: bool, in_flight: set[str]) -> None:
        self._target = target
        self._temp = os.path.join(os.path.dirname(target),
                                  f".pyvfs-{secrets.token_hex(8)}.tmp")
        self._in_flight = in_flight
        with _mapped():
            self._file = open(self._temp, "xb")  # noqa: SIM115 (closed later)
        in_flight.add(self._temp)
        try:
            with _mapped():
                if keep and os.path.exists(target):
                    with open(target, "rb") as old:
                        shutil.copyfileobj(old, self._file)
        except BaseException:
            self.abort()
            raise

    def write(self, data: bytes) -> None:
        """``Writer.write``, into a temporary file beside the target."""
        with _mapped():
            self._file.write(data)

    def close(self) -> None:
        """``Writer.close``: the temporary file replaces the target."""
        with _mapped():
            self._file.close()
            os.replace(self._temp, self._target)
        self._in_flight.discard(self._temp)

    def abort(self) -> None:
        """``Writer.abort``: the temporary file goes."""
        self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self._temp)
        self._in_flight.discard(self._temp)


class LocalBackend:
    """The folder ``root`` of the host file system (it must exist and be a directory).
    ``flavour`` is the host's path flavour (``os.name``), which decides the names refused."""

    def __init__(self, root: str | os.PathLike[str], *, flavour: str = os.name) -> None:
        self.root = os.path.abspath(os.fspath(root))
        if not os.path.isdir(self.root):
            raise BackendError("ENOTDIR" if os.path.exists(self.root) else "ENOENT", self.root)
        self.flavour = flavour
        self._real_root = os.path.realpath(self.root)
        self._in_flight: set[str] = set()  # temporary files of the writes under way

    @property
    def name(self) -> str:
        """The host directory's name."""
        return os.path.basename(self.root) or self.root

    def _inside(self, path: str) -> bool:
        """Whether the host path ``path``, links resolved, is the root or below it."""
        real = os.path.realpath(path)
        return real == self._real_root or real.startswith(
            self._real_root.rstrip(os.sep) + os.sep)

    def host(self, rel: Rel) -> str:
        """The host path of ``rel``: EINVAL for a name that is not one plain component, EACCES
        when links lead it outside the mounted folder."""
        for name in rel:
            check_name(name, self.flavour)
        path = os.path.join(self.root, *rel)
        if not self._inside(path):
            raise BackendError("EACCES", f"{path} leads outside the mounted folder")
        return path

    def _call(self, action: Callable[[], T]) -> T:
        with _mapped():
            return action()

    def stat(self, rel: Rel) -> Entry:
        """``Backend.stat``."""
        path = self.host(rel)
        return _entry(rel[-1] if rel else "", self._call(lambda: os.stat(path)))

    def list(self, rel: Rel, *, detail: bool = False) -> list[Entry]:
        """``Backend.list``."""
        with _mapped(), os.scandir(self.host(rel)) as listing:
            return [self._listed(item, detail) for item in listing
                    if item.path not in self._in_flight]

    def _listed(self, item: os.DirEntry[str], detail: bool) -> Entry:
        if item.is_symlink() and not self._inside(item.path):  # shown, never followed
            mtime = item.stat(follow_symlinks=False).st_mtime_ns / 1e6 if detail else None
            return Entry(item.name, FILE, 0, mtime)
        if detail:
            return _entry(item.name, item.stat())
        return Entry(item.name, DIRECTORY if item.is_dir() else FILE)

    def read(self, rel: Rel, start: int = 0, end: int | None = None) -> bytes:
        """``Backend.read``."""
        path = self.host(rel)
        with _mapped(), open(path, "rb") as f:
            f.seek(start)
            return f.read() if end is None else f.read(max(0, end - start))

    def open_writer(self, rel: Rel, *, keep: bool = False) -> LocalWriter:
        """``Backend.open_writer``."""
        return LocalWriter(self.host(rel), keep, self._in_flight)

    def truncate(self, rel: Rel, length: int) -> None:
        """``Backend.truncate``."""
        path = self.host(rel)
        self._call(lambda: os.truncate(path, length))

    def touch(self, rel: Rel) -> None:
        """``Backend.touch``."""
        path = self.host(rel)
        self._call(lambda: os.utime(path))

    def set_times(self, rel: Rel, atime_ms: float, mtime_ms: float) -> None:
        """``Backend.set_times``."""
        path = self.host(rel)
        times = (int(atime_ms * 1e6), int(mtime_ms * 1e6))
        self._call(lambda: os.utime(path, ns=times))

    def mkdir(self, rel: Rel) -> None:
        """``Backend.mkdir``."""
        path = self.host(rel)
        self._call(lambda: os.mkdir(path))

    def remove(self, rel: Rel) -> None:
        """``Backend.remove``."""
        path = self.host(rel)
        with _mapped():
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)

    def move(self, src: Rel, dst: Rel) -> None:
        """``Backend.move``."""
        old, new = self.host(src), self.host(dst)
        self._call(lambda: os.replace(old, new))

    def same_entry(self, a: Rel, b: Rel) -> bool:
        """Whether two names lead to one entry (a case-insensitive host, a hard link)."""
        first, second = self.host(a), self.host(b)
        return self._call(lambda: os.path.samefile(first, second))
