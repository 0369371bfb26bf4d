"""Python inside a scoop's realm (docs/sandbox.md, "A realm for code"): the Python half of
web/realm/realm_python.mjs.

A realm's Pyodide holds no disk: its one way to files is the port of the scoop's view, over which
``PortVFS`` sends the protocol's calls (py_vfs/web/protocol.py), the same messages any view's port
carries, and the view answers them in the VFS worker with the scope checked there. A run is
the shell's ``python`` (py_vfs/shell/python_run.py, ``run_here``) with this side's streams:
its writes go to the shell over the realm's port and wait for it to take them, its reads wait
for the shell's next piece of input, and Python's own ``open()``, ``os``, ``pathlib`` and fsspec
reach ``PortVFS`` (py_vfs/pyhost), as they reach the disk in the unrestricted shell.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from types import SimpleNamespace
from typing import Any

from ..core.blocking import block_on
from ..core.errors import FsError
from ..core.messages import RUN, kind
from ..core.node import DirEntry, Stat
from ..shell.context import Context
from ..shell.pipes import Emit, NoInput, StreamInput
from ..shell.python_run import run_here
from ..views.page_disks import record, working

# The streams a run writes to (RUN's "out" and "err" messages, web/realm/realm_python.mjs).
_OUT, _ERR = kind(RUN, "out"), kind(RUN, "err")

Call = Callable[[str, list[Any]], Awaitable[Any]]


def _stat(value: dict[str, Any]) -> Stat:
    return Stat(type=value["type"], size=int(value["size"]), mode=int(value["mode"]),
                mtime_ms=value["mtimeMs"], ctime_ms=value["ctimeMs"],
                atime_ms=value["atimeMs"], name=value["name"], path=value["path"],
                target=value.get("target"), ino=int(value.get("ino") or 0))


def _error(envelope: dict[str, Any]) -> FsError:
    """The view's error envelope as the core's exception (the same code, syscall and path)."""
    error = FsError.of(str(envelope.get("code") or "EIO"), str(envelope.get("syscall") or ""),
                       envelope.get("path"), envelope.get("dest"))
    return error.with_hint(envelope["hint"]) if envelope.get("hint") else error


def _plain(value: Any) -> Any:
    """A JS value as Python's: objects as dicts, arrays as lists, bytes as bytes."""
    if hasattr(value, "to_py"):
        value = value.to_py()
    if isinstance(value, memoryview):
        return value.tobytes()
    return value


class PortVFS:
    """A restricted view, reached over its port: the methods of the Python API that Python's
    own file API, fsspec and scripts use, with the view's answers and errors. The methods the
    VFS answers synchronously (``stat``, ``readdir``...) are synchronous here too: they block
    the running script (JSPI) until the view answers."""

    confined = True  # a restricted view (py_vfs/views/page_disks.py)

    def __init__(self, call: Call) -> None:
        self._call_js = call

    async def _reply(self, op: str, args: tuple[Any, ...]) -> dict[str, Any]:
        """The view's reply to ``op``: ``{"value": ...}`` or ``{"error": envelope}``."""
        from pyodide.ffi import to_js

        return _plain(await self._call_js(op, to_js(list(args), dict_converter=_object)))

    async def call(self, op: str, *args: Any) -> Any:
        """The protocol's ``op`` with ``args``; its value, or its error raised."""
        reply = await self._reply(op, args)
        if reply.get("error") is not None:
            raise _error(reply["error"])
        return _plain(reply.get("value"))

    def _now(self, op: str, *args: Any) -> Any:
        """``call``, the running script blocked on it. The error is made here, from the reply:
        one raised inside ``run_sync``'s task would be kept by that task (and with it every
        frame of its traceback: an open file not yet closed), and printed on stderr."""
        reply = block_on(self._reply(op, args))
        if reply.get("error") is not None:
            raise _error(reply["error"])
        return _plain(reply.get("value"))

    # ----------------------------------------------------------------- answered at once
    def stat(self, path: str) -> Stat:
        """The node at ``path``, links followed."""
        return _stat(self._now("stat", path))

    def lstat(self, path: str) -> Stat:
        """The node at ``path`` itself."""
        return _stat(self._now("lstat", path))

    def exists(self, path: str) -> bool:
        """True when ``path`` leads to a node."""
        return bool(self._now("exists", path))

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """The names in a directory (``DirEntry`` items with ``with_types``)."""
        found = self._now("readdir", path, {"withFileTypes": with_types})
        if not with_types:
            return [str(name) for name in found]
        return [DirEntry(entry["name"], entry["path"], entry["type"]) for entry in found]

    def scandir(self, path: str) -> tuple[str, list[Any]]:
        """The directory's real path and its entries (each with ``name`` and ``kind``)."""
        listing = self._now("readdirStats", path)
        names = listing["names"].split("/") if listing["names"] else []
        kinds = listing["kinds"].split(",") if listing["kinds"] else []
        entries = [SimpleNamespace(name=n, kind=k) for n, k in zip(names, kinds, strict=True)]
        return listing["path"], entries

    def readlink(self, path: str) -> str:
        """A link's target."""
        return str(self._now("readlink", path))

    def realpath(self, path: str) -> str:
        """``path`` with every link resolved."""
        return str(self._now("realpath", path))

    def walk(self, path: str = "/") -> list[str]:
        """Every path below ``path``."""
        return list(self._now("walk", path))

    def glob(self, pattern: str) -> list[str]:
        """The paths matching ``pattern``."""
        return list(self._now("glob", pattern))

    # ---------------------------------------------------------------------- awaited
    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        """A file's content (text with ``encoding``)."""
        data = await self.call("readFile", path)
        return data.decode(encoding) if encoding else data

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Replace (or make) a file, its missing parents made (as the VFS's ``write_file``)."""
        options = {} if mode is None else {"mode": mode}
        await self.with_parents(path, lambda: self.call("writeFile", path, _bytes(data), options))

    async def with_parents(self, path: str, make: Callable[[], Awaitable[Any]]) -> Any:
        """``make()``, the file's missing parents made first when it finds one missing: the
        protocol's writeFile and openWrite answer ENOENT then, as Node's do."""
        try:
            return await make()
        except FsError as error:
            if error.code != "ENOENT":
                raise
        await self.call("mkdir", posixpath.dirname(path) or "/", {"recursive": True})
        return await make()

    async def append_file(self, path: str, data: bytes | str) -> None:
        """Add to the end of a file (made when missing)."""
        await self.call("appendFile", path, _bytes(data))

    async def truncate(self, path: str, length: int = 0) -> None:
        """Cut or extend a file to ``length`` bytes."""
        await self.call("truncate", path, length)

    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        """Make a directory (and its parents with ``recursive``)."""
        options: dict[str, Any] = {"recursive": recursive}
        if mode is not None:
            options["mode"] = mode
        await self.call("mkdir", path, options)

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """Remove a file, or a tree with ``recursive``."""
        await self.call("rm", path, {"recursive": recursive, "force": force})

    async def rmdir(self, path: str) -> None:
        """Remove an empty directory."""
        await self.call("rmdir", path)

    async def unlink(self, path: str) -> None:
        """Remove a file or link."""
        await self.call("unlink", path)

    async def rename(self, old: str, new: str) -> None:
        """Move ``old`` to ``new``."""
        await self.call("rename", old, new)

    async def symlink(self, target: str, path: str) -> None:
        """Make a link at ``path`` to ``target``."""
        await self.call("symlink", target, path)

    async def copy_file(self, src: str, dst: str) -> None:
        """Copy a file."""
        await self.call("copyFile", src, dst)

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """Copy a file or, with ``recursive``, a tree."""
        await self.call("cp", src, dst, {"recursive": recursive})

    async def chmod(self, path: str, mode: int) -> None:
        """Set the permission bits."""
        await self.call("chmod", path, mode)

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        """Set the access and modification times (ms since 1970)."""
        await self.call("utimes", path, atime_ms, mtime_ms)

    async def touch(self, path: str) -> None:
        """Make an empty file, or set an existing one's times to now."""
        now = time.time() * 1000
        try:
            await self.utimes(path, now, now)
        except FileNotFoundError:
            await self.write_file(path, b"")

    def open_read(self, path: str, start: int = 0, end: int | None = None) -> PortReadStream:
        """A file's bytes ``start`` to ``end``, a chunk at a time."""
        return PortReadStream(self, path, start, end)

    def stream_writer(self, path: str, *, mode: int | None = None) -> PortWriteStream:
        """A stream that replaces the file at ``path`` when closed."""
        return PortWriteStream(self, path, mode)


def _object(entries: Any) -> Any:
    from js import Object

    return Object.fromEntries(entries)


def _bytes(data: bytes | str) -> bytes:
    return data.encode() if isinstance(data, str) else bytes(data)


class PortReadStream:
    """``open_read`` over the port: the view's read stream, pulled a chunk per call."""

    def __init__(self, vfs: PortVFS, path: str, start: int, end: int | None) -> None:
        self._vfs = vfs
        self._args = (path, start, end)

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        stream = await self._vfs.call("openRead", *self._args)
        finished = False
        try:
            while (chunk := await self._vfs.call("readChunk", stream)) is not None:
                yield chunk
            finished = True
        finally:
            if not finished:  # the view lets go of a stream read to its end by itself
                await self._vfs.call("closeStream", stream)

    async def read_all(self) -> bytes:
        """Every byte of the range."""
        return b"".join([chunk async for chunk in self])


class PortWriteStream:
    """``stream_writer`` over the port: opened at its first write, committed at ``close``."""

    def __init__(self, vfs: PortVFS, path: str, mode: int | None) -> None:
        self._vfs = vfs
        self._path = path
        self._options = {} if mode is None else {"mode": mode}
        self._id: int | None = None

    async def _stream(self) -> int:
        if self._id is None:
            opened = await self._vfs.with_parents(
                self._path, lambda: self._vfs.call("openWrite", self._path, self._options))
            self._id = int(opened)
        return self._id

    async def write(self, data: bytes) -> None:
        """Add ``data`` to what the file will hold."""
        await self._vfs.call("writeChunk", await self._stream(), bytes(data))

    async def close(self) -> None:
        """Replace the file with what was written, in one commit."""
        await self._vfs.call("finishWrite", await self._stream())

    async def abort(self) -> None:
        """Give up: the file stays as it was."""
        if self._id is not None:
            await self._vfs.call("closeStream", self._id)


class _Session:
    """What a run needs of a shell session: its directory and exported variables."""

    def __init__(self, cwd: str, env: dict[str, str]) -> None:
        self.cwd = cwd
        self._env = env
        self.scoop_name = None

    def environment(self) -> dict[str, str]:
        """The exported variables."""
        return dict(self._env)


_vfs: list[PortVFS] = []


def connect(call: Call, name: str) -> None:
    """The realm's view of the disk ``name``, reached through the JS function ``call(op,
    args)`` (its port's client in web/realm/realm_python.mjs); fsspec reaches it by that name."""
    _vfs[:] = [PortVFS(call)]
    record(name, _vfs[0])


async def _reads(streams: Any) -> AsyncIterator[bytes]:
    while (chunk := await streams.read()) is not None:
        yield _plain(chunk)


async def run(streams: Any, source: str, filename: str, argv: Any, env: Any, cwd: str,
              stdin: bool, isatty: bool) -> int:
    """One script, as the shell's ``python`` runs it, with ``streams`` (web/realm/realm_python.mjs:
    ``write(stream, bytes)``, ``read()``); its exit status."""
    from pyodide.ffi import to_js

    vfs = _vfs[0]

    def emit(stream: str) -> Callable[[bytes], Awaitable[object]]:
        return lambda data: streams.write(stream, to_js(data))

    ctx = Context(vfs=vfs, session=_Session(cwd, dict(_plain(env))),  # type: ignore[arg-type]
                  name="python", stdin=StreamInput(_reads(streams)) if stdin else NoInput(),
                  stdout=Emit(emit(_OUT), isatty=isatty), stderr=Emit(emit(_ERR)))
    with working(vfs):
        return await run_here(ctx, source, filename, list(_plain(argv)))
