"""The ``files`` and ``journal`` views inside a SQLite disk file (issue 12, "the disk as data").

They make the file plain SQLite for any reader: ``sqlite3 my.db "SELECT path FROM files"``
works with the stock ``sqlite3`` tool, which knows nothing of py_vfs. They are computed from the
store's own tables with SQLite's JSON functions (``nodes``: one JSON record per node, see
``Node.to_record``; ``log``: one JSON change-log entry per revision) and hold nothing
themselves, so the store's tables and what it writes stay as they are.

``files`` has the columns and value types of the in-memory ``files`` view of ``py_vfs.data.query``
(docs/data.md, "The views inside the disk file", says where the two differ: ``hash`` is NULL
here, and a mounted folder's entries are not in the file). Paths come from a recursive CTE that
walks each node up to the root through the ``nodes`` primary key; a node whose chain does not
reach the root (or loops) has no row.

Each view's SQL carries a version (``-- py_vfs view version N``). ``ensure_views`` runs when a
store opens: when a view is missing or older than this code's, it drops and creates it inside
one ``BEGIN IMMEDIATE`` transaction, so two processes opening one file at once serialize on the
write lock and the second finds the views made. A view of a newer version is left alone.
"""

from __future__ import annotations

import re
import sqlite3

VIEW_VERSION = 1
"""Raise it whenever the SQL below changes: files made by older code get the new views."""

_VERSION_MARK = "-- py_vfs view version "
_TIME = "strftime('%Y-%m-%d %H:%M:%f', {} / 1000.0, 'unixepoch')"
# How deep the walk up to the root may go: a path of PATH_MAX (4096) bytes has at most 2048
# names, so a longer chain is a loop in damaged records, and is cut rather than followed forever.
_MAX_DEPTH = 2048

FILES_SQL = f"""CREATE VIEW files AS {_VERSION_MARK}{VIEW_VERSION}
WITH RECURSIVE up(id, above, path, depth) AS (
  SELECT key, json_extract(value, '$.parent'), '/' || json_extract(value, '$.name'), 1
    FROM nodes WHERE key <> 'root'
  UNION ALL
  SELECT up.id, json_extract(n.value, '$.parent'),
         '/' || json_extract(n.value, '$.name') || up.path, up.depth + 1
    FROM up JOIN nodes AS n ON n.key = up.above
   WHERE up.above <> 'root' AND up.depth < {_MAX_DEPTH}
)
SELECT up.path AS path,
       CASE WHEN json_extract(n.value, '$.parent') = 'root' THEN '/'
            ELSE substr(up.path, 1, length(up.path) - length(json_extract(n.value, '$.name')) - 1)
       END AS dir,
       json_extract(n.value, '$.name') AS name,
       json_extract(n.value, '$.kind') AS kind,
       CASE WHEN json_extract(n.value, '$.kind') = 'directory' THEN 0
            ELSE CAST(json_extract(n.value, '$.size') AS INTEGER) END AS size,
       CAST(json_extract(n.value, '$.mode') AS INTEGER) AS mode,
       {_TIME.format("json_extract(n.value, '$.mtime')")} AS mtime,
       {_TIME.format("json_extract(n.value, '$.ctime')")} AS ctime,
       CAST(json_extract(n.value, '$.mtime') AS REAL) AS mtime_ms,
       CAST(json_extract(n.value, '$.ctime') AS REAL) AS ctime_ms,
       json_extract(n.value, '$.writer') AS writer,
       NULL AS hash,
       json_extract(n.value, '$.target') AS target
  FROM up JOIN nodes AS n ON n.key = up.id
 WHERE up.above = 'root'"""

# ``paths``: each event's oldPath (renames), then its path, first occurrences only, in order
# (as ``history.describe`` lists them).
JOURNAL_SQL = f"""CREATE VIEW journal AS {_VERSION_MARK}{VIEW_VERSION}
SELECT key AS revision,
       {_TIME.format("json_extract(value, '$.time')")} AS time,
       CAST(json_extract(value, '$.time') AS REAL) AS time_ms,
       json_extract(value, '$.writer') AS writer,
       json_extract(value, '$.op') AS operation,
       (SELECT json_group_array(p) FROM (
          SELECT p, min(pos) AS first FROM (
            SELECT e.key * 2 AS pos, json_extract(e.value, '$.oldPath') AS p
              FROM json_each(log.value, '$.events') AS e
            UNION ALL
            SELECT e.key * 2 + 1, json_extract(e.value, '$.path')
              FROM json_each(log.value, '$.events') AS e)
           WHERE p IS NOT NULL GROUP BY p ORDER BY first)) AS paths
  FROM log"""

VIEWS = {"files": FILES_SQL, "journal": JOURNAL_SQL}


def _version(sql: str | None) -> int:
    """The version a stored view's SQL carries; 0 for one without (made by something else)."""
    found = re.search(re.escape(_VERSION_MARK) + r"(\d+)", sql or "")
    return int(found.group(1)) if found else 0


def _stale(db: sqlite3.Connection) -> list[str]:
    """The views that are missing or older than ``VIEW_VERSION``."""
    stored = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'"))
    return [name for name in VIEWS
            if (name not in stored and not _taken(db, name))
            or (name in stored and _version(stored[name]) < VIEW_VERSION)]


def _taken(db: sqlite3.Connection, name: str) -> bool:
    """True when something that is not a view (a user's table) holds the name: left alone."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ? AND type <> 'view'",
                      (name,)).fetchone() is not None


def ensure_views(db: sqlite3.Connection) -> None:
    """Create or replace the views of ``db`` that are missing or stale (see the module
    docstring); no write lock is taken when they are current. ``db`` is in autocommit mode
    (``isolation_level=None``) with no transaction open."""
    if not _stale(db):
        return
    with db:
        db.execute("BEGIN IMMEDIATE")
        for name in _stale(db):  # again under the lock: another process may have made them
            db.execute(f"DROP VIEW IF EXISTS {name}")
            db.execute(VIEWS[name])
