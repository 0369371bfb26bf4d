"""The ``pyvfs`` fsspec file system (py_vfs/fsspec_fs.py).

First fsspec's own abstract test suite (``fsspec.tests.abstract``): copy, get, put, open and
pipe, over scenarios it builds with the file system itself. We give the fixtures it asks for:
``fs`` (a fresh memory disk per test class, as fsspec's own memory file system does),
``fs_path`` (the folder the scenarios are made in, removed after each test) and ``fs_join``
(paths on the disk are POSIX, whatever the host); the local side of get and put is the real
local file system. Every test of the suite runs; none is skipped. On CPython the disk runs on a
thread of its own (``ThreadLoop``), in Pyodide (the Node tier re-runs this module) on a loop the
caller steps (``StepLoop``): Node 20 has neither threads for Python nor JSPI.

Then what a user of fsspec relies on beyond it: URLs with storage options, a durable disk file,
random-access reads that read only the chunks they need, modes, transactions and errors. The
entry point that registers the protocol is proved by test_wheel_install.py, on the installed
wheel."""

from __future__ import annotations

import csv
import io
import posixpath
import tracemalloc
import zipfile
from types import SimpleNamespace

import pytest

fsspec = pytest.importorskip(
    "fsspec", reason="fsspec is an optional dependency (py_vfs[fsspec]); build/requirements.txt "
    "pins it for the tests")

import fsspec.tests.abstract as abstract  # noqa: E402

from py_vfs import pyhost  # noqa: E402
from py_vfs.fsspec_fs import PyVFSFileSystem  # noqa: E402

MiB = 1 << 20


class PyVFSFixtures(abstract.AbstractFixtures):
    """The fixtures fsspec's abstract tests ask an implementation to provide."""

    @pytest.fixture(scope="class")
    def fs(self):
        """One memory disk for the class (fsspec's instance cache skipped, so it is fresh)."""
        filesystem = PyVFSFileSystem(skip_instance_cache=True)
        yield filesystem
        filesystem.close()

    @pytest.fixture
    def fs_join(self):
        """Disk paths are POSIX paths."""
        return posixpath.join

    @pytest.fixture
    def fs_path(self, fs):
        """The folder each test builds its scenario in, emptied after it."""
        path = "/fsspec-tests"
        fs.makedirs(path, exist_ok=True)
        yield path
        fs.rm(path, recursive=True)


class TestPyVFSCopy(abstract.AbstractCopyTests, PyVFSFixtures):
    """fsspec's copy tests."""


class TestPyVFSGet(abstract.AbstractGetTests, PyVFSFixtures):
    """fsspec's get tests (disk -> local)."""


class TestPyVFSPut(abstract.AbstractPutTests, PyVFSFixtures):
    """fsspec's put tests (local -> disk)."""


class TestPyVFSOpen(abstract.AbstractOpenTests, PyVFSFixtures):
    """fsspec's open tests."""


class TestPyVFSPipe(abstract.AbstractPipeTests, PyVFSFixtures):
    """fsspec's pipe tests."""


@pytest.fixture
def fs():
    filesystem = PyVFSFileSystem(skip_instance_cache=True)
    yield filesystem
    filesystem.close()


@pytest.fixture(autouse=True)
def registered():
    """The protocol as the entry point registers it (test_wheel_install.py proves that)."""
    fsspec.register_implementation("pyvfs", PyVFSFileSystem, clobber=True)
    yield
    PyVFSFileSystem.clear_instance_cache()


def test_a_url_with_storage_options_reads_and_writes_a_durable_disk_file(tmp_path):
    disk = str(tmp_path / "my.db")
    with fsspec.open("pyvfs:///workspace/a.csv", "w", disk=disk, newline="") as f:
        csv.writer(f).writerows([["name", "n"], ["a", "1"], ["b", "2"]])
    fsspec.filesystem("pyvfs", disk=disk).close()
    PyVFSFileSystem.clear_instance_cache()

    with fsspec.open("pyvfs:///workspace/a.csv", "r", disk=disk, newline="") as f:
        assert list(csv.reader(f)) == [["name", "n"], ["a", "1"], ["b", "2"]]
    fs = fsspec.filesystem("pyvfs", disk=disk)
    assert fs.ls("/workspace", detail=False) == ["/workspace/a.csv"]
    assert fs.info("pyvfs:///workspace/a.csv")["type"] == "file"


def test_the_same_options_share_one_open_disk_and_none_is_a_fresh_memory_disk():
    one = fsspec.filesystem("pyvfs")
    assert fsspec.filesystem("pyvfs") is one
    one.pipe_file("/x", b"1")
    other = fsspec.filesystem("pyvfs", skip_instance_cache=True)
    assert not other.exists("/x")
    other.close()


def test_a_range_read_of_a_big_file_reads_only_the_chunks_it_needs(tmp_path):
    disk = str(tmp_path / "big.db")
    writer = PyVFSFileSystem(disk, skip_instance_cache=True)
    pattern = bytes(range(256)) * (16 * MiB // 256)
    with writer.open("/big.bin", "wb") as f:
        for at in range(0, len(pattern), MiB):
            f.write(pattern[at:at + MiB])
    writer.close()
    del f

    reader = PyVFSFileSystem(disk, skip_instance_cache=True)  # nothing of the file cached
    tracemalloc.start()
    try:
        with reader.open("/big.bin", "rb", block_size=64 * 1024) as f:
            f.seek(5 * MiB + 3)
            middle = f.read(10)
        tail = reader.cat_file("/big.bin", start=-4)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        reader.close()
    assert middle == pattern[5 * MiB + 3:5 * MiB + 13]
    assert tail == pattern[-4:]
    # A chunk is 512 KiB: reading the file would take 16 MiB.
    assert peak < 3 * MiB, f"peak {peak / MiB:.1f} MiB for two small reads of a 16 MiB file"


def test_modes_wb_ab_xb_and_text(fs):
    with fs.open("/d/f.txt", "wb") as f:
        f.write(b"one\n")
    with fs.open("/d/f.txt", "ab") as f:
        f.write(b"two\n")
    assert fs.cat_file("/d/f.txt") == b"one\ntwo\n"
    with pytest.raises(FileExistsError):
        fs.open("/d/f.txt", "xb")
    with fs.open("/d/g.txt", "xb") as f:
        f.write(b"new")
    with fs.open("/d/f.txt", "r") as f:
        assert [line for line in f] == ["one\n", "two\n"]
    assert fs.cat_file("/d/f.txt", start=4, end=7) == b"two"


def test_a_write_replaces_the_file_only_when_it_is_closed(fs):
    fs.pipe_file("/f", b"old")
    f = fs.open("/f", "wb", block_size=5 * MiB)
    f.write(b"n" * (6 * MiB))  # one block already went into the write stream
    assert fs.cat_file("/f") == b"old"
    f.close()
    assert fs.cat_file("/f") == b"n" * (6 * MiB)


def test_a_transaction_commits_at_its_end_and_an_error_discards_it(fs):
    with fs.transaction:
        with fs.open("/t/a", "wb") as f:
            f.write(b"a")
        assert not fs.exists("/t/a")
    assert fs.cat_file("/t/a") == b"a"
    with pytest.raises(RuntimeError), fs.transaction:
        with fs.open("/t/b", "wb") as f:
            f.write(b"b")
        raise RuntimeError("the caller fails")
    assert not fs.exists("/t/b")


def test_listing_info_symlinks_and_removal(fs):
    fs.pipe({"/w/a.txt": b"a", "/w/sub/b.txt": b"bb"})
    fs._call("symlink", "a.txt", "/w/link")
    fs._call("symlink", "missing", "/w/dangling")
    names = {entry["name"]: entry for entry in fs.ls("/w")}
    assert sorted(names) == ["/w/a.txt", "/w/dangling", "/w/link", "/w/sub"]
    assert names["/w/sub"]["type"] == "directory"
    assert names["/w/link"] | {"mtime": 0, "created": 0, "mode": 0} == {
        "name": "/w/link", "type": "file", "size": 1, "islink": True, "destination": "a.txt",
        "mtime": 0, "created": 0, "mode": 0}
    assert names["/w/dangling"]["type"] == "other"
    assert fs.find("/w") == ["/w/a.txt", "/w/dangling", "/w/link", "/w/sub/b.txt"]
    assert fs.glob("/w/**/*.txt") == ["/w/a.txt", "/w/sub/b.txt"]
    assert fs.du("/w") == 1 + 2 + 1
    with pytest.raises(IsADirectoryError):
        fs.rm("/w/sub")
    fs.rm("/w", recursive=True)
    assert not fs.exists("/w")


def test_mv_cp_get_and_put(fs, tmp_path):
    fs.pipe({"/a/x": b"x", "/a/y/z": b"z"})
    fs.mv("/a", "/b")
    assert fs.find("/", withdirs=True) == ["/", "/b", "/b/x", "/b/y", "/b/y/z"]
    fs.cp("/b", "/c", recursive=True)
    assert fs.cat_file("/c/y/z") == b"z"
    fs.get("/c", str(tmp_path / "out"), recursive=True)
    assert (tmp_path / "out" / "y" / "z").read_bytes() == b"z"
    (tmp_path / "out" / "new").write_bytes(b"n")
    fs.put(str(tmp_path / "out"), "/d", recursive=True)
    assert fs.find("/d") == ["/d/new", "/d/x", "/d/y/z"]


def test_errors_are_the_oserror_subclasses_and_errno_of_linux(fs):
    import errno

    fs.pipe_file("/file", b"f")
    with pytest.raises(FileNotFoundError) as missing:
        fs.cat_file("/nope")
    assert missing.value.errno == errno.ENOENT
    with pytest.raises(FileExistsError):
        fs.mkdir("/file")
    with pytest.raises(FileExistsError):
        fs.pipe_file("/file", b"x", mode="create")
    with pytest.raises(NotADirectoryError):
        fs.ls("/file/x")
    assert not fs.exists("/file/x")  # os.path.exists answers False through a file too
    with pytest.raises(IsADirectoryError):
        fs.cat_file("/")
    fs.makedirs("/file2/deep", exist_ok=True)
    fs.makedirs("/file2/deep", exist_ok=True)
    with pytest.raises(FileExistsError):
        fs.makedirs("/file2/deep")


def test_zipfile_reads_an_archive_on_the_disk_through_fsspec(fs):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("inside.txt", "zipped")
    fs.pipe_file("/a.zip", buffer.getvalue())
    with fs.open("/a.zip", "rb") as f, zipfile.ZipFile(f) as archive:
        assert archive.read("inside.txt") == b"zipped"


@pytest.fixture
def page_disk(monkeypatch):
    """A memory disk served as the page's disk "default" (as web/worker/worker.mjs records it)."""
    from py_vfs.vfs import VFS
    from py_vfs.views import page_disks

    monkeypatch.setattr(page_disks, "_page", {})
    vfs = VFS.memory()
    page_disks.serve("default", SimpleNamespace(vfs=vfs))  # as the worker serves its WebAPI
    return vfs


def test_in_the_page_a_name_reaches_the_served_disk_and_a_scoop_only_its_own_view(page_disk):
    """``name=`` (or no disk at all) is the page's disk; another name is ENOENT (each disk has
    a worker of its own). Inside a restricted view the same options reach that view and
    nothing else: another name is EACCES. Resolved at each use, so the instance fsspec caches
    for a set of options never carries the disk into a scoop."""
    from py_vfs.views import page_disks

    assert page_disks.reach(None) is page_disk
    assert page_disks.reach("default") is page_disk
    with pytest.raises(FileNotFoundError, match="serves the disk 'default'"):
        page_disks.reach("other")
    view = page_disk.restrict(read=["/scoops/a"], write=["/scoops/a"])
    fs = fsspec.filesystem("pyvfs", name="default")
    assert fs.vfs is page_disk
    with page_disks.working(view):
        assert fs.vfs is view
        assert fsspec.filesystem("pyvfs", name="default") is fs  # fsspec's cached instance
        assert page_disks.reach(None) is view
        with pytest.raises(PermissionError, match="reaches only that view"):
            page_disks.reach("other")
        # Python's own file API reaches the same view: one source for both (page_disks.py).
        assert pyhost.Binding(SimpleNamespace(), None).vfs is view
    assert fs.vfs is page_disk
    assert isinstance(fsspec.filesystem("pyvfs"), PyVFSFileSystem)
    assert fsspec.filesystem("pyvfs").vfs is page_disk  # no disk given: the page's


def test_a_call_that_cannot_block_on_the_page_disk_fails_with_eagain_at_once(page_disk):
    """Off a promising call (no JSPI here: CPython, or Pyodide in Node) a synchronous call into
    the page's disk cannot wait for the page's event loop: EAGAIN, saying where it can."""
    import errno

    fs = fsspec.filesystem("pyvfs", name="default")
    with pytest.raises(OSError, match=r"vfs\.runPython") as raised:
        fs.cat("/workspace/a.csv")
    assert raised.value.errno == errno.EAGAIN
    fs.close()  # the page's disk stays open: it is the page's
    assert not page_disk.exists("/workspace/a.csv")


def test_a_stepped_disk_raises_instead_of_waiting_for_javascript():
    """A ``StepLoop`` (Pyodide without JSPI) runs what waits for Python code and time; a
    coroutine waiting for something only the JS event loop could settle raises, naming where
    it waits, instead of hanging."""
    import asyncio

    from py_vfs.core.blocking import CoroutineSuspended, StepLoop

    steps = StepLoop()

    async def sleepy() -> str:
        await asyncio.sleep(0.001)
        return "slept"

    async def waits_for_js() -> None:
        await asyncio.get_running_loop().create_future()  # nothing will ever settle it

    try:
        assert steps.run(sleepy()) == "slept"
        with pytest.raises(CoroutineSuspended, match="waits_for_js suspended at"):
            steps.run(waits_for_js())
    finally:
        steps.close()
