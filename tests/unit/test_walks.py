"""The resolver starts a walk at the directory that holds the last name when it walked that
directory's path before (``Index.dir_ids``, py_vfs/fs/resolver.py). Whatever moved since, every
answer must be the one a walk from the root gives: a directory renamed, removed and made again,
replaced by a link, made by a change that was undone, moved by another tab, a folder mounted on
the way, a restricted view."""

from __future__ import annotations

import inspect

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.mounts import LocalBackend
from py_vfs.storage.memory import MemoryStore


async def code_of(call) -> str:
    """The code of the FsError that ``call()`` (sync, or returning a coroutine) raises."""
    try:
        result = call()
        if inspect.iscoroutine(result):
            await result
    except FsError as error:
        return error.code
    raise AssertionError("no FsError was raised")


def on_a_memory_disk(scenario):
    """The test ``scenario(vfs)`` makes, run on a new memory disk."""
    def test() -> None:
        run(scenario(VFS.memory()))

    test.__name__, test.__doc__ = scenario.__name__, scenario.__doc__
    return test


async def _known(vfs: VFS, path: str) -> None:
    """Read ``path`` once so that its directory's walk is remembered."""
    await vfs.read_file(path)
    parent = path.rsplit("/", 1)[0].lstrip("/")
    assert parent in vfs.index.dir_ids, "the walk was not remembered: this test tests nothing"


@on_a_memory_disk
async def test_a_renamed_directory_is_not_found_at_its_old_path(vfs: VFS) -> None:
    await vfs.write_file("/a/b/c/f", b"1")
    await _known(vfs, "/a/b/c/f")
    await vfs.rename("/a/b", "/x")
    assert await code_of(lambda: vfs.read_file("/a/b/c/f")) == "ENOENT"
    assert await vfs.read_file("/x/c/f") == b"1"
    await vfs.write_file("/a/b/c/g", b"2")  # its folders made anew, not the moved ones
    assert vfs.readdir("/a/b/c") == ["g"]
    assert vfs.readdir("/x/c") == ["f"]


@on_a_memory_disk
async def test_a_directory_made_again_under_the_same_name_gets_the_new_files(vfs: VFS) -> None:
    await vfs.write_file("/a/b/f", b"old")
    await _known(vfs, "/a/b/f")
    await vfs.rm("/a/b", recursive=True)
    assert await code_of(lambda: vfs.stat("/a/b/f")) == "ENOENT"
    await vfs.mkdir("/a/b")
    await vfs.write_file("/a/b/g", b"new")
    assert vfs.readdir("/a/b") == ["g"]
    assert await code_of(lambda: vfs.stat("/a/b/f")) == "ENOENT"


@on_a_memory_disk
async def test_a_directory_replaced_by_a_link_is_followed(vfs: VFS) -> None:
    await vfs.write_file("/a/b/f", b"in b")
    await vfs.write_file("/other/f", b"in other")
    await _known(vfs, "/a/b/f")
    await vfs.rm("/a/b", recursive=True)
    await vfs.symlink("../other", "/a/b")
    assert await vfs.read_file("/a/b/f") == b"in other"
    # A remembered directory whose last name is a link with ".." in its target.
    await vfs.mkdir("/a/d")
    await vfs.write_file("/a/d/g", b"g")
    await _known(vfs, "/a/d/g")
    await vfs.symlink("../b", "/a/d/up")
    assert await vfs.read_file("/a/d/up/f") == b"in other"
    assert vfs.realpath("/a/d/up") == "/other"


@on_a_memory_disk
async def test_a_directory_made_by_an_undone_step_is_not_found(vfs: VFS) -> None:
    await vfs.mkdir("/a")
    with pytest.raises(RuntimeError):
        async with vfs.step() as tx:
            await tx.write_file("/a/new/f", b"1")
            assert await tx.read_file("/a/new/f") == b"1"  # its walk is remembered
            raise RuntimeError("undo the step")
    assert await code_of(lambda: vfs.stat("/a/new/f")) == "ENOENT"
    assert vfs.readdir("/a") == []
    await vfs.write_file("/a/new/g", b"2")
    assert vfs.readdir("/a/new") == ["g"]


@on_a_memory_disk
async def test_a_directory_moved_by_an_undone_step_is_back_where_it_was(vfs: VFS) -> None:
    await vfs.write_file("/a/b/f", b"1")
    with pytest.raises(RuntimeError):
        async with vfs.step() as tx:
            await tx.rename("/a/b", "/c")
            assert await tx.read_file("/c/f") == b"1"  # its walk is remembered
            raise RuntimeError("undo the step")
    assert await code_of(lambda: vfs.read_file("/c/f")) == "ENOENT"
    assert await vfs.read_file("/a/b/f") == b"1"


def test_a_directory_moved_by_another_tab_is_not_found_after_its_commit():
    async def scenario():
        store = MemoryStore()
        here = await VFS.open(store)
        await here.write_file("/a/b/f", b"1")
        await _known(here, "/a/b/f")
        there = await VFS.open(store)
        await there.rename("/a/b", "/a/c")
        await here.sync()
        assert await code_of(lambda: here.read_file("/a/b/f")) == "ENOENT"
        assert await here.read_file("/a/c/f") == b"1"

    run(scenario())


def test_a_folder_mounted_on_a_remembered_directory_is_entered(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "f").write_bytes(b"from the folder")
    vfs = VFS.memory()

    async def scenario():
        await vfs.write_file("/m/f", b"from the disk")
        await _known(vfs, "/m/f")
        await vfs.rm("/m/f")
        await vfs.mount("/m", LocalBackend(folder))
        assert await vfs.read_file("/m/f") == b"from the folder"

    run(scenario())


@on_a_memory_disk
async def test_a_restricted_view_sees_only_its_scope_after_a_remembered_walk(vfs: VFS) -> None:
    await vfs.write_file("/pub/f", b"public")
    await vfs.write_file("/secret/d/f", b"secret")
    await _known(vfs, "/secret/d/f")
    view = vfs.restrict(read="/pub")
    assert await view.read_file("/pub/f") == b"public"
    assert await code_of(lambda: view.read_file("/secret/d/f")) == "ENOENT"
