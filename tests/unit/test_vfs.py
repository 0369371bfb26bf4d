"""The core's semantics on the memory store, and durability through the store interface."""

from __future__ import annotations

import os
import random
import sys

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.disk.journal import Retention
from py_vfs.storage.memory import MemoryStore


def code_of(coro) -> str:
    with pytest.raises(FsError) as info:
        run(coro)
    return info.value.code


def test_write_creates_parents_and_reads_back(vfs):
    run(vfs.write_file("/a/b/c.txt", "héllo"))
    assert run(vfs.read_file("/a/b/c.txt")) == "héllo".encode()
    assert run(vfs.read_file("/a/b/c.txt", "utf-8")) == "héllo"
    assert vfs.readdir("/a") == ["b"]
    assert vfs.stat("/a/b").type == "directory"
    assert vfs.stat("/a/b/c.txt").size == len("héllo".encode())


def test_errors_are_oserror_subclasses_with_codes(vfs):
    with pytest.raises(FileNotFoundError) as info:
        run(vfs.read_file("/missing/file"))
    error = info.value
    assert isinstance(error, FsError)
    assert error.code == "ENOENT"
    assert error.filename == "/missing/file"
    assert str(error) == "ENOENT: no such file or directory, open '/missing/file'"
    run(vfs.write_file("/f", "x"))
    with pytest.raises(NotADirectoryError):
        vfs.readdir("/f")
    with pytest.raises(IsADirectoryError):
        run(vfs.read_file("/"))
    with pytest.raises(FileExistsError):
        run(vfs.mkdir("/f"))


def test_paths_are_normalized_and_validated(vfs):
    run(vfs.write_file("x/./y/../z.txt", "1"))
    assert run(vfs.read_file("/x/z.txt")) == b"1"
    assert run(vfs.read_file("/../../x/z.txt")) == b"1"
    assert code_of(vfs.write_file("/bad\0name", "x")) == "EINVAL"
    assert code_of(vfs.write_file("/" + "n" * 256, "x")) == "ENAMETOOLONG"
    assert code_of(vfs.read_file("/x/z.txt/")) == "ENOTDIR"


def test_mkdir_rm_rmdir(vfs):
    assert code_of(vfs.mkdir("/p/q")) == "ENOENT"
    run(vfs.mkdir("/p/q", recursive=True))
    run(vfs.mkdir("/p/q", recursive=True))
    run(vfs.write_file("/p/q/f", "1"))
    assert code_of(vfs.rmdir("/p")) == "ENOTEMPTY"
    assert code_of(vfs.rm("/p")) == "ENOTEMPTY"
    assert code_of(vfs.rmdir("/p/q/f")) == "ENOTDIR"
    assert code_of(vfs.rm("/")) == "EPERM"
    assert code_of(vfs.mkdir("/")) == "EEXIST"
    assert code_of(vfs.write_file("/", "x")) == "EISDIR"
    assert code_of(vfs.rename("/", "/x")) == "EPERM"
    run(vfs.rm("/p", recursive=True))
    assert not vfs.exists("/p")
    assert code_of(vfs.rm("/p")) == "ENOENT"
    run(vfs.rm("/p", force=True))


def test_rename_follows_linux(vfs):
    run(vfs.write_file("/d/f", "1"))
    run(vfs.write_file("/g", "2"))
    run(vfs.rename("/g", "/d/f"))
    assert run(vfs.read_file("/d/f")) == b"2"
    run(vfs.mkdir("/e"))
    run(vfs.rename("/d", "/e"))
    assert vfs.readdir("/e") == ["f"]
    run(vfs.mkdir("/full"))
    run(vfs.write_file("/full/x", ""))
    assert code_of(vfs.rename("/e", "/full")) == "ENOTEMPTY"
    assert code_of(vfs.rename("/e", "/e/f2")) == "EINVAL"
    assert code_of(vfs.rename("/e/f", "/full")) == "EISDIR"
    assert code_of(vfs.rename("/full", "/e/f")) == "ENOTDIR"
    run(vfs.rename("/e", "/e"))
    assert vfs.exists("/e/f")


def test_symlinks(vfs):
    run(vfs.write_file("/dir/target.txt", "t"))
    run(vfs.symlink("target.txt", "/dir/rel"))
    run(vfs.symlink("/dir", "/abs"))
    assert run(vfs.read_file("/dir/rel")) == b"t"
    assert run(vfs.read_file("/abs/rel")) == b"t"
    assert vfs.lstat("/dir/rel").type == "symlink"
    assert vfs.stat("/dir/rel").type == "file"
    assert vfs.readlink("/dir/rel") == "target.txt"
    assert vfs.realpath("/abs/rel") == "/dir/target.txt"
    run(vfs.symlink("nowhere", "/dangling"))
    assert not vfs.exists("/dangling")
    assert vfs.lstat("/dangling").type == "symlink"
    run(vfs.write_file("/dangling", "made"))
    assert run(vfs.read_file("/nowhere")) == b"made"
    run(vfs.symlink("loop", "/loop"))
    assert code_of(vfs.read_file("/loop")) == "ELOOP"
    run(vfs.rm("/abs", recursive=True))
    assert vfs.exists("/dir/target.txt")


def test_copies_share_content_and_rm_reclaims_it():
    vfs = VFS.memory(retention=Retention(0, 0))  # no history to keep the chunks
    store = vfs.store
    assert isinstance(store, MemoryStore)
    data = random.Random(7).randbytes(CHUNK_SIZE * 2 + 10)
    run(vfs.write_file("/src/big.bin", data))
    assert len(store.spaces["chunks"]) == 3
    run(vfs.cp("/src", "/dst", recursive=True))
    assert len(store.spaces["chunks"]) == 3
    assert run(vfs.read_file("/dst/big.bin")) == data
    run(vfs.rm("/src", recursive=True))
    assert len(store.spaces["chunks"]) == 3
    run(vfs.rm("/dst", recursive=True))
    assert store.spaces["chunks"] == {}


def test_append_truncate_touch_utimes_chmod(vfs):
    run(vfs.append_file("/log", "a"))
    run(vfs.append_file("/log", "b"))
    assert run(vfs.read_file("/log")) == b"ab"
    run(vfs.truncate("/log", 5))
    assert run(vfs.read_file("/log")) == b"ab\0\0\0"
    run(vfs.truncate("/log", 1))
    assert run(vfs.read_file("/log")) == b"a"
    run(vfs.touch("/new"))
    assert vfs.stat("/new").size == 0
    run(vfs.utimes("/new", 1000, 2000))
    assert vfs.stat("/new").mtime_ms == 2000
    run(vfs.chmod("/new", 0o600))
    assert vfs.stat("/new").mode == 0o600


def test_directory_mtime_changes_with_entries(vfs):
    run(vfs.mkdir("/d"))
    run(vfs.utimes("/d", 0, 0))
    run(vfs.write_file("/d/f", "x"))
    assert vfs.stat("/d").mtime_ms > 0


def test_reopen_sees_committed_state_and_reads_no_content_at_boot():
    store = MemoryStore()

    async def scenario():
        first = await VFS.open(store)
        await first.write_file("/w/a.txt", "A")
        await first.symlink("a.txt", "/w/link")
        await first.rename("/w", "/v")
        store.reads.clear()
        second = await VFS.open(store)
        assert [space for space, _ in store.reads if space != "meta"] == ["nodes"]
        assert second.readdir("/v") == ["a.txt", "link"]
        assert await second.read_file("/v/link") == b"A"

    run(scenario())


def test_ino_is_the_nodes_own_across_renames_rewrites_and_a_reopen():
    """Stat.ino (docs/api.md, "Stats"): from the node's id, so a rename or a rewrite keeps it
    and a reopen reads it back; never 0, another for another file, 2 for the root."""
    store = MemoryStore()

    async def scenario():
        first = await VFS.open(store)
        await first.write_file("/w/a.txt", "A")
        await first.write_file("/w/b.txt", "B")
        await first.symlink("a.txt", "/w/link")
        ino = first.stat("/w/a.txt").ino
        await first.rename("/w/a.txt", "/w/moved.txt")
        await first.write_file("/w/moved.txt", "rewritten")
        await first.append_file("/w/moved.txt", "!")
        await first.truncate("/w/moved.txt", 3)
        assert first.stat("/w/moved.txt").ino == ino
        others = {first.stat("/w/b.txt").ino, first.lstat("/w/link").ino, first.stat("/w").ino}
        assert 0 not in others and ino not in others and len(others) == 3
        assert first.stat("/").ino == 2
        assert first.stat("/w/moved.txt").to_dict()["ino"] == ino
        second = await VFS.open(store)
        assert second.stat("/w/moved.txt").ino == ino
        assert second.lstat("/w/link").ino == first.lstat("/w/link").ino

    run(scenario())


class FailingStore(MemoryStore):
    fail = False

    async def commit(self, ops):
        if self.fail:
            raise FsError.of("ENOSPC", "write", "/")
        await super().commit(ops)


def test_failed_commit_changes_nothing():
    store = FailingStore()

    async def scenario():
        vfs = await VFS.open(store)
        await vfs.write_file("/keep/a", "old")
        before = dict(store.spaces["nodes"])
        store.fail = True
        for attempt in (vfs.write_file("/keep/a", "new"), vfs.write_file("/x/y/z", "n"),
                        vfs.rm("/keep", recursive=True), vfs.rename("/keep", "/moved")):
            with pytest.raises(FsError) as info:
                await attempt
            assert info.value.code == "ENOSPC"
        assert await vfs.read_file("/keep/a") == b"old"
        assert vfs.readdir("/") == ["keep"]
        assert store.spaces["nodes"] == before
        store.fail = False
        await vfs.write_file("/keep/a", "new")
        assert await vfs.read_file("/keep/a") == b"new"

    run(scenario())


def test_walk_and_du(vfs):
    run(vfs.write_file("/t/a", "12"))
    run(vfs.write_file("/t/s/b", "345"))
    run(vfs.write_file("/tt/c", "x"))
    assert vfs.walk("/t") == ["/t/a", "/t/s/b"]
    assert vfs.du("/t") == 5


# Fixes found by the differential tests against Linux (tests/unit/test_differential.py); each
# test pins what the kernel answers.


def test_writes_with_a_trailing_slash_are_eisdir(vfs):
    """open(O_CREAT) refuses a trailing slash whatever is there, also at a link's target."""
    run(vfs.write_file("/f", "x"))
    run(vfs.mkdir("/d"))
    assert code_of(vfs.append_file("/f/", "y")) == "EISDIR"
    assert code_of(vfs.write_file("/d/", "y")) == "EISDIR"
    assert code_of(vfs.copy_file("/f", "/new/")) == "EISDIR"
    run(vfs.symlink("f/", "/to_file"))
    run(vfs.symlink("nothing/", "/to_nothing"))
    run(vfs.symlink("self/", "/self"))
    for link in ("/to_file", "/to_nothing", "/self"):
        assert code_of(vfs.write_file(link, "y")) == "EISDIR"
    assert code_of(vfs.read_file("/to_file")) == "ENOTDIR"
    assert code_of(vfs.read_file("/f/.")) == "ENOTDIR"
    assert sorted(vfs.readdir("/")) == ["d", "f", "self", "to_file", "to_nothing"]
    assert run(vfs.read_file("/f")) == b"x"


def test_dangling_link_target_is_resolved_physically_on_write(vfs):
    """``..`` after a link inside a target climbs from where that link leads."""
    run(vfs.mkdir("/c/d", recursive=True))
    run(vfs.symlink("c/d", "/m"))
    run(vfs.symlink("m/../y", "/l"))
    run(vfs.write_file("/l", "made"))
    assert run(vfs.read_file("/c/y")) == b"made"
    assert not vfs.exists("/y")


def test_parents_through_a_dangling_link_keep_the_link(vfs):
    """mkdir -p answers as os.makedirs does, and the link is never replaced by a directory."""
    run(vfs.symlink("nowhere", "/l"))
    run(vfs.symlink("loop", "/loop"))
    assert code_of(vfs.mkdir("/l", recursive=True)) == "EEXIST"
    assert code_of(vfs.mkdir("/l/x", recursive=True)) == "ENOENT"
    assert code_of(vfs.mkdir("/loop/x", recursive=True)) == "ELOOP"
    assert code_of(vfs.write_file("/l/f", "x")) == "ENOENT"
    assert vfs.lstat("/l").type == "symlink"
    assert vfs.readdir("/") == ["l", "loop"]
    assert not vfs.exists("/nowhere")


def test_symlink_creation_errors(vfs):
    assert code_of(vfs.symlink("", "/empty")) == "ENOENT"
    assert code_of(vfs.symlink("t", "/new/")) == "ENOENT"
    assert code_of(vfs.symlink("a" * 4096, "/long")) == "ENAMETOOLONG"
    run(vfs.symlink("nowhere", "/dangling"))
    assert code_of(vfs.symlink("t", "/dangling/")) == "EEXIST"
    run(vfs.symlink("a" * 4095, "/longest"))
    assert vfs.readdir("/") == ["dangling", "longest"]


def test_path_max_counts_the_terminating_nul(vfs):
    longest = "/" * 4092 + "abc"
    assert len(longest) == 4095
    assert not vfs.exists(longest)
    assert code_of(vfs.write_file("/" + longest, "x")) == "ENAMETOOLONG"


def test_rename_checks_in_the_kernels_order(vfs):
    run(vfs.write_file("/a/f", "1"))
    run(vfs.write_file("/g", "2"))
    assert code_of(vfs.rename("/a/f", "/a")) == "ENOTEMPTY"
    assert code_of(vfs.rename("/missing", "/g/x")) == "ENOTDIR"
    assert code_of(vfs.rename("/g", "/a/f/")) == "ENOTDIR"
    assert code_of(vfs.rename("/g", "/g/")) == "ENOTDIR"
    assert code_of(vfs.rename("/g/", "/h")) == "ENOTDIR"
    assert code_of(vfs.rename("/missing/x", "/")) == "ENOENT"
    assert code_of(vfs.rename("/g", "/a/..")) == "EPERM"
    assert run(vfs.read_file("/a/f")) == b"1"
    assert run(vfs.read_file("/g")) == b"2"


def test_appending_nothing_changes_nothing(vfs):
    run(vfs.write_file("/f", "x"))
    run(vfs.utimes("/f", 1000, 1000))
    run(vfs.append_file("/f", b""))
    assert vfs.stat("/f").mtime_ms == 1000
    run(vfs.append_file("/new", b""))
    assert vfs.stat("/new").size == 0


def test_copy_onto_itself_changes_nothing(vfs):
    run(vfs.write_file("/f", "x"))
    run(vfs.symlink("f", "/l"))
    run(vfs.utimes("/f", 1000, 1000))
    run(vfs.copy_file("/f", "/l"))
    run(vfs.cp("/l", "/l"))
    assert vfs.stat("/f").mtime_ms == 1000
    assert vfs.readlink("/l") == "f"


def test_cp_into_itself_through_a_link_is_einval(vfs):
    run(vfs.write_file("/a/f", "x"))
    run(vfs.symlink("a", "/l"))
    assert code_of(vfs.cp("/a", "/l/copy", recursive=True)) == "EINVAL"
    assert vfs.readdir("/a") == ["f"]


def test_cp_merges_into_the_root_and_links_onto_names(vfs):
    run(vfs.write_file("/src/f", "x"))
    run(vfs.cp("/src", "/", recursive=True))
    assert run(vfs.read_file("/f")) == b"x"
    run(vfs.symlink("f", "/src/l"))
    run(vfs.symlink("gone", "/dangling"))
    assert code_of(vfs.cp("/src/l", "/")) == "EISDIR"
    assert code_of(vfs.cp("/src/l", "/dangling/")) == "EEXIST"
    assert code_of(vfs.cp("/src/l", "/new/")) == "ENOENT"
    run(vfs.cp("/src/l", "/dangling"))
    assert vfs.readlink("/dangling") == "f"


def test_a_chain_of_40_links_resolves_and_41_is_eloop(vfs):
    """Linux's MAXSYMLINKS: 40 links followed in one lookup."""
    run(vfs.write_file("/f", "x"))
    previous = "f"
    for i in range(41):
        run(vfs.symlink(previous, f"/l{i}"))
        previous = f"l{i}"
    assert run(vfs.read_file("/l39")) == b"x"
    assert code_of(vfs.read_file("/l40")) == "ELOOP"


def test_cp_of_a_directory_onto_a_dangling_link_keeps_the_link(vfs):
    """mkdir of a name a dangling link holds is EEXIST; the link is never replaced."""
    run(vfs.mkdir("/src"))
    run(vfs.symlink("nowhere", "/dangling"))
    assert code_of(vfs.cp("/src", "/dangling/", recursive=True)) == "EEXIST"
    assert code_of(vfs.cp("/src", "/dangling", recursive=True)) == "ENOTDIR"
    assert vfs.readlink("/dangling") == "nowhere"
    assert vfs.readdir("/") == ["dangling", "src"]


def test_rm_r_through_a_link_inside_the_tree_removes_the_named_directory(vfs):
    """The case the differential test found on a fresh seed: the path names /c via /c/up."""
    run(vfs.write_file("/c/b", "x"))
    run(vfs.symlink("..", "/c/up"))
    run(vfs.rm("/c/up/c", recursive=True, force=True))
    assert vfs.readdir("/") == []


def test_lstat_of_a_symlink_reports_its_target_length_in_bytes(vfs, tmp_path):
    """Linux's ``st_size`` of a link is the byte length of its target: ``/é`` is 3 bytes, 2
    characters (found by the differential test against the kernel)."""
    run(vfs.symlink("/é", "/accent"))
    run(vfs.mkdir("/d"))
    run(vfs.cp("/accent", "/d/copy"))
    assert vfs.lstat("/accent").size == 3
    assert vfs.lstat("/d/copy").size == 3
    assert vfs.du("/accent") == 3
    if sys.platform.startswith("linux"):  # the kernel says the same (Pyodide's MEMFS does not)
        os.symlink("/é", tmp_path / "accent")
        assert os.lstat(tmp_path / "accent").st_size == 3
