"""The sandbox escape suite: a restricted view (``vfs.restrict``) tried with every read and write
method, through every way out (``..``, symlinks, mounts, odd spellings, steps, watch, journal,
query, error text). A read outside finds nothing; a write outside is refused and changes nothing
(the disk's revision and the mounted folders are compared before and after); no answer or error
message names what lies outside. Each attack has a control: the same method inside works."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.mounts import LocalBackend

SECRET = "TOPSECRET"  # in every outside file's name or content: no answer may carry it
BODY = f"{SECRET}-body"  # the content of the outside files (inside links may name them)
OUT_NAME = "hush"  # an outside folder's name: no answer or error may carry it either


class Disk:
    """A disk with an inside (``/in``, read-write), a read-only part (``/ro``), an outside
    (``/hush``, ``/mnt``), links from the inside out, and mounted folders on both sides."""

    def __init__(self, tmp: Path) -> None:
        self.vfs = v = VFS.memory()
        self.folders = {}
        for name in ("inmount", "outmount", "romount"):
            folder = tmp / name
            folder.mkdir()
            (folder / f"{name}.txt").write_text(f"{name} {BODY if name == 'outmount' else ''}")
            self.folders[name] = folder

        async def build() -> None:
            await v.write_file("/in/file.txt", "inside")
            await v.write_file("/in/dir/a.txt", "a")
            await v.write_file("/ro/r.txt", "read only")
            await v.write_file(f"/{OUT_NAME}/{SECRET}.txt", BODY)
            await v.write_file(f"/{OUT_NAME}/sub/deep.txt", BODY)
            await v.write_file("/üñí/ß.txt", BODY)
            await v.symlink(f"/{OUT_NAME}/{SECRET}.txt", "/in/out_link")
            await v.symlink(f"/{OUT_NAME}", "/in/out_dir")
            await v.symlink(f"../{OUT_NAME}/{SECRET}.txt", "/in/dotdot_link")
            await v.symlink("/ro", "/in/ro_dir")
            await v.symlink("/mnt", "/in/mnt_link")
            await v.symlink("/in/file.txt", "/in/good_link")
            await v.symlink("loop2", "/in/loop1")
            await v.symlink("loop1", "/in/loop2")
            await v.mount("/mnt", LocalBackend(self.folders["outmount"]))
            await v.mount("/in/m", LocalBackend(self.folders["inmount"]))
            await v.mount("/ro/m", LocalBackend(self.folders["romount"]))  # readable only
            await v.symlink("/ro/m", "/in/rom_link")

        run(build())
        self.view = v.restrict(read=["/ro"], write=["/in"], writer="agent:test")

    def state(self) -> tuple:
        """What must not change: the revision, and every mounted folder's files."""
        files = sorted((str(p.relative_to(root)), p.read_bytes() if p.is_file() else b"")
                       for root in self.folders.values() for p in root.rglob("*"))
        return self.vfs.revision, files


@pytest.fixture
def disk(tmp_path) -> Disk:
    return Disk(tmp_path)


def leaks(text: object) -> bool:
    return SECRET in str(text) or OUT_NAME in str(text) or "outmount" in str(text)


def outcome(call):
    """What ``call()`` gives: ("ok", value) or ("error", code, message)."""
    try:
        value = call()
        if asyncio.iscoroutine(value):
            value = run(value)
        return "ok", value
    except FsError as error:
        return "error", error.code, str(error)


# ------------------------------------------------------------------ reads from outside

OUTSIDE_READS = [
    f"/{OUT_NAME}/{SECRET}.txt",
    f"/{OUT_NAME}",
    f"/{OUT_NAME}/",
    f"//{OUT_NAME}//{SECRET}.txt",
    f"/in/../{OUT_NAME}/{SECRET}.txt",
    f"/in/./dir/../../{OUT_NAME}/sub/deep.txt",
    "/in/out_link",
    "/in/dotdot_link",
    f"/in/out_dir/{SECRET}.txt",
    "/in/out_dir/sub/../sub/deep.txt",
    "/mnt/outmount.txt",
    "/in/mnt_link/outmount.txt",
    "/üñí/ß.txt",
]

READS = {
    "read_file": lambda v, p: v.read_file(p),
    "stat": lambda v, p: v.stat(p),
    "lstat_inner": lambda v, p: v.lstat(p + "/x"),
    "content_id": lambda v, p: v.content_id(p),
    "open_read": lambda v, p: v.open_read(p),
    "realpath": lambda v, p: v.realpath(p),
    "readdir": lambda v, p: v.readdir(p),
    "find": lambda v, p: v.find(p),
    "du": lambda v, p: v.du(p),
    "grep": lambda v, p: v.grep(SECRET, p),
}


@pytest.mark.parametrize("path", OUTSIDE_READS)
@pytest.mark.parametrize("method", sorted(READS))
def test_a_read_outside_finds_nothing(disk, method, path):
    result = outcome(lambda: READS[method](disk.view, path))
    assert result[0] == "error" and result[1] in ("ENOENT", "ENOTDIR"), result
    assert not leaks(result[2].replace(path, "")), result  # names only the caller's path
    assert disk.view.exists(path) is False


@pytest.mark.parametrize("path", OUTSIDE_READS)
def test_listings_and_searches_skip_the_outside(disk, path):
    view = disk.view
    everything = [view.walk("/"), view.ls("/"), view.find("/"), view.glob("/**"),
                  view.glob(path), view.readdir("/"), run(view.grep(SECRET, "/")).matches,
                  view.ls(path), view.du("/"), view.mounts()]
    assert not any(leaks(found) for found in everything), everything
    assert view.du("/") == disk.vfs.du("/in") + disk.vfs.du("/ro")


def test_the_inside_reads_as_the_disk(disk):
    view = disk.view
    assert run(view.read_file("/in/file.txt")) == b"inside"
    assert run(view.read_file("/in/good_link")) == b"inside"
    assert run(view.read_file("/in/ro_dir/r.txt")) == b"read only"
    assert run(view.read_file("/in/m/inmount.txt")).startswith(b"inmount")
    assert view.readdir("/") == ["in", "ro"]
    assert view.readlink("/in/out_link") == f"/{OUT_NAME}/{SECRET}.txt"  # the link's own text
    assert view.lstat("/in/out_link").is_symlink  # creating and seeing a link is allowed
    assert outcome(lambda: view.stat("/in/loop1"))[1] == "ELOOP"


# ------------------------------------------------------------------ writes to outside

OUTSIDE_WRITES = [
    f"/{OUT_NAME}/new.txt",
    f"/{OUT_NAME}/{SECRET}.txt",
    f"/in/../{OUT_NAME}/new.txt",
    "/in/out_dir/new.txt",
    "/in/out_link",
    "/in/dotdot_link",
    "/in/ro_dir/new.txt",
    "/in/ro_dir/r.txt",
    "/ro/r.txt",
    "/ro/new/deep.txt",
    "/mnt/new.txt",
    "/in/mnt_link/new.txt",
    "/ro/m/new.txt",
    "/ro/m/romount.txt",
    "/in/rom_link/new.txt",
    "/in/rom_link/romount.txt",
    "/newtop.txt",
    "/üñí/ß.txt",
]


async def _stream_write(v, p):
    stream = v.stream_writer(p)
    await stream.write(b"x")
    await stream.close()


WRITES = {
    "write_file": lambda v, p: v.write_file(p, "pwned"),
    "append_file": lambda v, p: v.append_file(p, "pwned"),
    "truncate": lambda v, p: v.truncate(p, 0),
    "write_stream": lambda v, p: v.write_stream(p, [b"pw", b"ned"]),
    "stream_writer": _stream_write,
    "mkdir_p": lambda v, p: v.mkdir(p + "_d/x", recursive=True),
    "mkdir": lambda v, p: v.mkdir(p + "_d"),
    "rm": lambda v, p: v.rm(p, recursive=True),
    "unlink": lambda v, p: v.unlink(p),
    "rename_out": lambda v, p: v.rename("/in/file.txt", p),
    "rename_in": lambda v, p: v.rename(p, "/in/stolen"),
    "copy_file": lambda v, p: v.copy_file("/in/file.txt", p),
    "cp": lambda v, p: v.cp("/in/dir", p, recursive=True),
    "symlink": lambda v, p: v.symlink("/in/file.txt", p),
    "chmod": lambda v, p: v.chmod(p, 0o600),
    "utimes": lambda v, p: v.utimes(p, 0, 0),
    "touch": lambda v, p: v.touch(p),
    "restore": lambda v, p: v.restore({"revision": 1}, path=p),
}


# Operations on a name itself (not following it): a link of the inside is the view's to remove,
# rename or replace, wherever it points.
ON_THE_NAME = {"mkdir", "mkdir_p", "rm", "unlink", "rename_out", "rename_in", "restore"}


ATTACKS = [(method, path) for method in sorted(WRITES) for path in OUTSIDE_WRITES
           if not (method in ON_THE_NAME and path in ("/in/out_link", "/in/dotdot_link"))]


@pytest.mark.parametrize(("method", "path"), ATTACKS)
def test_a_write_outside_is_refused_and_changes_nothing(disk, method, path):
    before = disk.state()
    result = outcome(lambda: WRITES[method](disk.view, path))
    assert result[0] == "error", result
    if not os.path.normpath(path).startswith("/in/"):  # spelled outside: EACCES at once
        assert result[1] == "EACCES", result
    # Through a link of the inside: refused as the link's own rules or the scope say.
    assert not leaks(result[2].replace(path, "")), result
    assert disk.state() == before


@pytest.mark.parametrize("method", sorted(WRITES))
def test_the_same_write_inside_works(disk, method):
    if method in ("unlink", "truncate", "chmod", "utimes", "restore", "rm"):
        run(disk.view.write_file("/in/target", "old"))
    if method == "rename_in":
        run(disk.view.write_file("/in/target", "old"))
    result = outcome(lambda: WRITES[method](disk.view, "/in/target"))
    assert result[0] == "ok", result
    writers = {row["writer"] for row in run(disk.vfs.journal(limit=1))}
    assert writers == {"agent:test"}  # the view writes under its agent's name


def test_a_symlink_out_may_be_made_but_not_followed(disk):
    view = disk.view
    run(view.symlink(f"/{OUT_NAME}/sub", "/in/new_link"))
    assert disk.vfs.readlink("/in/new_link") == f"/{OUT_NAME}/sub"
    assert outcome(lambda: view.readdir("/in/new_link"))[1] == "ENOENT"
    assert outcome(lambda: view.write_file("/in/new_link/x", "pwned"))[1] == "ENOENT"
    assert not disk.vfs.exists(f"/{OUT_NAME}/sub/x")


def test_renames_and_copies_across_the_edge(disk):
    view = disk.view
    before = disk.state()
    for call in (lambda: view.rename(f"/{OUT_NAME}/sub", "/in/sub"),
                 lambda: view.cp(f"/{OUT_NAME}", "/in/copy", recursive=True),
                 lambda: view.copy_file(f"/in/out_dir/{SECRET}.txt", "/in/copy.txt"),
                 lambda: view.rename("/in/dir", f"/{OUT_NAME}/dir")):
        result = outcome(call)
        assert result[0] == "error" and result[1] in ("ENOENT", "EACCES"), result
    assert disk.state() == before
    # A link copied as a link stays a link: following it is still refused.
    run(view.cp("/in/out_link", "/in/link_copy"))
    assert outcome(lambda: view.read_file("/in/link_copy"))[1] == "ENOENT"


def test_mounts_inside_and_outside(disk, tmp_path):
    view = disk.view
    other = tmp_path / "other"
    other.mkdir()
    before = disk.state()
    assert outcome(lambda: view.mount("/ro/m", LocalBackend(other)))[1] == "EACCES"
    assert outcome(lambda: view.unmount("/mnt"))[1] == "EACCES"
    assert outcome(lambda: view.mount_info("/mnt"))[1] == "ENOENT"
    assert disk.state() == before
    assert [m["path"] for m in view.mounts()] == ["/in/m", "/ro/m"]
    assert run(view.read_file("/in/rom_link/romount.txt")).startswith(b"romount")
    run(view.mount("/in/m2", LocalBackend(other)))
    run(view.write_file("/in/m2/made.txt", "here"))
    assert (other / "made.txt").read_text() == "here"


# ------------------------------------------------------------------ steps, watch, data

def test_a_step_cannot_write_outside_and_undoes_itself(disk):
    before = disk.state()

    async def attempt() -> None:
        async with disk.view.step() as tx:
            await tx.write_file("/in/in_step.txt", "ok")
            await tx.write_file("/in/ro_dir/in_step.txt", "pwned")

    assert outcome(lambda: attempt())[1] == "EACCES"
    assert disk.state() == before
    assert not disk.vfs.exists("/in/in_step.txt")

    async def reads() -> list:
        async with disk.view.step() as tx:
            return [outcome(lambda: tx.stat(f"/{OUT_NAME}"))[1],
                    outcome(lambda: tx.readdir("/in/out_dir"))[1]]

    assert run(reads()) == ["ENOENT", "ENOENT"]


def test_watch_sees_only_the_inside(disk):
    seen = []
    unsubscribe = disk.view.watch("/", seen.append, recursive=True)
    assert outcome(lambda: disk.view.watch(f"/{OUT_NAME}", seen.append))[1] == "ENOENT"

    async def changes() -> None:
        v = disk.vfs
        await v.write_file(f"/{OUT_NAME}/more.txt", SECRET)
        await v.rename(f"/{OUT_NAME}/more.txt", "/in/moved_in.txt")
        await v.rename("/in/file.txt", f"/{OUT_NAME}/moved_out.txt")
        await v.write_file("/in/marker.txt", "m")  # the last event: all others came before

    run(changes())
    unsubscribe()
    assert not any(leaks(event) for event in seen), seen
    assert [(e["type"], e["path"]) for e in seen] == [
        ("create", "/in/moved_in.txt"), ("delete", "/in/file.txt"),
        ("create", "/in/marker.txt")]


def test_journal_query_and_diff_hold_only_readable_paths(disk):
    view = disk.view
    run(view.write_file("/in/mine.txt", "m"))
    rows = run(view.journal(limit=1000))
    assert rows and not any(leaks(row) for row in rows)
    assert rows[0]["writer"] == "agent:test" and rows[0]["paths"][0] == "/in/mine.txt"
    result = run(view.query("select path from files union all select paths from journal"))
    assert result.rows and not any(leaks(row) for row in result.rows)
    files = {row[0] for row in run(view.query("select path from files")).rows}
    assert {"/in/file.txt", "/ro/r.txt", "/in/m/inmount.txt"} <= files
    assert not any(leaks(change) for change in run(view.diff({"revision": 1})))
    assert outcome(lambda: view.journal(path=f"/{OUT_NAME}"))[1] == "ENOENT"
    assert run(view.snapshots()) == []
    for call in (lambda: view.snapshot("s"), view.check, view.gc, view.usage, view.close):
        assert outcome(call)[1] == "EACCES"


def test_a_view_narrows_and_never_widens(disk):
    narrower = disk.view.restrict(read=["/in", f"/{OUT_NAME}"], write=["/in/dir", "/ro"])
    assert narrower.scope.read == ("/in", "/ro")  # asking to write /ro: still only reading it
    assert narrower.scope.write == ("/in/dir",)
    assert outcome(lambda: narrower.read_file(f"/{OUT_NAME}/{SECRET}.txt"))[1] == "ENOENT"
    assert outcome(lambda: narrower.write_file("/in/file.txt", "x"))[1] == "EACCES"
    assert outcome(lambda: narrower.write_file("/ro/r.txt", "x"))[1] == "EACCES"
    run(narrower.write_file("/in/dir/b.txt", "b"))
    narrowest = narrower.restrict(read=["/in/dir"])
    assert outcome(lambda: narrowest.read_file("/ro/r.txt"))[1] == "ENOENT"
    assert outcome(lambda: narrowest.write_file("/in/dir/c.txt", "x"))[1] == "EACCES"


@pytest.mark.parametrize("name", ["/in/" + "é" * 300, "/in/a\0b", "in/relative", "/in/x/"])
def test_hard_to_spell_names_stay_inside(disk, name):
    before = disk.state()
    result = outcome(lambda: disk.view.write_file(name, "x"))
    if result[0] == "ok":  # a relative path is taken from "/": still inside
        assert disk.vfs.exists(os.path.normpath("/" + name))
    else:
        assert result[1] in ("ENAMETOOLONG", "EINVAL", "EACCES", "EISDIR", "ENOENT"), result
        assert disk.state() == before


def test_scopes_are_absolute_paths():
    with pytest.raises(FsError):
        VFS.memory().restrict(read=["relative"])


@pytest.mark.parametrize("kind", ["zip", "sqlite"])
def test_export_holds_only_the_view_and_import_lands_only_inside(disk, kind):
    from py_vfs.archives.archive import export, import_archive

    async def exported(path: str = "/") -> bytes:
        return b"".join([chunk async for chunk in export(disk.view, path, kind)])

    data = run(exported())
    assert BODY.encode() not in data  # the inside links name outside files: nothing more
    assert b"deep.txt" not in data and b"outmount" not in data
    small = run(exported("/in/dir"))  # no absolute links: an import takes it anywhere
    before = disk.state()
    for into in (f"/{OUT_NAME}/x", "/ro/x", "/in/ro_dir/x", "/in/out_dir/x"):
        assert outcome(lambda into=into: import_archive(disk.view, [small], kind, into))[0] \
            == "error"
    assert disk.state() == before
    run(import_archive(disk.view, [small], kind, "/in/copy"))
    assert run(disk.view.read_file("/in/copy/a.txt")) == b"a"


def test_a_directory_on_the_way_cannot_be_copied_with_what_is_beside_the_view():
    """``cp -r`` of a directory on the way to a readable one (``/s`` for ``/s/r``) is ENOENT:
    the directory is visible, but its other entries are not the view's, and the copy used to
    bring them into the writable part, where the view reads them (found by
    test_sandbox_differential.py). A readable directory below it copies as usual."""
    vfs = VFS.memory()
    for path in ("/s/r/a", f"/s/{OUT_NAME}/{SECRET}", "/w/a"):
        run(vfs.write_file(path, BODY if OUT_NAME in path else path))
    view = vfs.restrict(read=["/s/r"], write=["/w"])
    before = vfs.revision
    for src in ("/s", "/"):
        with pytest.raises(FsError) as caught:
            run(view.cp(src, "/w/copy", recursive=True))
        assert caught.value.code == "ENOENT" and SECRET not in str(caught.value)
    assert vfs.revision == before and not vfs.exists("/w/copy")
    run(view.cp("/s/r", "/w/copy", recursive=True))  # the control
    assert view.walk("/w/copy") == ["/w/copy/a"]
