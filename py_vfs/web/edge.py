"""The Pyodide edge of the JS API: what web/worker/worker.mjs calls in Python.

``open_api`` boots the disk's ``WebAPI`` (py_vfs/web/webapi.py, plain Python) on the IndexedDB
store JS opened; ``dispatch`` runs one call, ``dispatch_many`` the calls the page made in one
turn (one message, one entry into Python: docs/architecture.md, "Calls of one turn"). Both
convert JS arguments in and envelopes (``{value}`` or ``{error}``) out.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from ..archives import scratch
from ..core.errors import FsError
from ..defaults import Bundle, install
from ..disk.journal import Retention
from ..hosts.preview import PinnedPreviews
from ..mounts.fsa import BrowserHost
from ..vfs import VFS
from .dock_sync import DockSync
from .envelopes import Envelope, broken
from .scripts import use_js_realm
from .webapi import WebAPI


def _out(envelope: Any) -> Any:
    """``envelope`` (or a list of answers holding envelopes) as JS objects."""
    js = _js()
    return js.to_js(envelope, dict_converter=js.from_entries)


class _Js:
    """What the edge uses of ``pyodide.ffi`` and of JS, looked up once. An import statement in
    a function looks the module and each name up again at every call (about 10 µs in Pyodide,
    on every call's way in and out); and not at import time, because the runtime snapshot is
    made of py_vfs's modules imported, before any call (web/worker/snapshot_maker.mjs), and a
    JS object must not be in it."""

    def __init__(self) -> None:
        from js import Object
        from pyodide.ffi import JsProxy, JsTypedArray, jsnull, to_js

        self.JsProxy, self.JsTypedArray, self.jsnull, self.to_js = \
            JsProxy, JsTypedArray, jsnull, to_js
        self.from_entries = Object.fromEntries


@functools.cache
def _js() -> _Js:
    """The one ``_Js``, made at the first call."""
    return _Js()


def dispatch(api: WebAPI, op: str, js_args: Any, writer: str | None = None,
             call_id: int | None = None, request: str | None = None,
             retry: float | None = None) -> Any:
    """One call: JS arguments in, a JS object (or a Promise of one) out; ``writer`` is the call
    envelope's (protocol.CALL_WRITER), ``call_id`` its id when the page may cancel it
    (protocol.CALL_SIGNAL), ``request`` and ``retry`` its request id and, when it is sent
    again, its first-sent time (protocol.CALL_REQUEST, CALL_RETRY)."""
    jsnull = _js().jsnull
    # JS's null arrives as pyodide.ffi.jsnull, not None: an absent id or writer is None here.
    call_id = None if call_id is jsnull else call_id
    writer = None if writer is jsnull else writer
    request = None if request is jsnull else request
    retry = None if retry is jsnull else retry
    # The call's task converts its envelope as it ends (``out``): the Future it returns
    # resolves the worker's promise with the JS object, with no task of ours around it.
    result = api.call(op, [from_js(arg) for arg in js_args], writer, call_id, out=_out,
                      request=request, retry=retry)
    if isinstance(result, dict):
        return _out(result)
    if result.done():  # it needed no I/O: answered now, as a synchronous operation is
        return result.result()
    return result


def dispatch_many(api: WebAPI, js_calls: Any, answer: Any) -> Any:
    """Several calls, each ``[id, op, args, writer, request]`` (none cancellable nor sent
    again), run in their order in this one entry. The answers of those that needed no I/O are
    returned, as an array of ``[id, envelope]``; the others are passed to ``answer`` once done,
    those done in the same turn of the event loop together (one ``answer(array)``), so that a
    group commit of many writes is answered with one message. Calls and answers cross in one
    conversion each. A call's task hands its envelope over as it ends (``WebAPI.call``'s
    ``out``, which hears of a failure too): no done callback, a turn of the event loop each,
    per call."""
    jsnull = _js().jsnull

    now: list[list[Any]] = []
    later: list[list[Any]] = []
    entering = True  # answers given while this entry runs go back with it

    def flush() -> None:
        batch = later[:]
        later.clear()
        answer(_out(batch))

    def answer_of(call_id: int) -> Callable[[Envelope], None]:
        def out(envelope: Envelope) -> None:
            if entering:
                now.append([call_id, envelope])
                return
            if not later:
                asyncio.get_event_loop().call_soon(flush)
            later.append([call_id, envelope])

        return out

    ids: list[int] = []
    calls: list[tuple[str, list[Any], str | None, str | None, Callable[[Envelope], None]]] = []
    # Three levels at once (the list, each call, each call's arguments): a JS array iterated
    # from Python crosses once an element.
    for call_id, op, js_args, writer, request in js_calls.to_py(depth=3):
        try:
            args = [from_js(arg) for arg in js_args]
        except Exception as error:  # a bug: EIO for this call, the others go on
            now.append([call_id, broken(error)])
            continue
        ids.append(call_id)
        calls.append((op, args, None if writer is jsnull else writer,
                      None if request is jsnull else request, answer_of(call_id)))
    try:
        answers = api.call_many(calls)
    finally:
        entering = False
    now.extend([call_id, envelope] for call_id, envelope in zip(ids, answers, strict=True)
               if envelope is not None)
    return _out(now)


# What ``from_js`` does with a value, by its type: pass it as it is (what arrives from JS
# already as Python: strings, numbers, booleans, undefined; most arguments are paths), take a
# typed array's bytes, or convert a JS object. Learned at the first value of each type and kept:
# which JsProxy a value is depends on its type alone, and asking (the isinstance of JsProxy's
# metaclass, in Python) cost more than the rest of a small call's conversion.
_AS_IS, _BYTES, _OBJECT = 0, 1, 2
_KINDS: dict[type, int] = dict.fromkeys((str, int, float, bool, type(None)), _AS_IS)


def from_js(value: Any) -> Any:
    """Uint8Array becomes bytes, plain objects dicts; strings and numbers pass as they are; a
    function (the shell's ``emit``: web/worker/worker.mjs) is called with its bytes as
    Uint8Array."""
    kind = _KINDS.get(type(value))
    if kind is None:
        kind = _KINDS[type(value)] = _kind_of(value)
    if kind == _AS_IS:
        return value
    if kind == _BYTES:
        return value.to_bytes()
    if value.typeof == "function":
        to_js = _js().to_js
        return lambda *args: value(*(to_js(arg) if isinstance(arg, bytes) else arg
                                     for arg in args))
    return value.to_py()


def _kind_of(value: Any) -> int:
    """What ``from_js`` does with values of ``value``'s type."""
    js = _js()
    if isinstance(value, js.JsTypedArray):
        return _BYTES
    return _OBJECT if isinstance(value, js.JsProxy) else _AS_IS


async def open_api(js_store: Any, js_notify: Any = None,
                   js_host: Any = None, cache_bytes: int | None = None,
                   js_invalidate: Any = None, retention: Any = None,
                   js_defaults: Any = None) -> WebAPI:
    """Boot from the worker: open the VFS on the IndexedDB store JS has opened.
    ``js_notify(watchId, event)`` posts a watch event to the page; ``js_host`` carries
    ``request`` (asks the page to pick, unmount, reconnect, mint preview roots), ``fsa``
    (web/worker/fsa.mjs) and, where the origin private file system is at hand, ``scratch`` (makes a
    scratch folder there: web/worker/opfs_scratch.mjs);
    ``js_invalidate(view)`` posts a stat cache invalidation to the page; ``retention``
    (``{days, entries}``, openVFS's) how long the journal keeps history; ``js_defaults``
    (``{manifest, files, install}``: the fetched default content, its bytes by disk path, and
    whether to install it now, openVFS's ``defaults``) or null when none is shipped."""
    from ..storage.indexeddb import IndexedDBStore

    def notify(watch_id: int, event: dict[str, str]) -> None:
        js_notify(watch_id, _out(event))

    opening: dict[str, Any] = {} if cache_bytes is None else {"cache_bytes": int(cache_bytes)}
    kept = from_js(retention)
    if kept is not None:
        opening["retention"] = Retention(**{key: kept[key] for key in ("days", "entries")
                                          if kept.get(key) is not None})
    vfs = await VFS.open(IndexedDBStore(js_store), **opening)
    shipped = from_js(js_defaults)  # Uint8Arrays inside become memoryviews
    bundle = None
    if shipped is not None:
        bundle = Bundle.from_manifest(shipped["manifest"], shipped["files"])
        if shipped["install"]:
            try:
                await install(vfs, bundle)
            except FsError as error:  # a full disk still opens; the next open tries again
                from js import console
                console.warn(f"py_vfs: the default content was not installed: {error}")
    # Leftovers of streams cut short (a tab closed mid-upload) go once their grace is over; in
    # the background, so the disk is usable at once.
    mounts: dict[str, Any] = {}
    if getattr(js_host, "scratch", None) is not None:
        scratch.use(scratch.opened_by(js_host.scratch))
    if js_host is not None:
        host = BrowserHost(js_host.request)
        mounts = {"host": host, "fsa": js_host.fsa, "previews": PinnedPreviews(vfs, host.mint_root)}
    api = WebAPI(vfs, notify=notify if js_notify is not None else None,
                 invalidate=js_invalidate, defaults=bundle, **mounts)
    if getattr(js_host, "jsh", None) is not None:  # .jsh scripts run in Web Workers
        use_js_realm(api.channels, js_host.jsh, js_host.realm)
    api.collecting = asyncio.ensure_future(vfs.gc())
    return api


def open_dock(api: WebAPI, url: str, token: str, name: str, js_post: Any,
              js_exclusive: Any) -> None:
    """Attach the dock openVFS named to the disk and start syncing in the background
    (py_vfs/web/dock_sync.py): ``js_post(status)`` posts each status change to the pages,
    ``js_exclusive(lockName)`` resolves once the Web Lock is held, to the function that lets
    it go."""
    assert isinstance(api.vfs, VFS)

    def post(status: dict[str, Any]) -> None:
        js_post(_out(status))

    async def exclusive(lock_name: str) -> Any:
        return await js_exclusive(lock_name)

    api.dock = DockSync(api.vfs, url, token, post, exclusive, name)
    api.dock.start()


def open_guest(api: WebAPI, js_notify: Any, js_request: Any) -> WebAPI:
    """A guest tab's API over ``api``'s disk (``WebAPI.guest``): ``js_notify(watchId, event)``
    posts a watch event on the guest's port, ``js_request`` asks the guest's page, as
    ``open_api``'s host does for the host's page."""

    def notify(watch_id: int, event: dict[str, str]) -> None:
        js_notify(watch_id, _out(event))

    host = BrowserHost(js_request)
    return api.guest(notify, host=host, previews=PinnedPreviews(api.vfs, host.mint_root))
