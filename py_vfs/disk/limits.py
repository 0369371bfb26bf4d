"""What the VFS accepts as a time, a mode or a file length; anything else is refused before any
change (EINVAL, or EFBIG past the largest file).

Values arrive from JS (any number, NaN and Infinity included), from agents' tool calls and from
Python callers, and a stored value must stay showable: ``ls -l``, ``stat`` and the preview format
every time they hold, and a file's chunk list is loaded at every boot.
"""

from __future__ import annotations

import math

from ..core.errors import FsError
from .content import CHUNK_SIZE

DAY_MS = 86_400_000
# Years 1 to 9999 (what Python's datetime can show), a day short at each end so that every time
# zone can show them too. JS Dates reach further (about +-275,000 years): the VFS does not.
MIN_TIME_MS = -62_135_596_800_000 + DAY_MS
MAX_TIME_MS = 253_402_300_800_000 - DAY_MS - 1

MAX_FILE_SIZE = 2**34
"""16 GiB: 32,768 chunks of 512 KiB, so the largest file's node record (its chunk keys, which
boot loads for every file) stays near 2 MiB. Far beyond what Pyodide's 4 GiB heap can hold at
once (such a file can only be streamed), and exact in a JS number."""
assert MAX_FILE_SIZE % CHUNK_SIZE == 0

MAX_MODE = 0xFFFF_FFFF  # what Node accepts; only the low 12 bits (0o7777) are kept


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_time(value: object, syscall: str, path: str | None) -> float:
    """A time in milliseconds since 1970: finite, from ``MIN_TIME_MS`` to ``MAX_TIME_MS``."""
    if not (_is_integer(value) or isinstance(value, float)) or not math.isfinite(value) \
            or not MIN_TIME_MS <= value <= MAX_TIME_MS:  # type: ignore[operator]
        raise FsError.of("EINVAL", syscall, path).with_hint(
            f"a time must be a finite number of milliseconds, years 1 to 9999 (got {value!r:.40})")
    return float(value)  # type: ignore[arg-type]


def check_mode(value: object, syscall: str, path: str | None) -> int:
    """A mode: an integer from 0 to ``MAX_MODE``, of which the permission bits are kept."""
    if not _is_integer(value) or not 0 <= value <= MAX_MODE:  # type: ignore[operator]
        raise FsError.of("EINVAL", syscall, path).with_hint(
            f"a mode must be an integer from 0 to 0o37777777777 (got {value!r:.40})")
    return int(value)  # type: ignore[call-overload]


def check_length(value: object, syscall: str, path: str | None) -> int:
    """A file length: a non-negative integer (EINVAL), at most ``MAX_FILE_SIZE`` (EFBIG)."""
    if not _is_integer(value) or value < 0:  # type: ignore[operator]
        raise FsError.of("EINVAL", syscall, path).with_hint(
            f"a length must be a non-negative integer (got {value!r:.40})")
    if value > MAX_FILE_SIZE:  # type: ignore[operator]
        raise FsError.of("EFBIG", syscall, path).with_hint(
            f"a file is at most {MAX_FILE_SIZE} bytes (16 GiB)")
    return int(value)  # type: ignore[call-overload]
