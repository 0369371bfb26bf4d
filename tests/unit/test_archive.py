"""The disk as a zip: export streams in bounded memory, import is all or nothing and refuses
hostile archives with nothing changed."""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import random
import shutil
import stat
import struct
import subprocess
import sys
import tracemalloc
import warnings
import zipfile
import zlib

import pytest
from host_folder import make_folder

from py_vfs import VFS, FsError, archive, zip_entries
from py_vfs.archive import export, import_archive
from py_vfs.content import CHUNK_SIZE
from py_vfs.mounts import LocalBackend
from py_vfs.storage.memory import MemoryStore

T0 = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC, whole seconds (what unzip restores)


def run(coro):
    return asyncio.run(coro)


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


def build(entries: list[tuple], **kwargs) -> bytes:
    """A zip of ``(name, data)`` or ``(name, data, unix mode with type)`` entries."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names on purpose
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data, *mode in entries:
                info = zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0))
                info.compress_type = kwargs.get("compress", zipfile.ZIP_DEFLATED)
                if mode:
                    info.create_system = 3
                    info.external_attr = mode[0] << 16
                zf.writestr(info, data)
    return buffer.getvalue()


def link(name: str, target: str) -> tuple:
    return (name, target.encode(), stat.S_IFLNK | 0o777)


def patch_central(data: bytes, index: int, **fields: int) -> bytes:
    """Change fields of the ``index``-th central directory record (and, for sizes, its local
    header): compress_size, file_size, offset."""
    out = bytearray(data)
    at = -1
    for _ in range(index + 1):
        at = out.index(b"PK\x01\x02", at + 1)
    where = {"compress_size": 20, "file_size": 24, "offset": 42}
    for field, value in fields.items():
        struct.pack_into("<I", out, at + where[field], value)
    return bytes(out)


ONLY = "only files, directories and symlinks"
HOSTILE = {  # case -> (entries after a harmless one, code, words of the reason)
    "parent escape": ([("../evil.txt", b"x")], "EINVAL", "'..' segment"),
    "deep parent escape": ([("a/../../evil.txt", b"x")], "EINVAL", "'..' segment"),
    "absolute name": ([("/etc/evil", b"x")], "EINVAL", "an absolute name"),
    "backslash": ([("..\\evil.txt", b"x")], "EINVAL", "backslash"),
    "drive letter": ([("C:/evil.txt", b"x")], "EINVAL", "drive letter"),
    "dot segment": ([("./a", b"x")], "EINVAL", "'.'"),
    "empty segment": ([("a//b", b"x")], "EINVAL", "empty"),
    "duplicate": ([("a.txt", b"1"), ("a.txt", b"2")], "EINVAL", "a duplicate name"),
    "file and directory": ([("a/", b""), ("a", b"x")], "EINVAL", "a duplicate name"),
    "name below a file": ([("a", b"x"), ("a/b", b"y")], "EINVAL", "below the file 'a'"),
    "name below a link": ([link("l", "d"), ("l/b", b"y")], "EINVAL", "below the symlink 'l'"),
    "link out": ([("a/f", b"x"), link("a/l", "../../etc/passwd")], "EACCES",
                 "out of the import"),
    "absolute link": ([link("l", "/etc/passwd")], "EACCES", "absolute path"),
    "link through a link": ([link("a/b/c/up", "../.."), link("a/m", "b/c/up/../../..")],
                            "EACCES", "through the link 'a/b/c/up'"),
    "device": ([("dev", b"", stat.S_IFCHR | 0o600)], "EINVAL", ONLY),
    "fifo": ([("fifo", b"", stat.S_IFIFO | 0o600)], "EINVAL", ONLY),
    "empty link": ([link("l", "")], "EINVAL", "empty target"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archive_is_refused_with_nothing_changed(disk, case):
    entries, code, words = HOSTILE[case]
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, build([("ok.txt", b"fine"), *entries]), into="/p/in"))
    assert caught.value.code == code, str(caught.value)
    assert "import" in str(caught.value) and words in str(caught.value)
    assert snapshot(disk) == before
    assert not disk.exists("/p/in")


def test_a_nul_in_a_name_is_refused(disk):
    """Python's zipfile cuts a name at NUL ("a\\0.sh" reads as "a"): the raw name is checked."""
    data = build([("evilX.txt.sh", b"x")]).replace(b"evilX.txt.sh", b"evil\0.txt.sh")
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, data, into="/p/in"))
    assert caught.value.code == "EINVAL" and "NUL" in str(caught.value)
    assert snapshot(disk) == before


def test_a_link_through_a_link_already_on_the_disk_is_refused(disk):
    run(_link_in(disk))
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, build([link("l", "out/etc/passwd")]), into="/p/in"))
    assert caught.value.code == "EACCES"
    assert snapshot(disk) == before


async def _link_in(vfs: VFS) -> None:
    await vfs.mkdir("/p/in")
    await vfs.symlink("/", "/p/in/out")


@pytest.mark.parametrize("blob", [b"", b"not a zip at all", b"PK\x03\x04" + bytes(100)])
def test_not_a_zip_is_einval(disk, blob):
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, blob, into="/p/in"))
    assert caught.value.code == "EINVAL"
    assert "not a readable zip" in str(caught.value)
    assert snapshot(disk) == before


def test_a_truncated_archive_is_einval(disk):
    data = run(zip_bytes(disk))
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, data[: len(data) // 2], into="/p/in"))
    assert caught.value.code == "EINVAL"


def test_damage_found_half_way_leaves_nothing(disk):
    """The second file's data is damaged: the first was already made inside the step, and the
    step is rolled back, so neither is there."""
    data = bytearray(build([("a.txt", b"first"), ("b.bin", pattern(5000))],
                           compress=zipfile.ZIP_STORED))
    at = data.index(pattern(5000)[100:120])
    data[at] ^= 0xFF
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, bytes(data), into="/p/in"))
    assert caught.value.code == "EINVAL" and "b.bin" in str(caught.value)
    assert snapshot(disk) == before


def test_declared_sizes_that_lie_are_refused(disk):
    data = build([("a.txt", b"0123456789" * 100)], compress=zipfile.ZIP_STORED)
    before = snapshot(disk)
    for lie in (10, 5000):  # fewer bytes than the data holds, more than it holds
        with pytest.raises(FsError) as caught:
            run(import_archive(disk, patch_central(data, 0, file_size=lie), into="/p/in"))
        assert caught.value.code == "EINVAL", str(caught.value)
    assert snapshot(disk) == before


def test_an_entry_declared_huge_is_efbig_before_any_read(disk):
    data = patch_central(build([("a.txt", b"small")]), 0, file_size=600 * 1024 * 1024)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, data, into="/p/in"))
    assert caught.value.code == "EFBIG"
    assert not disk.exists("/p/in")


def test_overlapping_entries_are_refused(disk):
    data = build([("a.txt", b"x" * 1000), ("b.txt", b"y" * 1000)])
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, patch_central(data, 1, offset=0), into="/p/in"))
    assert caught.value.code == "EINVAL" and "overlap" in str(caught.value)


def test_a_zip_bomb_is_refused(disk, monkeypatch):
    """Zeros deflate about 1000 to 1: past the floor, over 100 times the archive is refused.
    (The floor is lowered so that the test stays small.)"""
    monkeypatch.setattr(zip_entries, "RATIO_FLOOR", 1024 * 1024)
    data = build([("zeros.bin", bytes(4 * 1024 * 1024))])
    assert len(data) < 40 * 1024
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, data, into="/p/in"))
    assert caught.value.code == "EINVAL" and "zip bomb" in str(caught.value)
    assert not disk.exists("/p/in")


@pytest.mark.parametrize("limit, value, code", [
    ("MAX_ENTRIES", 3, "ENOSPC"),
    ("MAX_ENTRY_BYTES", 1000, "EFBIG"),
    ("MAX_TOTAL_BYTES", 3000, "ENOSPC"),
])
def test_limits_on_entries_and_sizes(disk, monkeypatch, limit, value, code):
    monkeypatch.setattr(zip_entries, limit, value)
    data = build([(f"f{i}", pattern(1500, i)) for i in range(4)])
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, data, into="/p/in"))
    assert caught.value.code == code
    assert snapshot(disk) == before


def test_an_archive_over_the_cap_is_efbig_while_reading(disk, monkeypatch):
    monkeypatch.setattr(archive, "MAX_ARCHIVE_BYTES", 10_000)
    pulled = []

    def pieces():
        for i in range(100):
            pulled.append(i)
            yield bytes(1000)

    with pytest.raises(FsError) as caught:
        run(import_archive(disk, pieces(), into="/p/in"))
    assert caught.value.code == "EFBIG"
    assert len(pulled) == 11  # it stopped reading at the cap


def test_an_existing_file_in_the_way_is_eexist(disk):
    data = build([("readme.md", b"other")])
    before = snapshot(disk)
    with pytest.raises(FileExistsError):
        run(import_archive(disk, data, into="/p"))
    assert snapshot(disk) == before
    with pytest.raises(NotADirectoryError):
        run(import_archive(disk, data, into="/p/readme.md"))


def test_a_mounted_folder_exports_and_is_no_place_to_import(disk, tmp_path):
    run(disk.mount("/p/m", LocalBackend(str(make_folder(tmp_path)))))
    data = run(zip_bytes(disk))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.read("m/src/main.py") == b"print('hi')\n"
        assert zf.read("m/README.md") == b"# project\n"
    before = snapshot(disk)
    for into in ("/p", "/p/m", "/p/m/src"):  # above it, at it, below it
        with pytest.raises(FsError) as caught:
            run(import_archive(disk, build([("x.txt", b"x")]), into=into))
        assert caught.value.code == "EXDEV", into
    assert snapshot(disk) == before
    fresh = VFS.memory()
    run(import_archive(fresh, data, into="/"))
    assert run(fresh.read_file("/m/src/main.py")) == b"print('hi')\n"


def unicode_path(raw: bytes, name: str) -> bytes:
    """Info-ZIP's Unicode Path extra field: version 1, CRC-32 of the raw name, UTF-8 name."""
    body = b"\x01" + struct.pack("<I", zlib.crc32(raw)) + name.encode()
    return struct.pack("<HH", 0x7075, len(body)) + body


@pytest.mark.parametrize("raw, extra, expected", [
    ("été".encode(), b"", "été"),  # UTF-8 without the flag: what zip on Linux writes
    (b"caf\x82", b"", "café"),  # not UTF-8: CP437, the zip default (0x82 is é there)
    (b"cafe", unicode_path(b"cafe", "café"), "café"),  # the Unicode Path field wins
    (b"cafe", unicode_path(b"other", "café"), "cafe"),  # ... unless it names another name
])
def test_names_without_the_utf8_flag(raw, extra, expected):
    placeholder = b"N" * len(raw)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        info = zipfile.ZipInfo(placeholder.decode(), (2024, 1, 1, 0, 0, 0))
        info.extra = extra
        zf.writestr(info, b"x")
    data = buffer.getvalue().replace(placeholder, raw)
    fresh = VFS.memory()
    run(import_archive(fresh, data, into="/"))
    assert fresh.readdir("/") == [expected]


def test_an_entry_without_a_date_keeps_the_time_it_is_made_at():
    """Some tools write zeros for the MS-DOS date (month 0, day 0): no date, not an error."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(zipfile.ZipInfo("a.txt", (1980, 0, 0, 0, 0, 0)), b"x")
    fresh = VFS.memory()
    run(import_archive(fresh, buffer.getvalue(), into="/"))
    assert fresh.lstat("/a.txt").mtime_ms >= fresh.lstat("/").ctime_ms


def test_times_outside_years_1_to_9999_are_refused(disk):
    info = zip_entries.entry_info("a.txt", "file", 0o644, T0, T0, T0, 1)
    body = struct.pack("<IHH3Q", 0, 1, 24, *[2**63] * 3)  # NTFS ticks far past year 9999
    info.extra = struct.pack("<HH", 0x000A, len(body)) + body
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(info, b"x")
    before = snapshot(disk)
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, buffer.getvalue(), into="/p/in"))
    assert caught.value.code == "EINVAL" and "years 1 to 9999" in str(caught.value)
    assert snapshot(disk) == before


def test_damaged_archives_fail_with_an_fserror_and_change_nothing(disk):
    """Random bytes changed in real archives (seeded, so any failure repeats): each import
    either succeeds or raises an FsError, never another exception, and then changes nothing."""
    rng = random.Random(2026)
    sources = [build([("a.txt", b"hello" * 50), link("l", "a.txt"), ("d/", b""),
                      ("d/b", pattern(3000))]),
               run(zip_bytes(disk, "/p/src"))]
    outcomes = set()
    for attempt in range(400):
        data = bytearray(sources[attempt % 2])
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        revision = disk.revision
        try:
            run(import_archive(disk, bytes(data), into="/p/in"))
        except FsError as error:
            outcomes.add(error.code)
            assert disk.revision == revision and not disk.exists("/p/in"), attempt
        else:
            outcomes.add("imported")
            run(disk.rm("/p/in", recursive=True))
    assert {"EINVAL", "imported"} <= outcomes


@pytest.mark.parametrize("bit", [0x01, 0x40])  # encrypted; "strong encryption"
def test_encrypted_entries_are_refused(disk, bit):
    """Flag bit 6 made zipfile raise a bare NotImplementedError out of the import before."""
    data = bytearray(build([("a.txt", b"hello")]))
    data[data.index(b"PK\x01\x02") + 8] |= bit  # the central record's flag bits
    with pytest.raises(FsError) as caught:
        run(import_archive(disk, bytes(data), into="/p/in"))
    assert caught.value.code == "EINVAL" and "encrypted" in str(caught.value)
    assert not disk.exists("/p/in")


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
