"""Mount points are disk state: every tab (every VFS on the same store) knows them.

Before, a mount lived only in the table of the tab that made it, so a tab opened earlier wrote
below the mount point on the disk, and could remove the mount point itself. Now the mount point's
directory records the mount, and every tab routes its paths by that record: a tab that has not
attached the folder answers EACCES below it (naming `mount reconnect`), EBUSY for removing or
moving it, until it reconnects with the folder or somebody unmounts.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from host_folder import make_folder

from py_vfs import VFS, FsError
from py_vfs.mounts import LocalBackend
from py_vfs.storage.memory import MemoryStore


@pytest.fixture
def folder(tmp_path) -> str:
    return str(make_folder(tmp_path))


async def two_tabs_with_a_mount(folder: str):
    store = MemoryStore()
    tab, other = await VFS.open(store), await VFS.open(store)
    await other.mkdir("/keep")  # the other tab was open, and busy, before the mount
    await tab.mount("/work/proj", LocalBackend(folder))
    return store, tab, other


def test_another_tab_cannot_write_below_a_mount_point(folder):
    async def scenario():
        _, tab, other = await two_tabs_with_a_mount(folder)
        # No sync first: the write's own commit finds the disk moved on and re-runs the change.
        assert await code(other.write_file("/work/proj/x.txt", "lost")) == "EACCES"
        assert await code(other.mkdir("/work/proj/new")) == "EACCES"
        with pytest.raises(PermissionError) as info:
            other.readdir("/work/proj")
        assert "mount reconnect /work/proj" in str(info.value)
        assert other.mounts() == [{"path": "/work/proj", "name": os.path.basename(folder),
                                   "readOnly": False, "state": "waiting"}]
        # The mount point and what holds it stay where they are.
        assert await code(other.rmdir("/work/proj")) in {"EBUSY", "EACCES"}
        assert await code(other.rm("/work", recursive=True)) == "EBUSY"
        assert await code(other.rename("/work", "/moved")) == "EBUSY"
        assert await code(other.rename("/keep", "/work/proj")) in {"EBUSY", "EACCES"}
        # Nothing reached the folder or the disk; the mounting tab goes on as before.
        assert sorted(os.listdir(folder)) == ["README.md", "src"]
        assert tab.readdir("/work/proj") == ["README.md", "src"]
        await tab.write_file("/work/proj/ok.txt", "ok")
        assert Path(folder, "ok.txt").read_text() == "ok"

    asyncio.run(scenario())


def test_a_stale_tab_cannot_remove_the_mount_point_it_does_not_know_yet(folder):
    async def scenario():
        _, tab, other = await two_tabs_with_a_mount(folder)
        # `other` has not caught up: its rm is routed as a plain disk rm, then re-run.
        assert await code(other.rm("/work", recursive=True)) == "EBUSY"
        assert tab.mounts()[0]["state"] == "active"
        assert tab.exists("/work/proj/README.md")

    asyncio.run(scenario())


def test_reconnecting_attaches_the_folder_in_the_other_tab(folder):
    async def scenario():
        _, tab, other = await two_tabs_with_a_mount(folder)
        await other.sync()
        assert await code(other.reconnect("/work/proj")) == "ENOENT"  # no folder to attach
        await other.reconnect("/work/proj", LocalBackend(folder))
        await other.write_file("/work/proj/from-other.txt", "hi")
        assert Path(folder, "from-other.txt").read_text() == "hi"
        assert await tab.read_file("/work/proj/from-other.txt") == b"hi"

    asyncio.run(scenario())


def test_unmount_in_one_tab_frees_the_directory_in_every_tab(folder):
    async def scenario():
        _, tab, other = await two_tabs_with_a_mount(folder)
        await other.sync()
        await other.reconnect("/work/proj", LocalBackend(folder))
        await tab.unmount("/work/proj")
        await other.sync()
        assert other.mounts() == [] and tab.mounts() == []
        await other.write_file("/work/proj/on-disk.txt", "disk")
        assert "on-disk.txt" not in os.listdir(folder)
        await tab.sync()
        assert await tab.read_file("/work/proj/on-disk.txt") == b"disk"

    asyncio.run(scenario())


def test_a_later_session_sees_the_mount_waiting_and_can_drop_it(folder):
    async def scenario():
        store, tab, _ = await two_tabs_with_a_mount(folder)
        later = await VFS.open(store)  # e.g. a reload that kept no folder for the mount
        assert later.mounts()[0]["state"] == "waiting"
        assert await code(later.write_file("/work/proj/x", "x")) == "EACCES"
        await later.unmount("/work/proj")  # a stale record is cleared by umount
        await later.write_file("/work/proj/x", "x")
        await tab.sync()
        assert tab.mounts() == []
        assert await tab.read_file("/work/proj/x") == b"x"

    asyncio.run(scenario())


def test_a_failed_mount_records_nothing(folder):
    async def scenario():
        store = MemoryStore()
        tab = await VFS.open(store)
        await tab.write_file("/full/file", "x")
        assert await code(tab.mount("/full", LocalBackend(folder))) == "ENOTEMPTY"
        later = await VFS.open(store)
        assert later.mounts() == []
        assert later.index.marks == {}

    asyncio.run(scenario())


async def code(awaitable) -> str:
    """The code of the FsError that awaiting ``awaitable`` raises."""
    try:
        await awaitable
    except FsError as error:
        return error.code
    raise AssertionError("no FsError was raised")
