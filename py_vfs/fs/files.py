"""File content: whole reads and writes, appends, truncation, streams, the content's name.

Each mutation is one change run by the commit engine (one durable commit, grouped with the
writes in flight); a path inside a mounted folder is routed to ``mount_ops.py`` first.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterable, Iterable, Sequence

from ..core import paths
from ..core.errors import FsError
from ..core.node import Node
from ..disk.content import AHEAD_PREFIX, CHUNK_SIZE, zero_chunk
from ..disk.engine import CommitEngine
from ..disk.limits import check_length, check_mode
from ..disk.streams import DiskWriteStream, ReadStream, WriteStream, write_all
from ..mounts.table import MountTable
from ..storage.transaction import Change, Transaction
from .mount_ops import Concern, MountOps, routed
from .nodes import Disk
from .resolver import Resolver
from .tree import Tree

MAX_READ_SIZE = 2**31 - 1  # read_file, like Node's readFile (ERR_FS_FILE_TOO_LARGE); streams: any


def as_bytes(data: bytes | bytearray | memoryview | str, path: str | None = None) -> bytes:
    """What a write stores: text as UTF-8 (EINVAL for a lone surrogate), bytes as they are."""
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            raise FsError.of("EINVAL", "write", path).with_hint(
                "the text holds a lone surrogate, which UTF-8 cannot encode") from None
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    raise TypeError(f"data must be str or bytes-like, not {type(data).__name__}")


class Files(Concern):
    """The content operations of the VFS."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Disk, tree: Tree,
                 table: MountTable, mounted: MountOps) -> None:
        super().__init__(engine, resolver, disk, table, mounted)
        self.tree = tree
        self.content = disk.content

    def file_node(self, path: str) -> Node:
        """The file ``read_file`` reads: EISDIR for a directory, EFBIG over 2 GiB."""
        node, _ = self.resolver.lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "read", path)
        if node.size > MAX_READ_SIZE:
            raise FsError.of("EFBIG", "read", path).with_hint(
                f"a file over {MAX_READ_SIZE} bytes is read as a stream, with open_read")
        return node

    def write_change(self, path: str, data: bytes | str, mode: int | None,
                     digests: Sequence[str] | None) -> Change:
        """The change that replaces (or creates) the file at ``path`` on the disk, its parents
        created; ``data`` and ``mode`` are checked now."""
        payload = as_bytes(data, path)
        mode = None if mode is None else check_mode(mode, "open", path)
        return lambda tx: self.disk.write(path, payload, mode, tx, parents=True, digests=digests)

    @routed
    async def append_file(self, path: str, data: bytes | str) -> None:
        """Only the file's last, partial chunk is read and rewritten, whatever its size."""
        payload = as_bytes(data, path)

        async def change(tx: Transaction) -> None:
            _, _, existing = self.resolver.write_target(path, "open")
            if existing is None or existing.is_dir:
                self.disk.write(path, payload, None, tx, parents=False)
            elif payload:  # appending nothing changes nothing, not even the mtime
                check_length(existing.size + len(payload), "write", path)
                keep, tail = await self._split_at(existing, existing.size)
                body = self.content.pack(tail + payload, tx, keep)
                self.disk.write_body(path, body, existing.size + len(payload), None, tx,
                                     parents=False)

        await self.engine.run(change, "appendFile")

    @routed
    async def truncate(self, path: str, length: int = 0) -> None:
        """Reads at most the one chunk the new end falls in. Growing a file fills the last
        chunk with zeros and then references the one all-zero chunk as many times as needed:
        no gap is ever allocated, whatever its size (up to ``MAX_FILE_SIZE``, else EFBIG)."""
        length = check_length(length, "open", path)

        async def change(tx: Transaction) -> None:
            node, _ = self.resolver.lookup(path, "open")
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
            self.disk.write_body(path, self.content.pack(tail, tx, keep), length, None, tx,
                                 parents=False)

        await self.engine.run(change, "truncate")

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

    def content_id(self, path: str) -> str:
        """A name for a file's bytes (a hash of its size and chunk keys, or of its inline bytes),
        without reading the store: the preview's ETag, which changes exactly when the content
        does."""
        node, _ = self.resolver.lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "open", path)
        text = f"{node.size}:{','.join(node.chunks)}"
        if node.inline is not None:  # base64 names the bytes exactly, as the chunk keys do
            text = f"{node.size}:inline:{node.inline}"
        if self.table.covers(node):  # a folder's file has no chunks: size and mtime
            text = f"{node.size}:{node.mtime_ms}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    # --------------------------------------------------------------- streaming

    def open_read(self, path: str, start: int = 0, end: int | None = None) -> ReadStream:
        """The bytes ``[start, end)`` of the file, as an async iterator of chunks (at most
        ``CHUNK_SIZE`` each). It reads the version current now, even if the file changes while
        it runs; errors in the path raise here, not at the first chunk."""
        if start < 0 or (end is not None and end < 0):
            raise FsError.of("EINVAL", "read", path)
        node, _ = self.resolver.lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "read", path)
        return self.tree.stream(node, start, end)

    @routed
    def stream_writer(self, path: str, *, mode: int | None = None) -> WriteStream:
        """A writer that creates or replaces the file at ``close`` (see ``streams``)."""
        mode = None if mode is None else check_mode(mode, "open", path)
        self._check_writable(path)
        writer = self.engine.writer()  # the writer of the context that opened the stream

        async def finish(path: str, keys: tuple[str, ...], tail: bytes, size: int,
                         mode: int | None) -> None:
            await self._commit_stream(path, keys, tail, size, mode, writer)

        return DiskWriteStream(self.engine, path, mode, finish)

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
            _, _, existing = self.resolver.write_target(path, "open")
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
            self.disk.make_dirs(paths.dirname(paths.normalize(path, "open")), "open", tx, path)
        finally:
            tx.rollback()

    async def _commit_stream(self, path: str, keys: tuple[str, ...], tail: bytes, size: int,
                             mode: int | None, writer: str) -> None:
        def change(tx: Transaction) -> None:
            self.disk.write_body(path, self.content.pack(tail, tx, keys), size, mode, tx,
                                 parents=True)
            for key in keys:
                tx.delete_meta(AHEAD_PREFIX + key)

        await self.engine.run(change, "writeFile", writer)
