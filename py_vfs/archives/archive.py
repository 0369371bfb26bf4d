"""The disk as a zip or a SQLite image: ``export`` streams a tree out, ``import_archive``
brings one back in. The image format itself is sqlite_image.py's; this module picks the format
and makes the entries of either.

``export`` writes with Python's ``zipfile`` into a sink that cannot seek, so every entry carries
a data descriptor after its data and nothing is ever rewritten: each piece is handed to the
caller as soon as it exists, and a file passes through one chunk (512 KiB) at a time, read with
``vfs.open_read``. What stays in memory is the central directory's records (a few hundred bytes
per entry), which the zip's end needs.

``import_archive`` needs the central directory, at the end of the archive, before anything, so
it holds the whole archive in memory, up to ``MAX_ARCHIVE_BYTES`` (EFBIG beyond). It checks
every entry (``zip_entries.plan``) and every link, and what is on the disk where they go, before
it changes anything, then makes them all in one step: all or nothing. An image is checked the
same way (``sqlite_image.entries``) and its entries made by the same step. Formats, limits and
what is kept: docs/data.md.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections import deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
)
from typing import TYPE_CHECKING, Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, SYMLINK, Stat
from ..disk.content import CHUNK_SIZE
from . import sqlite_image
from .sqlite_image import export_image, tree
from .zip_entries import Entry, check_link, entry_info, plan, refuse

if TYPE_CHECKING:
    from ..fs.step import StepTx
    from ..vfs import VFS

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
"""The largest archive ``import_archive`` reads (EFBIG): a zip is held in memory whole, an
image in a temporary file (in memory too, in the browser's MEMFS)."""
FORMATS = ("zip", "sqlite")
# What is compressed and handed out at a time: the chunk is already in memory (the store's), its
# compressed copy need not be there whole as well.
_SLICE = 64 * 1024


class ZipSink:
    """A write-only file object without ``tell`` or ``seek``: ``zipfile`` then streams (data
    descriptors), and what it wrote is taken out piece by piece (here and by the shell's
    ``zip``)."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []

    def write(self, data: bytes) -> int:
        """Keep a copy of ``data`` until the next ``take``."""
        self._pieces.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        """Nothing is buffered here: ``take`` hands out what was written."""

    def take(self) -> bytes:
        """What was written since the last ``take`` (b"" when nothing was)."""
        out = self._pieces[0] if len(self._pieces) == 1 else b"".join(self._pieces)
        self._pieces.clear()
        return out


def _check_format(format: str, syscall: str) -> None:
    if format not in FORMATS:
        raise FsError.of("EINVAL", syscall, None).with_hint(
            f"unknown format {format!r} (known: {', '.join(FORMATS)})")


def export(vfs: VFS, path: str = "/", format: str = "zip") -> AsyncGenerator[bytes, None]:
    """The tree at ``path`` (a directory: what is below it; a file: that file) as a zip or a
    SQLite image (``format``), in pieces. Files, directories (empty ones too) and symlinks,
    with their modes and times; a zip keeps memory near one chunk whatever the sizes, an
    image is built in a scratch file (sqlite_image.py, scratch.py). Errors in ``path`` raise
    here."""
    _check_format(format, "export")
    top = vfs.stat(path)
    return export_image(vfs, top) if format == "sqlite" else _zip_stream(vfs, top)


def format_of(name: str) -> str:
    """The format an archive's file name implies: ``.db`` and ``.sqlite`` are images,
    anything else a zip."""
    return "sqlite" if name.lower().endswith((".db", ".sqlite")) else "zip"


async def in_pieces(pieces: AsyncGenerator[bytes, None], size: int = CHUNK_SIZE
                    ) -> AsyncIterator[bytes]:
    """``pieces`` gathered into pieces of about ``size`` bytes (the last may be shorter): one
    round trip per chunk for a caller in another thread (the JS API's export)."""
    held: list[bytes] = []
    length = 0
    try:
        async for piece in pieces:
            held.append(piece)
            length += len(piece)
            if length >= size:
                yield b"".join(held)
                held, length = [], 0
        if held:
            yield b"".join(held)
    finally:  # closed early (a cancelled stream): the export's state goes now, not at GC
        await pieces.aclose()


async def _zip_stream(vfs: VFS, top: Stat) -> AsyncGenerator[bytes, None]:
    sink = ZipSink()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, info in tree(vfs, top):
            size = 0 if info.is_dir else info.size
            header = entry_info(name, info.type, info.mode, info.mtime_ms, info.atime_ms,
                                info.ctime_ms, size)
            if info.is_dir:
                archive.mkdir(header)
            elif info.is_symlink:
                archive.writestr(header, (info.target or "").encode())
            else:
                async with vfs.open_read(info.path) as stream:
                    with archive.open(header, "w") as entry:
                        async for piece in stream:
                            view = memoryview(piece)
                            for at in range(0, len(view), _SLICE):
                                entry.write(view[at:at + _SLICE])
                                if out := sink.take():
                                    yield out
            if out := sink.take():
                yield out
    yield sink.take()  # the central directory


# ---------------------------------------------------------------------- import


class Upload:
    """An import that arrives in pieces from another thread (the JS API's ``vfs.import``):
    the pieces are held (at most ``MAX_ARCHIVE_BYTES``, EFBIG beyond, refused as they come)
    until ``finish`` imports them, letting go of each as it is consumed."""

    def __init__(self, vfs: VFS, format: str, into: str) -> None:
        _check_format(format, "import")
        if not isinstance(into, str):
            raise FsError.of("EINVAL", "import", None).with_hint("into must be a path")
        self.vfs, self.format, self.into = vfs, format, into
        self._pieces: deque[bytes] = deque()
        self._size = 0

    def write(self, data: bytes) -> None:
        """One more piece of the archive."""
        self._size += len(data)
        if self._size > MAX_ARCHIVE_BYTES:
            self._pieces.clear()
            raise _too_big()
        self._pieces.append(bytes(data))

    async def finish(self) -> dict[str, int]:
        """``import_archive`` of everything written."""
        return await import_archive(self.vfs, self._drain(), self.format, self.into)

    async def _drain(self) -> AsyncIterator[bytes]:
        while self._pieces:
            yield self._pieces.popleft()


async def _read_all(source: Any) -> bytes:
    """The archive's bytes from ``source``: bytes-like, or an (async) iterable of pieces."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        if len(data) > MAX_ARCHIVE_BYTES:
            raise _too_big()
        return data
    buffer = bytearray()
    pieces = source if isinstance(source, AsyncIterable) else _as_async(source)
    async for piece in pieces:
        buffer += piece
        if len(buffer) > MAX_ARCHIVE_BYTES:
            raise _too_big()
    return bytes(buffer)


async def _as_async(pieces: Iterable[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


def _too_big() -> FsError:
    return refuse("EFBIG", f"an archive over {MAX_ARCHIVE_BYTES} bytes (it is read into "
                           "memory whole)")


def _open_zip(data: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
            NotImplementedError, UnicodeDecodeError) as error:
        raise refuse("EINVAL", f"not a readable zip archive: {error}") from None


def _read_entry(archive: zipfile.ZipFile, entry: Entry) -> bytes:
    """An entry's bytes, read in chunks and held to its declared size: a lying header or
    damaged data (CRC, deflate stream) is EINVAL."""
    assert entry.info is not None
    declared = entry.info.file_size
    parts, got = [], 0
    try:
        with archive.open(entry.info) as source:
            while piece := source.read(CHUNK_SIZE):
                got += len(piece)
                if got > declared:
                    break
                parts.append(piece)
    except (zipfile.BadZipFile, EOFError, zlib.error, ValueError, OSError, struct.error,
            NotImplementedError, RuntimeError) as error:  # RuntimeError: encrypted locally
        raise refuse("EINVAL", f"damaged entry: {error}", entry.name) from None
    if got != declared:
        raise refuse("EINVAL", f"the entry holds {got} bytes, its header says {declared}",
                     entry.name)
    return b"".join(parts)


def _target(vfs: VFS, into: str) -> str:
    """The canonical directory to import into (it may not exist yet)."""
    try:
        info = vfs.stat(into)
    except FileNotFoundError:
        return paths.normalize(into, "import")
    if not info.is_dir:
        raise FsError.of("ENOTDIR", "import", into)
    return info.path


def _check_place(vfs: VFS, base: str, entries: list[Entry]) -> None:
    """What the disk holds where the entries go: a directory may receive a directory (merged),
    anything else in the way is EEXIST; a mounted folder at or below the target is EXDEV."""
    for mount in vfs.mounts():
        if paths.is_within(mount["path"], base) or paths.is_within(base, mount["path"]):
            raise FsError.of("EXDEV", "import", base).with_hint(
                f"a folder is mounted at {mount['path']}: import into the disk only")
    for entry in entries:
        try:
            there = vfs.lstat(paths.child(base, entry.name))
        except FileNotFoundError:
            continue
        if not (there.is_dir and entry.kind == DIRECTORY):
            raise FsError.of("EEXIST", "import", there.path).with_hint(
                f"the archive has a {entry.kind} there; an import adds, it never replaces")


Read = Callable[[Entry], Awaitable[bytes]]
"""A file entry's content, read from the archive."""
Link = Callable[[Entry], str]
"""A symlink entry's target, read from the archive."""


def _links(vfs: VFS, base: str, entries: list[Entry], link: Link) -> dict[tuple[str, ...], str]:
    """The target of each symlink of the archive, checked (``check_link``) against what each
    path below ``base`` will be: the archive's entry there, else what the disk has."""
    planned = {entry.names: entry.kind for entry in entries}

    def kind(names: tuple[str, ...]) -> str | None:
        if names in planned:
            return planned[names]
        try:
            return vfs.lstat(paths.child(base, "/".join(names))).type
        except FsError:
            return None

    links = {}
    for entry in entries:
        if entry.kind == SYMLINK:
            links[entry.names] = link(entry)
            check_link(entry, links[entry.names], kind)
    return links


async def import_archive(vfs: VFS, source: Any, format: str = "zip",
                         into: str = "/") -> dict[str, int]:
    """Make the archive's files, directories and symlinks below ``into`` (created if
    missing), with their modes and times, in one step: all of them, or, on any error, none.
    ``source``: the archive's bytes, or an (async) iterable of its pieces; ``format``: "zip"
    or "sqlite" (an image, sqlite_image.py). A malformed or hostile archive is refused
    before anything changes (docs/data.md lists what). Returns how many files, directories
    (made or merged into) and symlinks, and the bytes written."""
    _check_format(format, "import")
    if format == "sqlite":
        return await _import_image(vfs, source, into)
    data = await _read_all(source)
    archive = _open_zip(data)
    entries = plan(archive.infolist(), len(data))

    async def read(entry: Entry) -> bytes:
        return _read_entry(archive, entry)

    def link(entry: Entry) -> str:
        try:
            return _read_entry(archive, entry).decode("utf-8")
        except UnicodeDecodeError:
            raise refuse("EINVAL", "a symlink target that is not UTF-8", entry.name) from None

    return await _import(vfs, into, entries, read, link)


async def _import_image(vfs: VFS, source: Any, into: str) -> dict[str, int]:
    """``import_archive`` of a SQLite image: received into a scratch file, opened read-only,
    checked whole, then its entries made as a zip's are."""
    async with (sqlite_image.receive(source, MAX_ARCHIVE_BYTES, _too_big) as path,
                sqlite_image.opened(path) as image):
        entries = sqlite_image.entries(image)

        async def read(entry: Entry) -> bytes:
            data = await image.read_file("/" + entry.name)
            assert isinstance(data, bytes)
            return data

        return await _import(vfs, into, entries, read,
                             lambda entry: image.readlink("/" + entry.name))


async def _import(vfs: VFS, into: str, entries: list[Entry], read: Read,
                  link: Link) -> dict[str, int]:
    """Make the checked ``entries`` below ``into`` in one step."""
    base = _target(vfs, into)
    counts = {FILE: 0, DIRECTORY: 0, SYMLINK: 0, "bytes": 0}
    # The checks of the disk run inside the step, which holds the disk's lock: what they saw
    # is what the entries land on (a write through a link made meanwhile would leave ``into``).
    async with vfs.step() as tx:
        _check_place(vfs, base, entries)
        links = _links(vfs, base, entries, link)
        await tx.mkdir(base, recursive=True)
        for entry in entries:
            await _make(tx, entry, paths.child(base, entry.name), read, links, counts)
        for entry in reversed(entries):  # directories after their entries: those touch them
            if entry.mtime_ms is not None and entry.kind != SYMLINK:
                await tx.utimes(paths.child(base, entry.name), entry.atime_ms, entry.mtime_ms)
    return {"files": counts[FILE], "directories": counts[DIRECTORY],
            "symlinks": counts[SYMLINK], "bytes": counts["bytes"]}


async def _make(tx: StepTx, entry: Entry, path: str, read: Read,
                links: dict[tuple[str, ...], str], counts: dict[str, int]) -> None:
    """One entry, inside the import's step."""
    if entry.kind == DIRECTORY:
        if tx.exists(path):
            if entry.mode is not None:
                await tx.chmod(path, entry.mode)
        else:
            await tx.mkdir(path, mode=entry.mode)
    elif entry.kind == SYMLINK:
        await tx.symlink(links[entry.names], path)
    else:
        data = await read(entry)
        await tx.write_file(path, data, mode=entry.mode)
        counts["bytes"] += len(data)
    counts[entry.kind] += 1
