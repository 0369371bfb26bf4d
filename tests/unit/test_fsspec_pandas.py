"""pandas on the disk through fsspec URLs, on CPython (issue 15, docs/python.md): ``pyvfs://``
URLs with storage options choosing the disk, as a pandas user writes them.

In the page there is no pandas to test: Pyodide's pandas and numpy wheels are published only on
Pyodide's own CDN, and neither PyPI nor npm carries them (docs/python.md says so)."""

from __future__ import annotations

import gzip
import sys

import pytest

if sys.platform == "emscripten":  # on CPython a missing pandas fails: build/requirements.txt
    pytest.skip("pandas has no wheel for Pyodide on PyPI or npm; build/requirements.txt "
                "pins it for CPython", allow_module_level=True)

import fsspec
import pandas as pd

from py_vfs.fsspec_fs import PyVFSFileSystem

CSV = b"city,people\nLyon,522250\nNantes,323204\nLille,236710\n"


@pytest.fixture(autouse=True)
def registered():
    """The protocol as the entry point registers it (test_wheel_install.py proves that)."""
    fsspec.register_implementation("pyvfs", PyVFSFileSystem, clobber=True)
    yield
    PyVFSFileSystem.clear_instance_cache()


def test_read_csv_and_to_csv_on_a_sqlite_disk_file_survive_closing_it(tmp_path):
    options = {"disk": str(tmp_path / "data.db")}
    fs = fsspec.filesystem("pyvfs", **options)
    fs.makedirs("/workspace", exist_ok=True)
    fs.pipe_file("/workspace/cities.csv", CSV)

    frame = pd.read_csv("pyvfs:///workspace/cities.csv", storage_options=options)
    assert frame.to_dict("list") == {"city": ["Lyon", "Nantes", "Lille"],
                                     "people": [522250, 323204, 236710]}
    frame["thousands"] = frame["people"] // 1000
    frame.to_csv("pyvfs:///workspace/report.csv", index=False, storage_options=options)
    fs.close()
    PyVFSFileSystem.clear_instance_cache()

    reopened = fsspec.filesystem("pyvfs", **options)
    assert reopened.cat_file("/workspace/report.csv") == (
        b"city,people,thousands\nLyon,522250,522\nNantes,323204,323\nLille,236710,236\n")
    again = pd.read_csv("pyvfs:///workspace/report.csv", storage_options=options)
    assert again["thousands"].sum() == 522 + 323 + 236
    reopened.close()


def test_compression_is_inferred_from_the_name_and_rows_can_be_limited():
    """A ``.csv.gz`` URL is decompressed as pandas does for local files; ``nrows`` stops early."""
    options = {"disk": None}  # a disk in memory, shared by the calls with these options
    rows = b"".join(b"%d,%d\n" % (n, n * n) for n in range(20_000))
    fsspec.filesystem("pyvfs", **options).pipe_file("/big.csv.gz", gzip.compress(b"n,sq\n" + rows))

    head = pd.read_csv("pyvfs:///big.csv.gz", nrows=3, storage_options=options)
    assert head.to_dict("list") == {"n": [0, 1, 2], "sq": [0, 1, 4]}
    whole = pd.read_csv("pyvfs:///big.csv.gz", storage_options=options)
    assert len(whole) == 20_000 and whole["sq"].iloc[-1] == 19_999 ** 2


def test_a_missing_file_is_file_not_found_with_its_url():
    with pytest.raises(FileNotFoundError, match=r"nowhere\.csv"):
        pd.read_csv("pyvfs:///nowhere.csv", storage_options={"disk": None})
