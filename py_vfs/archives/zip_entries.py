"""Zip entries as py_vfs reads and writes them: names, kinds, modes and times, and the checks
that keep a hostile archive out (zip-slip names, duplicates, links leading out, bombs).

``archive.py`` streams and imports; this module only looks at ``ZipInfo`` records. Details of
the format and the limits: docs/data.md.
"""

from __future__ import annotations

import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, FILE, SYMLINK
from ..disk.limits import MAX_TIME_MS, MIN_TIME_MS

MAX_ENTRIES = 50_000
"""Entries an archive may hold (ENOSPC beyond): each becomes a node record in one step."""
MAX_ENTRY_BYTES = 256 * 1024 * 1024
"""The largest file an archive may hold (EFBIG): an import stages each file whole in memory."""
MAX_TOTAL_BYTES = 512 * 1024 * 1024
"""All the files of an archive together (ENOSPC): they stay in memory until the step commits."""
MAX_RATIO = 100
RATIO_FLOOR = 64 * 1024 * 1024
"""Past ``RATIO_FLOOR`` bytes of content, an archive may expand to at most ``MAX_RATIO`` times
its own size (EINVAL): a few hundred KiB that would become 500 MiB are a zip bomb."""
MAX_LINK_BYTES = 4096  # PATH_MAX: a symlink's target, stored as its entry's content

_UNIX = 3  # create_system of an entry whose external_attr holds a Unix mode
_UT = 0x5455  # Info-ZIP extended timestamp: mtime as 32-bit Unix seconds
_UNICODE_PATH = 0x7075  # Info-ZIP: the UTF-8 name, with the CRC-32 of the name it replaces
_NTFS = 0x000A  # NTFS times: 100 ns ticks since 1601, exact to the millisecond and beyond
_FILETIME_1970 = 116_444_736_000_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DOS_MIN = (1980, 1, 1, 0, 0, 0)
_DOS_MAX = (2107, 12, 31, 23, 59, 58)
_LOCAL_HEADER = 30  # bytes of a local file header before its name and extra field


def refuse(code: str, why: str, name: str | None = None) -> FsError:
    """The error an import raises, naming the entry and saying why."""
    return FsError.of(code, "import", name).with_hint(why)


# ------------------------------------------------------------------ writing


def _dos_time(ms: float) -> tuple[int, int, int, int, int, int]:
    """The entry's MS-DOS time, in UTC, clamped to what it can hold (1980 to 2107); readers
    that know the extra fields below take the exact time from them."""
    moment = (_EPOCH + timedelta(milliseconds=ms)).timetuple()[:6]
    return max(_DOS_MIN, min(_DOS_MAX, moment))


def _extra(mtime_ms: float, atime_ms: float, ctime_ms: float) -> bytes:
    """UT (what ``unzip`` restores: whole seconds, 1901 to 2038) and NTFS (exact) times."""
    extra = b""
    seconds = int(mtime_ms // 1000)
    if -2**31 <= seconds < 2**31:
        extra += struct.pack("<HHBi", _UT, 5, 1, seconds)
    ticks = [round(ms * 10_000) + _FILETIME_1970 for ms in (mtime_ms, atime_ms, ctime_ms)]
    if min(ticks) >= 0:
        extra += struct.pack("<HHIHH3Q", _NTFS, 32, 0, 1, 24, *ticks)
    return extra


def entry_info(name: str, kind: str, mode: int, mtime_ms: float, atime_ms: float,
               ctime_ms: float, size: int) -> zipfile.ZipInfo:
    """The ``ZipInfo`` of one entry as ``unzip`` restores it: a Unix mode with the file type
    in ``external_attr`` (a symlink is ``S_IFLNK`` and its target is the content, as Info-ZIP
    stores it), a directory's name ends with ``/``, and the times in two extra fields."""
    info = zipfile.ZipInfo(name + ("/" if kind == DIRECTORY else ""), _dos_time(mtime_ms))
    info.create_system = _UNIX
    file_type = {DIRECTORY: stat.S_IFDIR, SYMLINK: stat.S_IFLNK}.get(kind, stat.S_IFREG)
    info.external_attr = (file_type | (mode & 0o7777)) << 16
    if kind == DIRECTORY:
        info.external_attr |= 0x10  # MS-DOS directory attribute
    info.compress_type = zipfile.ZIP_DEFLATED if kind == FILE else zipfile.ZIP_STORED
    info.file_size = size
    info.CRC = info.compress_size = 0  # zipfile sets both when it writes the data
    info.extra = _extra(mtime_ms, atime_ms, ctime_ms)
    return info


# ------------------------------------------------------------------ reading


@dataclass(frozen=True)
class Entry:
    """One checked entry: its path below the import's target as names, and what to make."""

    names: tuple[str, ...]
    kind: str
    mode: int | None  # None: the default of its kind
    mtime_ms: float | None  # None: left at the time it is made (an implied parent directory)
    atime_ms: float | None
    info: zipfile.ZipInfo | None  # None: implied by a deeper entry's name

    @property
    def name(self) -> str:
        return "/".join(self.names)


def _times(info: zipfile.ZipInfo) -> tuple[float | None, float | None]:
    """mtime and atime in ms: from the NTFS field, else UT (mtime for both), else the MS-DOS
    time (read as UTC, as this module writes it); None when that is no date (some tools
    write zeros): the entry keeps the time it is made at."""
    mtime = None
    for tag, body in _fields(info.extra):
        if tag == _NTFS and len(body) >= 32 and body[4:8] == b"\x01\x00\x18\x00":
            mtime_ft, atime_ft = struct.unpack_from("<2Q", body, 8)
            return ((mtime_ft - _FILETIME_1970) / 10_000, (atime_ft - _FILETIME_1970) / 10_000)
        if tag == _UT and len(body) >= 5 and body[0] & 1:
            mtime = struct.unpack_from("<i", body, 1)[0] * 1000.0
    if mtime is None:
        try:
            moment = datetime(*info.date_time, tzinfo=UTC)
        except ValueError:
            return None, None
        mtime = (moment - _EPOCH) / timedelta(milliseconds=1)
    return mtime, mtime


def _fields(extra: bytes) -> list[tuple[int, bytes]]:
    """The (tag, body) fields of an extra field block."""
    fields = []
    while len(extra) >= 4:
        tag, size = struct.unpack_from("<HH", extra)
        fields.append((tag, extra[4:4 + size]))
        extra = extra[4 + size:]
    return fields


def _name(info: zipfile.ZipInfo) -> str:
    """The entry's name as its maker meant it: with the UTF-8 flag, as zipfile read it; else
    Info-ZIP's Unicode Path field when it matches the name; else the raw bytes as UTF-8 when
    they are (what ``zip`` on Linux or macOS writes, unflagged); else CP437, the default."""
    if info.flag_bits & 0x800:
        return info.orig_filename
    raw = info.orig_filename.encode("cp437")
    unicode_paths = [body[5:] for tag, body in _fields(info.extra)
                     if tag == _UNICODE_PATH and len(body) > 5 and body[0] == 1
                     and struct.unpack_from("<I", body, 1)[0] == zlib.crc32(raw)]
    for candidate in [*unicode_paths, raw]:
        try:
            return candidate.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return info.orig_filename


def _names(info: zipfile.ZipInfo) -> tuple[str, ...]:
    """The entry's path as names (``check_name``)."""
    return check_name(_name(info))


def check_name(raw: str) -> tuple[str, ...]:
    """An entry's path (``a/b``; a directory's may end with ``/``) as names, or EINVAL for a
    name that could land outside the target or means something else elsewhere: absolute,
    ``..``, ``.``, empty segments, backslashes, drive letters, NUL (which Python's zipfile
    silently cuts the name at). A SQLite image's names pass the same check."""
    if "\0" in raw:
        raise refuse("EINVAL", "a name holds a NUL byte", raw.replace("\0", "\\0"))
    if "\\" in raw:
        raise refuse("EINVAL", "a name holds a backslash (a Windows separator)", raw)
    if paths.too_long(raw):  # no such path can be made, and its parents would be thousands
        raise refuse("ENAMETOOLONG", f"a name of {paths.PATH_MAX} bytes or more", raw[:64])
    if raw.startswith("/"):
        raise refuse("EINVAL", "an absolute name", raw)
    if len(raw) >= 2 and raw[1] == ":" and raw[0].isalpha():
        raise refuse("EINVAL", "a name with a drive letter", raw)
    names = tuple(raw[:-1].split("/") if raw.endswith("/") else raw.split("/"))
    if any(name in ("", ".", "..") for name in names):
        raise refuse("EINVAL", "a name with an empty, '.' or '..' segment", raw)
    return names


def _kind(info: zipfile.ZipInfo) -> tuple[str, int | None]:
    """File, directory or symlink, and the mode (None when the archive has no Unix mode)."""
    unix = info.external_attr >> 16 if info.create_system == _UNIX else 0
    file_type = stat.S_IFMT(unix)
    mode = unix & 0o7777 if unix else None
    if file_type == stat.S_IFLNK:
        return SYMLINK, None
    if file_type == stat.S_IFDIR or (file_type == 0 and _name(info).endswith("/")):
        return DIRECTORY, mode
    if file_type in (0, stat.S_IFREG) and not _name(info).endswith("/"):
        return FILE, mode
    raise refuse("EINVAL", f"an entry of type {file_type:#o} (only files, directories and "
                           "symlinks are imported)", _name(info))


def _check_sizes(infos: list[zipfile.ZipInfo], archive_bytes: int) -> None:
    """Counts and sizes as declared, before anything is decompressed: the reading then stops
    at each declared size (and fails if the data is shorter), so these bound the memory."""
    if len(infos) > MAX_ENTRIES:
        raise refuse("ENOSPC", f"{len(infos)} entries, over the limit of {MAX_ENTRIES}")
    total = 0
    for info in infos:
        if info.file_size > MAX_ENTRY_BYTES:
            raise refuse("EFBIG", f"{info.file_size} bytes, over the limit of "
                                  f"{MAX_ENTRY_BYTES} for one file", _name(info))
        total += info.file_size
    if total > MAX_TOTAL_BYTES:
        raise refuse("ENOSPC", f"{total} bytes in all, over the limit of {MAX_TOTAL_BYTES}")
    if total > RATIO_FLOOR and total > MAX_RATIO * archive_bytes:
        raise refuse("EINVAL", f"{archive_bytes} bytes expanding to {total}: over "
                               f"{MAX_RATIO} times (a zip bomb?)")


def _check_layout(infos: list[zipfile.ZipInfo]) -> None:
    """Each entry's data lies after the previous entry's: entries that share compressed data
    (the overlapping-entries bomb) or encrypted ones or unusual compressions are refused."""
    end = 0
    for info in sorted(infos, key=lambda i: i.header_offset):
        if info.header_offset < end:
            raise refuse("EINVAL", "entries overlap in the archive (a zip bomb?)",
                         _name(info))
        encoding = "utf-8" if info.flag_bits & 0x800 else "cp437"
        end = info.header_offset + _LOCAL_HEADER + len(info.orig_filename.encode(encoding)) \
            + info.compress_size
        if info.flag_bits & 0x41:  # encrypted, or strong encryption
            raise refuse("EINVAL", "an encrypted entry", _name(info))
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise refuse("EINVAL", f"compression method {info.compress_type} (only stored "
                                   "and deflated are read)", _name(info))


def plan(infos: list[zipfile.ZipInfo], archive_bytes: int) -> list[Entry]:
    """The archive's entries, checked, with the directories their names imply, parents before
    their entries. Refuses (nothing read yet) what ``_names``, ``_kind``, ``_check_sizes``
    and ``_check_layout`` refuse, duplicate names, and a name below a file or a link."""
    _check_sizes(infos, archive_bytes)
    _check_layout(infos)
    entries: dict[tuple[str, ...], Entry] = {}
    for info in infos:
        names = _names(info)
        if names in entries and entries[names].info is not None:
            raise refuse("EINVAL", "a duplicate name", _name(info))
        kind, mode = _kind(info)
        if kind == SYMLINK and info.file_size > MAX_LINK_BYTES:
            raise refuse("ENAMETOOLONG", "a symlink target over 4096 bytes", _name(info))
        mtime, atime = _times(info)
        if any(t is not None and not MIN_TIME_MS <= t <= MAX_TIME_MS for t in (mtime, atime)):
            raise refuse("EINVAL", "a time outside years 1 to 9999", _name(info))
        if names in entries and kind != DIRECTORY:  # implied as a parent by an earlier name
            raise refuse("EINVAL", "a name used for a directory and a file", _name(info))
        entries[names] = Entry(names, kind, mode, mtime, atime, info)
        # The parents, deepest first, up to one already known: its own are known already
        # (each implied directory is made once, not once for every name below it).
        for depth in range(len(names) - 1, 0, -1):
            parent = entries.get(names[:depth])
            if parent is not None:
                if parent.kind != DIRECTORY:
                    raise refuse("EINVAL", f"a name below the {parent.kind} "
                                           f"'{parent.name}'", _name(info))
                break
            entries[names[:depth]] = Entry(names[:depth], DIRECTORY, None, None, None, None)
    return [entries[names] for names in sorted(entries)]


def check_link(entry: Entry, target: str, kind: Callable[[tuple[str, ...]], str | None]) -> None:
    """A symlink may lead only inside the import's target: relative, and its path, taken from
    the link's directory, never climbing above the target nor passing through a link
    (``kind``: what a path below the target is, from the archive or the disk)."""
    if not target or "\0" in target:
        raise refuse("EINVAL", "a symlink with an empty target or a NUL byte", entry.name)
    if target.startswith("/"):
        raise refuse("EACCES", f"a symlink to the absolute path '{target}' (links may lead "
                               "only inside the import)", entry.name)
    position = list(entry.names[:-1])
    segments = [s for s in target.split("/") if s not in ("", ".")]
    for i, segment in enumerate(segments):
        if segment == "..":
            if not position:
                raise refuse("EACCES", f"a symlink to '{target}', out of the import",
                              entry.name)
            position.pop()
            continue
        position.append(segment)
        if i < len(segments) - 1 and kind(tuple(position)) == SYMLINK:
            raise refuse("EACCES", f"a symlink to '{target}' through the link "
                                   f"'{'/'.join(position)}'", entry.name)
