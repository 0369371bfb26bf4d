"""The facade: ``VFS``, a POSIX-like file system, delegating each concern to its module.

- ``resolver.py``: paths to places (the disk's nodes, or a mount and the path inside it);
- ``engine.py``: the commit engine (the mutex, the cross-tab turn, group commit, steps);
- ``files.py``: file content (read, write, append, truncate, streams);
- ``namespace.py``: mkdir, rm, rmdir, unlink, rename, symlink, readlink, realpath;
- ``metadata.py``: stat, lstat, exists, chmod, utimes, touch and the listings;
- ``copies.py``: copy_file and cp; ``search.py``: ls, find, glob, grep;
- ``rules.py``: the POSIX rules of the namespace and of copies, written once over the disk and
  a mounted folder alike;
- ``sides.py``: where a change runs, the disk (``disk_side.py``) or a mounted folder
  (``mounts/side.py``); ``mounting.py``: mounting; ``mount_copies.py``: copies by content;
  ``mounts/``: the folders (backends, the mount table);
- ``surface.py``: the public API declared once (the docstrings of these methods are there);
  ``forwarding.py``: the wrappers generated from it, ``as_writer``'s ``WriterView`` first;
- ``step.py``: several operations committed together;
- ``history.py``: the journal, its retention, the disk at any revision kept; ``snapshots.py``:
  snapshots, diff, restore.

Reads that only need metadata (``stat``, ``readdir``, ``exists``) are synchronous, because the
index is in memory and JS calls into synchronous Python are ~60x cheaper than async ones. Anything
that may touch storage (content reads, every mutation) is async.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable, Mapping, Sequence
from typing import Any

from .core.errors import FsError
from .core.node import ROOT_ID, DirEntry, Node, Stat, name_key
from .data.past import Past, PastDisk
from .data.query import MAX_ROWS, Result, query
from .data.snapshots import Snapshots, State
from .disk.check import Progress, Report
from .disk.check import check as check_store
from .disk.content import DEFAULT_CACHE_BYTES, Content
from .disk.engine import CommitEngine
from .disk.exchange import Exchange
from .disk.garbage import DEFAULT_GRACE_MS, collect
from .disk.index import Index
from .disk.journal import Journal, Retention
from .disk.scope import Scope
from .disk.streams import ReadStream, WriteStream
from .disk.usage import Usage, measure
from .disk.watch import Listener, Watchers
from .disk.writers import check_writer
from .fs.copies import Copies
from .fs.disk_side import Nodes, new_root
from .fs.files import Files
from .fs.forwarding import WriterView, implements
from .fs.metadata import Metadata, stat_of
from .fs.mount_copies import Copier
from .fs.mounting import Mounting
from .fs.namespace import Namespace
from .fs.resolver import Resolver
from .fs.search import DEFAULT_MAX_FILE_SIZE, GrepResult, Search
from .fs.step import Step
from .fs.tree import Tree
from .mounts.backend import Backend
from .mounts.table import MountTable
from .storage import Store
from .storage.memory import MemoryStore
from .storage.transaction import WRITER, Op, Transaction
from .views.restricted import RestrictedView
from .views.scoops import open_scoop, scoop_names

# 2: the change log (``log`` keyspace, ``meta/rev``); IndexedDB database version 2 as well.
# 3: small files inline in their node record (``inline``); IndexedDB database version 3.
# 4: the ``names`` keyspace (directory entries, so JS resolves a path with keyed reads);
# IndexedDB database version 4, whose upgrade (web/worker/idb_store.mjs) fills it from the nodes.
FORMAT_VERSION = 4


@implements
class VFS:
    """A POSIX-like file system over a ``Store``; open one with ``VFS.open`` or ``VFS.memory``."""

    def __init__(self, store: Store, *, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 writer: str = "user", retention: Retention | None = None) -> None:
        self.store = store
        self.content = Content(store, cache_bytes)
        self.index = Index(self.content)
        self.watchers = Watchers()
        self.engine = CommitEngine(store, self.index, self.content, self.watchers)
        self.engine.default_writer = check_writer(writer)
        self.history = Journal(store, self.index, self.content, self.engine,
                               retention or Retention())
        self.mount_table = MountTable(self.index)
        self.resolver = Resolver(self.index, self.mount_table)
        self.tree = Tree(self.index, self.content, self.mount_table, self.engine)
        disk = Nodes(self.index, self.content, self.resolver)
        table, resolver, engine = self.mount_table, self.resolver, self.engine
        self.files = Files(engine, resolver, disk, self.tree, table)
        self.namespace = Namespace(engine, resolver, disk, table)
        self.metadata = Metadata(engine, resolver, disk, self.tree, table)
        self.copies = Copies(engine, resolver, disk, table, Copier(self, resolver))
        self.search = Search(resolver, self.tree)
        self.mounting = Mounting(engine, resolver, self.index, table,
                               lambda path: self.mkdir(path, recursive=True))
        self.versions = Snapshots(store, self.index, self.content, engine, resolver,
                                  self.history)
        self.past = Past(self.versions, self.history, self.content, engine)
        # A sync's side of this disk (py_vfs.dock.replica): its entries out, others' in.
        self.exchange = Exchange(store, self.index, self.content, engine)

    # ----------------------------------------------------------------- opening

    @classmethod
    def memory(cls, *, writer: str = "user", retention: Retention | None = None) -> VFS:
        """An empty VFS in memory (same semantics as a durable one, nothing persisted)."""
        store = MemoryStore()
        root = new_root()
        store.spaces["nodes"][ROOT_ID] = root.to_record()  # stored as a durable disk would be
        store.spaces["meta"]["format"] = str(FORMAT_VERSION)
        vfs = cls(store, writer=writer, retention=retention)
        vfs.index.load([root])
        return vfs

    @classmethod
    async def open(cls, store: Store, *, cache_bytes: int = DEFAULT_CACHE_BYTES,
                   writer: str = "user", retention: Retention | None = None) -> VFS:
        """Open a durable VFS: reads the node records only, never file content. ``writer``
        names who its changes are made by (default ``user``); ``retention`` how long the
        journal keeps history (default 30 days or 100,000 entries, whichever keeps more)."""
        vfs = cls(store, cache_bytes=cache_bytes, writer=writer, retention=retention)
        nodes = await vfs.engine.load()
        vfs.index.load(nodes)
        if not any(node.id == ROOT_ID for node in nodes):
            await vfs._create_root()
            await store.commit([("put", "meta", "format", str(FORMAT_VERSION))])
        else:
            await vfs._upgrade_format()
        return vfs

    async def _upgrade_format(self) -> None:
        """Format 1 lacked the change log and ``meta/rev``, which are created on first use, and
        format 2 inline content, which format 3 only adds (a small file of format 2 keeps its
        one chunk, read as before, until it is next written); format 4 adds the ``names``
        keyspace, written here from the nodes in the commit that records the new version (an
        IndexedDB disk has it already: the database upgrade fills it and records the version,
        worker/idb_store.mjs). A newer format than ours is refused: this code would not know what
        its records mean."""
        stored = await self.store.get("meta", "format")
        version = int(str(stored)) if stored is not None else 1
        if version > FORMAT_VERSION:
            raise FsError.of("EIO", "open", f"disk format {version} (this py_vfs reads "
                                            f"{FORMAT_VERSION} and older)")
        if version < FORMAT_VERSION:
            names: list[Op] = [("put", "names", name_key(node.parent, node.name), node.id)
                               for node in self.index.nodes.values() if node.parent is not None]
            await self.store.commit([*names, ("put", "meta", "format", str(FORMAT_VERSION))])

    async def _create_root(self) -> None:
        """A fresh disk: the root is the first logged commit (two tabs racing: one wins, the
        other catches up and finds the winner's root)."""
        async with self.engine.mutex:
            while self.index.nodes.get(ROOT_ID) is None:
                tx = Transaction(self.engine.writer())
                self.index.put(new_root(), tx)
                await self.engine.commit(tx)

    def close(self) -> None:
        self.store.close()

    async def flush(self) -> None:
        await self.engine.run(lambda tx: None, "flush")

    # ------------------------------------------------------------ steps, watch, tabs

    def step(self) -> Step:
        self.engine.refuse_deadlock("step")
        return Step(self)

    def watch(self, path: str, listener: Listener, recursive: bool = False) -> Callable[[], None]:
        return self.watchers.add(path, listener, recursive)

    async def sync(self) -> bool:
        return await self.engine.sync()

    @property
    def revision(self) -> int:
        return self.engine.revision

    def as_writer(self, writer: str) -> WriterView:
        return WriterView(self, writer)

    def restrict(self, read: Iterable[str] | str | None = (),
                 write: Iterable[str] | str | None = (), *,
                 writer: str | None = None) -> RestrictedView:
        return RestrictedView(self, Scope(read, write), writer or WRITER.get())

    async def scoop(self, name: str, *, network: bool = False) -> RestrictedView:
        return await open_scoop(self, name, network)

    def scoops(self) -> list[str]:
        return scoop_names(self)

    # ------------------------------------------------------------ the disk as data

    async def journal(self, *, since: object = None, until: object = None,
                      writer: str | None = None, path: str | None = None,
                      limit: int = 100) -> list[dict[str, Any]]:
        await self.sync()
        return await self.history.journal(since=since, until=until, writer=writer, path=path,
                                          limit=limit)

    async def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = (), *,
                    limit: int = MAX_ROWS) -> Result:
        await self.sync()
        # The journal is read only for a statement that names it (a plain word test: any
        # statement that uses the view names it, and reading it for one that does not would
        # only cost time).
        journal = await self.history.journal_rows() \
            if isinstance(sql, str) and "journal" in sql.lower() else []
        return query(self, sql, params, limit=limit, journal=journal)

    async def snapshot(self, name: str) -> dict[str, Any]:
        return await self.versions.create(name)

    async def snapshots(self) -> list[dict[str, Any]]:
        await self.sync()
        return await self.versions.list()

    async def delete_snapshot(self, name: str) -> None:
        await self.versions.delete(name)

    async def diff(self, a: State, b: State = None) -> list[dict[str, Any]]:
        return await self.versions.diff(a, b)

    async def at(self, state: State) -> PastDisk:
        return await self.past.at(state)

    async def restore(self, state: State = None, *, path: str | None = None,
                      revision: int | None = None, before: object = None) -> dict[str, Any]:
        if revision is not None:
            state = {"revision": revision}
        elif before is not None:
            state = {"before": before}
        return await self.versions.restore(state, path)

    # ----------------------------------------------------------------- content

    # The two hottest calls await no coroutine of the operations layer: only the content read
    # or the commit, as before the split (one coroutine each per call, no more).

    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        data = await self.tree.read(self.files.file_node(path))
        return data.decode(encoding) if encoding else data

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None,
                         digests: Sequence[str] | None = None, parents: bool = True) -> None:
        await self.files.write_file(path, data, mode=mode, digests=digests, parents=parents)

    async def append_file(self, path: str, data: bytes | str) -> None:
        await self.files.append_file(path, data)

    async def truncate(self, path: str, length: int = 0) -> None:
        await self.files.truncate(path, length)

    def content_id(self, path: str) -> str:
        return self.files.content_id(path)

    def open_read(self, path: str, start: int = 0, end: int | None = None) -> ReadStream:
        return self.files.open_read(path, start, end)

    def stream_writer(self, path: str, *, mode: int | None = None,
                      parents: bool = True) -> WriteStream:
        return self.files.stream_writer(path, mode=mode, parents=parents)

    async def write_stream(self, path: str,
                           chunks: Iterable[bytes | str] | AsyncIterable[bytes | str], *,
                           mode: int | None = None) -> None:
        await self.files.write_stream(path, chunks, mode=mode)

    # --------------------------------------------------------------- namespace

    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        await self.namespace.mkdir(path, recursive=recursive, mode=mode)

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        await self.namespace.rm(path, recursive=recursive, force=force)

    async def rmdir(self, path: str) -> None:
        await self.namespace.rmdir(path)

    async def unlink(self, path: str) -> None:
        await self.namespace.unlink(path)

    async def rename(self, old: str, new: str) -> None:
        await self.namespace.rename(old, new)

    async def symlink(self, target: str, path: str) -> None:
        await self.namespace.symlink(target, path)

    def readlink(self, path: str) -> str:
        return self.namespace.readlink(path)

    def realpath(self, path: str) -> str:
        return self.namespace.realpath(path)

    async def copy_file(self, src: str, dst: str) -> None:
        await self.copies.copy_file(src, dst)

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        await self.copies.cp(src, dst, recursive=recursive)

    # ---------------------------------------------------------------- metadata

    def stat(self, path: str) -> Stat:
        node, canonical = self.resolver.lookup(path, "stat")
        return stat_of(node, canonical)

    def lstat(self, path: str) -> Stat:
        node, canonical = self.resolver.lookup(path, "lstat", follow=False)
        return stat_of(node, canonical)

    def exists(self, path: str) -> bool:
        return self.resolver.exists(path)

    async def chmod(self, path: str, mode: int) -> None:
        await self.metadata.chmod(path, mode)

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        await self.metadata.utimes(path, atime_ms, mtime_ms)

    async def touch(self, path: str) -> None:
        await self.metadata.touch(path)

    # ----------------------------------------------------------------- listing

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        return self.metadata.readdir(path, with_types)

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        return self.metadata.scandir(path)

    def walk(self, path: str = "/") -> list[str]:
        return self.metadata.walk(path)

    def du(self, path: str = "/") -> int:
        return self.metadata.du(path)

    def ls(self, prefix: str = "/") -> list[str]:
        return self.search.ls(prefix)

    def find(self, directory: str = "/", pattern: str | None = None) -> list[dict]:
        return self.search.find(directory, pattern)

    def glob(self, pattern: str) -> list[str]:
        return self.search.glob(pattern)

    async def grep(self, pattern: str, path: str = "/", *, regex: bool = True,
                   ignore_case: bool = False, include: str | None = None,
                   max_results: int | None = None,
                   max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> GrepResult:
        return await self.search.grep(pattern, path, regex=regex, ignore_case=ignore_case,
                                      include=include, max_results=max_results,
                                      max_file_size=max_file_size)

    # ------------------------------------------------------------------ mounts

    async def mount(self, path: str, backend: Backend, *, read_only: bool = False
                    ) -> dict[str, Any]:
        return await self.mounting.mount(path, backend, read_only=read_only)

    async def restore_mount(self, path: str, backend: Backend, *, read_only: bool = False,
                            granted: bool = True) -> dict[str, Any]:
        return await self.mounting.restore_mount(path, backend, read_only=read_only,
                                                 granted=granted)

    async def unmount(self, path: str) -> dict[str, Any]:
        return await self.mounting.unmount(path)

    async def reconnect(self, path: str, backend: Backend | None = None, *,
                        read_only: bool | None = None) -> dict[str, Any]:
        return await self.mounting.reconnect(path, backend, read_only=read_only)

    def mounts(self) -> list[dict[str, Any]]:
        return self.mounting.mounts()

    def mount_info(self, path: str) -> dict[str, Any]:
        return self.mounting.mount_info(path)

    # ------------------------------------------------------------------ health

    async def check(self, progress: Progress | None = None) -> Report:
        return await self.engine.run(lambda tx: check_store(self.store, FORMAT_VERSION,
                                                            progress), "check")

    async def gc(self, grace_ms: float = DEFAULT_GRACE_MS) -> int:
        async def change(tx: Transaction) -> int:
            return await collect(self.store, self.content, tx, grace_ms,
                                 await self.versions.chunks())

        return await self.engine.run(change, "gc")

    async def usage(self) -> Usage:
        return measure(list(self.index.nodes.values()), await self.store.estimate(),
                       await self.history.cost())
