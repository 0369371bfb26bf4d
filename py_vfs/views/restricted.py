"""Restricted views: ``vfs.restrict(read=..., write=...)`` and scoops (docs/sandbox.md).

A ``RestrictedView`` has the VFS's operations (generated from the declared API,
``fs/surface.py``), each run with the view's ``Scope`` in the ``SCOPE`` context variable (and
its writer in ``WRITER``), so the resolver hides what is outside and the commit path refuses
changes outside (``disk/scope.py``). Here, besides: the paths a call writes (as declared) are
checked lexically first (EACCES before anything runs; a mounted folder, written directly and
not through a change, is checked where the path lands), and outputs are filtered with the same
scope (listings, search results, watch events, journal, query and diff rows). Operations over
the whole disk (check, gc, usage, close, snapshots) are refused unless the view can write ``/``.
Only the methods whose answer the view reshapes are written here.

The paths of a view are the disk's own (no renaming). Directories on the way to a readable
subtree (``/``, ``/scoops`` for ``/scoops/a``) are visible, listing only the entries on the way.
In Python the view is a boundary for paths (what an agent passes), not against Python code
that introspects objects; in the browser it is enforced in the worker (web/pyvfs.mjs).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..core import paths
from ..core.node import DirEntry, Node
from ..data.query import MAX_ROWS, Result, query
from ..disk.scope import (
    SCOPE,
    Scope,
    change_within,
    denied,
    event_within,
    hidden,
    query_row_within,
    row_within,
)
from ..disk.streams import WriteStream
from ..disk.watch import Event, Listener
from ..disk.writers import check_writer
from ..fs.forwarding import forwarding
from ..fs.search import DEFAULT_MAX_FILE_SIZE, GrepResult
from ..fs.step import Step
from ..fs.surface import Declared
from ..storage.transaction import WRITER

_UNNAMED = itertools.count(1)  # numbers the views made without a writer: view:1, view:2...


class _Scoped:
    """Sets a view's scope and writer around the calls it forwards (streams, the view)."""

    def __init__(self, scope: Scope, writer: str | None) -> None:
        self._scope = scope
        self._writer = writer

    def _set(self) -> tuple[Any, Any]:
        return SCOPE.set(self._scope), WRITER.set(self._writer or WRITER.get())

    @staticmethod
    def _reset(tokens: tuple[Any, Any]) -> None:
        SCOPE.reset(tokens[0])
        WRITER.reset(tokens[1])

    def _run(self, call: Callable[[], Any]) -> Any:
        tokens = self._set()
        try:
            return call()
        finally:
            self._reset(tokens)

    async def _await(self, call: Callable[[], Any]) -> Any:
        tokens = self._set()
        try:
            return await call()
        finally:
            self._reset(tokens)


class _ScopedWriteStream(_Scoped, WriteStream):
    """A write stream opened through a view: it commits, at ``close``, within the view."""

    def __init__(self, inner: WriteStream, scope: Scope, writer: str | None) -> None:
        _Scoped.__init__(self, scope, writer)
        self._inner = inner
        self.path = inner.path

    async def write(self, data: bytes | bytearray | memoryview | str) -> None:
        """``WriteStream.write``."""
        await self._await(lambda: self._inner.write(data))

    async def close(self) -> None:
        """``WriteStream.close``: the file appears, if the view may write it."""
        await self._await(self._inner.close)

    async def abort(self) -> None:
        """``WriteStream.abort``."""
        await self._await(self._inner.abort)


@forwarding(lambda op: op.view)
class RestrictedView(_Scoped):
    """The VFS limited to ``scope``: reads outside find nothing, writes outside are EACCES."""

    def __init__(self, vfs: Any, scope: Scope, writer: str | None = None, *,
                 network: bool = True) -> None:
        """``vfs``: the facade (``VFS``, which makes views, so not named here); ``writer``
        None or the disk's default (the user's): ``view:<n>`` (docs/sandbox.md, "Writers");
        ``network``: whether the shell's `curl` and `wget` may reach the network from it."""
        if writer is None or writer == vfs.engine.default_writer:
            writer = f"view:{next(_UNNAMED)}"
        super().__init__(scope, check_writer(writer))
        self.__vfs = vfs
        self.__network = bool(network)

    @property
    def scope(self) -> Scope:
        """What this view may read and write."""
        return self._scope

    @property
    def writer(self) -> str | None:
        """Who this view's changes are made by (a call's own writer does not change it)."""
        return self._writer

    @property
    def network(self) -> bool:
        """Whether the shell's `curl` and `wget` may reach the network from this view (a
        scoop: only when opened with ``network=True``; a narrower view keeps its parent's)."""
        return self.__network

    # ------------------------------------------------------------ views of the view

    def restrict(self, read: Iterable[str] | str | None = (),
                 write: Iterable[str] | str | None = (), *,
                 writer: str | None = None) -> RestrictedView:
        """A narrower view: the intersection with this one (never wider)."""
        return RestrictedView(self.__vfs, self._scope.narrow(read, write), writer or self._writer,
                              network=self.__network)

    def as_writer(self, writer: str) -> RestrictedView:
        """The same view with every change made by ``writer``."""
        return RestrictedView(self.__vfs, self._scope, writer, network=self.__network)

    # ------------------------------------------------------------ the checks

    def _outside(self, path: str, syscall: str, entry: bool, dest: str | None = None) -> None:
        """EACCES unless ``path`` may be written: its spelling first, then, when mounts exist,
        the place in a mounted folder it lands on (folders are written directly)."""
        if not self._scope.can_write(paths.normalize(path, syscall)):
            raise denied(syscall, path, dest)
        vfs = self.__vfs
        if not vfs.mount_table:
            return
        place = self._run(lambda: vfs.resolver.locate_entry(path, syscall) if entry
                          else vfs.resolver.locate(path, syscall, create=True))
        if place.mount is not None and not self._scope.can_write(place.mount.path_of(place.rel)):
            raise denied(syscall, path, dest)

    def _canonical(self, path: str, syscall: str) -> str:
        """Where ``path`` leads, within the view (ENOENT outside)."""
        return self._run(lambda: self.__vfs.resolver.lookup(path, syscall)[1])

    def _shown(self, path: str) -> bool:
        return self._scope.visible(path)

    def _whole(self, syscall: str) -> None:
        if not self._scope.can_write("/"):
            raise denied(syscall, None)

    def _enter(self, op: Declared, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[Any, Any]:
        """The checks before a call: the whole store needs ``/`` writable (and runs outside
        the view), each path it changes must be writable; then the view's scope and writer."""
        if op.whole:
            self._whole(op.syscall)
            return self.__vfs, None
        if op.writes:
            for path, dest in op.written(args, kwargs):
                self._outside(path, op.syscall, not op.follows, dest)
        return self.__vfs, self._set()

    def _leave(self, tokens: Any) -> None:
        if tokens is not None:
            self._reset(tokens)

    def _filter(self, op: Declared, value: Any) -> Any:
        """What a call returns, as far as the view may see it; a write stream commits within
        the view too."""
        if op.returns == "files":
            return [p for p in value if self._scope.can_read(p)]
        if op.returns == "paths":
            return [p for p in value if self._shown(p)]
        if op.returns == "entries":
            return [entry for entry in value if self._shown(entry["path"])]
        return _ScopedWriteStream(value, self._scope, self._writer)

    # ------------------------------------------------------------ listings

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """``VFS.readdir`` within the view: only the visible entries."""
        canonical = self._canonical(path, "scandir")
        found = self._run(lambda: self.__vfs.readdir(path, with_types))
        return [e for e in found  # type: ignore[return-value]
                if self._shown(paths.child(canonical, e if isinstance(e, str) else e.name))]

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """``VFS.scandir`` within the view: only the visible entries."""
        canonical, nodes = self._run(lambda: self.__vfs.scandir(path))
        return canonical, [n for n in nodes if self._shown(paths.child(canonical, n.name))]

    def du(self, path: str = "/") -> int:
        """``VFS.du`` within the view: the bytes of what it may read."""
        canonical = self._canonical(path, "scandir")
        if self._scope.can_read(canonical):
            return self._run(lambda: self.__vfs.du(path))
        return sum(self._run(lambda root=root: self.__vfs.du(root))
                   for root in self._scope.roots_below(canonical) if self.exists(root))

    async def grep(self, pattern: str, path: str = "/", *, regex: bool = True,
                   ignore_case: bool = False, include: str | None = None,
                   max_results: int | None = None,
                   max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> GrepResult:
        """``VFS.grep`` within the view: over the readable subtrees at or below ``path``."""
        canonical = self._canonical(path, "scandir")
        roots = [path] if self._scope.can_read(canonical) else [
            root for root in self._scope.roots_below(canonical) if self.exists(root)]
        total = GrepResult()
        for root in roots:
            found = await self._await(functools.partial(
                self.__vfs.grep, pattern, root, regex=regex, ignore_case=ignore_case,
                include=include, max_results=max_results, max_file_size=max_file_size))
            total.matches += [m for m in found.matches if self._scope.can_read(m["path"])]
            total.skipped_paths += [p for p in found.skipped_paths if self._scope.can_read(p)]
            total.skipped_binary_paths += [p for p in found.skipped_binary_paths
                                           if self._scope.can_read(p)]
        if len(roots) > 1:
            total.matches.sort(key=lambda m: m["path"])
            if max_results is not None:
                del total.matches[max_results:]
        return total

    # ------------------------------------------------------------ steps, watch, tabs

    @property
    def engine(self) -> Any:
        """The commit engine a step of this view drives."""
        return self.__vfs.engine

    @property
    def mount_table(self) -> Any:
        """The mount table (what a step and a query ask whether a node is in a folder)."""
        return self.__vfs.mount_table

    def step(self) -> Step:
        """``VFS.step``: each operation on ``tx`` runs within the view."""
        self.__vfs.engine.refuse_deadlock("step")
        return Step(self)

    def watch(self, path: str, listener: Listener, recursive: bool = False) -> Callable[[], None]:
        """``VFS.watch`` within the view: events about readable paths only (a rename across
        the view's edge arrives as the create or delete of the side inside)."""
        if not self._shown(paths.normalize(path, "watch")):
            raise hidden("watch", path)
        scope = self._scope

        def filtered(event: Event) -> None:
            shown = event_within(event, scope)
            if shown is not None:
                listener(shown)

        return self.__vfs.watch(path, filtered, recursive)

    # ------------------------------------------------------------ the disk as data

    async def journal(self, *, since: object = None, until: object = None,
                      writer: str | None = None, path: str | None = None,
                      limit: int = 100) -> list[dict[str, Any]]:
        """``VFS.journal`` in the view: entries that touched a readable path, with only those."""
        if path is not None and not self._shown(paths.normalize(path, "journal")):
            raise hidden("journal", path)
        rows = await self.__vfs.journal(since=since, until=until, writer=writer, path=path,
                                        limit=_JOURNAL_SCAN if limit else 0)
        kept = [row_within(row, self._scope) for row in rows]
        return [row for row in kept if row is not None][:limit]

    async def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = (), *,
                    limit: int = MAX_ROWS) -> Result:
        """``VFS.query`` over what the view may read: its ``files`` and ``journal`` rows."""
        await self.__vfs.sync()
        journal = []
        if isinstance(sql, str) and "journal" in sql.lower():
            for row in await self.__vfs.history.journal_rows():
                journal.append(query_row_within(row, self._scope))
        return self._run(lambda: query(self, sql, params, limit=limit,
                                       journal=[row for row in journal if row is not None]))

    async def snapshots(self) -> list[dict[str, Any]]:
        """``VFS.snapshots``: none, unless the view may read ``/``."""
        return await self.__vfs.snapshots() if self._scope.can_read("/") else []

    async def diff(self, a: Any, b: Any = None) -> list[dict[str, Any]]:
        """``VFS.diff`` within the view: changes of readable paths."""
        changes = await self.__vfs.diff(a, b)
        return [c for c in (change_within(c, self._scope) for c in changes) if c is not None]

    # ------------------------------------------------------------ mounts, the whole disk

    def mount_info(self, path: str) -> dict[str, Any]:
        """``VFS.mount_info`` of a visible mount point."""
        if not self._shown(paths.normalize(path, "mount")):
            raise hidden("mount", path)
        return self.__vfs.mount_info(path)

    async def usage(self) -> Any:
        """``VFS.usage`` (the whole store): only a view that may read ``/``."""
        if not self._scope.can_read("/"):
            raise denied("usage", None)
        return await self.__vfs.usage()

    def close(self) -> None:
        """A view does not close the disk others use."""
        raise denied("close", None)


_JOURNAL_SCAN = 10_000  # journal entries a view scans for its rows (others' are dropped)
