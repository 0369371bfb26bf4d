"""The Python half of the JS API: one entry point the worker calls per user operation.

``WebAPI.call`` is plain Python (tested on CPython): it maps a JS method name and its arguments to
the VFS and wraps the outcome in an envelope, ``{"value": ...}`` or ``{"error": {code, ...}}``,
so errors cross to JS as data and are rebuilt there as Node-style ``Error``s. The Pyodide edge
(py_vfs/web/edge.py) converts JS arguments in and the envelope out.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from ..agent import run_tool
from ..core.cancel import SIGNAL, Signal
from ..core.errors import FsError
from ..defaults import Bundle, reset
from ..disk.streams import ReadStream, WriteStream
from ..disk.writers import check_writer
from ..hosts.preview import PreviewHost, PreviewRequest, respond
from ..hosts.view_hosts import ViewHost, ViewPreviews
from ..mounts.fsa import FsaBackend, NeedsPromising
from ..mounts.host import MountHost
from ..shell import Shell
from ..storage.transaction import REQUEST, WRITER
from ..vfs import VFS
from ..views.restricted import RestrictedView
from . import node_calls
from .arguments import check_call
from .data import DataOps
from .dock_sync import DockSync, no_dock
from .envelopes import Convert, Envelope, broken, failure, plain, settle, started
from .file_handles import FileHandles
from .history import HistoryOps
from .options import copy_file, flag, gc_options, grep_options, mode_of, read_file, written
from .page_cache import Views, listing
from .protocol import PYTHON_OPS, STEP_OPS
from .retries import Retries, check_request, check_retry
from .shell import ShellOps
from .steps import Steps
from .streams import Sessions
from .views import ViewChannels
from .watches import Notify, Watches
from .write_runs import Call, call_in_runs

Invalidate = Callable[[int], None]

class WebAPI:
    """``host`` is where the shell's ``mount`` gets folders (the page, in the browser); ``fsa``
    the web/worker/fsa.mjs module that mounted browser folders work through (None off the browser);
    ``notify(watchId, event)`` posts a watch event to the page; ``invalidate(view)`` tells
    the page's stat cache that the index changed (py_vfs/web/page_cache.py)."""

    def __init__(self, vfs: VFS | RestrictedView, *, notify: Notify | None = None,
                 host: MountHost | None = None, fsa: Any = None,
                 invalidate: Invalidate | None = None, previews: PreviewHost | None = None,
                 steps: Steps | None = None, defaults: Bundle | None = None,
                 views: Views | None = None) -> None:
        self.vfs = vfs
        self.defaults = defaults  # the shipped default content (py_vfs/defaults.py)
        # A guest tab's API (``guest``) stamps with its host's views, which the index moves.
        self.views = views or Views(invalidate)
        if isinstance(vfs, VFS) and views is None:  # a view's child API has no stat cache
            vfs.index.on_change = self.views.changed
        self.fsa = fsa
        self.shell = Shell(vfs, previews=previews, host=host,
                           writer=getattr(vfs, "writer", None) or "shell", defaults=defaults)
        self.watches = Watches(vfs, notify)  # the page's vfs.watch (web/watches.py)
        self._streams = Sessions()  # the stream sessions between calls (web/streams.py)
        self.files = FileHandles(vfs)  # open() descriptors (web/file_handles.py)
        # One registry of open steps for the API and its views: a step blocks them all.
        self._steps = steps or Steps()
        self.channels: ViewChannels[WebAPI] = ViewChannels(vfs, lambda view: WebAPI(
            view, host=host and ViewHost(view, host), fsa=fsa, steps=self._steps,
            previews=ViewPreviews(view, self.shell.previews)),
            lambda path, kind: self.shell.previews.root_url(path, kind))
        self.shell_ops = ShellOps(self.shell)  # shell and complete (py_vfs/web/shell.py)
        self._signals: dict[int, Signal] = {}  # the cancellable calls in flight, by call id
        # Calls started as tasks (or waiting for a step to end) that have not begun running: no
        # call after them starts eagerly, which would overtake them (``_call_now``).
        self._queued = 0
        # Calls sent again after a failover (web/retries.py): the page's later calls wait.
        self._retries = Retries(vfs)
        # The disk's dock (py_vfs/web/dock_sync.py), set at boot when openVFS names one.
        self.dock: DockSync | None = None
        self._ops = {**self.operations(vfs), **self._steps.table(self), "watch": self.watches.watch,
                     "unwatch": self.watches.unwatch, "sync": vfs.sync, "reset": self._reset,
                     "dockSync": self._dock_sync, "dockStatus": self._dock_status,
                     **DataOps(vfs, self._streams).table(), **self.files.table(),
                     **HistoryOps(vfs).table(), **self.channels.table(),
                     **self.shell_ops.table()}
        if set(self._ops) != PYTHON_OPS:  # py_vfs/web/protocol.py declares every operation
            raise AssertionError(f"WebAPI and protocol.OPS differ: {set(self._ops) ^ PYTHON_OPS}")
        self.collecting: asyncio.Future[int] | None = None  # the garbage collection at boot

    def guest(self, notify: Notify | None, host: MountHost | None = None,
              previews: PreviewHost | None = None) -> WebAPI:
        """The API of another tab that shares this disk's runtime (docs/architecture.md, "One
        runtime for every tab"): the same disk, steps and stat cache views (one index moves
        them, web/worker/guests.mjs tells every tab), its own shell session, watches, streams,
        restricted views and cancellable calls, as a tab with a runtime of its own has.
        ``notify`` posts its watch events, ``host`` asks its page (folder pickers, preview
        roots)."""
        if not isinstance(self.vfs, VFS):
            raise FsError.of("EINVAL", "guest", None).with_hint("only the disk's API has guests")
        api = WebAPI(self.vfs, notify=notify, host=host, fsa=self.fsa, previews=previews,
                     steps=self._steps, defaults=self.defaults, views=self.views)
        api.dock = self.dock
        return api

    def held(self) -> dict[str, int]:
        """Diagnostics: the streams kept between calls (JS read and write streams, preview
        bodies) and how many distinct chunks streams pin. Both drop back once the streams end,
        are cancelled or go idle."""
        assert isinstance(self.vfs, VFS)  # asked of the disk's own API only
        return {"streams": len(self._streams), "pinnedChunks": len(self.vfs.content.pins)}

    def unwatch_all(self) -> None:
        """Stop every watch and drop the open file descriptors with their unsynced writes (a
        view's port was closed, a guest tab went away)."""
        self.watches.clear()
        self.files.forget()

    def operations(self, v: Any) -> dict[str, Callable[..., Any]]:
        """The operations by protocol name over ``v``: the disk (or a view), or a step's
        transaction (web/steps.py), which has the same methods."""
        streams = self._streams
        return {
            "readFile": lambda p, o=None: read_file(v, p, o),
            # The worker adds the chunks' sha256 to the options as "digests"
            # (web/worker/worker.mjs).
            "writeFile": lambda p, d, o=None: written(v, p, d, o),
            "appendFile": lambda p, d, o=None: written(v, p, d, o, append=True),
            "truncate": lambda p, n=0: v.truncate(p, n or 0),
            "mkdir": lambda p, o=None: node_calls.mkdir(v, p, flag(o, "recursive"), mode_of(o)),
            "rm": lambda p, o=None: node_calls.rm(v, p, flag(o, "recursive"), flag(o, "force")),
            "rmdir": lambda p, o=None: v.rmdir(p),
            "unlink": v.unlink,
            "rename": v.rename,
            "copyFile": lambda s, d, m=None: copy_file(v, s, d, m),
            "cp": lambda s, d, o=None: v.cp(s, d, recursive=flag(o, "recursive")),
            "symlink": lambda t, p, kind=None: v.symlink(t, p),
            "readlink": lambda p, o=None: v.readlink(p),
            "realpath": lambda p, o=None: v.realpath(p),
            "stat": lambda p, o=None: v.stat(p),
            "lstat": lambda p, o=None: v.lstat(p),
            "exists": v.exists,
            "readdir": lambda p, o=None: v.readdir(p, with_types=flag(o, "withFileTypes")),
            "readdirStats": lambda p, o=None: listing(v, p, siblings=flag(o, "siblings")),
            "chmod": v.chmod,
            "utimes": v.utimes,
            "access": lambda p, m=None: node_calls.access(v, p, m),
            "mkdtemp": lambda p, o=None: node_calls.mkdtemp(v, p, o),
            "chown": lambda p, u, g: node_calls.chown(v, p, u, g),
            "lchown": lambda p, u, g: node_calls.chown(v, p, u, g, follow=False),
            "lutimes": lambda p, a, m: node_calls.lutimes(v, p, a, m),
            "statfs": lambda p, o=None: node_calls.statfs(v, p, o),
            "link": lambda a, b: node_calls.link(v, a, b),
            "readdirTree": lambda p, o=None: node_calls.readdir_tree(v, p, o),
            "walk": lambda p="/": v.walk(p),
            "du": lambda p="/": v.du(p),
            "ls": lambda p="/": v.ls(p),
            "find": lambda d=None, pattern=None: v.find("/" if d is None else d, pattern),
            "glob": v.glob,
            "query": self._query,
            "grep": lambda pattern, p="/", o=None: v.grep(pattern, p or "/", **grep_options(o)),
            "preview": self._preview,
            "openRead": lambda p, start=0, end=None: streams.keep(v.open_read(p, start or 0, end)),
            "readChunk": lambda i: streams.pull(i, ReadStream, "read"),
            "openWrite": lambda p, o=None: streams.keep(v.stream_writer(p, mode=mode_of(o),
                                                                        parents=False)),
            "writeChunk": lambda i, data: streams.push(i, WriteStream, "write", data),
            "finishWrite": lambda i: streams.take(i, WriteStream, "write").close(),
            "closeStream": streams.close,
            "check": lambda o=None: v.check(),
            "usage": lambda o=None: v.usage(),
            "gc": lambda o=None: v.gc(**gc_options(o)),
            "mount": self._mount,
            "unmount": v.unmount,
            "reconnect": self._reconnect,
            "mounts": v.mounts,
            "mountInfo": v.mount_info,
            "agentTool": lambda name, tool_input, o=None: run_tool(v, name, tool_input, o),
        }

    # Mounts: the page picks the folder and keeps its handle (docs/mounts.md, "Persistence");
    # here the handle becomes a backend.

    def _backend(self, handle: Any) -> FsaBackend:
        if self.fsa is None:
            raise FsError.of("EINVAL", "mount", None).with_hint("no File System Access here")
        return FsaBackend(handle, self.fsa)

    async def _mount(self, path: str, handle: Any, options: Any = None) -> dict[str, Any]:
        return await self.vfs.mount(path, self._backend(handle),
                                    read_only=flag(options, "readOnly"))

    async def _query(self, sql: str, params: Any = None, options: Any = None
                     ) -> dict[str, Any]:
        """``query``: read-only SQL over the disk's metadata and journal, as columns, rows
        and whether rows beyond the limit were dropped."""
        limit = options.get("limit") if isinstance(options, dict) else None
        result = await self.vfs.query(sql, () if params is None else params,
                                      **({} if limit is None else {"limit": limit}))
        return {"columns": result.columns, "rows": [list(row) for row in result.rows],
                "truncated": result.truncated}

    async def _reconnect(self, path: str, handle: Any = None, options: Any = None
                         ) -> dict[str, Any]:
        """``reconnect``, with the kept folder's handle when the page has one: it attaches a
        mount another tab made (the disk records it) in this tab too."""
        if handle is None:
            return await self.vfs.reconnect(path)
        return await self.vfs.reconnect(path, self._backend(handle),
                                        read_only=flag(options, "readOnly"))

    async def restore_mounts(self, records: Any) -> list[dict[str, Any]]:
        """Boot: bring back the mounts the page kept, ``[{path, handle, readOnly, granted}]``
        (a JS array); one that fails to come back is skipped, not fatal."""
        restored = []
        for record in records:
            try:
                restored.append(await self.vfs.restore_mount(
                    str(record.path), self._backend(record.handle),
                    read_only=bool(record.readOnly), granted=bool(record.granted)))
            except FsError:
                continue
        return restored

    async def _reset(self, options: Any = None) -> dict[str, Any]:
        """``vfs.reset({defaults: true})``: put the shipped default content back."""
        if not flag(options, "defaults"):
            raise FsError.of("EINVAL", "reset").with_hint(
                "say what to reset: reset({defaults: true}) puts the default content back")
        if not isinstance(self.vfs, VFS):  # a restricted view: the defaults lie outside it
            raise FsError.of("EACCES", "reset").with_hint(
                "a restricted view cannot reset the disk's default content")
        if self.defaults is None:
            raise FsError.of("ENOENT", "reset").with_hint("no default content is shipped")
        return await reset(self.vfs, self.defaults)

    async def _dock_sync(self, options: Any = None) -> dict[str, Any]:
        """``vfs.sync({confirm})``: one round with the disk's dock; its status after."""
        if self.dock is None:
            raise no_dock(self.vfs)
        return await self.dock.sync(confirm=flag(options, "confirm"))

    def _dock_status(self) -> dict[str, Any] | None:
        """``vfs.syncStatus()``: the dock's status, or None when the disk has none."""
        return self.dock.status() if self.dock is not None else None

    async def _preview(self, request: str | dict[str, Any]) -> dict[str, Any]:
        """One preview request; a large body's rest stays here as a stream the worker pulls."""
        answer = await respond(self.vfs, PreviewRequest.of(request))
        stream = self._streams.keep(answer.stream) if answer.stream is not None else None
        return {"status": answer.status, "headers": answer.headers, "body": answer.body,
                "stream": stream}

    def call(self, op: str, args: list[Any], writer: str | None = None,
             call_id: int | None = None, out: Convert | None = None, *,
             request: str | None = None,
             retry: float | None = None) -> Envelope | asyncio.Future[Any]:
        """Synchronous operations answer at once; others return a Future of the envelope, or of
        ``out(envelope)``: the caller's conversion (edge.py: to JS) done by the call's own task
        as it ends (a task and a turn of the loop fewer per call); with ``out``, a call that
        fails with something other than an ``FsError`` (a bug) ends with ``out`` of an EIO
        envelope too (``broken``), so ``out`` hears of every end but a cancellation.
        ``writer`` (the envelope's, ``vfs.as(writer)`` in JS) makes the call's changes, its
        steps' and streams': set while the call starts, the Future's task runs in a copy of
        that context. ``call_id`` (a call the page may cancel) gives it a ``Signal`` the same
        way, which ``cancel(call_id)`` aborts. ``request`` (a call that may change the disk) is
        recorded with the commit carrying its changes (``transaction.REQUEST``); ``retry``
        (when it was first sent) marks it sent again after a failover: answered as applied
        when the journal has its request, else run (web/retries.py). While a step is open,
        everything else waits for it (it must not see the step's uncommitted changes)."""
        tokens: list[tuple[Any, Any]] = []
        try:
            if writer is not None:
                tokens.append((WRITER, WRITER.set(check_writer(writer))))
            if request is not None:
                tokens.append((REQUEST, REQUEST.set(check_request(request))))
            sent = None if retry is None else check_retry(op, request, retry)
            if call_id is not None:
                signal = self._signals[call_id] = Signal()
                tokens.append((SIGNAL, SIGNAL.set(signal)))
        except FsError as error:
            for variable, token in reversed(tokens):
                variable.reset(token)
            return failure(error)
        try:
            if sent is not None and request is not None:
                result = self._retries.retry(op, request, sent,
                                             lambda: self._call(op, args, out=out, retried=True),
                                             out)
            else:
                result = self._call(op, args, eager=call_id is None, out=out)
        finally:
            for variable, token in reversed(tokens):
                variable.reset(token)
        if call_id is not None:
            if isinstance(result, dict):
                self._signals.pop(call_id, None)
            else:
                result.add_done_callback(lambda _: self._signals.pop(call_id, None))
        return result

    def call_many(self, calls: list[Call]) -> list[Envelope | None]:
        """The calls of one message, each ``(op, args, writer, request, out)`` (none
        cancellable nor sent again), started in their order: the envelope of each answered
        at once, None for the others, which end with ``out`` of theirs (as ``call`` with
        ``out``). Consecutive plain ``writeFile``s of one writer run together, one task
        waiting for all of them (py_vfs/web/write_runs.py), where no call could wait for
        another."""
        return call_in_runs(self.vfs if isinstance(self.vfs, VFS) else None, calls,
                            self._single, self._waits)

    def _single(self, op: str, args: list[Any], writer: str | None, request: str | None,
                out: Convert) -> Envelope | None:
        """One call of a message: its envelope if answered at once, else None."""
        try:
            result = self.call(op, args, writer, None, out=out, request=request)
        except Exception as error:  # a bug: EIO for this call, the others go on
            return broken(error)
        return result if isinstance(result, dict) else None

    def _waits(self) -> bool:
        """Whether a call made now could wait for another (``_call_now``): a step open, a
        retried call unanswered, a call queued before it, or a folder mounted."""
        return bool(self._steps.running or self._retries.busy or self._queued
                    or self.vfs.mount_table.by_path)

    def cancel(self, call_id: int) -> bool:
        """Abort the call ``call_id`` (its next safe point raises ECANCELED); False when it is
        not running (not cancellable, or already answered)."""
        signal = self._signals.get(call_id)
        if signal is not None:
            signal.abort()
        return signal is not None

    def _call(self, op: str, args: list[Any], eager: bool = False,
              out: Convert | None = None,
              retried: bool = False) -> Envelope | asyncio.Future[Any]:
        if (self._steps.running and op not in STEP_OPS) or \
                (self._retries.busy and not retried):
            self._queued += 1
            return asyncio.ensure_future(self._after_steps(op, args, out, retried))
        return self._call_now(op, args, eager, out)

    async def _after_steps(self, op: str, args: list[Any], out: Convert | None,
                           retried: bool = False) -> Any:
        """A call made while a step is open (or, ``retried`` aside, while a retried call is
        not answered): run once they are over."""
        if not retried:
            await self._retries.idle()
        await self._steps.idle()
        self._queued -= 1
        try:
            result = self._call(op, args, out=out, retried=retried)
        except Exception as error:
            if out is None:
                raise
            return out(broken(error))
        if not isinstance(result, dict):
            return await result
        return result if out is None else out(result)

    async def _begun(self, awaitable: Any, out: Convert | None) -> Any:
        """A call started as a task: counted in ``_queued`` until it runs."""
        self._queued -= 1
        return await settle(awaitable, out)

    def _call_now(self, op: str, args: list[Any], eager: bool = False,
                  out: Convert | None = None) -> Envelope | asyncio.Future[Any]:
        function = self._ops.get(op)
        if function is None:
            return failure(FsError.of("EINVAL", op, None), f"unknown operation {op!r}")
        entered = self.vfs.mount_table.entered
        try:
            result = function(*check_call(op, args))
        except FsError as error:
            return self._stamp(failure(error), op, entered)
        except NeedsPromising:
            return {"promising": True}  # the worker calls again with callPromising
        if inspect.isawaitable(result):
            # Started at once (``eager``: the page cannot cancel it) unless it may block with
            # JSPI, which only a task of the event loop (a promising entry) can: user code (a
            # Python run binds open() to the disk, blocking.can_block) and a mounted folder's
            # handles (mounts/fsa.py).
            # Nor while a call made before it waits to start as a task: it would overtake it.
            if not eager or op in _MAY_BLOCK or self.vfs.mount_table.by_path or self._queued:
                self._queued += 1
                return asyncio.ensure_future(self._begun(result, out))
            return started(settle(result, out))
        return self._stamp({"value": plain(result)}, op, entered)

    def _stamp(self, envelope: Envelope, op: str, entered: int) -> Envelope:
        return self.views.stamp(envelope, op, self.vfs.mount_table.entered != entered)


# The operations that run user code (the shell, Python, an agent's tools).
_MAY_BLOCK = frozenset({"shell", "runPython", "agentTool"})
