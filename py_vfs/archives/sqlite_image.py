"""The disk as a SQLite image: a tree written out as a py_vfs disk file, and read back.

An image is a ``SQLiteStore`` file (py_vfs/storage/sqlite.py) whose root holds the exported
tree, so ``python -m py_vfs shell --disk image.db`` opens it and the stock ``sqlite3`` tool
reads it. Python's sqlite3 needs a real file: the image is built in, and read back from, a file
in a scratch folder (scratch.py: on CPython a temporary directory; in the browser a folder in
the origin private file system, so the image is never whole in the worker's memory).

``export_image`` copies the tree into a fresh image file one chunk at a time (each file is
streamed into the image, never held whole), then hands the file out in chunks and deletes it.
``receive`` writes a received image into a scratch folder; ``opened`` checks its schema
(image_schema.py: exactly a py_vfs disk's, so no SQL the file carries ever runs), copies an
older format's rows into a fresh image to upgrade them, opens it read-only, hardened and under
a deadline, and checks it (``VFS.check`` over every record and chunk); ``entries`` lists its
entries (the names with the zip import's rule, kinds, sizes and times);
``archive.import_archive`` then makes them below the target in one step.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, ROOT_ID, SYMLINK, Stat
from ..disk.content import CHUNK_SIZE
from ..disk.limits import MAX_TIME_MS, MIN_TIME_MS
from ..storage import SPACES
from ..storage.sqlite import SQLiteStore
from ..storage.transaction import Op
from ..vfs import FORMAT_VERSION, VFS
from . import image_schema, scratch
from .zip_entries import (
    MAX_ENTRIES,
    MAX_ENTRY_BYTES,
    MAX_LINK_BYTES,
    MAX_TOTAL_BYTES,
    Entry,
    check_name,
    refuse,
)

if TYPE_CHECKING:
    from collections.abc import Callable

HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""


IMAGE = "image.db"
"""The image's file name in its scratch folder (web/worker/opfs_scratch.mjs expects it)."""


CACHE_KIB = 1024
"""SQLite's page cache while an image is built: what its memory is, whatever the image's size."""


class _ImageStore(SQLiteStore):
    """The store an export writes: a private scratch file nobody else opens until it is
    complete, so its commits need not reach the device (``synchronous=OFF``), and a rollback
    journal kept in memory (no ``-wal`` or ``-shm`` file beside it: a reader of the image
    needs none, and a scratch folder holds only the image and its journal)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, journal="MEMORY")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")

    def copy_rows(self, space: str, rows: Iterable[tuple[object, object]]) -> None:
        """Put ``rows`` (key, value) into keyspace ``space``'s table, in one transaction
        (an older image's rows, copied here to be upgraded)."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(f"INSERT INTO {space} (key, value) VALUES (?, ?)", rows)

    def seal(self) -> None:
        """One self-contained file: the change log of the build dropped (the image is a disk
        at revision 0), a rollback journal beside it for whoever opens it next, and closed."""
        self._db.execute("DELETE FROM log")
        self._db.execute("DELETE FROM meta WHERE key = 'rev'")
        self._db.execute("PRAGMA journal_mode=DELETE")
        self.close()


def tree(vfs: VFS, top: Stat) -> Iterable[tuple[str, Stat]]:
    """(name below ``top``, lstat) of each entry, depth first, names sorted, each directory
    before its entries (``top`` a file: that file alone, under its name)."""
    if not top.is_dir:
        yield top.name, top
        return
    stack = [(top.path, "")]
    while stack:
        directory, prefix = stack.pop()
        below = []
        for name in sorted(vfs.readdir(directory)):
            info = vfs.lstat(paths.child(directory, name))
            yield prefix + name, info
            if info.is_dir:
                below.append((info.path, prefix + name + "/"))
        stack.extend(reversed(below))


# ------------------------------------------------------------------------ export


async def export_image(vfs: VFS, top: Stat) -> AsyncGenerator[bytes, None]:
    """The image of the tree at ``top``, in pieces of one chunk; its scratch file is deleted
    when the iteration ends, fails or is closed."""
    async with scratch.folder() as folder:
        path = os.path.join(folder, IMAGE)
        await _build(vfs, top, path)
        with open(path, "rb") as image:
            while piece := image.read(CHUNK_SIZE):
                yield piece


async def _build(vfs: VFS, top: Stat, path: str) -> None:
    """Write the tree into a fresh image at ``path``: each file streamed chunk by chunk, then
    every mode and time set, deepest first (making an entry touches its directory)."""
    store = _ImageStore(path)
    try:
        image = await VFS.open(store, cache_bytes=0)
        entries = list(tree(vfs, top))
        for name, info in entries:
            at = "/" + name
            if info.is_dir:
                await image.mkdir(at, mode=info.mode)
            elif info.is_symlink:
                await image.symlink(info.target or "", at)
            else:
                writer = image.stream_writer(at, mode=info.mode)
                try:
                    async with vfs.open_read(info.path) as source:
                        async for piece in source:
                            await writer.write(piece)
                except BaseException:
                    await writer.abort()
                    raise
                await writer.close()
        for name, info in reversed(entries):
            if not info.is_symlink:
                await image.chmod("/" + name, info.mode)
                await image.utimes("/" + name, info.atime_ms, info.mtime_ms)
    except BaseException:
        store.close()
        raise
    store.seal()


# ------------------------------------------------------------------------ import


class _ReadOnlyStore(SQLiteStore):
    """A ``Store`` over a received image, on a connection ``image_schema.open_received``
    made (read-only, hardened, each statement under a deadline): reading it never changes it,
    and anything that would write (an image without a root) is refused."""

    def __init__(self, path: str, connection: sqlite3.Connection) -> None:
        super().__init__(path, connection=connection)

    async def estimate(self) -> dict[str, object] | None:
        """Unknown: nothing is written here."""
        return None

    async def commit(self, ops: list[Op]) -> None:
        """Refused: an image is only read."""
        raise refuse("EINVAL", "not a complete py_vfs image of this format (it would need "
                               "changes to be read)")

    async def commit_logged(self, base: int, ops: list[Op], entry: str) -> int | None:
        """Refused, as ``commit``."""
        await self.commit(ops)
        return None


@asynccontextmanager
async def receive(source: Any, limit: int, too_big: Callable[[], FsError]
                  ) -> AsyncIterator[str]:
    """Write the image's bytes (bytes-like, or an (async) iterable of pieces) into a file of a
    fresh scratch folder, at most ``limit`` bytes (``too_big()`` beyond); the context's value
    is the file's path, and the folder goes when the context ends."""
    async with scratch.folder() as folder:
        path = os.path.join(folder, IMAGE)
        if isinstance(source, bytes | bytearray | memoryview):
            source = [source]
        pieces = source if isinstance(source, AsyncIterable) else _as_async(source)
        with open(path, "wb") as out:
            written = 0
            async for piece in pieces:
                written += len(piece)
                if written > limit:
                    raise too_big()
                out.write(piece)
        yield path


async def _as_async(pieces: Iterable[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


def _older(db: sqlite3.Connection, tables: set[str]) -> bool:
    """Whether the image (its schema checked) is of an older format that ``VFS.open`` would
    upgrade: its added keyspaces missing, its format below ours, a root. A newer format is
    refused; anything else is left as it is for ``open``'s checks to judge."""
    row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    version = str(row[0] if row is not None else 1)
    if version.isdigit() and int(version) > FORMAT_VERSION:
        raise refuse("EINVAL", f"an image of disk format {version} (this py_vfs reads "
                               f"{FORMAT_VERSION} and older)")
    if tables >= set(SPACES) or not version.isdigit() or int(version) == FORMAT_VERSION:
        return False
    return db.execute("SELECT 1 FROM nodes WHERE key = ?", (ROOT_ID,)).fetchone() is not None


async def _upgraded_copy(db: sqlite3.Connection, tables: set[str], path: str) -> None:
    """An older image's rows copied, keyspace by keyspace, into a fresh image at ``path``
    (a database made here: none of the image's SQL comes along), then brought to this format
    there, as ``VFS.open`` upgrades a disk. Only rows are read from the image: its schema was
    checked first, so each ``SELECT`` reads a plain table."""
    store = _ImageStore(path)
    try:
        for space in sorted(tables):
            store.copy_rows(space, db.execute(f"SELECT key, value FROM {space}"))
        await VFS.open(store, cache_bytes=0)
    except BaseException:
        store.close()
        raise
    store.seal()


async def _checked(store: _ReadOnlyStore) -> VFS:
    """The store as a VFS, once ``VFS.check`` found every record and chunk sound."""
    image = await VFS.open(store, cache_bytes=0)
    report = await image.check()
    if not report.ok:
        problem = report.problems[0]
        raise refuse("EINVAL", f"a damaged image: {problem.message} ({problem.where})")
    return image


def _damaged(db: sqlite3.Connection | None, error: Exception) -> FsError:
    """What an error reading the image is: its guard's (ETIMEDOUT, ECANCELED) if it stopped
    the statement, else EINVAL (a damaged file, or records this code cannot read)."""
    if isinstance(error, FsError):
        return error
    stop = None if db is None else image_schema.stopped(db, error)
    return stop or refuse("EINVAL", f"a damaged image or bad records: {error}")


@asynccontextmanager
async def opened(path: str) -> AsyncIterator[VFS]:
    """The received image at ``path`` as a read-only VFS, for the context's length: its
    header and schema checked before anything else is read (``image_schema``), an older format
    upgraded in a copy made in a scratch folder of its own, then every record and chunk
    checked (``VFS.check``). Its statements run hardened and under a deadline
    (``image_schema.open_received``); one that the deadline or the call's signal stops inside
    the context raises ETIMEDOUT or ECANCELED."""
    with open(path, "rb") as image:
        if image.read(len(HEADER)) != HEADER:
            raise refuse("EINVAL", "not a SQLite image (its header is not SQLite's)")
    async with AsyncExitStack() as stack:
        db: sqlite3.Connection | None = None
        try:
            db = image_schema.open_received(path)
            tables = image_schema.check_schema(db)
            if _older(db, tables):
                copy = os.path.join(await stack.enter_async_context(scratch.folder()), IMAGE)
                await _upgraded_copy(db, tables, copy)
                db.close()
                db = image_schema.open_received(copy)
                image_schema.check_schema(db)
                path = copy
            image = await _checked(_ReadOnlyStore(path, db))
        except Exception as error:
            failure = _damaged(db, error)
            if db is not None:
                db.close()
            raise failure from None
        try:
            yield image
        except sqlite3.Error as error:
            stop = image_schema.stopped(db, error)
            if stop is None:
                raise
            raise stop from None
        finally:
            image.close()


def entries(image: VFS) -> list[Entry]:
    """The image's entries below its root, checked as a zip's are: names (``check_name``,
    one segment each), kinds, counts, sizes, times, link lengths. Parents come before their
    entries."""
    found, total = [], 0
    stack: list[tuple[str, tuple[str, ...]]] = [("/", ())]
    while stack:
        directory, names = stack.pop()
        for name in sorted(image.readdir(directory)):
            if "/" in name or check_name(name) != (name,):
                raise refuse("EINVAL", "a name with an empty, '.' or '..' segment", name)
            info = image.lstat(paths.child(directory, name))
            entry = _entry((*names, name), info)
            found.append(entry)
            if len(found) > MAX_ENTRIES:
                raise refuse("ENOSPC", f"over {MAX_ENTRIES} entries")
            total += info.size if info.is_file else 0
            if total > MAX_TOTAL_BYTES:
                raise refuse("ENOSPC", f"over {MAX_TOTAL_BYTES} bytes in all")
            if info.is_dir:
                stack.append((info.path, entry.names))
    return sorted(found, key=lambda entry: entry.names)


def _entry(names: tuple[str, ...], info: Stat) -> Entry:
    """One checked record as an import entry."""
    where = "/".join(names)
    if info.type not in (FILE, DIRECTORY, SYMLINK):
        raise refuse("EINVAL", f"an entry of type {info.type!r}", where)
    if info.is_file and info.size > MAX_ENTRY_BYTES:
        raise refuse("EFBIG", f"{info.size} bytes, over the limit of {MAX_ENTRY_BYTES} "
                              "for one file", where)
    if info.is_symlink and len((info.target or "").encode()) > MAX_LINK_BYTES:
        raise refuse("ENAMETOOLONG", "a symlink target over 4096 bytes", where)
    if not all(MIN_TIME_MS <= t <= MAX_TIME_MS for t in (info.mtime_ms, info.atime_ms)):
        raise refuse("EINVAL", "a time outside years 1 to 9999", where)
    if info.is_symlink:
        return Entry(names, SYMLINK, None, None, None, None)
    return Entry(names, info.type, info.mode & 0o7777, info.mtime_ms, info.atime_ms, None)
