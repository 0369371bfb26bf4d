"""SQL over the disk: the issue's statements on a seeded disk, read-only, bounded."""

from __future__ import annotations

import json
import os
import time

import aio
import pytest
from helpers import run
from host_folder import make_folder

from py_vfs import VFS, FsError
from py_vfs.data.query import MAX_ROWS, MAX_STEPS, query
from py_vfs.mounts import LocalBackend

DAY_MS = 86_400_000
JUNE_1 = 1_780_272_000_000  # 2026-06-01 00:00:00 UTC
JUNE_10 = JUNE_1 + 9 * DAY_MS  # 2026-06-10 00:00:00 UTC

# path -> (content, mtime in ms)
SEED = {
    "/src/main.py": (b"print('hi')\n", JUNE_1),
    "/src/util.py": (b"x" * 3000, JUNE_10),  # chunked, not inline
    "/src/lib/deep.py": (b"deep\n" * 10, JUNE_10 + 3_600_000),
    "/docs/readme.md": (b"# readme\n", JUNE_1 - DAY_MS),
    "/big.bin": (bytes(600_000), JUNE_10 + 1),
}
DIRS = {"/src": JUNE_1, "/src/lib": JUNE_1, "/docs": JUNE_1, "/empty": JUNE_10 + 2}


async def seed(vfs: VFS) -> None:
    """Files, a link and directories with known times (directories last: writing into a
    directory sets its mtime)."""
    for path, (data, _) in SEED.items():
        await vfs.write_file(path, data)
    await vfs.mkdir("/empty")
    await vfs.symlink("src/main.py", "/link")
    for path, (_, mtime) in SEED.items():
        await vfs.utimes(path, mtime, mtime)
    for path, mtime in DIRS.items():
        await vfs.utimes(path, mtime, mtime)


@pytest.fixture
def vfs(vfs: VFS) -> VFS:
    run(seed(vfs))
    return vfs


def column(vfs: VFS, sql: str, params=()) -> list:
    return [row[0] for row in query(vfs, sql, params).rows]


def test_files_changed_after_a_date(vfs):
    rows = column(vfs, "SELECT path FROM files WHERE mtime > '2026-06-09'")
    # /link was made now, so it is newer than June too
    assert sorted(rows) == ["/big.bin", "/empty", "/link", "/src/lib/deep.py", "/src/util.py"]


def test_bytes_per_directory_largest_first(vfs):
    result = query(vfs, "SELECT dir, sum(size) FROM files GROUP BY dir ORDER BY 2 DESC")
    assert result.columns == ["dir", "sum(size)"]
    # "/" holds big.bin and the link (its size is its target's length, as lstat says);
    # directories count 0 (stat's 4096 is a display convention, not content)
    assert result.rows == [("/", 600_000 + len("src/main.py")), ("/src", 12 + 3000),
                           ("/src/lib", 50), ("/docs", 9)]
    assert result.truncated is False


def test_files_an_agent_wrote_last_week(vfs):
    agent = vfs.as_writer("agent")
    recent = 1000.0 * (time.time() - 86_400)
    run(agent.write_file("/src/agent.py", b"by the agent"))
    run(agent.utimes("/src/agent.py", recent, recent))
    run(agent.write_file("/notes/old.md", b"long ago"))
    run(agent.utimes("/notes/old.md", JUNE_1, JUNE_1))  # the agent's, but not this week
    run(vfs.as_writer("agent:other").write_file("/src/other.py", b"another agent"))
    sql = "SELECT path FROM files WHERE writer = 'agent' AND mtime > date('now', '-7 days')"
    # /notes too: the agent made it this week (mkdir -p of its write); /src was last changed
    # by agent:other, whose file it gained.
    assert column(vfs, sql) == ["/notes", "/src/agent.py"]
    assert run(vfs.query(sql)).rows == [("/notes",), ("/src/agent.py",)]
    # The seed's ten rows, less /src (last changed by agent:other).
    assert column(vfs, "SELECT count(*) FROM files WHERE writer = 'user'") == [9]


def test_columns_of_a_file_a_directory_and_a_link(vfs):
    result = query(vfs, "SELECT * FROM files WHERE path IN (?, ?, ?) ORDER BY path",
                   ["/link", "/src", "/src/util.py"])
    assert result.columns == ["path", "dir", "name", "kind", "size", "mode", "mtime", "ctime",
                              "mtime_ms", "ctime_ms", "writer", "hash", "target"]
    by_path = {row[0]: dict(zip(result.columns, row, strict=True)) for row in result.rows}
    util = by_path["/src/util.py"]
    assert (util["dir"], util["name"], util["kind"], util["size"], util["mode"]) == \
        ("/src", "util.py", "file", 3000, 0o644)
    assert util["mtime"] == "2026-06-10 00:00:00.000"
    assert util["mtime_ms"] == JUNE_10
    assert util["hash"] == vfs.content_id("/src/util.py")
    assert util["target"] is None
    assert by_path["/src"]["kind"] == "directory" and by_path["/src"]["hash"] is None
    assert by_path["/link"]["kind"] == "symlink"
    assert by_path["/link"]["target"] == "src/main.py"
    assert by_path["/link"]["hash"] is None


def test_hash_is_the_content_id_and_follows_the_content(vfs):
    before = dict(query(vfs, "SELECT path, hash FROM files WHERE kind = 'file'").rows)
    assert before == {path: vfs.content_id(path) for path in SEED}
    run(vfs.write_file("/src/main.py", b"print('bye')\n"))
    run(vfs.copy_file("/src/util.py", "/src/copy.py"))
    after = dict(query(vfs, "SELECT path, hash FROM files WHERE kind = 'file'").rows)
    assert after["/src/main.py"] != before["/src/main.py"]
    assert after["/src/copy.py"] == after["/src/util.py"]  # same bytes, same hash


def test_params_by_name_and_time_functions(vfs):
    rows = column(vfs, "SELECT name FROM files WHERE size > :least ORDER BY size",
                  {"least": 20})
    assert rows == ["deep.py", "util.py", "big.bin"]
    assert column(vfs, "SELECT count(*) FROM files WHERE julianday(mtime) > "
                       "julianday('2026-06-10 00:00:00')") == [4]  # + /link, made now


def test_the_journal_view_lists_every_commit_with_its_writer_and_paths(vfs):
    run(vfs.as_writer("agent").rename("/docs/readme.md", "/docs/README.md"))
    result = run(vfs.query("SELECT * FROM journal ORDER BY revision DESC LIMIT 1"))
    assert result.columns == ["revision", "time", "time_ms", "writer", "operation", "paths"]
    [(revision, when, when_ms, writer, operation, touched)] = result.rows
    assert (revision, writer, operation) == (vfs.revision, "agent", "rename")
    assert json.loads(touched)[:2] == ["/docs/readme.md", "/docs/README.md"]
    assert when.startswith(time.strftime("%Y-%m-%d", time.gmtime(when_ms / 1000)))
    counts = run(vfs.query("SELECT writer, count(*) FROM journal GROUP BY writer ORDER BY 1"))
    assert counts.rows == [("agent", 1), ("user", vfs.revision - 1)]
    # The plain function has no journal to read: the view is there, empty.
    assert query(vfs, "SELECT * FROM journal").rows == []


def test_rows_past_the_limit_are_dropped_and_flagged(vfs):
    result = query(vfs, "SELECT path FROM files ORDER BY path", limit=3)
    assert [row[0] for row in result.rows] == ["/big.bin", "/docs", "/docs/readme.md"]
    assert result.truncated is True
    exact = query(vfs, "SELECT path FROM files", limit=10)
    assert len(exact.rows) == 10 and exact.truncated is False
    assert MAX_ROWS == 10_000
    with pytest.raises(FsError) as caught:
        query(vfs, "SELECT 1", limit=-1)
    assert caught.value.code == "EINVAL"


WRITES = [
    "INSERT INTO _files (path) VALUES ('/x')",
    "UPDATE _files SET size = 1",
    "DELETE FROM _files",
    "DELETE FROM files",
    "DROP VIEW files",
    "CREATE TABLE t (x)",
    "CREATE TEMP TABLE t (x)",
    "CREATE INDEX i ON _files (path)",
    "ALTER TABLE _files ADD COLUMN y",
    "ATTACH DATABASE ':memory:' AS other",
    "ATTACH DATABASE '/tmp/py_vfs_query_attach.db' AS other",
    "DETACH DATABASE main",
    "PRAGMA query_only = OFF",
    "PRAGMA writable_schema = ON",
    "PRAGMA user_version = 7",
    "BEGIN",
    "SAVEPOINT s",
    "VACUUM",
    "ANALYZE",
    "SELECT load_extension('libc')",
    "INSERT INTO journal VALUES (1, 'now', 'agent', 'write', '/x')",
    "WITH x AS (SELECT 1) DELETE FROM _files",
    "DELETE FROM _journal",
]


@pytest.mark.parametrize("sql", WRITES)
def test_every_write_is_refused_and_changes_nothing(vfs, sql):
    before = query(vfs, "SELECT * FROM files ORDER BY path").rows
    with pytest.raises(FsError) as caught:
        query(vfs, sql)
    assert caught.value.code in ("EACCES", "EINVAL")
    assert "query" in str(caught.value)
    assert query(vfs, "SELECT * FROM files ORDER BY path").rows == before
    assert query(vfs, "SELECT * FROM journal").rows == []
    assert run(vfs.read_file("/src/main.py")) == b"print('hi')\n"


def test_a_write_is_eacces_naming_the_rule(vfs):
    with pytest.raises(PermissionError) as caught:
        query(vfs, "DELETE FROM _files")
    assert caught.value.code == "EACCES"
    assert "may only read" in str(caught.value)


@pytest.mark.parametrize("sql, words", [
    ("SELEC path FROM files", 'near "SELEC": syntax error'),
    ("SELECT nope FROM files", "no such column: nope"),
    ("SELECT * FROM elsewhere", "no such table: elsewhere"),
    ("SELECT 1; SELECT 2", "one statement"),
    ("SELECT ?", "binding"),
])
def test_a_malformed_statement_is_einval_with_sqlites_words(vfs, sql, words):
    with pytest.raises(FsError) as caught:
        query(vfs, sql)
    assert caught.value.code == "EINVAL"
    assert words in str(caught.value)


def test_a_runaway_recursive_query_is_stopped(vfs):
    sql = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
           "SELECT count(*) FROM n")
    with pytest.raises(FsError) as caught:
        query(vfs, sql)
    assert caught.value.code == "EINVAL"
    assert f"budget of {MAX_STEPS} SQLite steps" in str(caught.value)
    assert column(vfs, "SELECT count(*) FROM files") == [10]  # the next query runs as usual


def test_a_value_doubling_without_end_is_stopped(vfs):
    sql = ("WITH RECURSIVE n(s) AS (SELECT 'ab' UNION ALL SELECT s || s FROM n) "
           "SELECT length(s) FROM n")
    with pytest.raises(FsError) as caught:
        query(vfs, sql)
    assert caught.value.code == "EINVAL"
    assert "too big" in str(caught.value)


def test_ten_thousand_files_in_one_query():
    """The issue asks for "well under a second" on 10,000 files: the figure is measured by
    docs/data.md's recipe, not asserted here (no timed assertions); this proves the rows."""
    disk = VFS.memory()

    async def fill() -> None:
        async with disk.step() as tx:
            for d in range(100):
                for f in range(100):
                    await tx.write_file(f"/d{d:02}/f{f:02}", b"x" * f)

    run(fill())
    rows = query(disk, "SELECT dir, sum(size) FROM files GROUP BY dir ORDER BY 2 DESC, 1",
                 limit=1000).rows
    assert len(rows) == 101  # 100 directories and "/" (which holds only directories)
    assert rows[0] == ("/d00", sum(range(100)))
    assert rows[-1] == ("/", 0)
    assert column(disk, "SELECT count(*) FROM files") == [10_100]


def test_a_mounted_folder_is_rows_too(vfs, tmp_path):
    """Its entries have no chunks on the disk: their sizes, times and hashes come from the
    folder (lstat and content_id)."""
    folder = make_folder(tmp_path)
    os.utime(folder / "README.md", (1_780_000_000, 1_780_000_000))
    run(vfs.mount("/w", LocalBackend(str(folder))))
    rows = query(vfs, "SELECT path, kind, size, mtime, hash FROM files "
                      "WHERE path LIKE '/w/%' ORDER BY path").rows
    assert [row[:3] for row in rows] == [("/w/README.md", "file", 10),
                                         ("/w/src", "directory", 0),
                                         ("/w/src/main.py", "file", 12)]
    assert rows[0][3] == "2026-05-28 20:26:40.000"
    assert rows[0][4] == vfs.content_id("/w/README.md")
    assert rows[2][4] == vfs.content_id("/w/src/main.py")


def test_a_host_link_leading_out_of_a_mount_does_not_fail_the_query(vfs, tmp_path):
    """Issue 27, finding 9: a link of the host folder whose target leaves it (absolute, or
    climbing with ``..``) is EACCES to lstat, and a dangling one ENOENT; each is a row with
    its path, dir, name and kind as the folder lists it, NULL elsewhere, and the query answers
    for every other entry."""
    folder = make_folder(tmp_path)
    (tmp_path / "secret.txt").write_text("not for the disk\n")
    os.symlink(str(tmp_path / "secret.txt"), folder / "absolute")
    os.symlink("../../secret.txt", folder / "src" / "climbing")
    os.symlink("missing.txt", folder / "dangling")
    run(vfs.mount("/w", LocalBackend(str(folder))))
    rows = query(vfs, "SELECT path, dir, name, kind, size, mode, mtime, hash, target "
                      "FROM files WHERE path LIKE '/w/%' ORDER BY path").rows
    unreadable = [("/w/absolute", "/w", "absolute"), ("/w/dangling", "/w", "dangling"),
                  ("/w/src/climbing", "/w/src", "climbing")]
    assert [row[:3] for row in rows if row[4] is None] == unreadable
    assert all(row[3] == "file" and row[4:] == (None,) * 5 for row in rows if row[4] is None)
    assert [row[:5] for row in rows if row[4] is not None] == [
        ("/w/README.md", "/w", "README.md", "file", 10),
        ("/w/src", "/w", "src", "directory", 0),
        ("/w/src/main.py", "/w/src", "main.py", "file", 12)]
    assert column(vfs, "SELECT count(*) FROM files") == [10 + 1 + 6]  # the disk, /w, below


def test_an_unreadable_folder_of_a_mount_keeps_its_row_and_loses_its_entries(vfs, tmp_path):
    """A folder below a mount that cannot be listed (a host directory without read
    permission; faked, as chmod does not stop root) keeps its own row and leaves its entries
    out, not the query."""
    folder = make_folder(tmp_path)
    run(vfs.mount("/w", LocalBackend(str(folder))))
    listed = vfs.scandir

    def scandir(path: str):
        if path == "/w/src":
            raise FsError.of("EACCES", "scandir", path)
        return listed(path)

    vfs.scandir = scandir  # as a host directory without read permission answers
    assert column(vfs, "SELECT path FROM files WHERE path LIKE '/w/%' ORDER BY path") == [
        "/w/README.md", "/w/src"]


# ------------------------------------------------------------------ the surfaces


def test_the_shell_prints_an_aligned_table_and_refuses_writes(vfs):
    from py_vfs.shell import Shell

    shell = Shell(vfs)
    result = run(shell.run('sql "SELECT dir, sum(size) AS bytes FROM files '
                           'GROUP BY dir ORDER BY 2 DESC"'))
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == ("dir        bytes\n"
                             "--------  ------\n"
                             "/         600011\n"  # big.bin and the link's 11 bytes
                             "/src        3012\n"
                             "/src/lib      50\n"
                             "/docs          9\n")
    params = run(shell.run("sql 'SELECT path FROM files WHERE mtime > ? ORDER BY path' "
                           "2026-06-10"))
    assert params.stdout.split("\n")[2:] == ["/big.bin", "/empty", "/link", "/src/lib/deep.py",
                                             "/src/util.py", ""]
    refused = run(shell.run('sql "DELETE FROM files"'))
    assert refused.code == 1 and refused.stderr.startswith("sql: Permission denied")
    assert run(shell.run("sql")).code == 2


def test_a_file_name_cannot_reach_the_terminal_through_a_table():
    vfs = VFS.memory()
    run(vfs.write_file("/\x1b]0;owned\x07", b"x"))
    from py_vfs.shell import Shell

    out = run(Shell(vfs).run('sql "SELECT name FROM files"')).stdout
    assert "\x1b" not in out and "\x07" not in out


@pytest.mark.skipif(aio.stepping_wanted(), reason="an async call of the JS API needs a real "
                    "event loop (the e2e tier calls it from the page)")
def test_the_js_api_call_answers_columns_rows_and_truncated(vfs):
    from py_vfs.web.webapi import WebAPI

    api = WebAPI(vfs)
    answer = run(_settled(api, "query", ["SELECT path FROM files WHERE kind = ? "
                                         "ORDER BY path", ["file"], {"limit": 2}]))
    assert answer["value"] == {"columns": ["path"], "rows": [["/big.bin"], ["/docs/readme.md"]],
                               "truncated": True}
    refused = run(_settled(api, "query", ["DROP VIEW files"]))
    assert refused["error"]["code"] == "EACCES"


async def _settled(api, op, args):
    result = api.call(op, args)
    return result if isinstance(result, dict) else await result
