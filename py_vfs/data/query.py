"""Read-only SQL over the disk's metadata: ``query(vfs, sql, params)``.

Each query builds a private in-memory SQLite database from the index (metadata only: no file
content is read; a file's ``hash`` is ``vfs.content_id``, a hash of its chunk keys), runs the one
statement on it, and closes it. The statement cannot write, attach, or change a pragma: SQLite's
authorizer allows only reading (``SELECT``, reading columns, calling functions, recursive CTEs),
and the connection is ``query_only`` as well, so SQLite itself refuses a change even if the
authorizer were bypassed. What the statement may consume is bounded: a step budget, a
wall-clock deadline and the call's cancel signal (SQLite's progress handler, sqlite_guard.py), a
cap on the length of any string or blob, and caps on the rows and bytes returned. The views,
their columns and the limits are described in docs/data.md.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, Node, Stat
from ..fs.surface import MAX_ROWS  # the API's default, declared with it
from ..mounts.table import MountTable
from .query_functions import Functions
from .sqlite_guard import Guard


class Source(Protocol):
    """What a query reads: the VFS's listings and metadata (the facade is one)."""

    mount_table: MountTable

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """``VFS.scandir``."""

    def lstat(self, path: str) -> Stat:
        """``VFS.lstat``."""

    def content_id(self, path: str) -> str:
        """``VFS.content_id``."""


MAX_STEPS = 10_000_000
"""SQLite virtual-machine instructions a statement may run: the issue's statements over 10,000
files take 30,000 to 150,000, sorting every column of them 420,000. A runaway recursive CTE
stops with EINVAL after about a second instead of running forever."""
MAX_SECONDS = 5.0
"""Wall-clock time a statement may run (ETIMEDOUT past it): the step budget alone allows hours
when each step is costly (``hex(randomblob(8000000))`` a row). The issue's statements run in
well under 0.1 s on 10,000 files; building the database before it does not count."""
MAX_VALUE_BYTES = 16 * 1024 * 1024
"""The longest string or blob a statement may build (SQLITE_LIMIT_LENGTH): ``x || x`` doubling
in a recursive CTE fails here long before it could exhaust memory."""
MAX_RESULT_BYTES = 64 * 1024 * 1024
"""What the rows returned may hold in all (EFBIG past it): text as UTF-8, a blob its length,
a number or NULL 8 bytes, a row 16 more. 10,000 rows of every column of ``files`` take about
3 MB on a usual disk; ``zeroblob(16000000)`` in 10,000 rows would be 160 GB."""

# The stored columns of ``_files``; the ``files`` view adds ``mtime`` and ``ctime`` as text,
# computed by SQLite only for the rows and columns a statement uses.
_STORED = ("path", "dir", "name", "kind", "size", "mode", "mtime_ms", "ctime_ms", "writer",
           "hash", "target")
_SCHEMA = (
    "CREATE TABLE _files (path TEXT, dir TEXT, name TEXT, kind TEXT, size INTEGER,"
    " mode INTEGER, mtime_ms REAL, ctime_ms REAL, writer TEXT, hash TEXT, target TEXT)",
    # SQLite's own time format (what datetime() writes, with milliseconds): UTC, a space
    # between date and time, so text comparisons with datetime('now', ...) hold within a day.
    "CREATE VIEW files AS SELECT path, dir, name, kind, size, mode,"
    " strftime('%Y-%m-%d %H:%M:%f', mtime_ms / 1000.0, 'unixepoch') AS mtime,"
    " strftime('%Y-%m-%d %H:%M:%f', ctime_ms / 1000.0, 'unixepoch') AS ctime,"
    " mtime_ms, ctime_ms, writer, coalesce(hash, _content_id(rowid)) AS hash, target"
    " FROM _files",
    # One row per journal entry kept (``history.journal_rows``), oldest first; its time text
    # spelled by SQLite, as the files view's and the disk file's views are.
    "CREATE TABLE _journal (revision INTEGER, time_ms REAL, writer TEXT, operation TEXT,"
    " paths TEXT)",
    "CREATE VIEW journal AS SELECT revision,"
    " strftime('%Y-%m-%d %H:%M:%f', time_ms / 1000.0, 'unixepoch') AS time,"
    " time_ms, writer, operation, paths FROM _journal",
)

# What the authorizer lets a statement do: read. Everything else (writes, ATTACH, PRAGMA,
# CREATE, DROP, transactions, ANALYZE...) is denied before it runs.
_ALLOWED_ACTIONS = frozenset({
    sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
})


@dataclass(frozen=True)
class Result:
    """What a query returns: column names, rows (tuples of SQLite values), and whether rows
    beyond ``limit`` were dropped."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool


def _digest(node: Node) -> str:
    """``vfs.content_id`` of a file of the disk, from the node in hand (the same formula, no
    path lookup: the tests hold the two equal)."""
    text = f"{node.size}:{','.join(node.chunks)}"
    if node.inline is not None:
        text = f"{node.size}:inline:{node.inline}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _row(vfs: Source, node: Node, path: str, directory: str) -> tuple[Any, ...]:
    """The ``_files`` row of one entry; a mounted folder's entries are asked through ``lstat``
    and ``content_id`` (their nodes carry no sizes, times or chunks). A file of the disk has
    no stored hash: the view computes it from the node only if a statement reads it.

    A mounted folder's entry that its folder lists but will not describe (a host link whose
    target leaves the folder is EACCES, a dangling one ENOENT...) is a row with its path, dir,
    name and kind as listed, NULL in every other column: the query answers for the rest."""
    if vfs.mount_table.covers(node):
        try:
            info = vfs.lstat(path)
        except FsError:
            return (path, directory, node.name, node.kind, None, None, None, None, None, None,
                    None)
        kind, size, mode, mtime, ctime, target = (info.type, info.size, info.mode,
                                                   info.mtime_ms, info.ctime_ms, info.target)
        digest = None
        if kind == FILE:
            try:
                digest = vfs.content_id(path)
            except FsError:
                digest = None
        writer = None
    else:
        kind, size, mode, mtime, ctime, target = (node.kind, node.size, node.mode,
                                                   node.mtime_ms, node.ctime_ms, node.target)
        digest, writer = None, node.writer
    return (path, directory, node.name, kind, 0 if kind == DIRECTORY else size, mode, mtime,
            ctime, writer, digest, target)


def file_rows(vfs: Source, files: list[Node | None]) -> Iterator[tuple[Any, ...]]:
    """One ``_files`` row per entry below ``/``, from metadata only: one ``scandir`` per
    directory, no content read. ``files`` receives, row by row, the node of each file of the
    disk (None for any other row): row ``rowid`` is ``files[rowid - 1]``."""
    stack: list[tuple[str, bool]] = [("/", False)]
    while stack:
        listed, mounted = stack.pop()
        try:
            directory, nodes = vfs.scandir(listed)
        except FsError:
            if not mounted:
                raise
            # A folder that cannot be listed (a mount another tab made and this one has not
            # attached: EACCES; a host directory without read permission): its own row is
            # there, its entries are not.
            continue
        for node in nodes:
            path = paths.child(directory, node.name)
            covered = vfs.mount_table.covers(node)
            files.append(node if node.kind == FILE and not covered else None)
            yield _row(vfs, node, path, directory)
            if node.is_dir:
                stack.append((path, covered))


def _authorize(action: int, arg1: str | None, arg2: str | None, *rest: object) -> int:
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _database(vfs: Source, journal: Iterable[tuple[Any, ...]],
              functions: Functions) -> sqlite3.Connection:
    """A fresh in-memory database holding the ``files`` and ``journal`` views, locked down,
    with ``functions`` in place of SQLite's quadratic ones."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    files: list[Node | None] = []

    def content_id(rowid: int) -> str | None:
        node = files[rowid - 1] if 0 < rowid <= len(files) else None
        return None if node is None else _digest(node)

    try:
        db.create_function("_content_id", 1, content_id, deterministic=True)
        for statement in _SCHEMA:
            db.execute(statement)
        db.execute("BEGIN")
        db.executemany(f"INSERT INTO _files VALUES ({', '.join('?' * len(_STORED))})",
                       file_rows(vfs, files))
        db.executemany("INSERT INTO _journal VALUES (?, ?, ?, ?, ?)", journal)
        db.execute("COMMIT")
        db.execute("PRAGMA query_only = ON")
        db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        functions.install(db)
        db.set_authorizer(_authorize)
    except BaseException:
        db.close()
        raise
    return db


def _error(error: Exception, guard: Guard, functions: Functions) -> FsError:
    """The FsError for what SQLite refused, with SQLite's own words as the hint."""
    message = str(error)
    if functions.failure is not None:
        return functions.failure
    stopped = guard.stopping(error, "the query")
    if stopped is not None:
        return stopped
    if any(word in message for word in ("authoriz", "readonly", "cannot modify")):
        return FsError.of("EACCES", "query").with_hint(
            f"a query may only read the files and journal views: {message}")
    if "too big" in message:
        return FsError.of("EINVAL", "query").with_hint(
            f"a value grew past {MAX_VALUE_BYTES} bytes: {message}")
    return FsError.of("EINVAL", "query").with_hint(message)


def _size(row: tuple[Any, ...]) -> int:
    """What a row counts against ``MAX_RESULT_BYTES`` (see there)."""
    total = 16
    for value in row:
        if isinstance(value, str):
            total += len(value.encode("utf-8", "surrogatepass"))
        elif isinstance(value, bytes):
            total += len(value)
        else:
            total += 8
    return total


def _fetch(cursor: sqlite3.Cursor, limit: int) -> list[tuple[Any, ...]]:
    """At most ``limit + 1`` rows (one more tells that rows were dropped), EFBIG as soon as
    they hold over ``MAX_RESULT_BYTES`` (counted row by row: no more than one row past it is
    ever held)."""
    rows: list[tuple[Any, ...]] = []
    total = 0
    for row in cursor:
        total += _size(row)
        if total > MAX_RESULT_BYTES:
            raise FsError.of("EFBIG", "query").with_hint(
                f"the rows hold over {MAX_RESULT_BYTES} bytes: select fewer rows or columns, "
                "or shorter values")
        rows.append(row)
        if len(rows) > limit:
            break
    return rows


def query(vfs: Source, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = (), *,
          limit: int = MAX_ROWS, journal: Iterable[tuple[Any, ...]] = ()) -> Result:
    """Run one read-only SQLite statement over the ``files`` and ``journal`` views of ``vfs``.

    ``params`` fill ``?`` or ``:name`` placeholders. At most ``limit`` rows come back
    (``Result.truncated`` tells when more matched). A statement that would write is EACCES; a
    malformed one, one over its step budget or one building an oversized value EINVAL; one
    past its deadline ETIMEDOUT; one whose call is cancelled (``cancel.SIGNAL``) ECANCELED;
    rows over ``MAX_RESULT_BYTES`` EFBIG. None of them changes anything, the disk least of
    all (the database is a private copy).
    """
    if not isinstance(sql, str):
        raise FsError.of("EINVAL", "query").with_hint("the statement must be text")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise FsError.of("EINVAL", "query").with_hint("limit must be a non-negative integer")
    functions = Functions(MAX_VALUE_BYTES)
    db = _database(vfs, journal, functions)
    guard = Guard("query", seconds=MAX_SECONDS, steps=MAX_STEPS)
    try:
        guard.install(db)
        cursor = db.execute(sql, () if params is None else params)
        columns = [column[0] for column in cursor.description or ()]
        rows = _fetch(cursor, limit)
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError) as error:
        raise _error(error, guard, functions) from None
    finally:
        db.close()
        functions.close()
    return Result(columns, rows[:limit], len(rows) > limit)
