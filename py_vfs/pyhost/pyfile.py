"""A file of the VFS as a Python file object: what ``open()`` returns for a path on the disk
(docs/python.md, "open()").

``open_file(runner, vfs, path, mode)`` takes the modes and arguments of Python's ``open`` and
returns the same layers: a raw file (``VFSRawFile``), buffered (``io.BufferedReader``,
``BufferedWriter`` or ``BufferedRandom``) unless ``buffering=0``, and an ``io.TextIOWrapper``
in text mode. ``runner`` (``py_vfs.core.blocking``) runs the VFS's coroutines for this synchronous
API: a thread's loop on CPython, ``pyodide.ffi.run_sync`` in the page.

How each mode reaches the disk:

- ``r``: reads are lazy. Each read takes the byte range it asks for from the disk, and only the
  chunks that hold it are read (the disk's chunk cache keeps recent ones), so a big file read
  line by line holds about one chunk.
- ``w`` and ``x``: the bytes stream into one write stream, and ``close()`` replaces the file in
  one commit: a reader sees the old content or the new, never half; ``x`` fails with
  FileExistsError when it exists.
- ``a``: what is written is appended in one commit at ``close()`` (a missing file is made at
  ``open``).
- ``+`` (``r+``, ``w+``, ``a+``, ``x+``): the file's content is read whole at ``open`` (at
  most ``RANDOM_LIMIT`` bytes), read and written in memory, and written back in one commit at
  ``close()`` if it changed.

A missing file opened ``w`` or ``x`` (``+`` or not) is made with its content, in the one commit
of ``close()``: one commit and one journal entry, not two. Linux makes it at ``open``, so the
code that opened it sees it from then on: its next ``open`` and every ``os`` call on the disk
(``make_unmade``, called by them and by ``py_vfs.pyhost.binding``) first make the files opened
so far (empty, one commit each). The disk's other users (the shell, JS, other tabs) see the file
at ``close()``; everything the open can fail with (no parent, a directory in the way, a
read-only view or folder) fails at ``open``, as on Linux.

Writes are durable when ``close()`` returns. Errors are the core's ``OSError`` subclasses with
Linux's errno.
"""

from __future__ import annotations

import io
import os
import weakref
from typing import Any

from ..core.blocking import Blocking
from ..core.errors import FsError
from ..disk.content import CHUNK_SIZE

RANDOM_LIMIT = 256 << 20  # the largest file a "+" mode holds in memory
# The default buffer: each read of the disk costs a crossing to its loop, so fewer and larger.
BUFFER_SIZE = 128 << 10

# Files opened "w" or "x" on a missing path and not yet made (see the module docstring).
_UNMADE: weakref.WeakSet[VFSRawFile] = weakref.WeakSet()


def make_unmade(vfs: Any) -> None:
    """Make the files opened "w" or "x" on ``vfs`` and not yet made (empty), as Linux made
    them at ``open``: before the code that opened them looks at the disk again."""
    for raw in list(_UNMADE):
        if raw._vfs is vfs:
            raw.make()


class VFSRawFile(io.RawIOBase):
    """The unbuffered file: reads ranges of the disk's file, or writes it (see the module)."""

    def __init__(self, runner: Blocking, vfs: Any, path: str, mode: str) -> None:
        super().__init__()
        self.name = path
        self.mode = mode
        self._runner = runner
        self._vfs = vfs
        self._path = path
        self._position = 0
        self._stream: Any = None
        self._pending = bytearray()  # "a": what close() appends
        self._memory: bytearray | None = None  # "+": the whole content
        self._dirty = False
        self._kind = _kind_of(mode)  # after the fields close() reads: a bad mode closes cleanly
        # "r": the last chunk read (aligned), which the next small reads are served from: a
        # streaming read keeps no chunk in the disk's cache, and a text layer reads 8 KiB at a
        # time, so each chunk is fetched from the store once, not once per read.
        self._window = b""
        self._window_start = 0
        self.fd: int | None = None  # the descriptor os.fsync takes for this file (py_vfs.pyhost)
        make_unmade(vfs)
        self._open()

    # ------------------------------------------------------------------------- opening

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._runner.call(getattr(self._vfs, method), *args, **kwargs)

    def _existing(self) -> Any:
        """The file's stat, None when it does not exist; a directory: IsADirectoryError."""
        try:
            found = self._call("stat", self._path)
        except FileNotFoundError:
            return None
        if found.is_dir:
            raise FsError.of("EISDIR", "open", self._path)
        return found

    def _check_parent(self) -> None:
        """A file is made only in an existing directory (a write elsewhere makes parents)."""
        parent = self._path.rsplit("/", 1)[0] or "/"
        try:
            found = self._call("stat", parent)
        except FileNotFoundError:
            raise FsError.of("ENOENT", "open", self._path) from None
        except NotADirectoryError:
            raise FsError.of("ENOTDIR", "open", self._path) from None
        if not found.is_dir:
            raise FsError.of("ENOTDIR", "open", self._path)

    def _open(self) -> None:
        kind, plus = self._kind, "+" in self.mode
        found = self._existing()
        if kind == "x" and found is not None:
            raise FsError.of("EEXIST", "open", self._path)
        if kind == "r" and found is None:
            raise FsError.of("ENOENT", "open", self._path)
        if found is None:
            self._check_parent()
            if kind in ("w", "x"):
                _UNMADE.add(self)  # made by close(), unless looked at before
            else:
                self._call("write_file", self._path, b"")
        if plus:
            if kind == "w" or found is None:
                self._memory = bytearray()
                self._dirty = kind == "w" and found is not None and found.size > 0
            else:
                if found.size > RANDOM_LIMIT:
                    raise FsError.of("EFBIG", "open", self._path)
                self._memory = bytearray(self._call("read_file", self._path))
            if kind == "a":
                self._position = len(self._memory)
        elif kind in ("w", "x"):
            self._stream = self._runner.call(self._vfs.stream_writer, self._path)
        elif kind == "a":
            self._position = found.size if found is not None else 0

    # ------------------------------------------------------------------------- io.RawIOBase

    def readable(self) -> bool:
        """True in ``r`` and the ``+`` modes."""
        return self._kind == "r" or "+" in self.mode

    def writable(self) -> bool:
        """True in every mode but ``r``."""
        return self._kind != "r" or "+" in self.mode

    def seekable(self) -> bool:
        """True, as for a file of the host (text layers then know where a stream starts: a
        UTF-16 file gets its BOM); a write stream (``w``, ``x``, ``a``) seeks only to where it
        is."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` from the current position; 0 at the end of the file."""
        self._check_open()
        if not self.readable():
            raise io.UnsupportedOperation("read")
        view = memoryview(buffer).cast("B")
        if self._memory is not None:
            piece = self._memory[self._position:self._position + len(view)]
        else:
            piece = self._read_window(len(view))
        view[:len(piece)] = piece
        self._position += len(piece)
        return len(piece)

    def _read_window(self, size: int) -> bytes:
        """Up to ``size`` bytes at the position, from the chunk that holds it."""
        offset = self._position - self._window_start
        if not 0 <= offset < len(self._window):
            start = self._position - self._position % CHUNK_SIZE
            self._window = self._runner.call(lambda: self._vfs.open_read(
                self._path, start, start + CHUNK_SIZE).read_all())
            self._window_start, offset = start, self._position - start
        return self._window[offset:offset + size]

    def write(self, data: Any) -> int:
        """Write ``data`` at the current position (at the end in ``a`` modes)."""
        self._check_open()
        if not self.writable():
            raise io.UnsupportedOperation("write")
        piece = bytes(data)
        if self._memory is not None:
            if self._kind == "a":
                self._position = len(self._memory)
            end = self._position + len(piece)
            if self._position > len(self._memory):
                self._memory.extend(bytes(self._position - len(self._memory)))
            self._memory[self._position:end] = piece
            self._dirty = self._dirty or bool(piece)
        elif self._stream is not None:
            self._runner.run(self._stream.write(piece))
        else:
            self._pending += piece
        self._position += len(piece)
        return len(piece)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """Move the position, as ``os.lseek``; past the end is allowed (a write there fills
        the gap with zeros)."""
        self._check_open()
        if not self.readable():
            if (whence, offset) in ((os.SEEK_CUR, 0), (os.SEEK_SET, self._position)):
                return self._position
            raise io.UnsupportedOperation(
                "seek: a file opened for writing only streams; open it with a '+' mode")
        if whence == os.SEEK_SET:
            target = offset
        elif whence == os.SEEK_CUR:
            target = self._position + offset
        elif whence == os.SEEK_END:
            target = self._size() + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if target < 0:
            raise FsError.of("EINVAL", "lseek", self._path)
        self._position = target
        return target

    def tell(self) -> int:
        """The current position."""
        self._check_open()
        return self._position

    def truncate(self, size: int | None = None) -> int:
        """Cut (or extend with zeros) the content to ``size`` bytes (``+`` modes)."""
        self._check_open()
        if self._memory is None:
            raise io.UnsupportedOperation("truncate: open the file with a '+' mode")
        size = self._position if size is None else size
        if size < 0:
            raise FsError.of("EINVAL", "ftruncate", self._path)
        if size < len(self._memory):
            del self._memory[size:]
        else:
            self._memory.extend(bytes(size - len(self._memory)))
        self._dirty = True
        return size

    def fileno(self) -> int:
        """The descriptor ``py_vfs.pyhost`` gave this file (for ``os.fsync``); without one,
        ``io.UnsupportedOperation`` as for an in-memory file."""
        if self.fd is None:
            raise io.UnsupportedOperation("fileno")
        return self.fd

    def stat(self) -> Any:
        """The file's stat on the disk (``os.fstat``)."""
        self._check_open()
        make_unmade(self._vfs)
        return self._call("stat", self._path)

    def make(self) -> None:
        """Make the file, empty, if it waits for ``close()`` to be made (``make_unmade``)."""
        if self in _UNMADE:
            _UNMADE.discard(self)
            if not self._call("exists", self._path):
                self._call("write_file", self._path, b"")

    def sync(self) -> None:
        """``os.fsync``: commit what was written so far (durable when this returns). A ``w``
        or ``x`` stream replaces the file with what it holds, and later writes are appended at
        the next sync or at ``close()``."""
        self._check_open()
        self._commit()

    def _commit(self) -> None:
        unmade = self in _UNMADE
        _UNMADE.discard(self)  # the commit below makes it
        if self._stream is not None:
            stream, self._stream = self._stream, None
            self._runner.run(stream.close())
        elif self._pending:
            data, self._pending = bytes(self._pending), bytearray()
            self._call("append_file", self._path, data)
        elif self._memory is not None and (self._dirty or unmade):
            self._call("write_file", self._path, bytes(self._memory))
            self._dirty = False

    def close(self) -> None:
        """Commit what was written (durable when this returns), then close."""
        if self.closed:
            return
        try:
            self._commit()
        finally:
            super().close()

    def _size(self) -> int:
        if self._memory is not None:
            return len(self._memory)
        return self._call("stat", self._path).size

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on closed file.")


def _kind_of(mode: str) -> str:
    """``r``, ``w``, ``a`` or ``x`` from a mode Python's ``open`` accepts (checked there)."""
    kinds = [char for char in mode if char in "rwax"]
    if len(kinds) != 1 or set(mode) - set("rwaxbt+") or len(set(mode)) != len(mode):
        raise ValueError(f"invalid mode: '{mode}'")
    return kinds[0]


def open_file(runner: Blocking, vfs: Any, path: str, mode: str = "r", buffering: int = -1,
              encoding: str | None = None, errors: str | None = None,
              newline: str | None = None) -> Any:
    """Python's ``open(path, mode, buffering, encoding, errors, newline)`` for ``path`` on
    ``vfs``: the same layers and behaviour as for a file of the host (see the module)."""
    check_arguments(mode, buffering, encoding, errors, newline)
    raw = VFSRawFile(runner, vfs, path, mode.replace("t", "").replace("b", "") + "b")
    return layer(raw, mode, buffering, encoding, errors, newline)


def check_arguments(mode: str, buffering: int, encoding: str | None, errors: str | None,
                    newline: str | None) -> None:
    """open()'s checks of its arguments, made before any file is touched."""
    _kind_of(mode)
    binary = "b" in mode
    if binary and (encoding is not None or errors is not None or newline is not None):
        raise ValueError("binary mode doesn't take an encoding, errors or newline argument")
    if binary and "t" in mode:
        raise ValueError("can't have text and binary mode at once")
    if buffering == 0 and not binary:
        raise ValueError("can't have unbuffered text I/O")


def layer(raw: VFSRawFile, mode: str, buffering: int = -1, encoding: str | None = None,
          errors: str | None = None, newline: str | None = None) -> Any:
    """The layers ``open`` puts over a raw file for ``mode`` and ``buffering``: the raw file
    itself (``buffering=0``), a buffered one, or text over a buffered one."""
    check_arguments(mode, buffering, encoding, errors, newline)
    if buffering == 0:
        return raw
    size = BUFFER_SIZE if buffering in (-1, 1) else buffering
    if raw.readable() and raw.writable():
        buffered: Any = io.BufferedRandom(raw, size)
    elif raw.writable():
        buffered = io.BufferedWriter(raw, size)
    else:
        buffered = io.BufferedReader(raw, size)
    if "b" in mode:
        return buffered
    text = io.TextIOWrapper(buffered, encoding, errors, newline, line_buffering=buffering == 1)
    text.mode = mode  # as open() sets it
    return text
