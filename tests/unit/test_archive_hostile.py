"""Hostile and damaged zip archives: an import refuses them (zip-slip names, links leading out,
bombs, lying sizes, encryption, damage found half way) with a clear error and nothing changed."""

from __future__ import annotations

import io
import random
import stat
import struct
import warnings
import zipfile
import zlib

import pytest
from host_folder import make_folder
from test_archive import T0, disk, pattern, run, snapshot, zip_bytes

from py_vfs import VFS, FsError
from py_vfs.archives import archive, zip_entries
from py_vfs.archives.archive import import_archive
from py_vfs.mounts import LocalBackend

__all__ = ["disk"]  # the fixture, shared with test_archive

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
