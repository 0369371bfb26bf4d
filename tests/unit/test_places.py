"""One suite for the file API, run on each place a file can live: the disk over each store of
CPython (memory, a SQLite file) and a host folder mounted with ``LocalBackend`` (the browser's
folders, ``mounts/fsa.py``, need JSPI: tests/pyodide/fsa.test.mjs and tests/e2e/test_mounts.py
cover them), as CPython's pathlib tests run one suite on local and zip paths. Each test gets a
``place``: a VFS and the directory below which the test works.

The stores themselves keep one contract, store_contract.py; test_differential.py holds the
disk against Linux and test_mount_differential.py a mounted folder against the disk, answer
for answer.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from helpers import run
from host_folder import code_of

from py_vfs import VFS
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.mounts import LocalBackend
from py_vfs.storage.sqlite import SQLiteStore


class Place(NamedTuple):
    vfs: VFS
    root: str
    host: Path | None = None  # the mounted folder, where its files must land

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"


def _memory(tmp_path) -> Place:
    return Place(VFS.memory(), "")


def _sqlite(tmp_path) -> Place:
    return Place(run(VFS.open(SQLiteStore(tmp_path / "disk.db"))), "")


def _folder(tmp_path) -> Place:
    vfs = VFS.memory()
    (tmp_path / "folder").mkdir()
    run(vfs.mount("/m", LocalBackend(str(tmp_path / "folder"))))
    return Place(vfs, "/m", tmp_path / "folder")


PLACES = {"memory": _memory, "sqlite": _sqlite, "mounted-folder": _folder}


@pytest.fixture(params=list(PLACES))
def place(request, tmp_path) -> Iterator[Place]:
    made = PLACES[request.param](tmp_path)
    yield made
    made.vfs.close()


def test_a_file_is_written_appended_truncated_and_read_back(place):
    vfs, f = place.vfs, place.path("d/f.txt")
    run(vfs.write_file(f, "hello"))  # the missing parent is made
    run(vfs.append_file(f, " world"))
    assert run(vfs.read_file(f)) == b"hello world"
    run(vfs.truncate(f, 5))
    assert run(vfs.read_file(f, "utf-8")) == "hello"
    assert (vfs.stat(f).type, vfs.stat(f).size) == ("file", 5)
    run(vfs.write_file(f, b""))
    assert run(vfs.read_file(f)) == b""


def test_directories_list_sorted_and_refuse_what_posix_refuses(place):
    vfs = place.vfs
    run(vfs.mkdir(place.path("a/b"), recursive=True))
    for name in ("z", "c", "a/x"):
        run(vfs.write_file(place.path(name), name))
    assert vfs.readdir(place.path("")) == ["a", "c", "z"]
    assert [(e.name, e.type) for e in vfs.readdir(place.path("a"), with_types=True)] == [
        ("b", "directory"), ("x", "file")]
    assert code_of(lambda: vfs.mkdir(place.path("a"))) == "EEXIST"
    assert code_of(lambda: vfs.mkdir(place.path("no/such"))) == "ENOENT"
    assert code_of(lambda: vfs.rmdir(place.path("a"))) == "ENOTEMPTY"
    assert code_of(lambda: vfs.readdir(place.path("c"))) == "ENOTDIR"
    assert code_of(lambda: vfs.read_file(place.path("a"))) == "EISDIR"
    assert code_of(lambda: vfs.write_file(place.path("c/under"), "x")) == "ENOTDIR"
    assert code_of(lambda: vfs.read_file(place.path("missing"))) == "ENOENT"


def test_rename_moves_and_replaces_and_rm_removes_a_tree(place):
    vfs = place.vfs
    run(vfs.write_file(place.path("t/one"), "1"))
    run(vfs.write_file(place.path("t/two"), "2"))
    run(vfs.rename(place.path("t/one"), place.path("t/two")))
    assert vfs.readdir(place.path("t")) == ["two"]
    assert run(vfs.read_file(place.path("t/two"))) == b"1"
    run(vfs.rename(place.path("t"), place.path("u")))
    assert not vfs.exists(place.path("t")) and vfs.readdir(place.path("u")) == ["two"]
    assert code_of(lambda: vfs.rename(place.path("u"), place.path("u/inner"))) == "EINVAL"
    run(vfs.rm(place.path("u"), recursive=True))
    assert not vfs.exists(place.path("u"))


def test_copies_make_independent_files(place):
    vfs = place.vfs
    run(vfs.write_file(place.path("src/a"), "a"))
    run(vfs.copy_file(place.path("src/a"), place.path("b")))
    run(vfs.cp(place.path("src"), place.path("dst"), recursive=True))
    run(vfs.write_file(place.path("src/a"), "changed"))
    assert run(vfs.read_file(place.path("b"))) == b"a"
    assert run(vfs.read_file(place.path("dst/a"))) == b"a"


def test_a_large_file_streams_in_and_out_by_the_chunk(place):
    vfs, f = place.vfs, place.path("big.bin")
    data = os.urandom(2 * CHUNK_SIZE + 123)
    run(vfs.write_stream(f, [data[i:i + 100_000] for i in range(0, len(data), 100_000)]))

    async def pieces(start: int = 0, end: int | None = None) -> list[bytes]:
        return [piece async for piece in vfs.open_read(f, start, end)]

    got = run(pieces())
    assert b"".join(got) == data and max(map(len, got)) == CHUNK_SIZE
    assert b"".join(run(pieces(CHUNK_SIZE - 5, CHUNK_SIZE + 5))) == data[CHUNK_SIZE - 5:
                                                                        CHUNK_SIZE + 5]
    assert vfs.stat(f).size == len(data)
    if place.host is not None:
        assert (place.host / "big.bin").read_bytes() == data


def test_an_aborted_stream_leaves_the_old_content(place):
    vfs, f = place.vfs, place.path("kept.txt")
    run(vfs.write_file(f, "old"))

    async def abandon() -> None:
        writer = vfs.stream_writer(f)
        await writer.write(b"x" * (CHUNK_SIZE + 1))
        await writer.abort()

    run(abandon())
    assert run(vfs.read_file(f)) == b"old"
    assert vfs.readdir(place.path("")) == ["kept.txt"]
    if place.host is not None:  # no temporary left behind either
        assert os.listdir(place.host) == ["kept.txt"]
