"""A browser folder (a ``FileSystemDirectoryHandle``) as a mount, and the browser's mount host.

The handle work is done in JS by ``web/worker/fsa.mjs`` (walking handles, mapping DOMExceptions to
POSIX codes); each backend method is one call into it, whose promise Python blocks on with
``pyodide.ffi.run_sync`` (JSPI). That works when Python was entered through a promising call or
runs in an asyncio task (every async operation of the JS API, the shell, the preview). A plain
synchronous call from JS (``stat``, ``readdir``... of the JS API) cannot block: the backend then
raises ``NeedsPromising`` before doing anything, ``WebAPI`` answers ``{"promising": true}``, and
the worker repeats that one call with ``callPromising`` (docs/mounts.md, "Sync calls and JSPI").
Those calls only read metadata, so the repeat has no side effect.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import FsError
from .backend import BackendError, Entry, Rel
from .host import NeedsFolder


class NeedsPromising(Exception):
    """This Python entry cannot block on a promise; the call must be made again with
    ``callPromising``."""


def _js(value: Any) -> Any:
    from js import Object
    from pyodide.ffi import to_js

    return to_js(value, dict_converter=Object.fromEntries)


class FsaWriter:
    """A ``createWritable`` stream held by web/worker/fsa.mjs under ``writer_id``."""

    def __init__(self, backend: FsaBackend, writer_id: int) -> None:
        self._backend = backend
        self._id = writer_id

    def write(self, data: bytes) -> None:
        """``Writer.write``, through the handle's writable."""
        self._backend._call("writeChunk", self._id, _js(data))

    def close(self) -> None:
        """``Writer.close``: the writable is closed, the file replaced."""
        self._backend._call("closeWriter", self._id)

    def abort(self) -> None:
        """``Writer.abort``: the writable is aborted, the file untouched."""
        self._backend._call("abortWriter", self._id)


class FsaBackend:
    """The folder behind ``handle``; ``fsa`` is the web/worker/fsa.mjs module (a JsProxy)."""

    def __init__(self, handle: Any, fsa: Any) -> None:
        self.handle = handle
        self.fsa = fsa

    @property
    def name(self) -> str:
        """The folder's name, as the browser shows it."""
        return str(self.handle.name)

    def _call(self, function: str, *args: Any) -> Any:
        from pyodide.ffi import can_run_sync, run_sync

        if not can_run_sync():
            raise NeedsPromising(function)
        answer = run_sync(getattr(self.fsa, function)(*args))
        code = getattr(answer, "code", None)  # {value} or {code, message}
        if code is not None:
            raise BackendError(str(code), str(getattr(answer, "message", "")))
        return getattr(answer, "value", None)

    def _at(self, function: str, rel: Rel, *args: Any) -> Any:
        return self._call(function, self.handle, _js(list(rel)), *args)

    def stat(self, rel: Rel) -> Entry:
        """``Backend.stat``."""
        return _entry(self._at("stat", rel), rel[-1] if rel else "")

    def list(self, rel: Rel, *, detail: bool = False) -> list[Entry]:
        """``Backend.list``."""
        return [_entry(item, str(item.name)) for item in self._at("list", rel, detail)]

    def read(self, rel: Rel, start: int = 0, end: int | None = None) -> bytes:
        """``Backend.read``."""
        return self._at("read", rel, start, end).to_bytes()

    def open_writer(self, rel: Rel, *, keep: bool = False) -> FsaWriter:
        """``Backend.open_writer``."""
        return FsaWriter(self, int(self._at("openWriter", rel, keep)))

    def truncate(self, rel: Rel, length: int) -> None:
        """``Backend.truncate``."""
        self._at("truncate", rel, length)

    def touch(self, rel: Rel) -> None:
        """``Backend.touch``."""
        self._at("touch", rel)

    def set_times(self, rel: Rel, atime_ms: float, mtime_ms: float) -> None:
        """The File System Access API cannot set times: the browser's own stay."""

    def mkdir(self, rel: Rel) -> None:
        """``Backend.mkdir``."""
        self._at("mkdir", rel)

    def remove(self, rel: Rel) -> None:
        """``Backend.remove``."""
        self._at("remove", rel)

    def move(self, src: Rel, dst: Rel) -> None:
        """``Backend.move``."""
        self._call("move", self.handle, _js(list(src)), _js(list(dst)))

    def same_entry(self, a: Rel, b: Rel) -> bool:
        """``isSameEntry`` of the two handles (a case-insensitive folder of the host)."""
        return bool(self._call("sameEntry", self.handle, _js(list(a)), _js(list(b))))


def _entry(item: Any, name: str) -> Entry:
    mtime = getattr(item, "mtime", None)
    return Entry(name, str(item.kind), int(getattr(item, "size", 0) or 0),
                 None if mtime is None else float(mtime))


class BrowserHost:
    """The shell's mount host in the browser: the page picks folders and keeps their handles,
    so ``mount``, ``unmount`` and ``reconnect`` are requests to it (``request`` is the worker's
    JS function that posts them and resolves with the page's answer)."""

    def __init__(self, request: Any) -> None:
        self._request = request

    async def mount(self, path: str, *, read_only: bool, folder: str | None) -> dict[str, Any]:
        """Ask the page to mount a folder at ``path`` (its picker, or a kept handle)."""
        if folder is not None:
            raise NeedsFolder("in the browser the folder is picked, not named: "
                              "mount [--read-only] PATH")
        return await self._ask("mount", path, {"path": path, "readOnly": read_only})

    async def unmount(self, path: str) -> dict[str, Any]:
        """Ask the page to unmount ``path`` (and forget its handle)."""
        return await self._ask("unmount", path, {"path": path})

    async def reconnect(self, path: str) -> dict[str, Any]:
        """Ask the page to ask the user for permission again, then reconnect ``path``."""
        return await self._ask("reconnect", path, {"path": path})

    async def mint_root(self, root: dict[str, str]) -> str:
        """A preview root ``{root, kind, node}`` pinned by Python (py_vfs/hosts/preview.py,
        ``PinnedPreviews``), minted by the page (web/page/preview_roots.mjs): it keeps the token
        where every app tab finds it, then gives the root's URL on the preview origin."""
        return str((await self._ask("preview", root["root"], root))["url"])

    async def _ask(self, kind: str, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        answer = (await self._request(kind, _js(payload))).to_py()
        error = answer.get("error")
        if error:
            failure = FsError.of(str(error.get("code") or "EIO"), kind, path)
            hint = error.get("hint")
            raise failure.with_hint(hint) if hint else failure
        return dict(answer["value"])
