"""The disk's dock in the VFS worker: ``openVFS({name, dock: {url, token}})`` (docs/dock.md).

The same sync engine as on CPython (``py_vfs/dock/replica.py``), its HTTP through the worker's
``fetch`` (``FetchTransport``: the dock's server-sent events too, read from a streamed body,
since ``EventSource`` cannot send the token). Each sync round holds a Web Lock named after the
disk, so that the workers of several tabs of one profile (each with its own runtime) never sync
the same disk at once: they share its journal and its ``meta/dock:state``. Every status change
is posted to the pages (``vfs.onSyncStatus``). Nothing here runs for a disk without a dock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..core.errors import FsError
from ..dock.link import Offline, Refusal, Reply
from ..dock.replica import DockReplica
from ..vfs import VFS

REQUEST_MS = 30_000  # one request's bound (the events channel has none: it is long-lived)


class FetchTransport:
    """``replica.Transport`` over the worker's ``fetch``."""

    async def request(self, method: str, url: str, headers: dict[str, str],
                      body: bytes | None = None) -> Reply:
        """``Transport.request``; a network failure or timeout is ``ConnectionError``."""
        from js import AbortSignal, Object, fetch
        from pyodide.ffi import JsException, to_js

        init: dict[str, Any] = {"method": method, "headers": headers, "cache": "no-store",
                                "signal": AbortSignal.timeout(REQUEST_MS)}
        if body is not None:
            init["body"] = to_js(body)
        try:
            response = await fetch(url, to_js(init, dict_converter=Object.fromEntries))
            data = await response.arrayBuffer()
        except JsException as error:
            raise ConnectionError(str(error)) from None
        return Reply(int(response.status), data.to_bytes())

    async def events(self, url: str, headers: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
        """``Transport.events``: the body of a fetch read as it streams, each event's data
        parsed as JSON; the fetch is aborted when the caller stops."""
        from js import AbortController, Object, TextDecoder, fetch
        from pyodide.ffi import JsException, to_js

        controller = AbortController.new()
        init = {"headers": {**headers, "Accept": "text/event-stream"}, "cache": "no-store",
                "signal": controller.signal}
        try:
            response = await fetch(url, to_js(init, dict_converter=Object.fromEntries))
            if int(response.status) != 200:
                raise ConnectionError(f"events answered {response.status}")
            reader = response.body.getReader()
            decoder = TextDecoder.new()
            text = ""
            while True:
                piece = await reader.read()
                if piece.done:
                    return
                text += str(decoder.decode(piece.value, to_js({"stream": True},
                                                              dict_converter=Object.fromEntries)))
                text = text.replace("\r\n", "\n")
                while "\n\n" in text:
                    block, text = text.split("\n\n", 1)
                    data = "\n".join(line[5:].strip() for line in block.split("\n")
                                     if line.startswith("data:"))
                    if data:
                        with contextlib.suppress(ValueError):
                            yield json.loads(data)
        except JsException as error:
            raise ConnectionError(str(error)) from None
        finally:
            controller.abort()


class BrowserReplica(DockReplica):
    """A ``DockReplica`` whose rounds hold the disk's Web Lock (``exclusive(name)`` resolves
    to the function that lets it go), so that two tabs' workers never sync it at once."""

    def __init__(self, vfs: VFS, url: str, token: str, exclusive: Callable[[str], Any],
                 lock_name: str) -> None:
        super().__init__(vfs, url, token, FetchTransport())
        self._exclusive = exclusive
        self._lock_name = lock_name

    async def sync(self, *, confirm: bool = False) -> dict[str, Any]:
        """``DockReplica.sync``, holding the disk's Web Lock."""
        release = await self._exclusive(self._lock_name)
        try:
            return await super().sync(confirm=confirm)
        finally:
            release()


class DockSync:
    """A disk's dock in the worker: its replica, synced in the background from ``start()``,
    and ``vfs.sync()`` / ``vfs.syncStatus()`` of every page (``WebAPI``'s dockSync and
    dockStatus). ``post(status)`` tells the pages of each status change."""

    def __init__(self, vfs: VFS, url: str, token: str, post: Callable[[dict[str, Any]], None],
                 exclusive: Callable[[str], Any], name: str) -> None:
        self.replica = BrowserReplica(vfs, url, token, exclusive, f"pyvfs-dock:{name}")
        self.replica.listeners.append(post)
        self.started: asyncio.Future[None] | None = None

    def start(self) -> None:
        """Sync once and keep syncing, in the background: the disk is usable meanwhile, and
        offline it keeps working (the status says ``offline``)."""

        async def run() -> None:
            with contextlib.suppress(Offline, Refusal):
                await self.replica.sync()
            await self.replica.start()

        self.started = asyncio.ensure_future(run())

    def status(self) -> dict[str, Any]:
        """``{state, pending, head, error?}`` (``DockReplica.status``)."""
        return self.replica.status()

    async def sync(self, confirm: bool = False) -> dict[str, Any]:
        """One round now: resolves once every local commit is on the dock and the dock's head
        is here; a clear error otherwise (nothing changes on the disk by the failure)."""
        try:
            return await self.replica.sync(confirm=confirm)
        except Offline as error:
            raise FsError.of("ENOTCONN", "sync").with_hint(str(error)) from None
        except Refusal as refusal:
            raise _refused(refusal) from None


def _refused(refusal: Refusal) -> FsError:
    body = refusal.body if isinstance(refusal.body, dict) else {}
    if body.get("error") == "held":
        return FsError.of("EPERM", "sync").with_hint(
            f"the dock held this push: it deletes {body.get('deletes')} of the disk's "
            f"{body.get('nodes')} nodes; vfs.sync({{confirm: true}}) applies it")
    code = "EACCES" if refusal.status in (401, 403) else "EPROTO"
    return FsError.of(code, "sync").with_hint(f"the dock refused: {refusal}")


def no_dock(vfs: Any) -> FsError:
    """The error of ``vfs.sync()`` on a disk (or a view) without a dock."""
    if not isinstance(vfs, VFS):
        return FsError.of("EACCES", "sync").with_hint("a restricted view cannot sync the disk")
    return FsError.of("ENOTSUP", "sync").with_hint(
        "this disk has no dock: open it with openVFS({name, dock: {url, token}})")
