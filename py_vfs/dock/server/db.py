"""The dock's database: disks, their nodes and journal, tokens, and chunks (docs/dock.md).

One set of SQL statements for both engines: SQLite (the default, a file under ``--data``, its
chunks files in a directory beside it) and Postgres (``--database postgresql://...``, chunks in
a table, so that several dock processes on several machines share everything through it). The
calls are synchronous; the server runs each in a worker thread.

A push is one transaction: read the head, merge (``merge.py``), write the nodes, the entries and
their origins, then move the head by compare-and-set (``UPDATE disks SET head = new WHERE head =
old``). Pushes to one disk take turns: SQLite's write transaction (``BEGIN IMMEDIATE``), and on
Postgres the disk's row read ``FOR UPDATE``, held by every dock process; should the head move
anyway (a disk with no row yet), the update finds it moved, the push rolls back and merges again
on the new head.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core.json_text import compact
from ..merge import Held, Merged, Record, merge
from ..wire import Invalid

CAS_TRIES = 50
POOL = 8

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS disks (name TEXT PRIMARY KEY, head BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS nodes (disk TEXT NOT NULL, id TEXT NOT NULL, parent TEXT, "
    "name TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (disk, id))",
    "CREATE INDEX IF NOT EXISTS nodes_by_name ON nodes (disk, parent, name)",
    "CREATE TABLE IF NOT EXISTS log (disk TEXT NOT NULL, rev BIGINT NOT NULL, "
    "replica TEXT, entry TEXT NOT NULL, PRIMARY KEY (disk, rev))",
    "CREATE TABLE IF NOT EXISTS origins (disk TEXT NOT NULL, origin TEXT NOT NULL, "
    "rev BIGINT NOT NULL, PRIMARY KEY (disk, origin))",
    "CREATE TABLE IF NOT EXISTS pushes (disk TEXT NOT NULL, push TEXT NOT NULL, "
    "result TEXT NOT NULL, PRIMARY KEY (disk, push))",
    "CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, "
    "disk TEXT NOT NULL, read_only INTEGER NOT NULL, path TEXT, created DOUBLE PRECISION "
    "NOT NULL, revoked DOUBLE PRECISION)",
]
CHUNKS_TABLE = ("CREATE TABLE IF NOT EXISTS chunks (disk TEXT NOT NULL, hash TEXT NOT NULL, "
                "data BYTEA NOT NULL, PRIMARY KEY (disk, hash))")


class Unavailable(Exception):
    """The database cannot be reached now (a restart): the request may be retried (503)."""


class Conflict(Exception):
    """A push refused as it stands (409): ``body`` says why."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(body.get("message", "conflict"))
        self.body = body


class Database:
    """The dock's state in SQLite (``data`` directory) or Postgres (``url``)."""

    def __init__(self, data: str | Path | None = None, url: str | None = None) -> None:
        self.url = url
        self.postgres = url is not None
        if self.postgres:
            self.chunk_dir = None
        else:
            root = Path(data or ".")
            root.mkdir(parents=True, exist_ok=True)
            self.path = root / "dock.db"
            self.chunk_dir = root / "chunks"
            self.chunk_dir.mkdir(exist_ok=True)
        self._pool: queue.LifoQueue[Any] = queue.LifoQueue()
        self._lock = threading.Lock()
        with self.connection() as db:
            for statement in SCHEMA + ([CHUNKS_TABLE] if self.postgres else []):
                self._run(db, statement)

    # ------------------------------------------------------------ connections

    def _connect(self) -> Any:
        if self.postgres:
            import psycopg

            return psycopg.connect(self.url, autocommit=True, connect_timeout=5)
        db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0,
                             check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled connection; one the database dropped (Postgres restarted) is closed and
        the call fails with ``Unavailable``."""
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            try:
                db = self._connect()
            except Exception as error:
                if self.postgres and _is_operational(error):
                    raise Unavailable(str(error)) from error
                raise
        try:
            yield db
        except Exception as error:
            with contextlib.suppress(Exception):
                db.close()
            if self.postgres and _is_operational(error):
                raise Unavailable(str(error)) from error
            raise
        else:
            if self._pool.qsize() < POOL:
                self._pool.put(db)
            else:
                db.close()

    @contextlib.contextmanager
    def transaction(self, db: Any) -> Iterator[None]:
        """One transaction, committed when the block ends (rolled back if it raised)."""
        self._run(db, "BEGIN IMMEDIATE" if not self.postgres else "BEGIN")
        try:
            yield
        except BaseException:
            with contextlib.suppress(Exception):
                self._run(db, "ROLLBACK")
            raise
        self._run(db, "COMMIT")

    def _run(self, db: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
        if self.postgres:
            return db.execute(sql.replace("?", "%s"), params)
        return db.execute(sql.replace("BYTEA", "BLOB").replace("DOUBLE PRECISION", "REAL")
                          .replace("BIGINT", "INTEGER"), params)

    def close(self) -> None:
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                return

    # ------------------------------------------------------------ tokens

    def add_token(self, disk: str, token_hash: str, read_only: bool, path: str | None) -> str:
        token_id = token_hash[:12]
        with self.connection() as db, self.transaction(db):
            self._run(db, "INSERT INTO disks (name, head) VALUES (?, 0) ON CONFLICT DO NOTHING",
                      (disk,))
            self._run(db, "INSERT INTO tokens (id, hash, disk, read_only, path, created) "
                      "VALUES (?, ?, ?, ?, ?, ?)",
                      (token_id, token_hash, disk, int(read_only), path, time.time()))
        return token_id

    def token(self, token_hash: str) -> dict[str, Any] | None:
        with self.connection() as db:
            row = self._run(db, "SELECT id, disk, read_only, path, revoked FROM tokens "
                            "WHERE hash = ?", (token_hash,)).fetchone()
        if row is None or row[4] is not None:
            return None
        return {"id": row[0], "disk": row[1], "readOnly": bool(row[2]), "path": row[3]}

    def tokens(self) -> list[dict[str, Any]]:
        with self.connection() as db:
            rows = self._run(db, "SELECT id, disk, read_only, path, created, revoked "
                             "FROM tokens ORDER BY created").fetchall()
        return [{"id": r[0], "disk": r[1], "readOnly": bool(r[2]), "path": r[3],
                 "created": r[4], "revoked": r[5]} for r in rows]

    def revoke(self, token_id: str) -> bool:
        with self.connection() as db, self.transaction(db):
            cursor = self._run(db, "UPDATE tokens SET revoked = ? WHERE id = ? AND "
                               "revoked IS NULL", (time.time(), token_id))
            return cursor.rowcount > 0

    # ------------------------------------------------------------ the journal

    def head(self, disk: str) -> int:
        with self.connection() as db:
            row = self._run(db, "SELECT head FROM disks WHERE name = ?", (disk,)).fetchone()
        return 0 if row is None else int(row[0])

    def log(self, disk: str, after: int, limit: int) -> tuple[int, list[tuple[int, str]]]:
        """The head and up to ``limit`` entries after ``after``, read in one snapshot."""
        with self.connection() as db, self.transaction(db):
            row = self._run(db, "SELECT head FROM disks WHERE name = ?", (disk,)).fetchone()
            head = 0 if row is None else int(row[0])
            rows = self._run(db, "SELECT rev, entry FROM log WHERE disk = ? AND rev > ? AND "
                             "rev <= ? ORDER BY rev LIMIT ?", (disk, after, head, limit)
                             ).fetchall()
        return head, [(int(rev), str(entry)) for rev, entry in rows]

    def push(self, disk: str, push_id: str, base: int, entries: list[Record], *,
             confirm: bool, delete_share: float) -> dict[str, Any]:
        """Append a push (see the module docstring); its answer is kept under ``push_id``, so
        the same push sent again gets the same answer and changes nothing."""
        for _ in range(CAS_TRIES):
            try:
                with self.connection() as db:
                    return self._push_once(db, disk, push_id, base, entries, confirm,
                                           delete_share)
            except _Moved:
                continue
        raise Unavailable("the head kept moving: try again")

    def _push_once(self, db: Any, disk: str, push_id: str, base: int, entries: list[Record],
                   confirm: bool, delete_share: float) -> dict[str, Any]:
        with self.transaction(db):
            # Postgres: the disk's row is locked until the push commits, so pushes to one disk
            # (from every dock process) take turns instead of all merging on one head and all
            # but one merging again (SQLite's BEGIN IMMEDIATE already makes them take turns).
            row = self._run(db, "SELECT head FROM disks WHERE name = ?"
                            + (" FOR UPDATE" if self.postgres else ""), (disk,)).fetchone()
            head = 0 if row is None else int(row[0])
            done = self._run(db, "SELECT result FROM pushes WHERE disk = ? AND push = ?",
                             (disk, push_id)).fetchone()
            if done is not None:
                return json.loads(done[0])
            if base > head:
                raise Invalid(f"base revision {base} is ahead of the dock's head {head}")
            replica = entries[0]["origin"]["replica"] if entries else ""
            fresh, skipped = [], []
            for entry in entries:
                key = _origin(entry)
                seen = self._run(db, "SELECT rev FROM origins WHERE disk = ? AND origin = ?",
                                 (disk, key)).fetchone()
                if seen is None:
                    fresh.append(entry)
                else:
                    skipped.append({"origin": entry["origin"], "rev": int(seen[0])})
            since = [json.loads(text) for (text,) in self._run(
                db, "SELECT entry FROM log WHERE disk = ? AND rev > ? AND rev <= ? "
                "ORDER BY rev", (disk, base, head)).fetchall()]
            missing = self._missing_chunks(db, disk, fresh)
            if missing:
                raise Conflict({"error": "missing-chunks", "missing": sorted(missing),
                                "message": f"{len(missing)} chunks are not on the dock: "
                                           "upload them first"})
            try:
                merged = merge(_Source(self, db, disk), fresh, since, replica=replica,
                               confirm=confirm, delete_share=delete_share)
            except Held as held:
                raise Conflict({"error": "held", "deletes": held.deletes, "nodes": held.nodes,
                                "share": held.share, "message": str(held)}) from None
            new_head = head + len(merged.entries)
            if row is None:
                self._run(db, "INSERT INTO disks (name, head) VALUES (?, 0)", (disk,))
            if merged.entries:
                cursor = self._run(db, "UPDATE disks SET head = ? WHERE name = ? AND head = ?",
                                   (new_head, disk, head))
                if cursor.rowcount != 1:
                    raise _Moved
            revs = self._write(db, disk, head, merged)
            result = {"head": new_head, "revs": revs, "skipped": skipped,
                      "conflicts": sum(len(e.get("conflicts", ())) for e in merged.entries)}
            self._run(db, "INSERT INTO pushes (disk, push, result) VALUES (?, ?, ?)",
                      (disk, push_id, compact(result)))
            return result

    def _write(self, db: Any, disk: str, head: int, merged: Merged) -> list[int]:
        for node_id, record in merged.writes.items():
            self._run(db, "DELETE FROM nodes WHERE disk = ? AND id = ?", (disk, node_id))
            if record is not None:
                self._run(db, "INSERT INTO nodes (disk, id, parent, name, record) "
                          "VALUES (?, ?, ?, ?, ?)", (disk, node_id, record.get("parent"),
                                                     record["name"], compact(record)))
        revs = []
        for number, entry in enumerate(merged.entries, start=head + 1):
            self._run(db, "INSERT INTO log (disk, rev, replica, entry) VALUES (?, ?, ?, ?)",
                      (disk, number, entry["origin"]["replica"], compact(entry)))
            self._run(db, "INSERT INTO origins (disk, origin, rev) VALUES (?, ?, ?)",
                      (disk, _origin(entry), number))
            revs.append(number)
        return revs

    # ------------------------------------------------------------ chunks

    def _missing_chunks(self, db: Any, disk: str, entries: list[Record]) -> set[str]:
        wanted = set()
        for entry in entries:
            for record in entry["puts"].values():
                wanted.update(json.loads(record).get("chunks", ()))
        return wanted - self.has_chunks(disk, sorted(wanted), db)

    def has_chunks(self, disk: str, hashes: list[str], db: Any = None) -> set[str]:
        if not hashes:
            return set()
        if not self.postgres:
            return {h for h in hashes if self._chunk_path(disk, h).exists()}
        if db is None:
            with self.connection() as fresh:
                return self.has_chunks(disk, hashes, fresh)
        rows = self._run(db, "SELECT hash FROM chunks WHERE disk = ? AND hash = ANY(?)",
                         (disk, hashes)).fetchall()
        return {r[0] for r in rows}

    def _chunk_path(self, disk: str, key: str) -> Path:
        assert self.chunk_dir is not None
        return self.chunk_dir / disk / key[:2] / key

    def put_chunk(self, disk: str, key: str, data: bytes) -> None:
        """Keep a chunk whose sha256 the caller checked: a file written whole, then renamed
        into place (a crash leaves no partial chunk), or a row."""
        if hashlib.sha256(data).hexdigest() != key:
            raise Invalid("the chunk's bytes do not match its sha256")
        if self.postgres:
            with self.connection() as db:
                self._run(db, "INSERT INTO chunks (disk, hash, data) VALUES (?, ?, ?) "
                          "ON CONFLICT DO NOTHING", (disk, key, data))
            return
        target = self._chunk_path(disk, key)
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}")
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)

    def get_chunk(self, disk: str, key: str) -> bytes | None:
        if self.postgres:
            with self.connection() as db:
                row = self._run(db, "SELECT data FROM chunks WHERE disk = ? AND hash = ?",
                                (disk, key)).fetchone()
            return None if row is None else bytes(row[0])
        try:
            return self._chunk_path(disk, key).read_bytes()
        except FileNotFoundError:
            return None


class _Moved(Exception):
    """The compare-and-set of the head failed: another dock pushed first."""


def _origin(entry: Record) -> str:
    return f"{entry['origin']['replica']}:{entry['origin']['rev']}"


def _is_operational(error: BaseException) -> bool:
    try:
        import psycopg
    except ImportError:
        return False
    return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)


class _Source:
    """``merge.Source`` over the database, inside the push's transaction."""

    def __init__(self, database: Database, db: Any, disk: str) -> None:
        self.database, self.db, self.disk = database, db, disk

    def node(self, node_id: str) -> Record | None:
        row = self.database._run(self.db, "SELECT record FROM nodes WHERE disk = ? AND id = ?",
                                 (self.disk, node_id)).fetchone()
        return None if row is None else json.loads(row[0])

    def child(self, parent: str, name: str) -> str | None:
        row = self.database._run(self.db, "SELECT id FROM nodes WHERE disk = ? AND parent = ? "
                                 "AND name = ?", (self.disk, parent, name)).fetchone()
        return None if row is None else str(row[0])

    def children(self, parent: str) -> list[str]:
        return [str(r[0]) for r in self.database._run(
            self.db, "SELECT id FROM nodes WHERE disk = ? AND parent = ?",
            (self.disk, parent)).fetchall()]

    def count(self) -> int:
        return int(self.database._run(self.db, "SELECT count(*) FROM nodes WHERE disk = ?",
                                      (self.disk,)).fetchone()[0])
