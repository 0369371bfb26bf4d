"""The worker's half of the page's stat cache (py_vfs/web/page_cache.py): which answers are stamped
with a view, when the view moves and is posted, and the listing that fills the cache.
The page's half and the whole in Chromium: tests/pyodide/stat_cache.test.mjs,
tests/e2e/test_stat_cache.py."""

from __future__ import annotations

import hashlib
from array import array

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.core.node import ROOT_ID, Node, ino_of
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.mounts import LocalBackend
from py_vfs.storage.memory import MemoryStore
from py_vfs.web.page_cache import listing
from py_vfs.web.webapi import WebAPI


@pytest.fixture
def posted() -> list[int]:
    return []


@pytest.fixture
def api(posted) -> WebAPI:
    vfs = VFS.memory()
    run(vfs.write_file("/d/a.txt", b"abc"))
    run(vfs.mkdir("/d/sub"))
    run(vfs.symlink("/d/a.txt", "/d/link"))
    return WebAPI(vfs, invalidate=posted.append)


def call(api: WebAPI, op: str, *args):
    """The envelope the worker would post for a synchronous operation (the cacheable ones all
    are; an async operation's Future never passes through the stamp)."""
    envelope = api.call(op, list(args))
    assert isinstance(envelope, dict)
    return envelope


def test_only_reads_the_page_may_keep_are_stamped(api):
    assert call(api, "stat", "/d/a.txt")["view"] == 0
    assert call(api, "lstat", "/d/link")["view"] == 0
    assert call(api, "exists", "/nope") == {"value": False, "view": 0}
    assert call(api, "readdir", "/d")["view"] == 0
    assert "view" not in call(api, "realpath", "/d/link")
    assert "view" not in call(api, "walk", "/d")


def test_only_errors_that_follow_from_the_index_are_stamped(api):
    assert call(api, "stat", "/d/missing")["error"]["code"] == "ENOENT"
    assert "view" in call(api, "stat", "/d/missing")
    assert "view" in call(api, "lstat", "/d/a.txt/x")  # ENOTDIR
    einval = call(api, "stat", "/d/\0")
    assert einval["error"]["code"] == "EINVAL" and "view" not in einval


def test_a_change_after_a_stamp_moves_the_view_once_and_posts_it(api, posted):
    run(api.vfs.write_file("/d/c.txt", b"1"))
    assert posted == []  # nothing stamped yet: nothing for the page to drop
    call(api, "stat", "/d/a.txt")
    run(api.vfs.rm("/d/sub", recursive=True))
    run(api.vfs.write_file("/d/c.txt", b"2"))
    assert posted == [1]
    assert call(api, "stat", "/d/c.txt")["view"] == 1


def test_another_tabs_commit_moves_the_view_when_caught_up(posted):
    store = MemoryStore()
    first, second = run(_two(store))
    api = WebAPI(first, invalidate=posted.append)
    call(api, "readdirStats", "/")
    run(second.write_file("/new.txt", b"x"))
    assert posted == []
    run(first.sync())
    assert posted == [1]


async def _two(store: MemoryStore) -> tuple[VFS, VFS]:
    return await VFS.open(store), await VFS.open(store)


def test_listing_carries_every_entrys_lstat(api):
    answer = call(api, "readdirStats", "/d")
    assert answer["view"] == 0
    value = answer["value"]
    assert value["path"] == "/d"
    assert value["names"].split("/") == ["a.txt", "link", "sub"]
    assert value["kinds"].split(",") == ["file", "symlink", "directory"]
    numbers = array("d", value["numbers"])
    ids = value["ids"].split("/")  # every id is one new_id made: the page derives the inos
    for i, name in enumerate(["a.txt", "link", "sub"]):
        stat = api.vfs.lstat(f"/d/{name}")
        assert list(numbers[i * 6:i * 6 + 6]) == [
            stat.size, stat.mode, stat.mtime_ms, stat.ctime_ms, stat.atime_ms, 0]
        assert ino_of(ids[i]) == stat.ino == int(ids[i][:13], 16)


@pytest.mark.parametrize("odd", ["0123456789ABCdef", "short", "0123456789abc/ef",
                                 "0123/56789abcdef", "0123456789abcdefff", "0123456789abcdéf"])
def test_a_listing_with_an_id_the_page_cannot_derive_sends_every_ino(odd):
    """Ids the disk did not make itself (a SQLite image's or another dock client's may be any
    text) are not sent: every entry's ino is, as ``ino_of`` makes it."""
    vfs = VFS.memory()
    run(vfs.write_file("/d/a.txt", b"abc"))
    run(vfs.write_file("/d/b.txt", b"abc"))
    folder = next(node.id for node in vfs.index.nodes.values() if node.name == "d")
    vfs.index.load([Node("0123456789abcdef", folder, "c.txt", "file", 0o644, 1.0, 1.0, 1.0),
                    Node(odd, folder, "odd.txt", "file", 0o644, 1.0, 1.0, 1.0)])
    value = listing(vfs, "/d")
    assert "ids" not in value
    numbers = array("d", value["numbers"])
    for i, name in enumerate(value["names"].split("/")):
        assert numbers[i * 6 + 5] == vfs.lstat(f"/d/{name}").ino > 0


def test_a_listings_ino_is_the_nodes_whatever_its_id():
    """``ino_of`` (listed once per entry): the first 13 hex digits of a stored node's id, the
    root's 2, a hash for any other id (a mounted folder's, made from its path), never 0."""
    assert ino_of("0123456789abcdef") == 0x0123456789abc
    assert ino_of("0000000000000ff") == 1
    assert ino_of(ROOT_ID) == 2
    for other in ("0123456789abXdef", "0123456789ABCdef", "short", "m:/a/b/c/d/e/f/g", ""):
        ino = ino_of(other)
        assert 0 < ino < 2**52 and ino == ino_of(other)
    assert ino_of("0123456789ABCdef") != 0x0123456789abc


def test_listing_of_an_empty_directory_and_errors(api):
    run(api.vfs.mkdir("/empty"))
    assert call(api, "readdirStats", "/empty")["value"]["names"] == ""
    assert call(api, "readdirStats", "/d/a.txt")["error"]["code"] == "ENOTDIR"


def test_nothing_that_reaches_a_mounted_folder_is_stamped(tmp_path, posted):
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "f.txt").write_text("hi")
    vfs = VFS.memory()
    run(vfs.write_file("/m/disk.txt", b"d"))
    run(vfs.mount("/m/mnt", LocalBackend(str(folder))))
    api = WebAPI(vfs, invalidate=posted.append)
    for op, path in [("stat", "/m/mnt"), ("stat", "/m/mnt/f.txt"), ("lstat", "/m/mnt/f.txt"),
                     ("exists", "/m/mnt/f.txt"), ("stat", "/m/mnt/missing"),
                     ("readdirStats", "/m/mnt")]:
        assert "view" not in call(api, op, path), (op, path)
    run(vfs.symlink("/m/mnt/f.txt", "/m/to-folder"))
    assert "view" not in call(api, "stat", "/m/to-folder")
    assert "view" in call(api, "lstat", "/m/to-folder")
    listing = call(api, "readdirStats", "/m")
    assert "view" in listing
    numbers = array("d", listing["value"]["numbers"])
    names = listing["value"]["names"].split("/")
    assert names == ["disk.txt", "mnt", "to-folder"]
    assert numbers[names.index("mnt") * 6] == -1  # the mount point's stat is the folder's
    assert numbers[names.index("disk.txt") * 6] == 1


def test_given_digests_name_the_chunks_as_sha256_would():
    data = bytes(range(256)) * (CHUNK_SIZE // 128 + 3)
    digests = [hashlib.sha256(data[i:i + CHUNK_SIZE]).hexdigest()
               for i in range(0, len(data), CHUNK_SIZE)]
    hashed, given = VFS.memory(), VFS.memory()
    run(hashed.write_file("/f", data))
    run(given.write_file("/f", data, digests=digests))
    run(given.write_file("/g", data, digests=digests[:1]))  # not this data's: ignored
    assert given.index.child(given.index.root, "f").chunks == tuple(digests)
    assert hashed.index.child(hashed.index.root, "f").chunks == tuple(digests)
    assert given.index.child(given.index.root, "g").chunks == tuple(digests)
    assert run(given.read_file("/f")) == data
    assert run(given.check()).ok


def test_the_listing_works_on_a_steps_tx():
    """Inside a step the JS API lists a directory the same way (``readdirStats`` runs
    ``listing`` on the step's tx, which must offer scandir and the mount table) and sees the
    step's own writes."""
    async def body() -> dict:
        vfs = VFS.memory()
        await vfs.write_file("/d/a", "x")
        async with vfs.step() as tx:
            await tx.write_file("/d/b", "y")
            return listing(tx, "/d")

    assert run(body())["names"] == "a/b"


def test_a_guest_tabs_api_shares_the_disk_and_the_views_and_has_a_shell_of_its_own(api, posted):
    # docs/architecture.md, "One runtime for every tab": one index moves one view for every tab.
    events = []
    guest = api.guest(lambda watch_id, event: events.append((watch_id, event)))
    assert guest.views is api.views

    async def answer(target: WebAPI, op: str, *args):
        found = target.call(op, list(args))
        return found if isinstance(found, dict) else await found

    async def scenario() -> None:
        assert (await answer(guest, "stat", "/d/a.txt"))["view"] == 0
        await answer(api, "writeFile", "/d/new.txt", b"x")
        assert posted == [1]
        assert await answer(guest, "exists", "/d/new.txt") == {"value": True, "view": 1}
        await answer(guest, "shell", "cd /d")
        assert (await answer(guest, "shell", "pwd"))["value"]["stdout"] == "/d\n"
        assert (await answer(api, "shell", "pwd"))["value"]["stdout"] != "/d\n"
        await answer(guest, "watch", 7, "/d")
        await answer(api, "writeFile", "/d/seen.txt", b"y")
        assert [watch_id for watch_id, _ in events] == [7]
        guest.unwatch_all()
        await answer(api, "writeFile", "/d/unseen.txt", b"z")
        assert len(events) == 1

    run(scenario())


def _walk_tree() -> WebAPI:
    vfs = VFS.memory()
    for path in ["/w/a/1", "/w/b/1", "/w/c/1", "/w/c/2", "/w/e/1", "/w/file"]:
        run(vfs.write_file(path, b"x"))
    run(vfs.mkdir("/w/d"))
    run(vfs.symlink("/w/c", "/w/link"))
    return WebAPI(vfs, invalidate=lambda view: None)


def test_a_listing_with_siblings_brings_the_directories_after_it():
    api = _walk_tree()
    assert "siblings" not in call(api, "readdirStats", "/w/b")["value"]
    answer = call(api, "readdirStats", "/w/b", {"siblings": True})
    assert answer["view"] == 0
    siblings = answer["value"]["siblings"]
    # after "b" in name order, directories only (not the file, not the link to a directory)
    assert [s["path"] for s in siblings] == ["/w/c", "/w/d", "/w/e"]
    assert siblings[0] == listing(api.vfs, "/w/c")
    assert siblings[1]["names"] == "" and siblings[2]["names"] == "1"
    assert call(api, "readdirStats", "/w/e", {"siblings": True})["value"]["siblings"] == []
    assert call(api, "readdirStats", "/", {"siblings": True})["value"].get("siblings") is None
    refused = call(api, "readdirStats", "/w/b", {"siblings": "yes"})
    assert refused["error"]["code"] == "EINVAL"


def test_siblings_stop_within_their_budget(monkeypatch):
    from py_vfs.web import page_cache
    api = _walk_tree()
    # a directory counts its entries and itself: /w/b 2, /w/c 3, /w/d 1
    monkeypatch.setattr(page_cache, "SIBLING_ENTRIES", 5)
    paths = [s["path"] for s in call(api, "readdirStats", "/w/a", {"siblings": True})
             ["value"]["siblings"]]
    assert paths == ["/w/b", "/w/c"]
    monkeypatch.setattr(page_cache, "SIBLING_DIRS", 1)
    paths = [s["path"] for s in call(api, "readdirStats", "/w/a", {"siblings": True})
             ["value"]["siblings"]]
    assert paths == ["/w/b"]


def test_no_siblings_while_a_folder_is_mounted(tmp_path):
    api = _walk_tree()
    run(api.vfs.mount("/w/d", LocalBackend(str(tmp_path))))
    answer = call(api, "readdirStats", "/w/b", {"siblings": True})
    assert "view" in answer and "siblings" not in answer["value"]
