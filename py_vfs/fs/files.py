"""File content: whole reads and writes, appends, truncation, streams, the content's name.

Each mutation is a rule written once over a side (``sides.py``): its path located once, its
entry looked up through the resolver, its checks in the disk's order, and its one change made by
the side, on the disk as one change run by the commit engine (one durable commit, grouped with
the writes in flight), in a mounted folder on its backend.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Iterable, Sequence

from ..core.errors import FsError
from ..core.node import Node
from ..disk.content import AHEAD_PREFIX
from ..disk.engine import CommitEngine
from ..disk.limits import check_length, check_mode
from ..disk.streams import ReadStream, WriteStream, write_all
from ..mounts.table import DISK, MountTable, Place
from ..storage.transaction import Change, Transaction
from .disk_side import DiskSide, Nodes
from .resolver import Resolver
from .sides import Concern, FileSide
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

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Nodes, tree: Tree,
                 table: MountTable) -> None:
        super().__init__(engine, resolver, disk, table)
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

    def write_file(self, path: str, data: bytes | str, *, mode: int | None = None,
                   digests: Sequence[str] | None = None,
                   parents: bool = True) -> Awaitable[None]:
        """Replace (or create) the file at ``path``, its missing parents created unless not
        ``parents`` (what to await: the commit itself, on the disk)."""
        payload = as_bytes(data, path)
        mode = None if mode is None else check_mode(mode, "open", path)
        place = self.locate(path, "open", create=True)
        return self.apply(place, lambda side: self._write(side, place, path, payload, mode,
                                                          digests, parents),
                          "writeFile", "open", path)

    def write_change(self, path: str, data: bytes | str, mode: int | None,
                     digests: Sequence[str] | None, *, parents: bool = True) -> Change:
        """The change that replaces (or creates) the file at ``path`` on the disk, its missing
        parents created unless not ``parents``; ``data`` and ``mode`` are checked now. (For a
        path on the disk: with folders mounted, ``write_file`` finds where a path leads.)"""
        payload = as_bytes(data, path)
        mode = None if mode is None else check_mode(mode, "open", path)
        return lambda tx: self._write(DiskSide(self.disk, tx, "open", path), DISK, path,
                                      payload, mode, digests, parents)

    def _write(self, side: FileSide, place: Place, path: str, payload: bytes,
               mode: int | None, digests: Sequence[str] | None, parents: bool = True) -> None:
        side.write(self.write_target(side, place, path, parents=parents), payload, mode,
                   digests)

    async def append_file(self, path: str, data: bytes | str) -> None:
        """Only the file's last, partial chunk is read and rewritten, whatever its size."""
        payload = as_bytes(data, path)
        place = self.locate(path, "open", create=True)

        async def rule(side: FileSide) -> None:
            side.writable("open")
            found = self.write_target(side, place, path, parents=False)
            if found.node is None:
                side.write(found, payload, None)
            elif payload:  # appending nothing changes nothing, not even the mtime
                await side.append(found, payload)

        await self.apply(place, rule, "appendFile", "open", path)

    async def truncate(self, path: str, length: int = 0) -> None:
        """Cut or extend (with zeros) the file to ``length`` bytes (up to ``MAX_FILE_SIZE``,
        else EFBIG); the disk reads at most the one chunk the new end falls in."""
        length = check_length(length, "open", path)
        place = self.locate(path, "open")

        async def rule(side: FileSide) -> None:
            found = self.resolver.resolve_from(place, path, "open")
            assert found.node is not None
            if found.node.is_dir:
                raise FsError.of("EISDIR", "open", path)
            side.writable("open")
            await side.truncate(found, length)

        await self.apply(place, rule, "truncate", "open", path)

    def content_id(self, path: str) -> str:
        """A name for a file's bytes that changes exactly when they do, without reading them
        (the preview's ETag)."""
        node, _ = self.resolver.lookup(path, "open")
        if node.is_dir:
            raise FsError.of("EISDIR", "open", path)
        return self.tree.content_id(node)

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

    def stream_writer(self, path: str, *, mode: int | None = None,
                      parents: bool = True) -> WriteStream:
        """A writer that creates or replaces the file at ``close`` (see ``streams``). A stream
        that could never be committed fails now: a bad path, a directory in the way, and a
        missing parent unless ``parents`` (then made at the end, as ``write_file`` makes them;
        without it a parent gone meanwhile fails the close with ENOENT)."""
        mode = None if mode is None else check_mode(mode, "open", path)
        place = self.locate(path, "open", create=True)
        side = self.side(place, None, "open", path)
        try:
            self.write_target(side, place, path, parents=False)
        except FsError as error:
            if error.code != "ENOENT" or not parents:
                raise
            side.check_parents(path)
        writer = self.engine.writer()  # the writer of the context that opened the stream

        async def finish(path: str, keys: tuple[str, ...], tail: bytes, size: int,
                         mode: int | None) -> None:
            await self._commit_stream(path, keys, tail, size, mode, writer, parents)

        return side.open_stream(self.engine, path, mode, finish)

    async def write_stream(self, path: str,
                           chunks: Iterable[bytes | str] | AsyncIterable[bytes | str], *,
                           mode: int | None = None) -> None:
        """``write_file`` from an iterable or async iterable of bytes, holding about one chunk
        in memory; the file appears whole when the iterable ends, or not at all."""
        await write_all(self.stream_writer(path, mode=mode), chunks)

    async def _commit_stream(self, path: str, keys: tuple[str, ...], tail: bytes, size: int,
                             mode: int | None, writer: str, parents: bool) -> None:
        def change(tx: Transaction) -> None:
            side = DiskSide(self.disk, tx, "open", path)
            found = self.write_target(side, DISK, path, parents=parents)
            side.put_body(found, self.content.pack(tail, tx, keys), size, mode)
            for key in keys:
                tx.delete_meta(AHEAD_PREFIX + key)

        await self.engine.run(change, "writeFile", writer)
