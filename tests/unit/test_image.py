"""The disk as a SQLite image: export builds a py_vfs disk file of the tree (it opens as a disk
and in the stock sqlite3 tool), import reads one back all or nothing, and refuses files that are
not ours or hold bad records with nothing changed. The shell's export/import pick either format."""

from __future__ import annotations

import asyncio
import glob
import inspect
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import pytest
from test_archive import BIG, FILES, T0, disk, run, snapshot, tree, zip_bytes

from py_vfs import VFS, FsError
from py_vfs.archives import archive, sqlite_image
from py_vfs.archives.archive import export, import_archive
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.storage.sqlite import SQLiteStore
from py_vfs.web.webapi import WebAPI

__all__ = ["disk"]  # the fixture, shared with test_archive
NO_PROCESSES = sys.platform == "emscripten"


async def image_bytes(vfs: VFS, path: str = "/p") -> bytes:
    return b"".join([piece async for piece in export(vfs, path, "sqlite")])


def leftovers() -> list[str]:
    return glob.glob(os.path.join(tempfile.gettempdir(), "pyvfs-scratch-*"))


def write(tmp_path, data: bytes) -> str:
    path = str(tmp_path / "image.db")
    with open(path, "wb") as out:
        out.write(data)
    return path


def test_round_trip_keeps_bytes_modes_times_links_and_empty_dirs(disk):
    before = leftovers()
    data = run(image_bytes(disk))
    assert data.startswith(sqlite_image.HEADER)
    fresh = VFS.memory()
    counts = run(import_archive(fresh, data, "sqlite", into="/restored"))
    assert counts == {"files": 6, "directories": 3, "symlinks": 3,
                      "bytes": sum(len(d) for d, _, _ in FILES.values())}
    assert tree(fresh, "/restored") == tree(disk, "/p")
    assert fresh.lstat("/restored/secret").mtime_ms == T0 + 3_123
    assert fresh.lstat("/restored/empty").mode == 0o700
    assert run(fresh.read_file("/restored/latest")) == BIG
    assert leftovers() == before  # the temporary files of both ways are gone


def test_a_zip_and_an_image_of_one_tree_import_the_same(disk):
    by_zip, by_image = VFS.memory(), VFS.memory()
    run(import_archive(by_zip, run(zip_bytes(disk)), into="/x"))
    run(import_archive(by_image, run(image_bytes(disk)), "sqlite", into="/x"))
    assert tree(by_zip, "/x") == tree(by_image, "/x")


def test_the_image_is_a_disk_whose_root_holds_the_tree(disk, tmp_path):
    path = write(tmp_path, run(image_bytes(disk, "/p/src")))
    assert not os.path.exists(path + "-wal")  # one self-contained file

    image = run(VFS.open(SQLiteStore(path)))
    try:
        assert {"/" + k: v for k, v in tree(image, "/").items()} == tree(disk, "/p/src")
    finally:
        image.close()
    one = write(tmp_path, run(image_bytes(disk, "/p/run.sh")))
    assert run(_names_in(one)) == ["run.sh"]


async def _names_in(path: str) -> list[str]:
    image = await VFS.open(SQLiteStore(path))
    try:
        return image.readdir("/")
    finally:
        image.close()


def test_a_disk_file_imports_as_an_image(tmp_path):
    """Any py_vfs disk file (WAL mode, as SQLiteStore leaves it) is an image of its root."""
    path = str(tmp_path / "disk.db")

    async def made():
        disk = await VFS.open(SQLiteStore(path))
        await disk.write_file("/a/b.txt", b"hello", mode=0o600)
        disk.close()

    run(made())
    with open(path, "rb") as disk_file:
        data = disk_file.read()
    fresh = VFS.memory()
    counts = run(import_archive(fresh, data, "sqlite", into="/x"))
    assert counts == {"files": 1, "directories": 1, "symlinks": 0, "bytes": 5}
    assert run(fresh.read_file("/x/a/b.txt")) == b"hello"
    assert fresh.stat("/x/a/b.txt").mode == 0o600


def test_an_image_of_an_older_format_imports_the_same(disk, tmp_path):
    # An image exported before format 4 has no names table: the import upgrades its own copy,
    # as opening an older disk does, and the tree comes back the same.
    path = write(tmp_path, run(image_bytes(disk)))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TABLE names")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'format'")
    db.close()
    with open(path, "rb") as image:
        older = image.read()
    before = leftovers()
    fresh = VFS.memory()
    run(import_archive(fresh, older, "sqlite", into="/restored"))
    assert tree(fresh, "/restored") == tree(disk, "/p")
    assert leftovers() == before


def test_an_image_of_a_newer_format_is_refused(disk, tmp_path):
    assert "format 5" in refused(disk, tampered(
        disk, tmp_path, "UPDATE meta SET value = '5' WHERE key = 'format'")).hint


@pytest.mark.skipif(NO_PROCESSES, reason="Emscripten (Pyodide) has no processes")
def test_the_image_opens_in_the_command_line_shell_and_in_sqlite3(disk, tmp_path):
    path = write(tmp_path, run(image_bytes(disk)))
    shell = subprocess.run([sys.executable, "-m", "py_vfs", "shell", "--disk", path, "-c",
                            "cat /src/lib/../../readme.md; ls /src"],
                           capture_output=True, text=True, timeout=60)
    assert (shell.returncode, shell.stderr) == (0, "")
    assert shell.stdout.startswith("# hello\n")
    tool = shutil.which("sqlite3")
    assert tool, "the stock sqlite3 tool (Debian package sqlite3) is needed"
    rows = subprocess.run([tool, "-readonly", path, "SELECT count(*) FROM nodes"],
                          capture_output=True, text=True, timeout=60)
    assert rows.returncode == 0, rows.stderr
    assert int(rows.stdout) == 1 + len(tree(disk, "/p"))  # the root and every entry
    files = subprocess.run([tool, "-readonly", path, "SELECT path FROM files ORDER BY path"],
                           capture_output=True, text=True, timeout=60)
    assert files.returncode == 0, files.stderr
    assert "/readme.md" in files.stdout.splitlines()  # the views live in the image


def test_closing_an_export_early_deletes_its_file(disk):
    before = leftovers()

    async def first_piece() -> bytes:
        pieces = export(disk, "/p", "sqlite")
        piece = await anext(pieces)
        await pieces.aclose()
        return piece

    assert run(first_piece()).startswith(sqlite_image.HEADER)
    assert leftovers() == before


def test_the_shell_picks_the_format_by_option_or_name():
    from py_vfs.shell import Shell

    vfs = VFS.memory()
    shell = Shell(vfs)
    made = asyncio.run(shell.run(
        "mkdir -p /p/src; echo hi > /p/src/x.txt; echo top > /p/r.md; "
        "export /p /out.db; export --format sqlite /p /img.bin; export /p /out.zip; "
        "import /out.db /a; import --format=sqlite /img.bin /b; import /out.zip /c"))
    assert (made.code, made.stderr) == (0, "")
    assert made.stdout.count(": 2 files, 1 directories, 0 symlinks, 7 bytes\n") == 3
    assert asyncio.run(vfs.read_file("/a/src/x.txt")) == b"hi\n"
    assert tree(vfs, "/a") == tree(vfs, "/b") == tree(vfs, "/c")
    assert asyncio.run(vfs.read_file("/out.db", None))[:16] == sqlite_image.HEADER
    assert asyncio.run(vfs.read_file("/out.zip", None))[:2] == b"PK"
    wrong = asyncio.run(shell.run("import /out.zip /d.db; import --format sqlite /out.zip /d"))
    assert wrong.code == 1 and "Invalid argument" in wrong.stderr and not vfs.exists("/d")
    assert asyncio.run(shell.run("export --format tar /p /t")).code == 2
    assert asyncio.run(shell.run("export --format")).code == 2


# ------------------------------------------------------------------ hostile images


def tampered(disk: VFS, tmp_path, sql: str, *params) -> bytes:
    """An export of /p with one SQL statement run on it."""
    path = write(tmp_path, run(image_bytes(disk)))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(sql, params)
    db.close()
    with open(path, "rb") as image:
        return image.read()


def renamed(disk: VFS, tmp_path, name: str) -> bytes:
    path = write(tmp_path, run(image_bytes(disk)))
    db = sqlite3.connect(path, isolation_level=None)
    key, value = db.execute("SELECT key, value FROM nodes").fetchall()[-1]
    record = json.loads(value)
    assert record["name"] not in ("", "/")
    record["name"] = name
    db.execute("UPDATE nodes SET value = ? WHERE key = ?", (json.dumps(record), key))
    db.close()
    with open(path, "rb") as image:
        return image.read()


def refused(disk: VFS, data: bytes, code: str = "EINVAL") -> FsError:
    before, files = snapshot(disk), leftovers()
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, data, "sqlite", into="/in"))
    assert caught.value.code == code, caught.value
    assert caught.value.syscall == "import"
    assert snapshot(disk) == before and not disk.exists("/in")
    assert leftovers() == files
    return caught.value


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "../../etc", "x\0y", "a\\b"])
def test_a_record_with_a_bad_name_is_refused(disk, tmp_path, name):
    refused(disk, renamed(disk, tmp_path, name))


def test_not_a_sqlite_file_is_refused(disk):
    assert "header" in refused(disk, b"PK\x03\x04 not an image at all").hint
    refused(disk, sqlite_image.HEADER + b"\0" * 200)  # the header, then garbage


def test_a_sqlite_file_that_is_not_a_disk_is_refused(disk, tmp_path):
    path = str(tmp_path / "other.db")
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE songs (title TEXT)")
    db.commit()
    db.close()
    with open(path, "rb") as other:
        assert "not a py_vfs disk" in refused(disk, other.read()).hint


def test_records_that_do_not_parse_are_refused(disk, tmp_path):
    refused(disk, tampered(disk, tmp_path, "UPDATE nodes SET value = '{not json' "
                                           "WHERE rowid = (SELECT max(rowid) FROM nodes)"))


def test_a_damaged_chunk_is_refused(disk, tmp_path):
    data = tampered(disk, tmp_path, "UPDATE chunks SET value = zeroblob(length(value)) "
                                    "WHERE rowid = (SELECT min(rowid) FROM chunks)")
    refused(disk, data)


def test_a_missing_root_is_refused(disk, tmp_path):
    root = "DELETE FROM nodes WHERE value LIKE '%\"parent\":null%'"
    refused(disk, tampered(disk, tmp_path, root))


def test_an_absolute_link_is_refused(disk, tmp_path):
    path = write(tmp_path, run(image_bytes(disk)))

    async def relink():
        image = await VFS.open(SQLiteStore(path))
        await image.symlink("/etc/passwd", "/evil")
        image.close()

    run(relink())
    with open(path, "rb") as image:
        assert refused(disk, image.read(), "EACCES")


def test_oversize_entries_and_images_are_refused(disk, monkeypatch):
    data = run(image_bytes(disk))
    monkeypatch.setattr(sqlite_image, "MAX_ENTRY_BYTES", len(BIG) - 1)
    assert "big.bin" in refused(disk, data, "EFBIG").filename
    monkeypatch.undo()
    monkeypatch.setattr(archive, "MAX_ARCHIVE_BYTES", len(data) - 1)
    refused(disk, [data[:1000], data[1000:]], "EFBIG")  # counted while it arrives


# ------------------------------------------------------------------ the JS API's half


async def call(api: WebAPI, op: str, *args):
    """One operation of WebAPI's table, its outcome as an envelope's ``value`` or ``error``
    (``WebAPI.call`` itself schedules a task, which the stepping driver of Pyodide's unit
    runs cannot await: tests/unit/aio.py)."""
    try:
        result = api._ops[op](*args)
        return {"value": await result if inspect.isawaitable(result) else result}
    except FsError as error:
        return {"error": {"code": error.code}}


@pytest.mark.parametrize("format", ["zip", "sqlite"])
def test_webapi_pulls_an_export_and_pushes_it_back(disk, format):
    api, before = WebAPI(disk), leftovers()

    async def scenario():
        stream = (await call(api, "exportOpen", "/p", {"format": format}))["value"]
        pieces = []
        while (piece := (await call(api, "exportChunk", stream))["value"]) is not None:
            pieces.append(piece)
        assert all(len(piece) >= CHUNK_SIZE for piece in pieces[:-1])  # a trip per chunk
        assert api.held()["streams"] == 0 and leftovers() == before
        upload = (await call(api, "importOpen", {"format": format, "into": "/back"}))["value"]
        for piece in pieces:
            assert await call(api, "importChunk", upload, piece) == {"value": None}
        return (await call(api, "importFinish", upload))["value"]

    assert run(scenario())["files"] == 6
    assert tree(disk, "/back") == tree(disk, "/p")
    assert api.held()["streams"] == 0 and leftovers() == before


def test_webapi_cancels_an_export_and_refuses_bad_calls(disk, monkeypatch):
    api, before = WebAPI(disk), leftovers()

    async def code(op, *args):
        return (await call(api, op, *args))["error"]["code"]

    async def scenario():
        stream = (await call(api, "exportOpen", "/p", {"format": "sqlite"}))["value"]
        first = (await call(api, "exportChunk", stream))["value"]
        assert first.startswith(sqlite_image.HEADER)
        assert await call(api, "closeStream", stream) == {"value": None}
        assert api.held()["streams"] == 0 and leftovers() == before  # its file went with it
        assert await code("exportChunk", stream) == "EBADF"
        assert await code("exportOpen", "/nowhere") == "ENOENT"
        assert await code("exportOpen", "/p", {"format": "tar"}) == "EINVAL"
        assert await code("importOpen", {"format": "rar"}) == "EINVAL"
        monkeypatch.setattr(archive, "MAX_ARCHIVE_BYTES", 10)
        upload = (await call(api, "importOpen", {"into": "/x"}))["value"]
        assert await call(api, "importChunk", upload, b"12345") == {"value": None}
        assert await code("importChunk", upload, b"123456") == "EFBIG"
        assert await code("importFinish", upload) == "EBADF"  # it was dropped

    run(scenario())
    assert api.held()["streams"] == 0 and not disk.exists("/x")
