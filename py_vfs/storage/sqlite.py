"""A store in one SQLite file (CPython): the whole disk is a single portable file.

Each ``commit`` is one SQLite transaction in WAL mode with ``synchronous=FULL``, so a commit that
returned survives a crash of the process or the machine, like an IndexedDB commit in the browser.
Several processes may open the same file: ``commit_logged`` takes the write lock first
(``BEGIN IMMEDIATE``) and checks the revision under it, so no process loses another's update.
The file also holds the ``files`` and ``journal`` views (``sqlite_views``), so that the stock
``sqlite3`` tool can query the disk.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from . import LOG_KEEP, SPACES, LogEntries, Rows, gap, prefix_end
from .sqlite_views import ensure_views
from .transaction import Op

_VALUE_TYPES = {"nodes": "TEXT", "chunks": "BLOB", "meta": "TEXT", "log": "TEXT", "names": "TEXT"}
_KEY_TYPES = {"log": "INTEGER"}
BUSY_TIMEOUT_S = 30.0


class SQLiteStore:
    """A ``Store`` in one SQLite file; several processes may share it."""

    def __init__(self, path: str | Path, *, read_only: bool = False,
                 journal: str = "WAL", connection: sqlite3.Connection | None = None) -> None:
        """Open (or create) the disk file at ``path``; ``read_only``: open an existing file
        without ever writing to it (no tables or views made; a commit fails in SQLite);
        ``journal``: SQLite's journal mode (WAL lets other processes read while one
        writes); ``connection``: a connection to ``path`` the caller opened, used as it is
        (a received image's, opened read-only and hardened: sqlite_image.py)."""
        self.path = Path(path)
        if connection is not None:
            self._db = connection
            return
        if read_only:
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                       isolation_level=None)
            return
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        self._db.execute(f"PRAGMA journal_mode={journal}")
        self._db.execute("PRAGMA synchronous=FULL")
        for space in SPACES:
            self._db.execute(table_sql(space).replace("CREATE TABLE", "CREATE TABLE IF NOT "
                                                      "EXISTS", 1))
        ensure_views(self._db)  # the files and journal views, for any SQLite reader

    def tables(self) -> set[str]:
        """The names of the file's tables."""
        return {name for (name,) in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}

    async def get_all(self, space: str) -> Rows:
        """``Store.get_all``."""
        return list(self._db.execute(f"SELECT key, value FROM {_space(space)}"))

    async def get_prefix(self, space: str, prefix: str) -> Rows:
        """``Store.get_prefix``: a range of the primary key."""
        return list(self._db.execute(
            f"SELECT key, value FROM {_space(space)} WHERE key >= ? AND key < ?",
            (prefix, prefix_end(prefix))))

    async def get(self, space: str, key: str) -> object | None:
        """``Store.get``."""
        row = self._db.execute(f"SELECT value FROM {_space(space)} WHERE key = ?",
                               (key,)).fetchone()
        return None if row is None else row[0]

    async def keys(self, space: str) -> list[str]:
        """``Store.keys``."""
        return [key for (key,) in self._db.execute(f"SELECT key FROM {_space(space)}")]

    async def estimate(self) -> dict[str, object] | None:
        """The database file (and its WAL) against the free space of its file system."""
        disk = shutil.disk_usage(self.path.resolve().parent)
        usage = sum(p.stat().st_size for p in self._files() if p.exists())
        return {"usage": usage, "quota": usage + disk.free, "available": disk.free,
                "persisted": True}

    def _files(self) -> list[Path]:
        return [self.path, *(self.path.with_name(self.path.name + s) for s in ("-wal", "-shm"))]

    async def commit(self, ops: list[Op]) -> None:
        """``Store.commit``."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._apply(ops)

    def _apply(self, ops: list[Op]) -> None:
        for action, space, key, value in ops:
            if action == "put":
                self._db.execute(f"INSERT OR REPLACE INTO {_space(space)} (key, value) "
                                 "VALUES (?, ?)", (key, value))
            elif action == "delete_to":
                self._db.execute(f"DELETE FROM {_space(space)} WHERE key <= ?", (key,))
            else:
                self._db.execute(f"DELETE FROM {_space(space)} WHERE key = ?", (key,))

    def _rev(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'rev'").fetchone()
        return 0 if row is None else int(row[0])

    async def load(self) -> tuple[int, Rows]:
        """``Store.load``."""
        with self._db:
            self._db.execute("BEGIN")  # one read snapshot for the revision and the nodes
            return self._rev(), list(self._db.execute("SELECT key, value FROM nodes"))

    async def commit_logged(self, base: int, ops: list[Op], entry: str) -> int | None:
        """``Store.commit_logged``."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if self._rev() != base:
                return None
            rev = base + 1
            self._apply([*ops, ("put", "meta", "rev", str(rev))])
            self._db.execute("INSERT INTO log (key, value) VALUES (?, ?)", (rev, entry))
            return rev

    async def log_since(self, rev: int) -> tuple[int, LogEntries | None]:
        """``Store.log_since``."""
        with self._db:
            self._db.execute("BEGIN")
            current = self._rev()
            entries = list(self._db.execute(
                "SELECT key, value FROM log WHERE key > ? AND key <= ? ORDER BY key",
                (rev, rev + LOG_KEEP)))
        return current, None if gap(rev, current, entries) else entries

    async def log_entries(self, low: int, high: int) -> LogEntries:
        """``Store.log_entries``."""
        return list(self._db.execute(
            "SELECT key, value FROM log WHERE key >= ? AND key <= ? ORDER BY key", (low, high)))

    async def log_oldest(self) -> int | None:
        """``Store.log_oldest``."""
        row = self._db.execute("SELECT min(key) FROM log").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def close(self) -> None:
        """``Store.close``."""
        self._db.close()


def table_sql(space: str) -> str:
    """The statement that makes keyspace ``space``'s table, as SQLite keeps it in
    ``sqlite_master`` (a received image's tables are held to it exactly: image_schema.py)."""
    return (f"CREATE TABLE {space} (key {_KEY_TYPES.get(space, 'TEXT')} PRIMARY KEY, "
            f"value {_VALUE_TYPES[space]} NOT NULL)")


def _space(space: str) -> str:
    """Table names cannot be SQL parameters; only the known keyspaces are accepted."""
    if space not in SPACES:
        raise ValueError(f"unknown keyspace {space!r}")
    return space
