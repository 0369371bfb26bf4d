"""The VFS as an fsspec file system, protocol ``pyvfs`` (docs/python.md).

``fsspec.filesystem("pyvfs", disk="my.db")`` opens a SQLite disk file on CPython, ``disk=None``
(the default) a fresh disk in memory. URLs carry no disk name (``pyvfs:///workspace/a.csv``): the
storage options choose the disk. fsspec keeps one instance per set of options, so every
``fsspec.open`` with the same options shares one open disk.

Reads are random access: a file opened ``rb`` fetches the byte ranges fsspec's cache asks for,
and each range reads only the chunks that hold it (``VFS.open_read``). A file opened ``wb``
streams its blocks into one write stream and replaces the file in one commit when it is closed
(or at the end of an fsspec transaction); ``ab`` appends each flushed block; ``xb`` fails with
FileExistsError when the file exists as it is opened.

In Pyodide in the page, ``name="default"`` is the page's disk of that name (the disk its
worker serves, the very VFS the JS API and the shell use), and a file system made with no
``disk`` is the page's disk too; inside a restricted view (a scoop) it is that view and nothing
else (``py_vfs.views.page_disks``, resolved at each call since fsspec shares one instance per set of
options).

fsspec is synchronous and the VFS's operations are coroutines (``py_vfs.core.blocking``): a disk of
its own runs on its own event loop, in a thread of its own on CPython, stepped by the caller in
Pyodide (``StepLoop``: a memory disk waits for no JS); the page's disk runs on the page's loop,
and a call suspends Python with JSPI until it has finished (``PageLoop``; EAGAIN where it
cannot).
"""

from __future__ import annotations

import stat as stat_module
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fsspec.spec import AbstractBufferedFile, AbstractFileSystem

from .core.blocking import Blocking, PageLoop, StepLoop, ThreadLoop
from .core.errors import FsError
from .core.node import DIRECTORY, FILE, SYMLINK, Stat
from .vfs import VFS
from .views import page_disks

_PAGE = object()  # no disk given: the page's disk in the page, else a new memory disk
_TYPE_BITS = {FILE: stat_module.S_IFREG, DIRECTORY: stat_module.S_IFDIR,
              SYMLINK: stat_module.S_IFLNK}


class PyVFSFileSystem(AbstractFileSystem):
    """A py_vfs disk as an fsspec ``AbstractFileSystem`` (protocol ``pyvfs``)."""

    protocol = "pyvfs"
    root_marker = "/"

    def __init__(self, disk: str | Path | object | None = _PAGE, *, name: str | None = None,
                 writer: str = "user", **storage_options: Any) -> None:
        """Open the disk: ``disk``, a SQLite disk file (made when missing; None: a new disk in
        memory), ``writer`` naming who the changes are made by, in the journal. In the page:
        ``name``, the page's disk of that name (``disk`` not given: the page's disk)."""
        super().__init__(**storage_options)
        self._page = name is not None or (disk is _PAGE and page_disks.served() is not None)
        self._name = name
        if self._page:
            page_disks.reach(name)  # a name this Python cannot reach fails here already
            self._loop: Blocking = PageLoop()
            return
        self._loop = StepLoop() if sys.platform == "emscripten" else ThreadLoop()
        self._vfs = self._loop.run(_open_disk(None if disk is _PAGE else disk, writer))

    @property
    def vfs(self) -> Any:
        """The disk (or, in the page, the disk or view the running code reaches: at each use)."""
        return page_disks.reach(self._name) if self._page else self._vfs

    def close(self) -> None:
        """Closes the disk and stops its loop; the instance cannot be used afterwards (fsspec's
        instance cache still holds it: ``clear_instance_cache()`` forgets it). The page's
        disk stays open: it is the page's."""
        if self._page:
            return
        self._loop.call(self._vfs.close)
        self._loop.close()

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """``self.vfs.method(*args, **kwargs)`` run to completion on the disk's loop."""
        return self._loop.call(getattr(self.vfs, method), *args, **kwargs)

    @classmethod
    def _strip_protocol(cls, path: str | list[str]) -> Any:
        """``pyvfs:///a/b/`` -> ``/a/b``: an absolute path with no protocol."""
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        text = str(path)
        if text.startswith("pyvfs://"):
            text = text[len("pyvfs://"):]
        elif text.startswith("pyvfs:"):
            text = text[len("pyvfs:"):]
        text = "/" + text.lstrip("/")
        return text.rstrip("/") or "/"

    # ------------------------------------------------------------------------ metadata

    def _describe(self, path: str) -> dict[str, Any]:
        """fsspec's info dict of ``path`` (on the loop): a symlink is described as its target,
        with ``islink`` and ``destination``; a dangling one is of type ``other``."""
        found = self.vfs.lstat(path)
        details: dict[str, Any] = {"name": path, "islink": found.type == SYMLINK}
        described: Stat | None = found
        if found.type == SYMLINK:
            details["destination"] = found.target
            try:
                described = self.vfs.stat(path)
            except FileNotFoundError:
                described = None
        kind = described.type if described and described.type in (FILE, DIRECTORY) else "other"
        details.update(
            type=kind, size=described.size if described and kind == FILE else 0,
            mode=(described or found).mode | _TYPE_BITS.get((described or found).type, 0),
            mtime=found.mtime_ms / 1000, created=found.ctime_ms / 1000)
        return details

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        """The entry at ``path``: name, size, type (file, directory, other), mode, mtime,
        created, islink (and destination). FileNotFoundError when there is none."""
        return self._loop.call(self._describe, self._strip_protocol(path))

    def _listing(self, path: str) -> list[dict[str, Any]]:
        """Every entry of the directory ``path`` described (on the loop); a file: itself."""
        if not self.vfs.stat(path).is_dir:
            return [self._describe(path)]
        prefix = path.rstrip("/")
        return [self._describe(f"{prefix}/{name}") for name in self.vfs.readdir(path)]

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        """The entries of a directory (of a file: the file), as info dicts or full paths."""
        entries = self._loop.call(self._listing, self._strip_protocol(path))
        return entries if detail else [entry["name"] for entry in entries]

    def exists(self, path: str, **kwargs: Any) -> bool:
        """True when ``path`` names an entry (a dangling symlink counts, as in ``lexists``);
        False for any path that cannot be reached (missing, or through a file), as Linux."""
        try:
            self.info(path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    def created(self, path: str) -> Any:
        """When the entry's metadata last changed (the VFS keeps no birth time), a datetime."""
        return datetime.fromtimestamp(self.info(path)["created"], tz=UTC)

    def modified(self, path: str) -> Any:
        """When the entry's content last changed, a datetime."""
        return datetime.fromtimestamp(self.info(path)["mtime"], tz=UTC)

    # ------------------------------------------------------------------------ changes

    def mkdir(self, path: str, create_parents: bool = True, **kwargs: Any) -> None:
        """Make a directory (and its missing parents, unless ``create_parents`` is False);
        FileExistsError when it exists."""
        path = self._strip_protocol(path)
        if create_parents and self.exists(path):
            raise FsError.of("EEXIST", "mkdir", path)
        self._call("mkdir", path, recursive=create_parents)

    def makedirs(self, path: str, exist_ok: bool = False) -> None:
        """Make a directory and its parents; with ``exist_ok`` an existing one is fine."""
        path = self._strip_protocol(path)
        if self.exists(path):
            if exist_ok and self.isdir(path):
                return
            raise FsError.of("EEXIST", "mkdir", path)
        self._call("mkdir", path, recursive=True)

    def rmdir(self, path: str) -> None:
        """Remove an empty directory."""
        self._call("rmdir", self._strip_protocol(path))

    def _rm(self, path: str) -> None:
        """Remove one file or symlink (a directory: IsADirectoryError)."""
        self._call("unlink", self._strip_protocol(path))

    def rm(self, path: Any, recursive: bool = False, maxdepth: int | None = None) -> None:
        """Remove files, and with ``recursive`` directories with everything below them."""
        for found in reversed(self.expand_path(path, recursive=recursive, maxdepth=maxdepth)):
            if self.isdir(found):
                if not recursive:
                    raise FsError.of("EISDIR", "unlink", found)
                if self.exists(found):  # gone already when a listed parent went first
                    self._call("rm", found, recursive=True)
            else:
                self._rm(found)
        self.invalidate_cache()

    def cp_file(self, path1: str, path2: str, **kwargs: Any) -> None:
        """Copy one file's content, making ``path2``'s missing parents as a write does (a
        directory: make it at ``path2``)."""
        path1, path2 = self._strip_protocol(path1), self._strip_protocol(path2)
        if self.isdir(path1):
            self.makedirs(path2, exist_ok=True)
            return
        self.makedirs(self._parent(path2), exist_ok=True)
        self._call("copy_file", path1, path2)

    def mv(self, path1: Any, path2: Any, recursive: bool = False, maxdepth: int | None = None,
           **kwargs: Any) -> None:
        """Move: one entry to a name that does not exist yet is one atomic rename; anything
        else (globs, lists, into a directory) is fsspec's copy then remove."""
        if isinstance(path1, str) and isinstance(path2, str) and not maxdepth \
                and not any(char in path1 for char in "*?[") and self.exists(path1) \
                and not self.exists(path2):
            self._call("rename", self._strip_protocol(path1), self._strip_protocol(path2))
            return
        super().mv(path1, path2, recursive=recursive, maxdepth=maxdepth, **kwargs)

    def pipe_file(self, path: str, value: bytes, mode: str = "overwrite", **kwargs: Any) -> None:
        """Write ``value`` as the whole file in one commit; ``mode="create"``: FileExistsError
        when the file exists."""
        path = self._strip_protocol(path)
        if mode == "create" and self.exists(path):
            raise FsError.of("EEXIST", "open", path)
        self._call("write_file", path, bytes(value))

    def cat_file(self, path: str, start: int | None = None, end: int | None = None,
                 **kwargs: Any) -> bytes:
        """The file's bytes ``[start, end)`` (negative: from the end), reading only the chunks
        that hold them."""
        path = self._strip_protocol(path)
        if (start is not None and start < 0) or (end is not None and end < 0):
            size = self.info(path)["size"]
            start = size + start if start is not None and start < 0 else start
            end = size + end if end is not None and end < 0 else end
        return self._loop.call(lambda: self.vfs.open_read(path, start or 0, end).read_all())

    def touch(self, path: str, truncate: bool = True, **kwargs: Any) -> None:
        """Make an empty file (``truncate``: empty an existing one), or update its times."""
        path = self._strip_protocol(path)
        if truncate or not self.exists(path):
            self._call("write_file", path, b"")
        else:
            self._call("touch", path)

    def _open(self, path: str, mode: str = "rb", block_size: int | None = None,
              autocommit: bool = True, cache_options: dict | None = None,
              **kwargs: Any) -> PyVFSFile:
        """A buffered file: ``rb`` (random access), ``wb``, ``ab`` or ``xb``."""
        path = self._strip_protocol(path)
        if mode == "xb" and self.exists(path):
            raise FsError.of("EEXIST", "open", path)
        return PyVFSFile(self, path, mode, block_size or "default", autocommit,
                         cache_options=cache_options, **kwargs)


class PyVFSFile(AbstractBufferedFile):
    """A file of a ``PyVFSFileSystem``: reads fetch byte ranges, writes stream into one commit."""

    fs: PyVFSFileSystem

    def _fetch_range(self, start: int, end: int) -> bytes:
        """The bytes ``[start, end)``, reading only the chunks that hold them."""
        return self.fs._loop.call(
            lambda: self.fs.vfs.open_read(self.path, start, end).read_all())

    def _initiate_upload(self) -> None:
        """``wb``/``xb``: opens the write stream the blocks go to; ``ab``: nothing to open."""
        self._stream = None if self.mode == "ab" else self.fs._loop.call(
            self.fs.vfs.stream_writer, self.path)

    def _upload_chunk(self, final: bool = False) -> bool:
        """Sends the buffered block: into the write stream, or (``ab``) appended in a commit of
        its own. The final block of an autocommitted file commits it."""
        data = self.buffer.getvalue()
        if self._stream is None:
            if data:
                self.fs._call("append_file", self.path, data)
        else:
            self.fs._loop.run(self._stream.write(data))
            if final and self.autocommit:
                self.commit()
        return True

    def commit(self) -> None:
        """Replaces the file with what was written, in one commit (an fsspec transaction's end
        calls it for files opened in the transaction)."""
        if getattr(self, "_stream", None) is not None:
            stream, self._stream = self._stream, None
            self.fs._loop.run(stream.close())
        self.fs.invalidate_cache(self.path)

    def discard(self) -> None:
        """Drops what was written: the file stays as it was."""
        if getattr(self, "_stream", None) is not None:
            stream, self._stream = self._stream, None
            self.fs._loop.run(stream.abort())


async def _open_disk(disk: str | Path | None, writer: str) -> VFS:
    """On the loop: a memory disk, or the SQLite disk file ``disk`` (made when missing)."""
    if disk is None:
        return VFS.memory(writer=writer)
    from .storage.sqlite import SQLiteStore

    return await VFS.open(SQLiteStore(disk), writer=writer)
