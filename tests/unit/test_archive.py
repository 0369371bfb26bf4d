"""The disk as a zip: export streams in bounded memory, import is all or nothing and refuses
hostile archives with nothing changed."""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
import tracemalloc
import zipfile

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.archives.archive import export, import_archive
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.storage.memory import MemoryStore

T0 = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC, whole seconds (what unzip restores)


def pattern(size: int, seed: int = 0) -> bytes:
    """Bytes that do not compress and differ chunk to chunk."""
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
    return bytes(out[:size])


BIG = pattern(2 * CHUNK_SIZE + 12_345)  # three chunks
FILES = {  # path -> (content, mode, mtime)
    "/p/readme.md": (b"# hello\n", 0o644, T0 + 1_000),
    "/p/run.sh": (b"#!/bin/sh\necho hi\n", 0o755, T0 + 2_000),
    "/p/secret": (b"key", 0o600, T0 + 3_123),  # ms kept exactly (NTFS field)
    "/p/empty.txt": (b"", 0o644, T0 + 4_000),
    "/p/src/lib/big.bin": (BIG, 0o640, T0 + 5_000),
    "/p/src/\u00e9t\u00e9 \u2603.txt": (b"snow\n", 0o644, T0 + 6_000),
}
DIRS = {"/p/src/lib": (0o750, T0 + 7_000), "/p/src": (0o755, T0 + 8_000),
        "/p/empty": (0o700, T0 + 9_000), "/p": (0o755, T0 + 10_000)}
LINKS = {"/p/latest": "src/lib/big.bin", "/p/src/up": "../readme.md",
         "/p/src/later": "not-yet"}  # dangling, but inside


async def seed(vfs: VFS) -> None:
    for path, (data, mode, _) in FILES.items():
        await vfs.write_file(path, data, mode=mode)
    await vfs.mkdir("/p/empty", mode=0o700)
    for target, link in ((t, p) for p, t in LINKS.items()):
        await vfs.symlink(target, link)
    for path, (_, _, mtime) in FILES.items():
        await vfs.utimes(path, mtime, mtime)
    for path, (mode, mtime) in DIRS.items():  # deepest first: writing into a dir touches it
        await vfs.chmod(path, mode)
        await vfs.utimes(path, mtime, mtime)


@pytest.fixture
def disk() -> VFS:
    vfs = run(VFS.open(MemoryStore(), cache_bytes=0))  # no cache: tracemalloc sees streams
    run(seed(vfs))
    return vfs


async def zip_bytes(vfs: VFS, path: str = "/p") -> bytes:
    return b"".join([piece async for piece in export(vfs, path)])


def tree(vfs: VFS, top: str) -> dict[str, tuple]:
    """Everything below ``top`` as (kind, mode, size, mtime, content or target), by path
    relative to ``top``."""
    out = {}
    stack = [top]
    while stack:
        directory = stack.pop()
        for name in vfs.readdir(directory):
            path = f"{directory.rstrip('/')}/{name}"
            info = vfs.lstat(path)
            if info.is_dir:
                stack.append(path)
                out[path[len(top):]] = ("dir", info.mode, info.mtime_ms)
            elif info.is_symlink:
                out[path[len(top):]] = ("link", info.target)
            else:
                out[path[len(top):]] = ("file", info.mode, info.mtime_ms,
                                        run(vfs.read_file(path)))
    return out


def snapshot(vfs: VFS) -> tuple:
    """The whole disk, and its revision: any change at all shows."""
    return vfs.revision, tree(vfs, "/"), [vfs.lstat(p) for p in vfs.walk("/")]


# ------------------------------------------------------------------ export


def test_round_trip_keeps_bytes_modes_times_links_and_empty_dirs(disk):
    data = run(zip_bytes(disk))
    fresh = VFS.memory()
    counts = run(import_archive(fresh, data, into="/restored"))
    assert counts == {"files": 6, "directories": 3, "symlinks": 3,
                      "bytes": sum(len(d) for d, _, _ in FILES.values())}
    original, restored = tree(disk, "/p"), tree(fresh, "/restored")
    assert restored == original
    assert restored["/src/lib/big.bin"][3] == BIG
    assert restored["/secret"][2] == T0 + 3_123
    assert restored["/empty"] == ("dir", 0o700, T0 + 9_000)
    assert fresh.readlink("/restored/src/up") == "../readme.md"
    assert run(fresh.read_file("/restored/latest")) == BIG  # the link leads where it did


def test_round_trip_of_unrounded_times(disk):
    """Times as the VFS takes them (ms with a fraction) come back to within 100 ns."""
    run(disk.utimes("/p/secret", T0 + 0.25, T0 + 123.456789))
    fresh = VFS.memory()
    run(import_archive(fresh, run(zip_bytes(disk)), into="/"))
    info = fresh.lstat("/secret")
    assert info.mtime_ms == pytest.approx(T0 + 123.456789, abs=1e-4)
    assert info.atime_ms == pytest.approx(T0 + 0.25, abs=1e-4)


def test_what_pythons_zipfile_sees(disk):
    data = run(zip_bytes(disk))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None  # every CRC checks
        infos = {info.filename: info for info in zf.infolist()}
        assert sorted(infos) == sorted(["readme.md", "run.sh", "secret", "empty.txt",
                                        "empty/", "latest", "src/", "src/lib/",
                                        "src/lib/big.bin", "src/up", "src/later",
                                        "src/\u00e9t\u00e9 \u2603.txt"])
        big = infos["src/lib/big.bin"]
        assert big.flag_bits & 0x08  # streamed: sizes and CRC in a data descriptor
        assert big.compress_type == zipfile.ZIP_DEFLATED
        assert zf.read(big) == BIG
        assert big.external_attr >> 16 == stat.S_IFREG | 0o640
        assert infos["run.sh"].external_attr >> 16 == stat.S_IFREG | 0o755
        assert infos["empty/"].external_attr >> 16 == stat.S_IFDIR | 0o700
        assert infos["empty/"].is_dir()
        link = infos["latest"]
        assert link.create_system == 3
        assert stat.S_ISLNK(link.external_attr >> 16)  # as Info-ZIP stores links
        assert zf.read(link) == b"src/lib/big.bin"
        # UTC, and MS-DOS times count in 2 seconds (rounded down)
        assert infos["readme.md"].date_time == (2023, 11, 14, 22, 13, 20)


@pytest.mark.skipif(None in (shutil.which("unzip"), shutil.which("zip"))
                    or sys.platform == "emscripten",
                    reason="needs Info-ZIP's unzip and zip in a process (not in Pyodide)")
def test_info_zip_unzips_the_export_and_its_zip_imports_back(disk, tmp_path):
    """Info-ZIP's tools, as another program would use them: ``unzip`` restores the tree
    (bytes, modes, mtimes to the second, links, empty directories), and what ``zip -r -y``
    makes of that tree imports as the same tree."""
    (tmp_path / "p.zip").write_bytes(run(zip_bytes(disk)))
    listing = subprocess.run(["unzip", "-t", str(tmp_path / "p.zip")], capture_output=True,
                             text=True, timeout=60)
    assert listing.returncode == 0, listing.stdout + listing.stderr
    assert "No errors detected" in listing.stdout
    out = tmp_path / "out"
    done = subprocess.run(["unzip", "-q", str(tmp_path / "p.zip"), "-d", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    for path, (data, mode, mtime) in FILES.items():
        local = out / path[len("/p/"):]
        assert local.read_bytes() == data
        assert stat.S_IMODE(local.lstat().st_mode) == mode
        assert local.lstat().st_mtime == mtime // 1000  # whole seconds: the UT field
    for path, target in LINKS.items():
        assert os.readlink(out / path[len("/p/"):]) == target
    assert stat.S_IMODE((out / "empty").stat().st_mode) == 0o700
    assert (out / "empty").stat().st_mtime == (T0 + 9_000) // 1000
    assert sorted(os.listdir(out / "empty")) == []
    again = subprocess.run(["zip", "-q", "-r", "-y", str(tmp_path / "again.zip"), "."],
                           cwd=out, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stdout + again.stderr
    fresh = VFS.memory()
    run(import_archive(fresh, (tmp_path / "again.zip").read_bytes(), into="/r"))
    seconds = {path: (*entry[:2], entry[2] // 1000 * 1000, *entry[3:])
               if entry[0] != "link" else entry for path, entry in tree(disk, "/p").items()}
    assert tree(fresh, "/r") == seconds


def test_export_of_20_mib_holds_about_one_chunk(disk):
    """The issue asks to measure memory: tracemalloc is deterministic, so a bound is safe."""
    size = 20 * 1024 * 1024
    run(disk.write_stream("/p/huge", (pattern(CHUNK_SIZE, i) for i in range(size // CHUNK_SIZE))))

    async def drain() -> tuple[int, int, int]:
        total = count = 0
        async for piece in export(disk, "/p/huge"):
            total += len(piece)
            count += 1
        return total, count, tracemalloc.get_traced_memory()[1]

    tracemalloc.start()
    try:
        total, count, peak = run(drain())
    finally:
        tracemalloc.stop()
    assert total > size  # incompressible: all of it went through
    assert count >= size // CHUNK_SIZE  # handed out as it was made, not at the end
    assert peak < 2 * CHUNK_SIZE, f"peak {peak} bytes for a {size}-byte export"


def test_export_of_one_file_and_bad_calls(disk):
    data = run(zip_bytes(disk, "/p/run.sh"))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.namelist() == ["run.sh"]
    with pytest.raises(FileNotFoundError):
        export(disk, "/nowhere")
    with pytest.raises(FsError) as caught:
        export(disk, "/p", format="tar")
    assert caught.value.code == "EINVAL"


# ------------------------------------------------------------------ import


def test_import_merges_into_existing_directories(disk):
    run(disk.mkdir("/q/src", recursive=True))
    run(disk.write_file("/q/keep.txt", b"mine"))
    run(import_archive(disk, run(zip_bytes(disk)), into="/q"))
    assert run(disk.read_file("/q/keep.txt")) == b"mine"
    assert tree(disk, "/q") == {**tree(disk, "/p"), "/keep.txt": tree(disk, "/q")["/keep.txt"]}


def test_import_from_an_iterable_of_pieces(disk):
    pieces = list(run(_collect(export(disk, "/p"))))
    fresh = VFS.memory()
    run(import_archive(fresh, iter(pieces), into="/x"))
    assert tree(fresh, "/x") == tree(disk, "/p")


async def _collect(stream):
    return [piece async for piece in stream]


def test_the_shell_exports_and_imports_a_tree():
    from py_vfs.shell import Shell

    vfs = VFS.memory()
    shell = Shell(vfs)
    made = asyncio.run(shell.run("mkdir -p /p/src; echo hi > /p/src/x.txt; echo top > /p/r.md; "
                                 "export /p /out.zip; import /out.zip /copy"))
    assert (made.code, made.stderr) == (0, "")
    assert made.stdout == "/out.zip: 2 files, 1 directories, 0 symlinks, 7 bytes\n"
    assert asyncio.run(vfs.read_file("/copy/src/x.txt")) == b"hi\n"
    assert vfs.readdir("/copy") == ["r.md", "src"]
    again = asyncio.run(shell.run("import /out.zip /copy"))
    assert again.code == 1 and "File exists" in again.stderr
    refused = asyncio.run(shell.run("import /p/r.md /z"))
    assert refused.code == 1 and "Invalid argument" in refused.stderr
    assert not vfs.exists("/z")
    assert asyncio.run(shell.run("export /p")).code == 2
