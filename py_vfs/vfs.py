"""The operations layer: POSIX semantics over the index, one durable commit per mutation.

Reads that only need metadata (``stat``, ``readdir``, ``exists``) are synchronous, because the
index is in memory and JS calls into synchronous Python are ~60x cheaper than async ones. Anything
that may touch storage (content reads, every mutation) is async.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple, TypeVar

from . import paths
from .check import Progress, Report
from .check import check as check_store
from .content import (
    AHEAD_PREFIX,
    CHUNK_SIZE,
    DEFAULT_CACHE_BYTES,
    NO_CONTENT,
    Body,
    Content,
    zero_chunk,
)
from .errors import FsError
from .garbage import DEFAULT_GRACE_MS, collect
from .group_commit import GroupCommit
from .index import Index
from .limits import check_length, check_mode, check_time
from .mounts import MountsMixin, MountTable, routed
from .node import DIRECTORY, FILE, ROOT_ID, SYMLINK, DirEntry, Node, Stat
from .search import SearchMixin
from .step import ACTIVE, Step, current_task
from .storage import Store
from .storage.memory import MemoryStore
from .streams import DiskWriteStream, ReadStream, WriteStream, write_all
from .sync import Replica
from .transaction import Transaction
from .usage import Usage, measure
from .watch import Listener, Watchers

MAX_SYMLINK_HOPS = 40
MAX_READ_SIZE = 2**31 - 1  # read_file, like Node's readFile (ERR_FS_FILE_TOO_LARGE); streams: any
DEFAULT_FILE_MODE = 0o644
DEFAULT_DIR_MODE = 0o755
SYMLINK_MODE = 0o777
# 2: the change log (``log`` keyspace, ``meta/rev``); IndexedDB database version 2 as well.
# 3: small files inline in their node record (``inline``); IndexedDB database version 3.
FORMAT_VERSION = 3
# Conditional commits a mutation may lose to other tabs in a row before it gives up (EAGAIN).

T = TypeVar("T")

# What Linux answers when "/" itself is the thing to create or replace; removing or renaming it
# is EPERM (DESIGN section 4).
_ROOT_ERRORS = {"mkdir": "EEXIST", "open": "EISDIR", "symlink": "EEXIST", "copyfile": "EISDIR"}


def _now() -> float:
    return time.time() * 1000.0


def _new_id() -> str:
    return secrets.token_hex(8)


def _as_bytes(data: bytes | bytearray | memoryview | str, path: str | None = None) -> bytes:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            raise FsError.of("EINVAL", "write", path).with_hint(
                "the text holds a lone surrogate, which UTF-8 cannot encode") from None
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    raise TypeError(f"data must be str or bytes-like, not {type(data).__name__}")


# A pending segment that names nothing: what was resolved just before it must be a directory. It
# stands for a trailing slash, on the user's path or at the end of a link's target.
_MUST_BE_DIR = "/"


class _Found(NamedTuple):
    """Where a path leads: ``node`` (None when only its last name is missing and the caller
    creates it), its canonical path, and the directory that holds (or would hold) it."""

    node: Node | None
    path: str
    parent: Node
    name: str


def _segments(path: str, syscall: str) -> list[str]:
    """A path's names after lexical normalization: ``..`` in a path given by the user folds
    before lookup (as Node's ``path.resolve`` does); ``..`` inside a symlink target is resolved
    physically, against the link's directory."""
    return [segment for segment in paths.normalize(path, syscall).split("/") if segment]


class VFS(MountsMixin, SearchMixin):
    """A POSIX-like file system over a ``Store``; open one with ``VFS.open`` or ``VFS.memory``."""

    def __init__(self, store: Store, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.store = store
        self.content = Content(store, cache_bytes)
        self.index = Index(self.content)
        self.watchers = Watchers()
        self._replica = Replica(store, self.index, self.content, self.watchers)
        self._group = GroupCommit(self._replica)
        self.mount_table = MountTable(self)
        self._lock: asyncio.Lock | None = None
        self._step: Step | None = None

    # ----------------------------------------------------------------- opening

    @classmethod
    def memory(cls) -> VFS:
        """An empty VFS in memory (same semantics as a durable one, nothing persisted)."""
        store = MemoryStore()
        root = cls._new_root()
        store.spaces["nodes"][ROOT_ID] = root.to_record()  # stored as a durable disk would be
        store.spaces["meta"]["format"] = str(FORMAT_VERSION)
        vfs = cls(store)
        vfs.index.load([root])
        return vfs

    @classmethod
    async def open(cls, store: Store, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> VFS:
        """Open a durable VFS: reads the node records only, never file content."""
        vfs = cls(store, cache_bytes=cache_bytes)
        nodes = await vfs._replica.load()
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
        one chunk, read as before, until it is next written), so upgrading either is recording
        the new version. A newer format than ours is refused: this code would not know what its
        records mean."""
        stored = await self.store.get("meta", "format")
        version = int(str(stored)) if stored is not None else 1
        if version > FORMAT_VERSION:
            raise FsError.of("EIO", "open", f"disk format {version} (this py_vfs reads "
                                            f"{FORMAT_VERSION} and older)")
        if version < FORMAT_VERSION:
            await self.store.commit([("put", "meta", "format", str(FORMAT_VERSION))])

    async def _create_root(self) -> None:
        """A fresh disk: the root is the first logged commit (two tabs racing: one wins, the
        other catches up and finds the winner's root)."""
        async with self._mutex:
            while self.index.nodes.get(ROOT_ID) is None:
                tx = Transaction()
                self.index.put(self._new_root(), tx)
                await self._replica.commit(tx)

    def close(self) -> None:
        self.store.close()

    async def flush(self) -> None:
        """A barrier: returns once every mutation started before it has committed. Each one is
        durable when it returns, so nothing is buffered and nothing else needs flushing."""
        await self._mutate(lambda tx: None)

    @staticmethod
    def _new_root() -> Node:
        now = _now()
        return Node(ROOT_ID, None, "", DIRECTORY, DEFAULT_DIR_MODE, now, now, now)

    # ------------------------------------------------------------ resolution

    def _lookup(self, path: str, syscall: str, *, follow: bool = True) -> tuple[Node, str]:
        """The node at ``path`` and its canonical path (see ``_resolve``)."""
        found = self._resolve(path, syscall, follow=follow)
        assert found.node is not None
        return found.node, found.path

    def _resolve(self, path: str, syscall: str, *, follow: bool = True,
                 create: bool = False) -> _Found:
        """Resolve ``path`` as the kernel does: every intermediate link always, the last one only
        when ``follow`` or a trailing slash asks for it, ``..`` inside link targets physically.

        With ``create`` (what ``open(O_CREAT)`` does) a missing last name is an answer, not
        ENOENT, also at the end of a dangling link, so that the write creates the link's target;
        and a trailing slash after the last name is EISDIR, whether it exists or not.
        """
        pending = list(reversed(_segments(path, syscall)))
        names_left = len(pending)  # in ``pending``, not counting _MUST_BE_DIR markers
        if paths.has_trailing_slash(path):
            pending.insert(0, _MUST_BE_DIR)
        stack: list[tuple[Node, str]] = [(self.index.root, "/")]
        hops = 0
        while pending:
            segment = pending.pop()
            if segment == _MUST_BE_DIR:
                if not stack[-1][0].is_dir:
                    raise FsError.of("ENOTDIR", syscall, path)
                continue
            names_left -= 1
            if segment == "..":
                if len(stack) > 1:
                    stack.pop()
                continue
            directory, dir_path = stack[-1]
            if not directory.is_dir:
                raise FsError.of("ENOTDIR", syscall, path)
            last = names_left == 0  # only trailing-slash markers may follow
            if create and last and pending:
                raise FsError.of("EISDIR", syscall, path)
            node = self.index.child(directory, segment)
            if node is None:
                if create and last:
                    return _Found(None, paths.child(dir_path, segment), directory, segment)
                raise FsError.of("ENOENT", syscall, path)
            if node.is_link and (pending or follow):
                hops += 1
                if hops > MAX_SYMLINK_HOPS:
                    raise FsError.of("ELOOP", syscall, path)
                target = node.target or ""
                if target.startswith("/"):
                    stack = [(self.index.root, "/")]
                if target.endswith("/"):
                    pending.append(_MUST_BE_DIR)
                more = paths.split_segments(target, syscall)
                pending.extend(reversed(more))
                names_left += len(more)
                continue
            stack.append((node, paths.child(dir_path, segment)))
            if node.id in self.mount_table.points:  # the rest of the path is in a folder
                return _Found(*self.mount_table.enter(stack, pending, path, syscall, follow,
                                                      create))
        node, canonical = stack[-1]
        parent = stack[-2][0] if len(stack) > 1 else node
        return _Found(node, canonical, parent, paths.basename(canonical))

    def _is_dir(self, path: str, syscall: str) -> bool:
        """Whether ``path`` leads to a directory (following links); no error for a bad path."""
        try:
            node, _ = self._lookup(path, syscall)
        except FsError:
            return False
        return node.is_dir

    def _lookup_parent(self, path: str, syscall: str) -> tuple[Node, str, str]:
        """The directory that holds (or would hold) the last segment of ``path``, and that name."""
        segments = _segments(path, syscall)
        if not segments:
            raise FsError.of(_ROOT_ERRORS.get(syscall, "EPERM"), syscall, path)
        name = segments[-1]
        parent_path = "/" + "/".join(segments[:-1])
        try:
            parent, canonical = self._lookup(parent_path, syscall)
        except FsError as error:
            raise FsError.of(error.code, syscall, path) from None
        if not parent.is_dir:
            raise FsError.of("ENOTDIR", syscall, path)
        return parent, canonical, name

    def _path_of(self, node: Node) -> str:
        names = []
        while node.parent is not None:
            names.append(node.name)
            node = self.index.get(node.parent)
        return "/" + "/".join(reversed(names))

    # ------------------------------------------------------------- mutations

    @property
    def _mutex(self) -> asyncio.Lock:
        """Serializes this VFS's mutations, catch-ups and steps (created on first use, so a VFS
        can be built outside an event loop)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def _mutate(self, change: Callable[[Transaction], T | Awaitable[T]]) -> T:
        """Run ``change`` against the index and commit its writes as one storage transaction.

        Mutations are serialized, so each one sees the committed result of the previous one; if
        the commit fails, the index is rolled back and the error propagates unchanged. An async
        ``change`` may read content (append, truncate) while no other mutation can interleave.
        Inside a step the change joins the step instead. When another tab committed first, the
        change is rolled back and run again on the caught-up index; an error is re-checked the
        same way, so no error comes from a view older than the disk.
        """
        step = ACTIVE.get()
        if step is not None and step is self._step:
            return await step.run(change)
        self._refuse_deadlock("write")
        waiter = self._group.enqueue(change)
        # The cross-tab turn first: while waiting for it, announced commits of other tabs are
        # applied (``sync`` takes only the mutex), so the commit is rarely stale. Whoever gets
        # the lock commits every change queued by then (``group_commit``): often this one was
        # already committed by an earlier caller's group.
        async with self._replica.turn(), self._mutex:
            if not waiter.done:
                await self._group.commit_pending(waiter)
        return waiter.outcome()

    def _refuse_deadlock(self, syscall: str) -> None:
        """The body of ``async with vfs.step()`` calling ``vfs`` instead of ``tx`` would wait
        for its own step forever."""
        if self._step is not None and self._step.owner is not None \
                and self._step.owner is current_task():
            raise FsError.of("EDEADLK", syscall, None)

    # ------------------------------------------------------------ steps, watch, tabs

    def step(self) -> Step:
        """``async with vfs.step() as tx:``: every operation on ``tx`` commits together, or none
        does if the body raises (see py_vfs/step.py and docs/semantics.md)."""
        self._refuse_deadlock("step")
        return Step(self)

    def watch(self, path: str, listener: Listener, recursive: bool = False) -> Callable[[], None]:
        """Call ``listener(event)`` for each change at ``path`` (a directory: also its entries;
        ``recursive``: everything below it), made here, in other tabs, or by steps. Returns the
        function that unsubscribes."""
        return self.watchers.add(path, listener, recursive)

    async def sync(self) -> bool:
        """Catch up now with what other tabs or processes committed (they are also caught up
        with before every mutation). True if anything changed."""
        self._refuse_deadlock("sync")
        async with self._mutex:
            return await self._replica.catch_up()

    @property
    def revision(self) -> int:
        """The disk revision this VFS has applied."""
        return self._replica.rev

    def _touch_dir(self, directory: Node, tx: Transaction, now: float) -> None:
        """A directory's mtime and ctime change when its entries change."""
        self.index.put(replace(directory, mtime_ms=now, ctime_ms=now), tx)

    def _create(self, parent: Node, name: str, kind: str, mode: int, tx: Transaction, *,
                body: Body = NO_CONTENT, size: int = 0, target: str | None = None) -> Node:
        assert self.index.child(parent, name) is None, "a name is never created twice"
        now = _now()
        node = Node(_new_id(), parent.id, name, kind, mode & 0o7777, now, now, now,
                    size=size if kind == FILE else len(target or ""),
                    target=target, chunks=body.chunks, inline=body.inline)
        self.index.put(node, tx)
        self._touch_dir(self.index.get(parent.id), tx, now)
        return node

    def _remove_tree(self, node: Node, tx: Transaction) -> None:
        """Remove ``node`` and everything below it, each entry before its directory (an explicit
        stack: a tree may be deeper than Python's recursion limit)."""
        stack = [(node, iter(self.index.entries(node) if node.is_dir else ()))]
        while stack:
            current, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                self.index.remove(current, tx)
            else:
                stack.append((child, iter(self.index.entries(child) if child.is_dir else ())))

    # ----------------------------------------------------------------- content

    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        node, _ = self._lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "read", path)
        if node.size > MAX_READ_SIZE:
            raise FsError.of("EFBIG", "read", path).with_hint(
                f"a file over {MAX_READ_SIZE} bytes is read as a stream, with open_read")
        data = await self._content(node)
        return data.decode(encoding) if encoding else data

    @routed
    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None,
                         digests: Sequence[str] | None = None) -> None:
        """Replace (or create) a file; missing parent directories are created. ``digests``:
        the sha256 hex of each chunk of ``data``, when the caller has them (``Content.split``)."""
        payload = _as_bytes(data, path)
        mode = None if mode is None else check_mode(mode, "open", path)
        await self._mutate(lambda tx: self._write(path, payload, mode, tx, parents=True,
                                                  digests=digests))

    @routed
    async def append_file(self, path: str, data: bytes | str) -> None:
        """Only the file's last, partial chunk is read and rewritten, whatever its size."""
        payload = _as_bytes(data, path)

        async def change(tx: Transaction) -> None:
            _, _, existing = self._write_target(path, "open")
            if existing is None or existing.is_dir:
                self._write(path, payload, None, tx, parents=False)
            elif payload:  # appending nothing changes nothing, not even the mtime
                check_length(existing.size + len(payload), "write", path)
                keep, tail = await self._split_at(existing, existing.size)
                body = self.content.pack(tail + payload, tx, keep)
                self._write_body(path, body, existing.size + len(payload), None, tx,
                                 parents=False)

        await self._mutate(change)

    @routed
    async def truncate(self, path: str, length: int = 0) -> None:
        """Reads at most the one chunk the new end falls in. Growing a file fills the last
        chunk with zeros and then references the one all-zero chunk as many times as needed:
        no gap is ever allocated, whatever its size (up to ``MAX_FILE_SIZE``, else EFBIG)."""
        length = check_length(length, "open", path)

        async def change(tx: Transaction) -> None:
            node, _ = self._lookup(path, "open")
            if node.is_dir:
                raise FsError.of("EISDIR", "open", path)
            keep, tail = await self._split_at(node, min(length, node.size))
            gap = max(0, length - node.size)
            fill = min(gap, -len(tail) % CHUNK_SIZE if keep or len(tail) else CHUNK_SIZE)
            tail += bytes(fill)
            whole, rest = divmod(gap - fill, CHUNK_SIZE)
            if whole or rest:  # tail is a whole chunk now: zero chunks, then a partial one
                keep += self.content.split(tail, tx) + (zero_chunk(tx) * whole if whole else ())
                tail = bytes(rest)
            self._write_body(path, self.content.pack(tail, tx, keep), length, None, tx,
                             parents=False)

        await self._mutate(change)

    async def _split_at(self, node: Node, offset: int) -> tuple[tuple[str, ...], bytes]:
        """The whole chunks before ``offset`` (kept as they are) and the bytes after them up to
        ``offset``, which need re-chunking. An inline file is all tail, read from its node."""
        if node.inline is not None:
            return (), node.inline_bytes[:offset]
        whole, partial = divmod(offset, CHUNK_SIZE)
        if not partial:
            return node.chunks[:whole], b""
        chunk = await self.content.read_chunk(node.chunks[whole])
        return node.chunks[:whole], chunk[:partial]

    def _write(self, path: str, data: bytes, mode: int | None, tx: Transaction, *,
               parents: bool, digests: Sequence[str] | None = None) -> None:
        self._write_body(path, self.content.pack(data, tx, digests=digests), len(data), mode, tx,
                         parents=parents)

    def _write_body(self, path: str, body: Body, size: int, mode: int | None, tx: Transaction,
                    *, parents: bool) -> None:
        if parents:
            self._make_dirs(paths.dirname(paths.normalize(path, "open")), "open", tx, path)
        parent, name, existing = self._write_target(path, "open")
        if existing is None:
            self._create(parent, name, FILE, DEFAULT_FILE_MODE if mode is None else mode, tx,
                         body=body, size=size)
            return
        if existing.is_dir:
            raise FsError.of("EISDIR", "open", path)
        now = _now()
        self.index.put(replace(existing, size=size, chunks=body.chunks, inline=body.inline,
                               mtime_ms=now, ctime_ms=now), tx)

    def _write_target(self, path: str, syscall: str) -> tuple[Node, str, Node | None]:
        """Where a write to ``path`` lands, as with ``open(O_CREAT)``: the directory, the name
        and the file there (None: to be created). Writes follow a final symlink; a dangling one
        creates its target."""
        found = self._resolve(path, syscall, create=True)
        return found.parent, found.name, found.node

    def content_id(self, path: str) -> str:
        """A name for a file's bytes (a hash of its size and chunk keys, or of its inline bytes),
        without reading the store: the preview's ETag, which changes exactly when the content
        does."""
        node, _ = self._lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "open", path)
        text = f"{node.size}:{','.join(node.chunks)}"
        if node.inline is not None:  # base64 names the bytes exactly, as the chunk keys do
            text = f"{node.size}:inline:{node.inline}"
        if self.mount_table.covers(node):  # a folder's file has no chunks: size and mtime
            text = f"{node.size}:{node.mtime_ms}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    # --------------------------------------------------------------- streaming

    def open_read(self, path: str, start: int = 0, end: int | None = None) -> ReadStream:
        """The bytes ``[start, end)`` of the file, as an async iterator of chunks (at most
        ``CHUNK_SIZE`` each). It reads the version current now, even if the file changes while
        it runs; errors in the path raise here, not at the first chunk."""
        if start < 0 or (end is not None and end < 0):
            raise FsError.of("EINVAL", "read", path)
        node, _ = self._lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "read", path)
        return (self._mounted_stream(node, start, end)
                or ReadStream(self, node.chunks, node.size, start, end,
                              inline=node.inline_bytes if node.inline is not None else None))

    @routed
    def stream_writer(self, path: str, *, mode: int | None = None) -> WriteStream:
        """A writer that creates or replaces the file at ``close`` (see ``streams``)."""
        return DiskWriteStream(self, path, None if mode is None else check_mode(mode, "open", path))

    async def write_stream(self, path: str,
                           chunks: Iterable[bytes | str] | AsyncIterable[bytes | str], *,
                           mode: int | None = None) -> None:
        """``write_file`` from an iterable or async iterable of bytes, holding about one chunk
        in memory; the file appears whole when the iterable ends, or not at all."""
        await write_all(self.stream_writer(path, mode=mode), chunks)

    def _check_writable(self, path: str) -> None:
        """Fail early for a stream that could never be committed: a bad path or a directory in
        the way. Missing parents are fine: the commit creates them, as ``write_file`` does."""
        try:
            _, _, existing = self._write_target(path, "open")
        except FsError as error:
            if error.code != "ENOENT":
                raise
            self._make_dirs_possible(path)
            return
        if existing is not None and existing.is_dir:
            raise FsError.of("EISDIR", "open", path)

    def _make_dirs_possible(self, path: str) -> None:
        """Raise what ``mkdir -p`` of the parent would: a file or bad link in the way."""
        tx = Transaction()
        try:
            self._make_dirs(paths.dirname(paths.normalize(path, "open")), "open", tx, path)
        finally:
            tx.rollback()

    async def _commit_stream(self, path: str, keys: tuple[str, ...], tail: bytes, size: int,
                             mode: int | None) -> None:
        def change(tx: Transaction) -> None:
            self._write_body(path, self.content.pack(tail, tx, keys), size, mode, tx,
                             parents=True)
            for key in keys:
                tx.delete_meta(AHEAD_PREFIX + key)

        await self._mutate(change)

    async def _reclaim(self, keys: list[str]) -> None:
        """Delete chunks that only a finished stream still held."""
        if keys:
            await self._mutate(lambda tx: self.content.reclaim(keys, tx))

    # --------------------------------------------------------------- namespace

    @routed
    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        dir_mode = DEFAULT_DIR_MODE if mode is None else check_mode(mode, "mkdir", path)
        if recursive:
            await self._mutate(lambda tx: self._make_dirs(path, "mkdir", tx, path, dir_mode))
            return

        await self._mutate(lambda tx: self._make_dir(path, "mkdir", dir_mode, tx))

    def _make_dir(self, path: str, syscall: str, mode: int, tx: Transaction) -> Node:
        """``mkdir(2)``: any entry at ``path``, even a dangling link, is EEXIST."""
        parent, _, name = self._lookup_parent(path, syscall)
        if self.index.child(parent, name) is not None:
            raise FsError.of("EEXIST", syscall, path)
        return self._create(parent, name, DIRECTORY, mode, tx)

    def _make_dirs(self, path: str, syscall: str, tx: Transaction, shown: str,
                   mode: int = DEFAULT_DIR_MODE) -> None:
        """``mkdir -p``, as ``os.makedirs(exist_ok=True)`` does it: create what is missing. A
        non-directory as the last name of a mkdir is EEXIST, even a link that leads nowhere;
        elsewhere a file in the way is ENOTDIR and a dangling or looping link the error of
        looking through it (ENOENT, ELOOP)."""
        if self._is_dir(path, syscall):  # the common case (every write_file): one resolution
            return
        segments = _segments(path, syscall)
        current = "/"
        for i, segment in enumerate(segments):
            current = paths.child(current, segment)
            last = i == len(segments) - 1
            parent, _, name = self._lookup_parent(current, syscall)
            if self.index.child(parent, name) is None:
                self._create(parent, name, DIRECTORY, mode, tx)
                continue
            try:
                node, _ = self._lookup(current, syscall)
            except FsError as error:
                code = "EEXIST" if last and syscall == "mkdir" else error.code
                raise FsError.of(code, syscall, shown) from None
            if not node.is_dir:
                raise FsError.of("EEXIST" if last and syscall == "mkdir" else "ENOTDIR",
                                 syscall, shown)

    @routed
    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        def change(tx: Transaction) -> None:
            try:
                parent, _, name = self._lookup_parent(path, "rm")
            except FsError as error:
                if force and error.code == "ENOENT":
                    return
                raise
            node = self.index.child(parent, name)
            if node is None:
                if force:
                    return
                raise FsError.of("ENOENT", "rm", path)
            if paths.has_trailing_slash(path) and not node.is_dir:
                raise FsError.of("ENOTDIR", "rm", path)
            if node.is_dir and not recursive and not self.index.is_empty(node):
                raise FsError.of("ENOTEMPTY", "rm", path)
            if self.index.holds_mark(node):
                raise FsError.of("EBUSY", "rm", path)
            self._remove_tree(node, tx)
            self._touch_dir(self.index.get(parent.id), tx, _now())

        await self._mutate(change)

    @routed
    async def rmdir(self, path: str) -> None:
        def change(tx: Transaction) -> None:
            parent, _, name = self._lookup_parent(path, "rmdir")
            node = self.index.child(parent, name)
            if node is None:
                raise FsError.of("ENOENT", "rmdir", path)
            if not node.is_dir:
                raise FsError.of("ENOTDIR", "rmdir", path)
            if not self.index.is_empty(node):
                raise FsError.of("ENOTEMPTY", "rmdir", path)
            if self.index.holds_mark(node):
                raise FsError.of("EBUSY", "rmdir", path)
            self.index.remove(node, tx)
            self._touch_dir(self.index.get(parent.id), tx, _now())

        await self._mutate(change)

    @routed
    async def unlink(self, path: str) -> None:
        def change(tx: Transaction) -> None:
            parent, _, name = self._lookup_parent(path, "unlink")
            node = self.index.child(parent, name)
            if node is None:
                raise FsError.of("ENOENT", "unlink", path)
            if node.is_dir:
                raise FsError.of("EISDIR", "unlink", path)
            if paths.has_trailing_slash(path):
                raise FsError.of("ENOTDIR", "unlink", path)
            self.index.remove(node, tx)
            self._touch_dir(self.index.get(parent.id), tx, _now())

        await self._mutate(change)

    @routed
    async def rename(self, old: str, new: str) -> None:
        await self._mutate(lambda tx: self._rename(old, new, tx))

    def _rename(self, old: str, new: str, tx: Transaction) -> None:
        """``rename(2)``, its checks in the kernel's order: both parents, ``/`` (EPERM here,
        EBUSY on Linux), the source, a trailing slash on a non-directory, a directory into
        itself, a target that holds the source, a no-op onto itself, what may replace what."""
        src = self._rename_parent(old, old, new)
        dst = self._rename_parent(new, old, new)
        if src is None or dst is None:
            raise FsError.of("EPERM", "rename", old, new)
        (src_parent, src_dir, src_name), (dst_parent, dst_dir, dst_name) = src, dst
        node = self.index.child(src_parent, src_name)
        if node is None:
            raise FsError.of("ENOENT", "rename", old, new)
        if not node.is_dir and (paths.has_trailing_slash(old) or paths.has_trailing_slash(new)):
            raise FsError.of("ENOTDIR", "rename", old, new)
        src_path, dst_path = paths.child(src_dir, src_name), paths.child(dst_dir, dst_name)
        if src_path != dst_path:
            if paths.is_within(dst_path, src_path):
                raise FsError.of("EINVAL", "rename", old, new)
            if paths.is_within(src_path, dst_path):
                raise FsError.of("ENOTEMPTY", "rename", old, new)
        existing = self.index.child(dst_parent, dst_name)
        if existing is not None and existing.id == node.id:
            return
        if self.index.holds_mark(node) or (existing is not None
                                           and self.index.holds_mark(existing)):
            raise FsError.of("EBUSY", "rename", old, new)
        if existing is not None:
            self._check_replace(node, existing, old, new)
            self.index.remove(existing, tx)
        now = _now()
        self.index.put(replace(node, parent=dst_parent.id, name=dst_name, ctime_ms=now), tx)
        self._touch_dir(self.index.get(src_parent.id), tx, now)
        if dst_parent.id != src_parent.id:
            self._touch_dir(self.index.get(dst_parent.id), tx, now)

    def _rename_parent(self, path: str, old: str, new: str) -> tuple[Node, str, str] | None:
        """``_lookup_parent`` for one end of a rename (None for ``/``); errors name both ends."""
        if paths.normalize(path, "rename") == "/":
            return None
        try:
            return self._lookup_parent(path, "rename")
        except FsError as error:
            raise FsError.of(error.code, "rename", old, new) from None

    def _check_replace(self, node: Node, existing: Node, old: str, new: str) -> None:
        if existing.is_dir and not node.is_dir:
            raise FsError.of("EISDIR", "rename", old, new)
        if node.is_dir and not existing.is_dir:
            raise FsError.of("ENOTDIR", "rename", old, new)
        if existing.is_dir and not self.index.is_empty(existing):
            raise FsError.of("ENOTEMPTY", "rename", old, new)

    @routed
    async def copy_file(self, src: str, dst: str) -> None:
        def change(tx: Transaction) -> None:
            node, _ = self._lookup(src, "copyfile")
            if node.is_dir:
                raise FsError.of("EISDIR", "copyfile", src, dst)
            self._copy_content(node, dst, tx)

        await self._mutate(change)

    def _copy_content(self, node: Node, dst: str, tx: Transaction) -> None:
        """Copy a file's content to ``dst`` (followed like a write). Copies share chunks (an
        inline file's bytes go along in the record): only the new node record is written. A
        new file takes the source's mode, an existing one keeps its own, and a file copied onto
        itself stays as it is (libuv's copyfile, under Node's ``fs.copyFile``, does the same)."""
        parent, name, existing = self._write_target(dst, "copyfile")
        now = _now()
        if existing is None:
            copy = Node(_new_id(), parent.id, name, FILE, node.mode, now, now, now,
                        size=node.size, chunks=node.chunks, inline=node.inline)
            self.index.put(copy, tx)
            self._touch_dir(self.index.get(parent.id), tx, now)
        elif existing.is_dir:
            raise FsError.of("EISDIR", "copyfile", dst)
        elif existing.id != node.id:
            self.index.put(replace(existing, size=node.size, chunks=node.chunks,
                                   inline=node.inline, mtime_ms=now, ctime_ms=now), tx)

    @routed
    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """Copy ``src`` to exactly ``dst``: symlinks stay links, directories need ``recursive``
        and merge into an existing directory, as Node's ``fs.cp`` does. A directory may not go
        into itself, wherever the links in ``dst`` lead."""
        def change(tx: Transaction) -> None:
            node, src_path = self._lookup(src, "cp", follow=False)
            if node.is_dir:
                if not recursive:
                    raise FsError.of("EISDIR", "cp", src, dst)
                if paths.is_within(self._destination(dst, "cp"), src_path):
                    raise FsError.of("EINVAL", "cp", src, dst)
            self._copy_tree(node, dst, tx)

        await self._mutate(change)

    def _destination(self, path: str, syscall: str) -> str:
        """The canonical path an entry created at ``path`` would have (its parent resolved)."""
        if paths.normalize(path, syscall) == "/":
            return "/"
        _, parent_path, name = self._lookup_parent(path, syscall)
        return paths.child(parent_path, name)

    def _copy_tree(self, node: Node, dst: str, tx: Transaction) -> None:
        """Copy ``node``, and everything below a directory, to ``dst``, depth first. Below the
        top, each entry is looked up in the directory of the copy that receives it: a missing
        one is created there, a directory merges into an existing directory, and only a file or
        link that lands on an existing entry goes by path (a write follows a link there). So a
        tree of any depth copies, unless such a replacement lies beyond PATH_MAX
        (ENAMETOOLONG). An explicit stack, not recursion: a tree may be deeper than Python's
        recursion limit."""
        # (what to copy, its destination path, the directory of the copy that receives it)
        pending: list[tuple[Node, str, Node | None]] = [(node, dst, None)]
        while pending:
            source, target, into = pending.pop()
            existing = self.index.child(into, source.name) if into is not None else None
            if into is not None and existing is None:
                directory = self._copy_fresh(source, into, tx)
            elif source.is_dir:
                directory = self._copy_dir(source, target, existing, tx)
            elif source.is_link:
                self._copy_link(source, target, tx)
                continue
            else:
                self._copy_content(source, target, tx)
                continue
            if not source.is_dir:
                continue
            base = paths.normalize(target, "cp") if into is None else target
            for child in reversed(self.index.entries(source)):
                pending.append((child, paths.child(base, child.name), directory))

    def _copy_fresh(self, node: Node, parent: Node, tx: Transaction) -> Node:
        """A copy of ``node`` (its entries not included) under the name it has, in ``parent``,
        where nothing has that name: links stay links, files share chunks or inline bytes."""
        if node.is_dir:
            return self._create(parent, node.name, DIRECTORY, node.mode, tx)
        if node.is_link:
            return self._create(parent, node.name, SYMLINK, SYMLINK_MODE, tx, target=node.target)
        return self._create(parent, node.name, FILE, node.mode, tx,
                            body=Body(node.chunks, node.inline), size=node.size)

    def _existing(self, path: str, syscall: str) -> Node | None:
        """The entry at ``path`` (a final link not followed, unless by a trailing slash)."""
        try:
            node, _ = self._lookup(path, syscall, follow=False)
        except FileNotFoundError:
            return None
        return node

    def _copy_link(self, node: Node, dst: str, tx: Transaction) -> None:
        """A link replaces any non-directory at ``dst``; a link copied onto itself stays."""
        existing = self._existing(dst, "cp")
        if existing is not None:
            if existing.is_dir:
                raise FsError.of("EISDIR", "cp", dst)
            if existing.id == node.id:
                return
            self.index.remove(existing, tx)
        self._make_link(node.target or "", dst, "cp", tx)

    def _copy_dir(self, node: Node, dst: str, existing: Node | None, tx: Transaction) -> Node:
        """The directory a copy of ``node`` fills: ``existing`` (the entry already there, found
        by the caller below the top), else the one at ``dst``, else a new one."""
        target = existing if existing is not None else self._existing(dst, "cp")
        if target is None:
            return self._make_dir(dst, "cp", node.mode, tx)
        if not target.is_dir:
            raise FsError.of("ENOTDIR", "cp", dst)
        return target

    @routed
    async def symlink(self, target: str, path: str) -> None:
        """``symlink(2)``: an empty target is ENOENT, an existing ``path`` (even a dangling
        link) EEXIST, and a new name with a trailing slash ENOENT, as on Linux."""
        if "\0" in target or paths.has_lone_surrogate(target):
            raise FsError.of("EINVAL", "symlink", target, path)
        if paths.too_long(target):
            raise FsError.of("ENAMETOOLONG", "symlink", target, path)
        await self._mutate(lambda tx: self._make_link(target, path, "symlink", tx))

    def _make_link(self, target: str, path: str, syscall: str, tx: Transaction) -> None:
        """Create the link ``path`` -> ``target`` (errors name both for ``symlink``, as Node's
        do, and the new path alone for ``cp``)."""
        def error(code: str) -> FsError:
            if syscall == "symlink":
                return FsError.of(code, syscall, target, path)
            return FsError.of(code, syscall, path)

        if not target:
            raise error("ENOENT")
        parent, _, name = self._lookup_parent(path, syscall)
        if self.index.child(parent, name) is not None:
            raise error("EEXIST")
        if paths.has_trailing_slash(path):
            raise error("ENOENT")
        self._create(parent, name, SYMLINK, SYMLINK_MODE, tx, target=target)

    def readlink(self, path: str) -> str:
        node, _ = self._lookup(path, "readlink", follow=False)
        if not node.is_link:
            raise FsError.of("EINVAL", "readlink", path)
        return node.target or ""

    def realpath(self, path: str) -> str:
        _, canonical = self._lookup(path, "realpath")
        return canonical

    # ---------------------------------------------------------------- metadata

    def _stat(self, node: Node, canonical: str) -> Stat:
        return Stat(type=node.kind, size=node.stat_size, mode=node.mode,
                    mtime_ms=node.mtime_ms, ctime_ms=node.ctime_ms, atime_ms=node.atime_ms,
                    name=paths.basename(canonical), path=canonical, target=node.target)

    def stat(self, path: str) -> Stat:
        node, canonical = self._lookup(path, "stat")
        return self._stat(node, canonical)

    def lstat(self, path: str) -> Stat:
        node, canonical = self._lookup(path, "lstat", follow=False)
        return self._stat(node, canonical)

    def exists(self, path: str) -> bool:
        """Follows links, like ``os.path.exists``: a dangling link does not exist."""
        try:
            self._lookup(path, "access")
        except FsError as error:
            if error.code in ("EINVAL", "ENAMETOOLONG"):
                raise
            return False
        return True

    @routed
    async def chmod(self, path: str, mode: int) -> None:
        mode = check_mode(mode, "chmod", path)

        def change(tx: Transaction) -> None:
            node, _ = self._lookup(path, "chmod")
            self.index.put(replace(node, mode=mode & 0o7777, ctime_ms=_now()), tx)

        await self._mutate(change)

    @routed
    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        atime_ms = check_time(atime_ms, "utime", path)
        mtime_ms = check_time(mtime_ms, "utime", path)

        def change(tx: Transaction) -> None:
            node, _ = self._lookup(path, "utime")
            self.index.put(replace(node, atime_ms=float(atime_ms), mtime_ms=float(mtime_ms),
                                   ctime_ms=_now()), tx)

        await self._mutate(change)

    @routed
    async def touch(self, path: str) -> None:
        """Create an empty file, or set an existing one's times to now (``touch``)."""
        def change(tx: Transaction) -> None:
            if self.exists(path):
                node, _ = self._lookup(path, "utime")
                now = _now()
                self.index.put(replace(node, atime_ms=now, mtime_ms=now, ctime_ms=now), tx)
            else:
                self._write(path, b"", None, tx, parents=False)

        await self._mutate(change)

    # ----------------------------------------------------------------- listing

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        node, canonical = self._lookup(path, "scandir")
        if not node.is_dir:
            raise FsError.of("ENOTDIR", "scandir", path)
        if not with_types:
            return self._names(node)
        return [DirEntry(child.name, paths.child(canonical, child.name), child.kind)
                for child in self._entries(node)]

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """The canonical path of the directory ``path`` and its entries by name, as nodes, for
        callers that want every entry's metadata at once (the JS API's stat cache). The node of
        a mount point, and a mounted folder's entries, are not what lstat reports
        (``mount_table.covers`` tells them): their stat comes from the folder."""
        node, canonical = self._lookup(path, "scandir")
        if not node.is_dir:
            raise FsError.of("ENOTDIR", "scandir", path)
        return canonical, self._entries(node)

    def walk(self, path: str = "/") -> list[str]:
        """Every non-directory below ``path`` (links not followed), sorted by path."""
        node, canonical = self._lookup(path, "scandir")
        if not node.is_dir:
            return [canonical]
        return sorted(p for p, child in self._descendants(node, canonical) if not child.is_dir)

    def du(self, path: str = "/") -> int:
        """Bytes of file content at or below ``path`` (links count their own size)."""
        node, canonical = self._lookup(path, "scandir", follow=False)
        if not node.is_dir:
            return node.size
        # The sizes the traversal already has: a mounted folder is listed once per directory,
        # not asked once per file.
        return sum(child.size for _, child in self._descendants(node, canonical, sizes=True)
                   if not child.is_dir)

    # ------------------------------------------------------------------ health

    async def check(self, progress: Progress | None = None) -> Report:
        """Verify the stored disk (``fsck``, see ``check.py``). It runs as a mutation that writes
        nothing, so no write can change the store halfway through the walk."""
        return await self._mutate(lambda tx: check_store(self.store, FORMAT_VERSION, progress))

    async def gc(self, grace_ms: float = DEFAULT_GRACE_MS) -> int:
        """Delete stored chunks nothing references (see ``garbage.py``); returns how many."""
        return await self._mutate(lambda tx: collect(self, tx, grace_ms))

    async def usage(self) -> Usage:
        """Files, directories and bytes from the index (no content read), and the quota."""
        return measure(list(self.index.nodes.values()), await self.store.estimate())
