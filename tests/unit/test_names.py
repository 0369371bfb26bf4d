"""The ``names`` keyspace (format 4): every directory entry of the stored nodes, ``parent/name``
-> node id, written in the same commit as the nodes, so that JS resolves a path with a few keyed
reads before Python has booted (web/page/early_reader.mjs). It must be exactly the nodes' entries
after any change, a failed one and a restore included; fsck says when it is not; an older disk
gets it at the upgrade."""

from __future__ import annotations

import json

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.core.node import ROOT_ID, Node, name_key
from py_vfs.storage.memory import MemoryStore


def expected(store: MemoryStore) -> dict[str, str]:
    """The entries the stored node records say there are."""
    names = {}
    for key, record in store.spaces["nodes"].items():
        fields = json.loads(record)
        if fields.get("parent") is not None:
            names[name_key(fields["parent"], fields["name"])] = key
    return names


async def assert_names_follow(vfs: VFS) -> None:
    assert vfs.store.spaces["names"] == expected(vfs.store)
    assert (await vfs.check()).ok


async def changes(vfs: VFS) -> None:
    """Every kind of change a directory entry can go through, checked after each."""
    await vfs.mkdir("/a/b", recursive=True)
    await assert_names_follow(vfs)
    await vfs.write_file("/a/b/f.txt", b"one")
    await vfs.write_file("/a/g.txt", b"two")
    await vfs.symlink("b/f.txt", "/a/link")
    await vfs.copy_file("/a/g.txt", "/a/copy.txt")
    await assert_names_follow(vfs)
    await vfs.write_file("/a/g.txt", b"rewritten")  # same node, same entry
    await vfs.rename("/a/b/f.txt", "/a/f.txt")  # another directory
    await assert_names_follow(vfs)
    await vfs.rename("/a/f.txt", "/a/g.txt")  # over an existing file: the name passes on
    await assert_names_follow(vfs)
    await vfs.rename("/a", "/z")  # a directory: only its own entry moves
    await assert_names_follow(vfs)
    async with vfs.step() as tx:  # several changes, one commit
        await tx.rename("/z/g.txt", "/z/h.txt")
        await tx.write_file("/z/g.txt", b"again")
        await tx.unlink("/z/copy.txt")
    await assert_names_follow(vfs)
    await vfs.rm("/z/b", recursive=True)
    await vfs.unlink("/z/link")
    await assert_names_follow(vfs)


def test_the_names_follow_every_change():
    vfs = VFS.memory()
    run(changes(vfs))
    z = _id(vfs, "/z")
    assert set(vfs.store.spaces["names"]) == {f"{ROOT_ID}/z", f"{z}/g.txt", f"{z}/h.txt"}


def _id(vfs: VFS, path: str) -> str:
    return vfs.resolver.lookup(path, "stat")[0].id


def test_a_failed_step_writes_no_names():
    vfs = VFS.memory()
    run(vfs.write_file("/kept", b"x"))
    before = dict(vfs.store.spaces["names"])

    async def failing():
        async with vfs.step() as tx:
            await tx.rename("/kept", "/moved")
            await tx.write_file("/new", b"y")
            raise RuntimeError("the step's body fails")

    with pytest.raises(RuntimeError):
        run(failing())
    assert vfs.store.spaces["names"] == before
    run(assert_names_follow(vfs))


def test_a_restore_puts_the_names_back():
    vfs = VFS.memory()

    async def scenario():
        await vfs.write_file("/d/f", b"1")
        await vfs.snapshot("base")
        await vfs.rename("/d", "/e")
        await vfs.write_file("/e/g", b"2")
        await assert_names_follow(vfs)
        await vfs.restore("base")
        await assert_names_follow(vfs)

    run(scenario())
    assert set(vfs.store.spaces["names"]) == {f"{ROOT_ID}/d", name_key(_id(vfs, "/d"), "f")}


def test_fsck_reports_a_missing_a_wrong_and_an_extra_entry():
    vfs = VFS.memory()
    run(vfs.write_file("/d/f", b"1"))
    run(vfs.write_file("/d/g", b"2"))
    names = vfs.store.spaces["names"]
    d = _id(vfs, "/d")
    del names[name_key(d, "f")]
    names[name_key(d, "g")] = "0123456789abcdef"
    names[name_key(d, "ghost")] = _id(vfs, "/d/g")
    found = sorted((p.kind, p.where) for p in run(vfs.check()).problems)
    assert found == [("names", "/d/f"), ("names", "/d/g"), ("names", f"names/{d}/ghost")]


def test_a_format_3_disk_gets_its_names_at_the_upgrade():
    store = MemoryStore()
    now = 1732212345678.5
    nodes = [Node(ROOT_ID, None, "", "directory", 0o755, now, now, now),
             Node("00000000000000d1", ROOT_ID, "dir", "directory", 0o755, now, now, now),
             Node("00000000000000f1", "00000000000000d1", "f.txt", "file", 0o644, now, now, now,
                  size=2, inline="aGk=")]
    store.spaces["nodes"] = {node.id: node.to_record() for node in nodes}
    store.spaces["meta"] = {"format": "3", "rev": "0"}

    async def scenario():
        vfs = await VFS.open(store)
        assert store.spaces["meta"]["format"] == "4"
        assert store.spaces["names"] == {f"{ROOT_ID}/dir": "00000000000000d1",
                                         "00000000000000d1/f.txt": "00000000000000f1"}
        assert await vfs.read_file("/dir/f.txt") == b"hi"
        await assert_names_follow(vfs)

    run(scenario())
