"""Python's own file API on the VFS (py_vfs/pyhost) against the same API on Linux: every case of
tests/python_api/cases.py runs on a real temporary directory and, with the hooks bound, on a
memory disk, and the outcomes must be equal (values; for errors the class, errno and paths).

The disk runs on its own loop in a thread (``ThreadLoop``) and the cases run in this thread, as
a synchronous caller reaches a disk on CPython. Only the VFS side's base directory is mapped to
the disk (``Binding(vfs_roots=...)``): every other path stays the host's, as the runtime's
roots stay Python's in the page. tests/e2e/test_python_api.py runs the same cases in the page."""

from __future__ import annotations

import builtins
import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

if sys.platform == "emscripten":
    pytest.skip("the disk's loop runs in a thread here, and Pyodide has no threads",
                allow_module_level=True)

from py_vfs import VFS, pyhost
from py_vfs.core.blocking import ThreadLoop
from py_vfs.views.page_disks import working

CASES_FILE = Path(__file__).parent.parent / "python_api" / "cases.py"
# Where the VFS side is meant to differ from Linux, by case name, with the reason
# (docs/python.md, "Python's own file API"). Keep it tiny.
DIFFERENCES: dict[str, str] = {}


def load_cases():
    spec = importlib.util.spec_from_file_location("python_api_cases", CASES_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _memory() -> VFS:
    return VFS.memory()


@pytest.fixture
def disk():
    runner = ThreadLoop()
    vfs = runner.run(_memory())
    yield runner, vfs
    runner.close()


def test_every_case_gives_on_the_vfs_what_it_gives_on_linux(tmp_path, disk):
    cases = load_cases()
    assert len(cases.CASES) >= 100
    linux = cases.run_all(str(tmp_path / "linux"))
    runner, vfs = disk
    base = str(tmp_path / "vfs")
    runner.call(vfs.mkdir, base, recursive=True)
    with working(vfs), pyhost.session(pyhost.Binding(runner, None, vfs_roots=(base,))):
        on_vfs = cases.run_all(base)
    assert not os.path.exists(base), "the VFS side wrote to the host"
    differing = {name: {"linux": linux[name], "vfs": on_vfs[name]} for name in linux
                 if linux[name] != on_vfs[name] and name not in DIFFERENCES}
    assert not differing, "\n".join(f"{name}: {both}" for name, both in differing.items())
    assert runner.call(vfs.readdir, base), "the VFS side did not reach the disk"


def test_with_no_binding_every_call_is_the_original(tmp_path, disk):
    runner, vfs = disk
    runner.call(vfs.mkdir, str(tmp_path), recursive=True)
    original_open, original_stat = builtins.open, os.stat
    with working(vfs), pyhost.session(pyhost.Binding(runner, None, vfs_roots=(str(tmp_path),))):
        assert builtins.open is not original_open and os.stat is not original_stat
        token = pyhost.BOUND.set(None)  # py_vfs's own code, or another task's
        try:
            (tmp_path / "host.txt").write_text("host")
            assert os.listdir(tmp_path) == ["host.txt"]
        finally:
            pyhost.BOUND.reset(token)
        assert os.listdir(tmp_path) == []  # the disk's directory, as the binding maps it
    assert builtins.open is original_open and os.stat is original_stat
    assert (tmp_path / "host.txt").read_text() == "host"


def test_runtime_paths_stay_the_runtime_s_and_cross_renames_are_exdev(tmp_path, disk):
    runner, vfs = disk
    mapped = str(tmp_path / "vfs")
    runner.call(vfs.mkdir, mapped, recursive=True)
    (tmp_path / "host.txt").write_text("host")
    with working(vfs), pyhost.session(pyhost.Binding(runner, None, vfs_roots=(mapped,))):
        with open(f"{mapped}/v.txt", "w") as f:
            f.write("vfs")
        assert Path(tmp_path / "host.txt").read_text() == "host"
        with pytest.raises(OSError) as caught:
            os.rename(tmp_path / "host.txt", f"{mapped}/moved.txt")
        assert caught.value.errno == 18  # EXDEV: shutil.move copies instead
        shutil.move(str(tmp_path / "host.txt"), f"{mapped}/moved.txt")
        assert Path(f"{mapped}/moved.txt").read_text() == "host"
    assert runner.call(vfs.read_file, f"{mapped}/moved.txt") == b"host"
    assert not (tmp_path / "host.txt").exists()


def test_a_relative_path_out_of_the_disk_resolves_against_the_run_s_cwd(tmp_path, disk):
    """From a cwd on the disk, ``../x`` that leaves the disk's roots is the runtime's path
    joined to that cwd, as on Linux: not the process's cwd (Pyodide's /home/pyodide)."""
    runner, vfs = disk
    mapped = str(tmp_path / "vfs")
    runner.call(vfs.mkdir, f"{mapped}/inner", recursive=True)
    (tmp_path / "host.txt").write_text("host")
    with working(vfs), pyhost.session(pyhost.Binding(runner, f"{mapped}/inner",
                                                     vfs_roots=(mapped,))):
        with open("../../host.txt") as f:
            assert f.read() == "host"
        assert "host.txt" in os.listdir("../..")
        with open("../../made.txt", "w") as f:
            f.write("made")
        assert os.path.isdir("/" + mapped + "/inner")  # "//..." is "/...", the disk's
    assert (tmp_path / "made.txt").read_text() == "made"


def test_a_descriptor_left_open_is_committed_when_the_run_ends(tmp_path, disk):
    runner, vfs = disk
    mapped = str(tmp_path)
    runner.call(vfs.mkdir, mapped, recursive=True)
    with working(vfs), pyhost.session(pyhost.Binding(runner, None, vfs_roots=(mapped,))):
        fd = os.open(f"{mapped}/left.txt", os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"written, never closed")
    assert runner.call(vfs.read_file, f"{mapped}/left.txt") == b"written, never closed"


def test_open_w_of_a_new_file_is_one_commit_and_the_code_sees_it_from_open(tmp_path, disk):
    """pyhost/pyfile.py: the new file is made with its content by close()'s commit (one
    journal entry); the code that opened it sees it at once, as on Linux."""
    runner, vfs = disk
    mapped = str(tmp_path / "vfs")
    runner.call(vfs.mkdir, mapped, recursive=True)
    before = vfs.revision
    with working(vfs), pyhost.session(pyhost.Binding(runner, None, vfs_roots=(mapped,))):
        with open(f"{mapped}/one.txt", "w") as f:
            f.write("content")
        assert vfs.revision == before + 1
        entries = runner.call(vfs.journal, limit=5)
        assert [(e["operation"], e["paths"]) for e in entries[:1]] == [
            ("writeFile", [f"{mapped}/one.txt"])] and entries[1]["revision"] <= before
        with open(f"{mapped}/two.txt", "w") as seen:
            assert os.path.exists(f"{mapped}/two.txt") and "two.txt" in os.listdir(mapped)
            seen.write("later")
        assert Path(f"{mapped}/two.txt").read_text() == "later"
