"""Snapshots, diff, restore and time travel (py_vfs/data/snapshots.py, py_vfs/disk/journal.py)."""

import hashlib
import random
import time
from asyncio import run

import pytest

from py_vfs.core.errors import FsError
from py_vfs.vfs import VFS

BIG = bytes(range(256)) * 40  # 10 KB: chunked


async def tree_of(vfs: VFS) -> dict[str, tuple]:
    """Every path with what a user sees of it: kind, mode, content hash or link target."""
    out = {}
    for path in vfs.walk("/"):
        info = vfs.lstat(path)
        if info.is_file:
            what = hashlib.sha256(await vfs.read_file(path)).hexdigest()
        else:
            what = info.target
        out[path] = (info.type, info.mode, what)
    return out


async def seeded() -> VFS:
    vfs = VFS.memory()
    await vfs.write_file("/src/main.py", b"print(1)\n")
    await vfs.write_file("/src/data.bin", BIG)
    await vfs.mkdir("/empty")
    await vfs.symlink("src/main.py", "/link")
    await vfs.chmod("/src/main.py", 0o755)
    return vfs


def test_snapshot_diff_and_restore_round_trip_with_renames_and_symlinks():
    async def scenario():
        vfs = await seeded()
        before = await tree_of(vfs)
        made = await vfs.snapshot("base")
        assert made["name"] == "base" and made["nodes"] == 6
        await vfs.rename("/src/data.bin", "/data.bin")
        await vfs.write_file("/src/main.py", b"print(2)\n" * 100)
        await vfs.rm("/empty", recursive=True)
        await vfs.write_file("/new/file.txt", b"new")
        await vfs.rm("/link")
        await vfs.symlink("/nowhere", "/link")
        changes = await vfs.diff("base")
        assert [(c["change"], c["path"]) for c in changes] == [
            ("renamed", "/data.bin"), ("removed", "/empty"), ("modified", "/link"),
            ("added", "/new"), ("added", "/new/file.txt"), ("modified", "/src/main.py")]
        renamed = changes[0]
        assert renamed["oldPath"] == "/src/data.bin" and renamed["size"] == len(BIG)
        assert changes[-1]["oldSize"] == 9 and changes[-1]["size"] == 900
        result = await vfs.restore("base")
        assert result["revision"] == vfs.revision
        assert await tree_of(vfs) == before
        assert await vfs.diff("base") == []
        assert (await vfs.check()).ok

    run(scenario())


def test_a_restore_is_journaled_and_undone_by_restoring_the_revision_before_it():
    async def scenario():
        vfs = await seeded()
        await vfs.snapshot("base")
        await vfs.write_file("/src/main.py", b"edited")
        edited = await tree_of(vfs)
        done = await vfs.restore("base")
        [entry] = await vfs.journal(limit=1)
        assert (entry["revision"], entry["operation"]) == (done["revision"], "restore")
        assert "/src/main.py" in entry["paths"]
        await vfs.restore(revision=done["revision"] - 1)
        assert await tree_of(vfs) == edited

    run(scenario())


def test_restoring_one_subtree_leaves_the_rest_alone():
    async def scenario():
        vfs = await seeded()
        await vfs.snapshot("base")
        await vfs.write_file("/src/main.py", b"changed")
        await vfs.write_file("/src/extra.py", b"extra")
        await vfs.write_file("/other.txt", b"kept")
        await vfs.restore("base", path="/src")
        assert await vfs.read_file("/src/main.py") == b"print(1)\n"
        assert not vfs.exists("/src/extra.py")
        assert await vfs.read_file("/other.txt") == b"kept"
        # A file moved out of the subtree since stays where it is; the restored one is a copy.
        await vfs.rename("/src/data.bin", "/moved.bin")
        await vfs.restore("base", path="/src")
        assert await vfs.read_file("/moved.bin") == BIG
        assert await vfs.read_file("/src/data.bin") == BIG
        # A path that did not exist then is removed by restoring it.
        await vfs.restore("base", path="/other.txt")
        assert not vfs.exists("/other.txt")
        with pytest.raises(FsError) as info:
            await vfs.restore("base", path="/never/was")
        assert info.value.code == "ENOENT"
        assert (await vfs.check()).ok

    run(scenario())


def test_time_travel_to_random_revisions_gives_the_tree_recorded_then():
    async def scenario():
        rng = random.Random(12)
        vfs = VFS.memory()
        trees = {vfs.revision: await tree_of(vfs)}
        names = ["/a", "/b", "/d/c", "/d/e/f", "/g"]
        for _ in range(60):
            path = rng.choice(names)
            action = rng.random()
            try:
                if action < 0.5:
                    size = rng.choice([10, 3000, 600_000])
                    await vfs.write_file(path, bytes([rng.randrange(256)]) * size)
                elif action < 0.65:
                    await vfs.rename(path, rng.choice(names))
                elif action < 0.75:
                    await vfs.rm(path, recursive=True)
                elif action < 0.85:
                    await vfs.symlink(rng.choice(names), path)
                else:
                    await vfs.chmod(path, rng.choice([0o600, 0o644, 0o755]))
            except FsError:
                continue
            trees[vfs.revision] = await tree_of(vfs)
        await vfs.gc(0)  # collection keeps what history needs
        now = await tree_of(vfs)
        for revision in rng.sample(sorted(trees), 5):
            await vfs.restore(revision=revision)
            assert await tree_of(vfs) == trees[revision], f"revision {revision}"
            assert (await vfs.check()).ok
        await vfs.restore(revision=max(trees))
        assert await tree_of(vfs) == now

    run(scenario())


def test_restore_before_a_time():
    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/f", b"one")
        [first] = await vfs.journal(limit=1)
        while time.time() * 1000 <= first["timeMs"] + 1:  # a coarse clock (Pyodide): move on
            pass
        await vfs.write_file("/f", b"two")
        await vfs.restore(before=first["timeMs"])
        assert await vfs.read_file("/f") == b"one"
        await vfs.restore(before="2000-01-01T00:00:00Z")
        assert not vfs.exists("/f")

    run(scenario())


def test_collection_keeps_what_a_snapshot_needs_and_deleting_it_frees_that():
    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/f", BIG)
        await vfs.snapshot("s")
        await vfs.rm("/f")
        await vfs.gc(0)
        await vfs.restore("s")
        assert await vfs.read_file("/f") == BIG
        await vfs.rm("/f")
        await vfs.delete_snapshot("s")
        assert await vfs.snapshots() == []
        assert (await vfs.check()).ok

    run(scenario())


def test_snapshot_names_and_missing_states_are_clear_errors():
    async def scenario():
        vfs = await seeded()
        await vfs.snapshot("one")
        cases = [
            (vfs.snapshot("one"), "EEXIST"), (vfs.snapshot(""), "EINVAL"),
            (vfs.snapshot("a/b"), "EINVAL"), (vfs.delete_snapshot("nope"), "ENOENT"),
            (vfs.diff("nope"), "ENOENT"), (vfs.restore("nope"), "ENOENT"),
            (vfs.restore(revision=10**6), "EINVAL"), (vfs.restore(), "EINVAL"),
            (vfs.diff({"what": 1}), "EINVAL"),
        ]
        for call, code in cases:
            with pytest.raises(FsError) as info:
                await call
            assert info.value.code == code
        assert [s["name"] for s in await vfs.snapshots()] == ["one"]

    run(scenario())


def test_diff_between_two_snapshots_and_a_revision():
    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/a", b"1")
        await vfs.snapshot("one")
        start = vfs.revision
        await vfs.write_file("/b", b"2")
        await vfs.snapshot("two")
        assert [(c["change"], c["path"]) for c in await vfs.diff("one", "two")] == [
            ("added", "/b")]
        assert [(c["change"], c["path"]) for c in await vfs.diff("two", start)] == [
            ("removed", "/b")]
        assert await vfs.diff({"revision": start}, "one") == []

    run(scenario())


def test_the_snapshot_count_limit_is_exact(monkeypatch):
    """At most MAX_SNAPSHOTS snapshots (docs/data.md says 1,000): the last one allowed is made,
    the one after it is ENOSPC and changes nothing, and deleting one makes room again. The
    boundary is tried with the limit lowered to 3 (1,000 snapshots take seconds)."""
    from pathlib import Path

    from py_vfs.data import snapshots

    docs = (Path(__file__).parents[2] / "docs" / "data.md").read_text()
    assert snapshots.MAX_SNAPSHOTS == 1000 and "at most 1,000 snapshots" in docs
    monkeypatch.setattr(snapshots, "MAX_SNAPSHOTS", 3)

    async def scenario():
        vfs = VFS.memory()
        await vfs.write_file("/a", "a")
        for name in ("one", "two", "three"):  # the third is the last allowed
            await vfs.snapshot(name)
        revision = vfs.revision
        with pytest.raises(FsError) as info:
            await vfs.snapshot("four")
        assert info.value.code == "ENOSPC"
        assert vfs.revision == revision
        assert [s["name"] for s in await vfs.snapshots()] == ["one", "two", "three"]
        await vfs.delete_snapshot("two")
        await vfs.snapshot("four")
        assert [s["name"] for s in await vfs.snapshots()] == ["one", "three", "four"]

    run(scenario())
