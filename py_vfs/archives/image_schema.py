"""What a received SQLite image may hold, checked before any of its rows is read.

A SQLite file carries SQL as well as data: triggers run when a table is written, a generated
column's expression on every read of it, a view's query when it is selected, a virtual table's
module when it is opened. An image is someone else's file (docs/security.md), so its schema is
held, entry for entry, to what ``SQLiteStore`` makes (``EXPECTED``): the keyspace tables with
their exact ``CREATE TABLE`` text, their primary-key indexes, and the ``files`` and ``journal``
views with this code's exact SQL (which is never run: nothing selects from them). Anything else,
or any of these spelled otherwise, is refused (EINVAL) before a row is read. The tables of
formats after the first image format (``ADDED_SPACES``) and the views may be missing: older
images lack them.

``open_received`` opens an image read-only with SQLite's settings for untrusted files
(``sqlite_guard.harden``) and a deadline on each statement (``IMAGE_SECONDS``).
"""

from __future__ import annotations

import sqlite3

from ..core.errors import FsError
from ..data.sqlite_guard import Guard, GuardedConnection, harden
from ..storage import SPACES
from ..storage.sqlite import table_sql
from ..storage.sqlite_views import VIEWS
from .zip_entries import refuse

ADDED_SPACES = frozenset({"names"})
"""Keyspaces that formats after the first image format added, derived from the nodes."""

IMAGE_SECONDS = 60.0
"""Wall-clock time one statement on a received image may run (ETIMEDOUT past it). Each of
ours reads one record, one keyspace or, when an older image is copied, one table: well under
a second a hundred MiB. A statement that runs longer is SQLite stuck in a damaged file."""

MAX_SCHEMA_ENTRIES = 64
"""More entries in ``sqlite_master`` than this are not worth reading one by one (ours: 14)."""


def _autoindex(space: str) -> str | None:
    """The name of the index SQLite makes for a TEXT primary key (an INTEGER one is the
    rowid and has none)."""
    return None if "INTEGER PRIMARY KEY" in table_sql(space) else f"sqlite_autoindex_{space}_1"


def _expected() -> dict[str, tuple[str, str, str | None]]:
    """Every entry an image's ``sqlite_master`` may hold, by name: (type, tbl_name, sql)."""
    expected: dict[str, tuple[str, str, str | None]] = {}
    for space in SPACES:
        expected[space] = ("table", space, table_sql(space))
        index = _autoindex(space)
        if index is not None:
            expected[index] = ("index", space, None)
    for name, sql in VIEWS.items():
        expected[name] = ("view", name, sql)
    return expected


EXPECTED = _expected()


def check_schema(db: sqlite3.Connection) -> set[str]:
    """Refuse (EINVAL) an image whose schema is not exactly ``EXPECTED``'s, with the first
    entry that differs; the keyspace tables it has otherwise."""
    rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master "
                      f"LIMIT {MAX_SCHEMA_ENTRIES + 1}").fetchall()
    if len(rows) > MAX_SCHEMA_ENTRIES:
        raise refuse("EINVAL", f"a schema of over {MAX_SCHEMA_ENTRIES} entries (a py_vfs "
                               f"image has {len(EXPECTED)})")
    found = {name: (kind, table, sql) for kind, name, table, sql in rows}
    tables = {name for name, (kind, _, _) in found.items() if kind == "table"}
    required = set(SPACES) - ADDED_SPACES
    if not required <= tables:
        raise refuse("EINVAL", "a SQLite file that is not a py_vfs disk (no "
                               f"{', '.join(sorted(required - tables))} table)")
    for kind, name, table, sql in rows:
        if EXPECTED.get(name) != (kind, table, sql):
            what = "entry" if not isinstance(kind, str) else kind
            raise refuse("EINVAL", f"a SQLite file holding {_describe(what, name)} that a "
                                   "py_vfs disk does not have, or has otherwise")
    for space in tables:
        index = _autoindex(space)
        if index is not None and index not in found:
            raise refuse("EINVAL", f"a SQLite file whose table {space!r} lacks its key")
    return tables & set(SPACES)


def _describe(kind: str, name: object) -> str:
    """``a trigger 'x'``, for the refusal's hint (the name kept short and printable)."""
    text = repr(str(name)[:64])
    return f"an {kind} {text}" if kind[:1] in "aeiou" else f"a {kind} {text}"


def open_received(path: str, syscall: str = "import") -> GuardedConnection:
    """A read-only connection to the image at ``path``: hardened (``sqlite_guard.harden``),
    ``query_only``, each statement bounded by ``IMAGE_SECONDS`` (its ``guard``)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None,
                         factory=GuardedConnection)
    try:
        db.guard = Guard(syscall, seconds=IMAGE_SECONDS)
        db.guard.install(db)
        db.defensive = harden(db)
        db.execute("PRAGMA query_only = ON")
    except sqlite3.Error as error:
        stop = stopped(db, error)
        db.close()
        if stop is None:
            raise
        raise stop from error
    except BaseException:
        db.close()
        raise
    return db


def stopped(db: sqlite3.Connection, error: Exception) -> FsError | None:
    """The FsError of ``error`` when ``db``'s guard stopped its statement (ETIMEDOUT,
    ECANCELED: ``Guard.stopping``); None otherwise."""
    guard = getattr(db, "guard", None)
    return None if guard is None else guard.stopping(error, "reading the image")
