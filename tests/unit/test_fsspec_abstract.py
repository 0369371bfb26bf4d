"""fsspec's own abstract test suite (``fsspec.tests.abstract``) on the ``pyvfs`` file system.

fsspec ships these tests for implementations to run: copy, get, put, mv, open and pipe, over
scenarios it builds with the file system itself. We give the fixtures it asks for: ``fs`` (a
fresh memory disk per test class, as fsspec's own memory file system does), ``fs_path`` (the
folder the scenarios are made in, removed after each test) and ``fs_join`` (paths on the disk are
POSIX, whatever the host). The local side of get and put is the real local file system.

Every test of the suite runs; none is skipped.
"""

from __future__ import annotations

import posixpath
import sys

import pytest

if sys.platform == "emscripten":
    pytest.skip("the pyvfs file system runs its disk on a thread of its own, and Pyodide has no "
                "threads", allow_module_level=True)
fsspec = pytest.importorskip(
    "fsspec", reason="fsspec is an optional dependency (py_vfs[fsspec]); build/requirements.txt "
    "pins it for the tests")

import fsspec.tests.abstract as abstract  # noqa: E402

from py_vfs.fsspec_fs import PyVFSFileSystem  # noqa: E402


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
