"""The views inside a SQLite disk file: the stock ``sqlite3`` tool queries the disk.

A disk written through the VFS API into a SQLiteStore file is read back three ways: the
``sqlite3`` command-line tool (a process: CPython only), Python's ``sqlite3`` module on the file,
and ``py_vfs.data.query.query`` (the in-memory views); the answers must agree (docs/data.md, "The
views inside the disk file", lists where the two views differ on purpose: ``hash``).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run

import py_vfs
from py_vfs import VFS
from py_vfs.data.query import query
from py_vfs.storage.sqlite import SQLiteStore
from py_vfs.storage.sqlite_views import VIEW_VERSION

NO_PROCESSES = pytest.mark.skipif(sys.platform == "emscripten",
                                  reason="Emscripten (Pyodide) has no processes")
CLI_TIMEOUT_S = 60
DAY_MS = 86_400_000
JUNE_1 = 1_780_272_000_000  # 2026-06-01 00:00:00 UTC
JUNE_10 = JUNE_1 + 9 * DAY_MS  # 2026-06-10 00:00:00 UTC

# The issue's statements, verbatim.
ISSUE_STATEMENTS = (
    "SELECT path FROM files WHERE mtime > '2026-06-09'",
    "SELECT dir, sum(size) FROM files GROUP BY dir ORDER BY 2 DESC",
    "SELECT path FROM files WHERE writer = 'agent' AND mtime > date('now', '-7 days')",
)
# path -> (content, mtime in ms); directories get their times after every write into them.
SEED = {
    "/src/main.py": (b"print('hi')\n", JUNE_1),
    "/src/util.py": (b"x" * 3000, JUNE_10),  # chunked, not inline
    "/src/lib/deep/deeper/leaf.py": (b"deep\n" * 10, JUNE_10 + 3_600_000),
    "/docs/readme.md": (b"# readme\n", JUNE_1 - DAY_MS),
    "/docs/caf\u00e9 na\u00efve \u6f22\u5b57.txt": ("h\u00e9".encode() * 100, JUNE_10 + 5),
    "/\u00e9t\u00e9/\U0001f600.bin": (bytes(600_000), JUNE_1 + 1),
}
DIRS = {"/src": JUNE_1, "/src/lib": JUNE_1, "/src/lib/deep": JUNE_10 + 7,
        "/src/lib/deep/deeper": JUNE_1, "/docs": JUNE_1, "/\u00e9t\u00e9": JUNE_1,
        "/empty": JUNE_10 + 2}
# Symlinks keep the time they were made (there is no lutimes): today, after June 9.
LINKS = {"/link": "src/main.py", "/docs/\u00e9-link": "../\u00e9t\u00e9/\U0001f600.bin",
         "/dangling": "nowhere/at/all"}
AFTER_JUNE_9 = sorted([
    "/src/util.py", "/src/lib/deep/deeper/leaf.py", "/docs/caf\u00e9 na\u00efve \u6f22\u5b57.txt",
    "/src/lib/deep", "/empty", *LINKS])


async def seed(vfs: VFS) -> None:
    """Files, directories (nested, empty, unicode names) and symlinks with known times."""
    for path, (data, _) in SEED.items():
        await vfs.write_file(path, data)
    await vfs.mkdir("/empty")
    for path, target in LINKS.items():
        await vfs.symlink(target, path)
    await vfs.rename("/src/lib/deep/deeper", "/src/lib/deep/tmp")  # a rename in the log
    await vfs.rename("/src/lib/deep/tmp", "/src/lib/deep/deeper")
    for path, (_, mtime) in SEED.items():
        await vfs.utimes(path, mtime, mtime)
    for path, mtime in DIRS.items():
        await vfs.utimes(path, mtime, mtime)


@pytest.fixture
def disk(tmp_path) -> tuple[VFS, Path]:
    """A seeded disk in a SQLiteStore file, open, and the file's path."""
    path = tmp_path / "disk.db"
    vfs = run(VFS.open(SQLiteStore(path)))
    run(seed(vfs))
    yield vfs, path
    vfs.close()


def sqlite3_cli(path: Path, sql: str) -> list[tuple]:
    """The rows the stock ``sqlite3`` tool prints for ``sql`` on the file (its JSON mode)."""
    tool = shutil.which("sqlite3")
    if tool is None:
        pytest.fail("the sqlite3 command-line tool is missing: install it "
                    "(apt-get install sqlite3; `sh build/setup.sh --test` does)")
    try:
        done = subprocess.run([tool, "-json", str(path), sql], capture_output=True, text=True,
                              encoding="utf-8", timeout=CLI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"sqlite3 gave no answer to {sql!r} within {CLI_TIMEOUT_S} s")
    assert done.returncode == 0, f"sqlite3 failed on {sql!r}: {done.stderr}"
    return [tuple(row.values()) for row in json.loads(done.stdout or "[]")]


def file_rows(path: Path, sql: str) -> list[tuple]:
    """The rows of ``sql`` on the file, through Python's sqlite3 module (exact reals)."""
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def records(path: Path) -> list[dict]:
    return [json.loads(value) for (value,) in file_rows(path, "SELECT value FROM nodes")]


@NO_PROCESSES
def test_the_issue_statements_in_the_stock_sqlite3_tool_answer_as_query(disk):
    vfs, path = disk
    for sql in ISSUE_STATEMENTS:
        in_file = sqlite3_cli(path, sql)
        in_memory = query(vfs, sql).rows
        assert sorted(in_file) == sorted(in_memory), sql
    by_dir = sqlite3_cli(path, ISSUE_STATEMENTS[1])
    assert [size for _, size in by_dir] == sorted((size for _, size in by_dir), reverse=True)
    assert sorted(p for (p,) in sqlite3_cli(path, ISSUE_STATEMENTS[0])) == AFTER_JUNE_9
    if not any("writer" in record for record in records(path)):
        assert sqlite3_cli(path, ISSUE_STATEMENTS[2]) == []  # no writers recorded yet
    assert ("/empty", 0) not in by_dir  # a directory is a row of its parent's dir only
    assert ("/\u00e9t\u00e9", 600_000) in by_dir


def test_every_column_and_type_equals_the_in_memory_view_but_hash(disk):
    """Row for row, value and SQLite type of each column; ``hash`` is NULL in the file (no
    sha256 in stock SQLite) where the in-memory view names a file's content."""
    vfs, path = disk
    columns = query(vfs, "SELECT * FROM files").columns
    assert columns == ["path", "dir", "name", "kind", "size", "mode", "mtime", "ctime",
                       "mtime_ms", "ctime_ms", "writer", "hash", "target"]
    typed = "SELECT " + ", ".join(f"{c}, typeof({c})" for c in columns if c != "hash") + \
        " FROM files ORDER BY path"
    assert file_rows(path, typed) == query(vfs, typed).rows
    assert len(file_rows(path, typed)) == len(SEED) + len(DIRS) + len(LINKS)
    assert file_rows(path, "SELECT DISTINCT hash FROM files") == [(None,)]
    assert [c for (c,) in file_rows(path, "SELECT name FROM pragma_table_info('files')")] \
        == columns
    links = file_rows(path, "SELECT path, size, target FROM files WHERE kind = 'symlink'")
    assert sorted(links) == sorted((p, len(t.encode()), t) for p, t in LINKS.items())


def test_writer_is_the_records_writer(disk):
    """Until every record carries "writer", all rows are NULL; a record that has one shows it
    (this one is rewritten by hand, through the store, to carry it)."""
    vfs, path = disk
    stored = records(path)
    by_path = dict(file_rows(path, "SELECT path, writer FROM files"))
    if any("writer" in record for record in stored):
        assert {r.get("writer") for r in stored if r["parent"] is not None} \
            == set(by_path.values())
    else:
        assert set(by_path.values()) == {None}
    node_id, record = file_rows(
        path, "SELECT key, value FROM nodes WHERE json_extract(value, '$.name') = 'util.py'")[0]
    run(vfs.store.commit([("put", "nodes", node_id,
                           json.dumps({**json.loads(record), "writer": "agent"}))]))
    assert file_rows(path, "SELECT path FROM files WHERE writer = 'agent'") \
        == [("/src/util.py",)]


def test_the_journal_view_lists_the_log(disk):
    vfs, path = disk
    rows = file_rows(path, "SELECT * FROM journal ORDER BY revision")
    entries = [(key, json.loads(value)) for key, value in
               file_rows(path, "SELECT key, value FROM log ORDER BY key")]
    assert len(rows) == len(entries) > 10
    assert [c for (c,) in file_rows(path, "SELECT name FROM pragma_table_info('journal')")] \
        == query(vfs, "SELECT * FROM journal").columns \
        == ["revision", "time", "time_ms", "writer", "operation", "paths"]
    for (revision, time_text, time_ms, writer, operation, paths), (key, entry) in \
            zip(rows, entries, strict=True):
        assert (revision, time_ms, writer, operation) == (key, entry["time"], entry["writer"],
                                                          entry.get("op"))
        events = [[*([e["oldPath"]] if "oldPath" in e else []), e["path"]]
                  for e in entry["events"]]
        assert json.loads(paths) == list(dict.fromkeys(p for both in events for p in both))
        assert time_text == file_rows(
            path, f"SELECT strftime('%Y-%m-%d %H:%M:%f', {time_ms} / 1000.0, 'unixepoch')")[0][0]
    renames = [json.loads(paths) for *_, paths in rows if "/src/lib/deep/tmp" in paths]
    assert renames == [["/src/lib/deep/deeper", "/src/lib/deep/tmp"],
                       ["/src/lib/deep/tmp", "/src/lib/deep/deeper"]]
    # The same rows as the journal view of ``vfs.query`` (its in-memory copy).
    assert rows == run(vfs.query("SELECT * FROM journal ORDER BY revision")).rows


def test_a_v2_log_entry_gives_its_operation_and_distinct_paths(tmp_path):
    """The entry format that names its operation (v2): ``paths`` has each path once, in the
    order of the events, a rename's oldPath before its path."""
    store = SQLiteStore(tmp_path / "disk.db")
    entry = {"v": 2, "writer": "user", "time": 1_780_272_000_123.25, "op": "rename",
             "ops": ["rename"], "puts": {}, "deletes": [], "before": {},
             "events": [{"type": "rename", "path": "/b", "kind": "file", "oldPath": "/a"},
                        {"type": "modify", "path": "/", "kind": "directory"},
                        {"type": "modify", "path": "/b", "kind": "file"},
                        {"type": "create", "path": "/\u00e9", "kind": "file"}]}
    assert run(store.commit_logged(0, [], json.dumps(entry))) == 1
    store.close()
    assert file_rows(tmp_path / "disk.db", "SELECT * FROM journal") == [
        (1, "2026-06-01 00:00:00.123", 1_780_272_000_123.25, "user", "rename",
         '["/a","/b","/","/\u00e9"]')]


def test_an_old_file_gets_the_views_and_stale_ones_are_replaced(tmp_path):
    path = tmp_path / "old.db"
    run(VFS.open(SQLiteStore(path))).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP VIEW files")  # as a file written before the views existed
    db.execute("DROP VIEW journal")
    db.execute("CREATE VIEW journal AS -- py_vfs view version 0\nSELECT 1 AS stale")
    db.close()
    vfs = run(VFS.open(SQLiteStore(path)))
    run(vfs.write_file("/a/b", b"1"))
    assert file_rows(path, "SELECT path, kind FROM files ORDER BY path") \
        == [("/a", "directory"), ("/a/b", "file")]
    assert "stale" not in file_rows(path, "SELECT sql FROM sqlite_master "
                                          "WHERE name = 'journal'")[0][0]
    assert run(vfs.check()).ok
    vfs.close()
    newer = f"CREATE VIEW files AS -- py_vfs view version {VIEW_VERSION + 1}\nSELECT 2 AS later"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP VIEW files")
    db.execute(newer)
    db.close()
    SQLiteStore(path).close()  # a newer program's view is left alone
    assert file_rows(path, "SELECT sql FROM sqlite_master WHERE name = 'files'") == [(newer,)]


def test_a_users_table_named_like_a_view_is_left_alone(tmp_path):
    path = tmp_path / "mine.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE journal (note TEXT)")
    db.execute("INSERT INTO journal VALUES ('mine')")
    db.close()
    vfs = run(VFS.open(SQLiteStore(path)))
    run(vfs.write_file("/f", b"1"))
    vfs.close()
    assert file_rows(path, "SELECT * FROM journal") == [("mine",)]
    assert file_rows(path, "SELECT path FROM files") == [("/f",)]


def test_the_store_tables_are_unchanged_and_check_is_clean(disk):
    vfs, path = disk
    assert run(vfs.check()).ok
    assert file_rows(path, "SELECT type, name FROM sqlite_master WHERE type <> 'index' "
                           "ORDER BY type, name") == [
        ("table", "chunks"), ("table", "log"), ("table", "meta"), ("table", "names"),
        ("table", "nodes"),
        ("view", "files"), ("view", "journal")]


@NO_PROCESSES
def test_two_processes_opening_old_files_at_once_both_succeed(tmp_path):
    """Each process opens the same 40 view-less files in the same order, started together: the
    second to reach a file waits on the write lock, then finds the views made."""
    files = [tmp_path / f"old{i}.db" for i in range(40)]
    for path in files:
        SQLiteStore(path).close()
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("DROP VIEW files")
        db.execute("DROP VIEW journal")
        db.close()
    go = tmp_path / "go"
    opener = (
        "import os, sys, time\n"
        "from py_vfs.storage.sqlite import SQLiteStore\n"
        "deadline = time.monotonic() + 60\n"
        "while not os.path.exists(sys.argv[1]):\n"
        "    if time.monotonic() > deadline: sys.exit('no go file within 60 s')\n"
        "    time.sleep(0.001)\n"
        "for path in sys.argv[2:]: SQLiteStore(path).close()\n")
    env = {**os.environ, "PYTHONPATH": str(Path(py_vfs.__file__).parents[1])}
    procs = [subprocess.Popen([sys.executable, "-c", opener, str(go), *map(str, files)],
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    go.touch()
    for proc in procs:
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("an opener process did not finish within 120 s")
        assert proc.returncode == 0, err
    for path in files:
        assert file_rows(path, "SELECT name FROM sqlite_master WHERE type = 'view' "
                               "ORDER BY name") == [("files",), ("journal",)]
