"""A received SQLite image is someone else's file, and a SQLite file carries SQL (issue 27,
finding 4): its schema is held to a py_vfs disk's exactly before a row is read, so no trigger,
generated column, view, index or table of its own ever runs or is read; an older format is
upgraded in a copy made here, never in the image; and the image is read hardened
(trusted_schema off, defensive mode where Python can set it) and under a deadline."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from contextlib import asynccontextmanager

import pytest
from test_archive import disk, run, snapshot, tree
from test_image import image_bytes, leftovers, refused, write

from py_vfs import VFS
from py_vfs.archives import image_schema, scratch
from py_vfs.archives.archive import import_archive

__all__ = ["disk"]


def altered(disk: VFS, tmp_path, script: str, *, older: bool = False) -> bytes:
    """An export of /p with ``script`` run on it; ``older``: made to look like an image of
    format 3 first (no names table), which the import upgrades."""
    path = write(tmp_path, run(image_bytes(disk)))
    db = sqlite3.connect(path, isolation_level=None)
    if older:
        db.executescript("DROP TABLE names; UPDATE meta SET value = '3' WHERE key = 'format'")
    db.executescript(script)
    db.close()
    with open(path, "rb") as image:
        return image.read()


# Makes every file of the image mode 0o777 when the upgrade writes the format into meta.
TRIGGER = """CREATE TRIGGER planted AFTER INSERT ON meta BEGIN
  UPDATE nodes SET value = json_set(value, '$.mode', 511)
   WHERE json_extract(value, '$.kind') = 'file';
END;"""


def test_an_older_image_with_a_trigger_is_refused_before_its_upgrade_could_fire_it(
        disk, tmp_path):
    error = refused(disk, altered(disk, tmp_path, TRIGGER, older=True))
    assert "a trigger 'planted'" in error.hint


# ``value`` computed on every read of ``nodes``: the expression is the image's SQL.
GENERATED = """DROP VIEW files; DROP VIEW journal;
CREATE TABLE shadow (key TEXT PRIMARY KEY, raw TEXT NOT NULL,
                     value TEXT GENERATED ALWAYS AS (replace(raw, '"mode":420', '"mode":511')));
INSERT INTO shadow (key, raw) SELECT key, value FROM nodes;
DROP TABLE nodes;
ALTER TABLE shadow RENAME TO nodes;"""


def test_a_generated_value_column_is_refused_before_it_is_read(disk, tmp_path):
    error = refused(disk, altered(disk, tmp_path, GENERATED))
    assert "a table 'nodes'" in error.hint


@pytest.mark.parametrize("script, what", [
    ("CREATE VIEW extra AS SELECT 1", "a view 'extra'"),
    ("CREATE TABLE extra (x)", "a table 'extra'"),
    ("CREATE INDEX by_value ON nodes (value)", "an index 'by_value'"),
    ("CREATE INDEX by_length ON chunks (length(value))", "an index 'by_length'"),
    ("CREATE TRIGGER on_log AFTER DELETE ON log BEGIN SELECT 1; END", "a trigger 'on_log'"),
    ("DROP VIEW files; CREATE VIEW files AS SELECT key AS path FROM nodes", "a view 'files'"),
    ("ANALYZE", "a table 'sqlite_stat1'"),
])
def test_anything_a_disk_does_not_hold_is_refused_with_nothing_changed(
        disk, tmp_path, script, what):
    assert what in refused(disk, altered(disk, tmp_path, script)).hint
    assert what in refused(disk, altered(disk, tmp_path, script, older=True)).hint


def test_an_older_image_is_upgraded_in_a_copy_and_the_received_file_never_changes(
        disk, tmp_path, monkeypatch):
    data = altered(disk, tmp_path, "", older=True)
    images: list[str] = []  # the digest of the image each scratch folder held at its end

    @asynccontextmanager
    async def watched():
        async with scratch.temporary_folder() as folder:
            yield folder
            with open(os.path.join(folder, "image.db"), "rb") as image:
                images.append(hashlib.sha256(image.read()).hexdigest())

    monkeypatch.setattr(scratch, "_provider", watched)
    fresh = VFS.memory()
    run(import_archive(fresh, data, "sqlite", into="/restored"))
    assert tree(fresh, "/restored") == tree(disk, "/p")
    # Two folders: the copy, made and upgraded here (gone first), then the received image,
    # byte for byte as it was sent.
    assert len(images) == 2 and images[1] == hashlib.sha256(data).hexdigest()
    assert images[0] != images[1]


def test_a_received_image_is_read_hardened(disk, tmp_path):
    db = image_schema.open_received(write(tmp_path, run(image_bytes(disk))))
    try:
        assert db.execute("PRAGMA trusted_schema").fetchone() == (0,)
        assert db.execute("PRAGMA query_only").fetchone() == (1,)
        assert db.execute("PRAGMA cell_size_check").fetchone() == (1,)
        # Connection.setconfig is new in Python 3.12: on 3.11 defensive mode is skipped.
        assert db.defensive is (sys.version_info >= (3, 12))
        with pytest.raises(sqlite3.OperationalError):
            db.execute("DELETE FROM meta")
        assert image_schema.check_schema(db) == {"nodes", "chunks", "meta", "log", "names"}
    finally:
        db.close()


def test_a_statement_on_an_image_past_its_deadline_is_etimedout(disk, monkeypatch):
    data = run(image_bytes(disk))
    monkeypatch.setattr(image_schema, "IMAGE_SECONDS", -1.0)  # already past: no waiting
    error = refused(disk, data, "ETIMEDOUT")
    assert "deadline of -1 s" in error.hint
    monkeypatch.undo()
    before = leftovers()
    fresh = VFS.memory()
    run(import_archive(fresh, data, "sqlite", into="/restored"))  # the next one goes through
    assert tree(fresh, "/restored") == tree(disk, "/p")
    assert leftovers() == before and snapshot(fresh)[0] > 0
