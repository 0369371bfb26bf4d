"""What ``os.stat`` and ``os.scandir`` return for a VFS path: an ``os.stat_result`` and
entries that behave as ``os.DirEntry``."""

from __future__ import annotations

import hashlib
import os
import stat as stat_module
from typing import Any

from ..core.errors import FsError
from .binding import Binding, relabel

# st_dev of every VFS path: one device, so os.path.ismount and samestat see one file system.
DEVICE = 0x7F5F
_TYPE_BITS = {"file": stat_module.S_IFREG, "directory": stat_module.S_IFDIR,
              "symlink": stat_module.S_IFLNK}


def inode(canonical: str) -> int:
    """An inode number for the file at ``canonical`` when its stat has none (``Stat.ino`` 0):
    two paths to one file (through links) give the same number, as os.path.samefile needs."""
    return int.from_bytes(hashlib.blake2b(canonical.encode("utf-8", "surrogatepass"),
                                          digest_size=7).digest(), "big") or 1


def stat_result(found: Any) -> os.stat_result:
    """The ``os.stat_result`` of a VFS ``Stat``: type bits and permission bits, size, times
    (seconds, float and nanoseconds); the owner is the process's user."""
    times = (found.atime_ms, found.mtime_ms, found.ctime_ms)
    seconds = [ms / 1000 for ms in times]
    nanoseconds = [round(ms * 1_000_000) for ms in times]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    gid = os.getgid() if hasattr(os, "getgid") else 0
    ino = getattr(found, "ino", 0) or inode(found.path)  # the node's, kept across renames
    fields = (_TYPE_BITS.get(found.type, 0) | found.mode, ino, DEVICE,
              2 if found.type == "directory" else 1, uid, gid, found.size,
              *(int(value) for value in seconds))
    extra = {"st_atime": seconds[0], "st_mtime": seconds[1], "st_ctime": seconds[2],
             "st_atime_ns": nanoseconds[0], "st_mtime_ns": nanoseconds[1],
             "st_ctime_ns": nanoseconds[2], "st_blksize": 4096,
             "st_blocks": (found.size + 511) // 512}
    return os.stat_result(fields, extra)


class DirEntry:
    """One entry of ``os.scandir`` on a VFS directory, as ``os.DirEntry``: ``name``, ``path``
    (the scanned path joined with the name), the kind known from the listing, ``stat()``."""

    def __init__(self, binding: Binding, directory: Any, name: str, kind: str,
                 vfs_path: str) -> None:
        self._binding = binding
        self._kind = kind
        self._vfs_path = vfs_path
        self._stat: os.stat_result | None = None
        self._lstat: os.stat_result | None = None
        as_bytes = isinstance(directory, bytes)
        self.name: Any = os.fsencode(name) if as_bytes else name
        sep = b"/" if as_bytes else "/"
        self.path: Any = self.name if directory in ("", b"") else (
            directory + self.name if directory.endswith(sep) else directory + sep + self.name)

    def __fspath__(self) -> Any:
        return self.path

    def __repr__(self) -> str:
        return f"<DirEntry {self.name!r}>"

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        """The entry's stat (links followed unless ``follow_symlinks`` is False), cached."""
        follow = follow_symlinks and self._kind == "symlink"
        if not follow:
            if self._lstat is None:
                self._lstat = self._fetch("lstat")
            return self._lstat
        if self._stat is None:
            self._stat = self._fetch("stat")
        return self._stat

    def _fetch(self, method: str) -> os.stat_result:
        try:
            return stat_result(self._binding.call(method, self._vfs_path))
        except FsError as exc:
            raise relabel(exc, self.path) from None

    def inode(self) -> int:
        """The entry's inode number (of the entry itself, not a link's target)."""
        return self.stat(follow_symlinks=False).st_ino

    def _is(self, kind: str, follow_symlinks: bool) -> bool:
        if self._kind != "symlink" or not follow_symlinks:
            return self._kind == kind
        try:
            mode = self.stat().st_mode
        except OSError:
            return False
        return (stat_module.S_ISDIR if kind == "directory" else stat_module.S_ISREG)(mode)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        """True for a directory (or a link to one, when following)."""
        return self._is("directory", follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        """True for a regular file (or a link to one, when following)."""
        return self._is("file", follow_symlinks)

    def is_symlink(self) -> bool:
        """True for a symbolic link."""
        return self._kind == "symlink"

    def is_junction(self) -> bool:
        """Always False (a Windows notion)."""
        return False


class ScandirIterator:
    """What ``os.scandir`` returns: an iterator of ``DirEntry`` that is also a context
    manager (the listing is read whole at the call)."""

    def __init__(self, entries: list[DirEntry]) -> None:
        self._entries = iter(entries)

    def __iter__(self) -> ScandirIterator:
        return self

    def __next__(self) -> DirEntry:
        return next(self._entries)

    def __enter__(self) -> ScandirIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Ends the iteration."""
        self._entries = iter(())


def scandir(binding: Binding, given: Any, vfs_path: str) -> ScandirIterator:
    """``os.scandir(given)`` for the VFS directory ``vfs_path``."""
    canonical, nodes = binding.call("scandir", vfs_path)
    base = canonical.rstrip("/")
    given = os.fspath(given)
    return ScandirIterator([DirEntry(binding, given, node.name, node.kind,
                                     f"{base}/{node.name}") for node in nodes])
