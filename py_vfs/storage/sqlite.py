"""A store in one SQLite file (CPython): the whole disk is a single portable file.

Each ``commit`` is one SQLite transaction in WAL mode with ``synchronous=FULL``, so a commit that
returned survives a crash of the process or the machine, like an IndexedDB commit in the browser.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from ..transaction import Op
from . import SPACES

_VALUE_TYPES = {"nodes": "TEXT", "chunks": "BLOB", "meta": "TEXT"}


class SQLiteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        for space in SPACES:
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {space} "
                             f"(key TEXT PRIMARY KEY, value {_VALUE_TYPES[space]} NOT NULL)")

    async def get_all(self, space: str) -> list[tuple[str, object]]:
        return list(self._db.execute(f"SELECT key, value FROM {_space(space)}"))

    async def get(self, space: str, key: str) -> object | None:
        row = self._db.execute(f"SELECT value FROM {_space(space)} WHERE key = ?",
                               (key,)).fetchone()
        return None if row is None else row[0]

    async def keys(self, space: str) -> list[str]:
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
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for action, space, key, value in ops:
                if action == "put":
                    self._db.execute(f"INSERT OR REPLACE INTO {_space(space)} (key, value) "
                                     "VALUES (?, ?)", (key, value))
                else:
                    self._db.execute(f"DELETE FROM {_space(space)} WHERE key = ?", (key,))

    def close(self) -> None:
        self._db.close()


def _space(space: str) -> str:
    """Table names cannot be SQL parameters; only the known keyspaces are accepted."""
    if space not in SPACES:
        raise ValueError(f"unknown keyspace {space!r}")
    return space
