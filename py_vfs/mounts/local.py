"""A host directory as a mount, through ``os``: for ``python -m py_vfs shell`` on CPython, and for
the unit tests, which run the whole file API under a mount on CPython and in Pyodide (MEMFS).

Symlinks inside the host folder are followed, as the browser does for a picked folder; the VFS
itself never sees a link in a mount. A write goes to a temporary file beside the target and
replaces it at ``close``, as ``createWritable`` does with its swap file, so a reader never sees
half a file and an aborted write leaves the old content.
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


class LocalWriter:
    """Writes into ``.<name>.<random>.pyvfs-tmp`` beside the target, renamed over it at close."""

    def __init__(self, target: str, keep: bool) -> None:
        folder, name = os.path.split(target)
        self._target = target
        self._temp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.pyvfs-tmp")
        with _mapped():
            if keep and os.path.exists(target):
                shutil.copyfile(target, self._temp)
            self._file = open(self._temp, "ab" if keep else "wb")  # noqa: SIM115 (closed later)

    def write(self, data: bytes) -> None:
        with _mapped():
            self._file.write(data)

    def close(self) -> None:
        with _mapped():
            self._file.close()
            os.replace(self._temp, self._target)

    def abort(self) -> None:
        self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self._temp)


class LocalBackend:
    """The folder ``root`` of the host file system (it must exist and be a directory)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.abspath(os.fspath(root))
        if not os.path.isdir(self.root):
            raise BackendError("ENOTDIR" if os.path.exists(self.root) else "ENOENT", self.root)

    @property
    def name(self) -> str:
        return os.path.basename(self.root) or self.root

    def host(self, rel: Rel) -> str:
        """The host path of ``rel``; names are validated by the VFS, so it stays inside."""
        return os.path.join(self.root, *rel)

    def _call(self, action: Callable[[], T]) -> T:
        with _mapped():
            return action()

    def stat(self, rel: Rel) -> Entry:
        return _entry(rel[-1] if rel else "", self._call(lambda: os.stat(self.host(rel))))

    def list(self, rel: Rel, *, detail: bool = False) -> list[Entry]:
        with _mapped(), os.scandir(self.host(rel)) as listing:
            return [self._listed(item, detail) for item in listing
                    if not item.name.endswith(".pyvfs-tmp")]

    @staticmethod
    def _listed(item: os.DirEntry[str], detail: bool) -> Entry:
        if detail:
            return _entry(item.name, item.stat())
        return Entry(item.name, DIRECTORY if item.is_dir() else FILE)

    def read(self, rel: Rel, start: int = 0, end: int | None = None) -> bytes:
        with _mapped(), open(self.host(rel), "rb") as f:
            f.seek(start)
            return f.read() if end is None else f.read(max(0, end - start))

    def open_writer(self, rel: Rel, *, keep: bool = False) -> LocalWriter:
        return LocalWriter(self.host(rel), keep)

    def truncate(self, rel: Rel, length: int) -> None:
        self._call(lambda: os.truncate(self.host(rel), length))

    def touch(self, rel: Rel) -> None:
        self._call(lambda: os.utime(self.host(rel)))

    def set_times(self, rel: Rel, atime_ms: float, mtime_ms: float) -> None:
        times = (int(atime_ms * 1e6), int(mtime_ms * 1e6))
        self._call(lambda: os.utime(self.host(rel), ns=times))

    def mkdir(self, rel: Rel) -> None:
        self._call(lambda: os.mkdir(self.host(rel)))

    def remove(self, rel: Rel) -> None:
        path = self.host(rel)
        with _mapped():
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)

    def move(self, src: Rel, dst: Rel) -> None:
        self._call(lambda: os.replace(self.host(src), self.host(dst)))
