"""Node's file-open flags (``"r"``, ``"wx"``, ``"a+"``, ... or a number of ``O_*`` bits) and
what ``readFile``, ``writeFile`` and ``appendFile`` do with them, as Node's do over a Linux file
system: an exclusive flag (``x``) fails with EEXIST when the path exists (a dangling link too),
a flag without create (``r+``) with ENOENT when it does not, a write through a read-only flag
with EBADF, ``r+`` overwrites the file's start without cutting it, ``w`` truncates, ``a``
appends. The check and the write run in one turn of the worker, so no call of this worker comes
between them (another tab's commit may: docs/api.md says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.errors import FsError
from .protocol import FS_CONSTANTS, OPEN_FLAGS

O_ACCMODE = 3


@dataclass(frozen=True)
class OpenFlags:
    """What a flag asks of ``open(2)``."""

    readable: bool
    writable: bool
    create: bool = False
    exclusive: bool = False
    truncate: bool = False
    append: bool = False




def is_flag(value: Any) -> bool:
    """Whether ``value`` is a flag Node accepts: one of its strings or an int32 of bits."""
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        return value in OPEN_FLAGS
    return isinstance(value, int | float) and float(value).is_integer() and (
        -(2 ** 31) <= value < 2 ** 31)


def parse(value: str | int) -> OpenFlags:
    """The ``OpenFlags`` of a flag string or number (``is_flag`` holds)."""
    if isinstance(value, str):
        letters = OPEN_FLAGS[value]
        base = letters[0]
        return OpenFlags(readable=base == "r" or letters.endswith("+"),
                         writable=base != "r" or letters.endswith("+"),
                         create=base in "wa", exclusive="x" in letters,
                         truncate=base == "w", append=base == "a")
    bits = int(value)
    access = bits & O_ACCMODE
    c = FS_CONSTANTS
    return OpenFlags(readable=access in (0, 2), writable=access in (1, 2),
                     create=bool(bits & c["O_CREAT"]), exclusive=bool(bits & c["O_EXCL"]),
                     truncate=bool(bits & c["O_TRUNC"]), append=bool(bits & c["O_APPEND"]))


def _found(v: Any, path: str, follow: bool) -> Any:
    """The stat of ``path`` (None when nothing is there); a file or a loop on the way is the
    error ``open(2)`` answers (ENOTDIR, ELOOP), with its syscall."""
    try:
        return v.stat(path) if follow else v.lstat(path)
    except FileNotFoundError:
        return None
    except FsError as error:
        raise FsError.of(error.code, "open", path) from None


def opened(v: Any, path: str, flags: OpenFlags) -> bool:
    """Check ``open(path, flags)`` as Linux would and say whether the file exists: ENOTDIR or
    ELOOP on the way, EEXIST for an exclusive create of an existing path, ENOENT when the file
    is missing and not to be created (its parent missing: the write says so), EISDIR for a
    directory opened to write or to create."""
    if flags.exclusive and flags.create and _found(v, path, follow=False) is not None:
        raise FsError.of("EEXIST", "open", path)
    found = _found(v, path, follow=True)
    if found is None and not flags.create:
        raise FsError.of("ENOENT", "open", path)
    if found is not None and found.is_dir and (flags.writable or flags.create):
        raise FsError.of("EISDIR", "open", path)
    return found is not None


async def write_with(v: Any, path: str, data: bytes, flag: str | int | None,
                     mode: int | None, *, append: bool = False) -> None:
    """``writeFile`` (or ``appendFile`` when ``append``) with Node's ``flag`` and ``mode`` (used
    when the file is made)."""
    flags = parse(flag if flag is not None else ("a" if append else "w"))
    exists = opened(v, path, flags)
    if not flags.writable:
        raise FsError.of("EBADF", "write", None)
    if flags.append:
        if exists or mode is None:
            await v.append_file(path, data)
        else:
            await v.write_file(path, data, mode=mode, parents=False)
    elif flags.truncate or not exists:
        await v.write_file(path, data, mode=mode, parents=False)
    else:  # r+: the start overwritten, the rest kept
        old = await v.read_file(path)
        await v.write_file(path, data + old[len(data):], mode=mode, parents=False)


async def read_with(v: Any, path: str, flag: str | int | None) -> bytes:
    """``readFile`` with Node's ``flag``: a create flag makes a missing file, ``w+`` empties it,
    a write-only flag is EBADF."""
    flags = parse(flag if flag is not None else "r")
    exists = opened(v, path, flags)
    if not flags.readable:
        if flags.truncate or not exists:
            await v.write_file(path, b"", parents=False)
        raise FsError.of("EBADF", "read", None)
    if flags.truncate or not exists:
        await v.write_file(path, b"", parents=False)
        return b""
    return await v.read_file(path)
