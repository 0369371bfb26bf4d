"""Mounts on CPython and in Pyodide: a real directory (``LocalBackend``) mounted in the VFS.

Every check looks at the real directory with ``os`` (or changes it with ``os``, to play "another
program"), so what is tested is the bridge itself: the VFS reads and writes the folder, live.
test_mount_differential.py checks that every operation answers as on the disk.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from host_folder import code_of, make_folder, run

from py_vfs import VFS, FsError
from py_vfs.mounts import LocalBackend
from py_vfs.mounts.fsa import NeedsPromising
from py_vfs.shell import Shell
from py_vfs.web.webapi import WebAPI


@pytest.fixture
def folder(tmp_path) -> str:
    return str(make_folder(tmp_path))


@pytest.fixture
def vfs(folder) -> VFS:
    v = VFS.memory()
    run(v.mount("/work/proj", LocalBackend(folder)))
    return v


def host(folder: str, *names: str) -> str:
    return os.path.join(folder, *names)


def text(folder: str, *names: str) -> str:
    return Path(host(folder, *names)).read_text()


# ------------------------------------------------------------------ the table


def test_mount_lists_and_creates_its_point(vfs, folder):
    assert vfs.mounts() == [{"path": "/work/proj", "name": "folder", "readOnly": False,
                             "state": "active"}]
    assert vfs.readdir("/work") == ["proj"]
    assert vfs.readdir("/work/proj") == ["README.md", "src"]
    assert vfs.stat("/work/proj").is_dir


def test_mount_errors(vfs, tmp_path, folder):
    other = tmp_path / "other"
    other.mkdir()
    assert code_of(lambda: vfs.mount("/work/proj", LocalBackend(other))) == "EEXIST"
    assert code_of(lambda: vfs.mount("/work/proj/src", LocalBackend(other))) == "EINVAL"
    assert code_of(lambda: vfs.mount("/", LocalBackend(other))) == "EBUSY"
    run(vfs.write_file("/full/f", "x"))
    assert code_of(lambda: vfs.mount("/full", LocalBackend(other))) == "ENOTEMPTY"
    assert code_of(lambda: vfs.mount("/full/f", LocalBackend(other))) == "ENOTDIR"
    assert code_of(lambda: vfs.unmount("/work")) == "EINVAL"


def test_the_mount_point_is_busy(vfs):
    assert code_of(lambda: vfs.rm("/work/proj", recursive=True)) == "EBUSY"
    assert code_of(lambda: vfs.rm("/work", recursive=True)) == "EBUSY"
    assert code_of(lambda: vfs.rmdir("/work/proj")) == "EBUSY"
    assert code_of(lambda: vfs.rename("/work/proj", "/elsewhere")) == "EBUSY"
    assert code_of(lambda: vfs.rename("/work", "/elsewhere")) == "EBUSY"
    run(vfs.mkdir("/empty"))
    assert code_of(lambda: vfs.rename("/empty", "/work/proj")) == "EBUSY"
    assert vfs.readdir("/work/proj") == ["README.md", "src"]


def test_touching_the_mount_point_with_a_slash_touches_the_folder(vfs):
    """``touch /m/`` is the folder's root: the mount point's disk record stays as it was (it
    used to be overwritten with the root's virtual node, and the point was no longer busy)."""
    work, _ = vfs.resolver.lookup("/work", "stat")
    point = vfs.index.child(work, "proj")
    run(vfs.touch("/work/proj/"))
    assert vfs.index.child(work, "proj") == point
    assert code_of(lambda: vfs.rm("/work/proj", recursive=True)) == "EBUSY"


def test_unmount_leaves_the_folder_and_an_empty_point(vfs, folder):
    info = run(vfs.unmount("/work/proj"))
    assert info["path"] == "/work/proj"
    assert vfs.mounts() == []
    assert vfs.readdir("/work/proj") == []
    assert sorted(os.listdir(folder)) == ["README.md", "src"]


def test_unmount_is_busy_while_a_stream_is_open(vfs):
    stream = vfs.open_read("/work/proj/README.md")
    assert code_of(lambda: vfs.unmount("/work/proj")) == "EBUSY"
    run(stream.aclose())
    run(vfs.unmount("/work/proj"))


# ------------------------------------------------------------------ a live bridge


def test_reads_see_changes_made_outside(vfs, folder):
    assert run(vfs.read_file("/work/proj/README.md")) == b"# project\n"
    Path(host(folder, "README.md")).write_text("changed\n")
    os.mkdir(host(folder, "new"))
    Path(host(folder, "new", "n.txt")).write_text("n")
    assert run(vfs.read_file("/work/proj/README.md", "utf-8")) == "changed\n"
    assert vfs.stat("/work/proj/README.md").size == 8
    assert vfs.readdir("/work/proj") == ["README.md", "new", "src"]
    os.remove(host(folder, "new", "n.txt"))
    assert not vfs.exists("/work/proj/new/n.txt")
    assert code_of(lambda: vfs.read_file("/work/proj/new/n.txt")) == "ENOENT"


def test_writes_land_in_the_folder(vfs, folder):
    run(vfs.write_file("/work/proj/a/b/c.txt", "deep"))
    assert text(folder, "a", "b", "c.txt") == "deep"
    run(vfs.append_file("/work/proj/a/b/c.txt", "er"))
    assert text(folder, "a", "b", "c.txt") == "deeper"
    run(vfs.truncate("/work/proj/a/b/c.txt", 2))
    assert text(folder, "a", "b", "c.txt") == "de"
    run(vfs.mkdir("/work/proj/x/y", recursive=True))
    assert os.path.isdir(host(folder, "x", "y"))
    run(vfs.touch("/work/proj/x/t"))
    assert os.path.getsize(host(folder, "x", "t")) == 0
    run(vfs.rm("/work/proj/x", recursive=True))
    assert not os.path.exists(host(folder, "x"))
    run(vfs.unlink("/work/proj/a/b/c.txt"))
    run(vfs.rmdir("/work/proj/a/b"))
    assert os.listdir(host(folder, "a")) == []


def test_stat_and_listing_report_the_folder(vfs, folder):
    os.utime(host(folder, "README.md"), (1_000_000, 1_000_000))
    info = vfs.stat("/work/proj/README.md")
    assert (info.type, info.size, info.mtime_ms, info.path) == (
        "file", 10, 1_000_000_000.0, "/work/proj/README.md")
    assert [(e.name, e.type) for e in vfs.readdir("/work/proj", with_types=True)] == [
        ("README.md", "file"), ("src", "directory")]
    assert vfs.realpath("/work/proj/src/../README.md") == "/work/proj/README.md"
    assert code_of(lambda: vfs.readlink("/work/proj/README.md")) == "EINVAL"
    assert code_of(lambda: vfs.readdir("/work/proj/README.md")) == "ENOTDIR"
    assert code_of(lambda: vfs.stat("/work/proj/README.md/")) == "ENOTDIR"


def test_rename_inside_the_mount(vfs, folder):
    run(vfs.rename("/work/proj/src", "/work/proj/lib"))
    assert sorted(os.listdir(folder)) == ["README.md", "lib"]
    run(vfs.write_file("/work/proj/other.md", "o"))
    run(vfs.rename("/work/proj/other.md", "/work/proj/README.md"))
    assert text(folder, "README.md") == "o"
    assert code_of(lambda: vfs.rename("/work/proj/lib", "/work/proj/lib/inner")) == "EINVAL"
    assert code_of(lambda: vfs.rename("/work/proj/lib", "/work/proj/README.md")) == "ENOTDIR"


def test_across_the_boundary_rename_is_exdev_and_copies_work(vfs, folder):
    run(vfs.write_file("/disk/d.txt", "from disk"))
    assert code_of(lambda: vfs.rename("/disk/d.txt", "/work/proj/d.txt")) == "EXDEV"
    assert code_of(lambda: vfs.rename("/work/proj/README.md", "/disk/r.md")) == "EXDEV"
    assert code_of(lambda: vfs.rename("/disk/missing", "/work/proj/m")) == "ENOENT"
    run(vfs.copy_file("/disk/d.txt", "/work/proj/d.txt"))
    assert text(folder, "d.txt") == "from disk"
    run(vfs.cp("/work/proj/src", "/disk/src", recursive=True))
    assert run(vfs.read_file("/disk/src/main.py")) == b"print('hi')\n"
    run(vfs.cp("/disk", "/work/proj/disk", recursive=True))
    assert sorted(os.listdir(host(folder, "disk"))) == ["d.txt", "src"]
    run(vfs.symlink("d.txt", "/disk/link"))
    assert code_of(lambda: vfs.cp("/disk", "/work/proj/disk2", recursive=True)) == "EPERM"
    assert not os.path.exists(host(folder, "disk2"))
    assert code_of(lambda: vfs.symlink("x", "/work/proj/l")) == "EPERM"


def test_copies_of_a_tree_holding_a_mount_copy_its_content(vfs):
    run(vfs.cp("/work", "/copy", recursive=True))
    assert vfs.walk("/copy") == ["/copy/proj/README.md", "/copy/proj/src/main.py"]
    assert run(vfs.read_file("/copy/proj/src/main.py")) == b"print('hi')\n"


def test_a_symlink_on_the_disk_leads_into_the_mount(vfs, folder):
    run(vfs.symlink("/work/proj/src", "/src"))
    assert vfs.readdir("/src") == ["main.py"]
    run(vfs.write_file("/src/new.py", "n"))
    assert text(folder, "src", "new.py") == "n"
    assert vfs.realpath("/src/new.py") == "/work/proj/src/new.py"
    run(vfs.symlink("../work/proj/src/..", "/up"))
    assert vfs.readdir("/up") == ["README.md", "src"]


def test_search_descends_into_mounts(vfs):
    run(vfs.write_file("/notes.txt", "hi there"))
    assert vfs.walk("/") == ["/notes.txt", "/work/proj/README.md", "/work/proj/src/main.py"]
    assert vfs.ls("/work") == ["/work/proj/README.md", "/work/proj/src/main.py"]
    assert vfs.glob("/work/**/*.py") == ["/work/proj/src/main.py"]
    assert {"path": "/work/proj/src", "type": "directory"} in vfs.find("/", "**/src")
    assert vfs.du("/work") == len("# project\n") + len("print('hi')\n")
    found = run(vfs.grep("hi"))
    assert [m["path"] for m in found.matches] == ["/notes.txt", "/work/proj/src/main.py"]


# ------------------------------------------------------------------ read-only and waiting


def test_a_read_only_mount_refuses_writes(tmp_path, folder):
    vfs = VFS.memory()
    run(vfs.mount("/ro", LocalBackend(folder), read_only=True))
    assert run(vfs.read_file("/ro/README.md")) == b"# project\n"
    assert vfs.stat("/ro/README.md").mode == 0o444
    for call in (lambda: vfs.write_file("/ro/n", "x"), lambda: vfs.mkdir("/ro/d"),
                 lambda: vfs.rm("/ro/src", recursive=True), lambda: vfs.unlink("/ro/README.md"),
                 lambda: vfs.rename("/ro/README.md", "/ro/R"), lambda: vfs.touch("/ro/README.md"),
                 lambda: vfs.append_file("/ro/README.md", "x"),
                 lambda: vfs.stream_writer("/ro/s")):
        assert code_of(call) == "EROFS"
    run(vfs.mkdir("/ro/src", recursive=True))  # nothing to create: no error
    assert sorted(os.listdir(folder)) == ["README.md", "src"]


def test_a_waiting_mount_answers_eacces_until_reconnected(folder):
    vfs = VFS.memory()
    run(vfs.restore_mount("/w", LocalBackend(folder), granted=False))
    assert vfs.mounts()[0]["state"] == "waiting"
    with pytest.raises(PermissionError) as info:
        vfs.readdir("/w")
    assert info.value.code == "EACCES"
    assert "mount reconnect /w" in str(info.value)
    assert code_of(lambda: vfs.write_file("/w/x", "x")) == "EACCES"
    assert vfs.walk("/") == []  # a walk passes a waiting mount by
    run(vfs.reconnect("/w"))
    assert vfs.readdir("/w") == ["README.md", "src"]


# ------------------------------------------------------------------ shell and JS surface


def test_shell_mount_commands(tmp_path, folder):
    vfs = VFS.memory()
    shell = Shell(vfs, host_mounts=True)
    result = run(shell.run(f"mount /p {folder} && ls /p && mount"))
    assert result.code == 0, result.stderr
    assert "mounted" in result.stdout and "README.md\nsrc\n" in result.stdout
    assert "/p" in result.stdout.splitlines()[-1] and "active" in result.stdout
    assert run(shell.run(f"mount --read-only /q {folder}")).code == 0
    denied = run(shell.run("touch /q/new"))
    assert denied.code == 1 and "Read-only file system" in denied.stderr
    assert run(shell.run("mount list")).stdout.count("\n") == 2
    assert run(shell.run("umount /q && mount unmount /p && mount")).stdout.endswith(
        "no mounts\n")
    failed = run(shell.run("mount /p"))
    assert failed.code == 2 and "FOLDER" in failed.stderr


def test_shell_mv_across_the_boundary_copies_then_removes(vfs, folder):
    shell = Shell(vfs)
    result = run(shell.run("mkdir -p /d/tree/sub && echo x > /d/tree/sub/x && "
                           "mv /d/tree /work/proj/ && mv /work/proj/README.md /d/"))
    assert result.code == 0, result.stderr
    assert text(folder, "tree", "sub", "x") == "x\n"
    assert not vfs.exists("/d/tree")
    assert run(vfs.read_file("/d/README.md")) == b"# project\n"
    assert not os.path.exists(host(folder, "README.md"))


def test_webapi_lists_and_unmounts(vfs):
    api = WebAPI(vfs)
    assert api.call("mounts", [])["value"][0]["path"] == "/work/proj"
    assert api.call("mountInfo", ["/work/proj/"])["value"]["name"] == "folder"
    assert api.call("mountInfo", ["/work"])["error"]["code"] == "EINVAL"
    assert api.call("readdir", ["/work/proj"]) == {"value": ["README.md", "src"]}
    assert code_of(lambda: api._ops["mount"]("/x", None)) == "EINVAL"  # no browser here
    assert run(api._ops["unmount"]("/work/proj"))["path"] == "/work/proj"
    assert api.call("mounts", []) == {"value": []}


class UnreachableSync(LocalBackend):
    """What a browser folder does when Python was entered by a plain synchronous call: it
    cannot block on a promise (docs/mounts.md, "Sync calls and JSPI")."""

    def stat(self, rel):
        raise NeedsPromising("stat")


def test_webapi_asks_for_a_promising_call_when_a_folder_cannot_block(folder):
    vfs = VFS.memory()
    run(vfs.mount("/b", UnreachableSync(folder)))
    api = WebAPI(vfs)
    assert api.call("stat", ["/b/README.md"]) == {"promising": True}
    assert api.call("stat", ["/b"])["value"]["type"] == "directory"  # the root needs no call


def test_the_preview_etag_of_a_mounted_file_follows_its_mtime(vfs, folder):
    """A folder's files have no chunk keys: the ETag names size and mtime, so an edit of the
    same size made outside the VFS is not answered 304."""
    first = vfs.content_id("/work/proj/README.md")
    Path(host(folder, "README.md")).write_text("# changed\n")
    os.utime(host(folder, "README.md"), (2_000_000, 2_000_000))
    assert vfs.content_id("/work/proj/README.md") != first


def test_a_step_cannot_change_a_mounted_folder(vfs, folder):
    """A folder has no transactions: inside a step its changes are refused, its reads work."""

    async def body():
        async with vfs.step() as tx:
            await tx.write_file("/on-disk.txt", await tx.read_file("/work/proj/README.md"))
            with pytest.raises(FsError) as info:
                await tx.write_file("/work/proj/in-step.txt", "x")
            return info.value

    refused = run(body())
    assert refused.code == "ENOTSUP" and "step" in str(refused)
    assert run(vfs.read_file("/on-disk.txt")) == b"# project\n"
    assert not os.path.exists(host(folder, "in-step.txt"))
