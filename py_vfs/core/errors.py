"""POSIX-coded errors.

Every error a user can cause is an ``FsError``: a subclass of the ``OSError`` that Python code
already catches for that case (``except FileNotFoundError`` works), carrying the POSIX code as a
string so that the JS surface can rebuild a Node-style error from it.
"""

from __future__ import annotations

import errno
import os

_DESCRIPTIONS = {
    "ENOENT": "no such file or directory",
    "EEXIST": "file already exists",
    "ENOTDIR": "not a directory",
    "EISDIR": "illegal operation on a directory",
    "ENOTEMPTY": "directory not empty",
    "EINVAL": "invalid argument",
    "ELOOP": "too many symbolic links encountered",
    "EPERM": "operation not permitted",
    "EACCES": "permission denied",
    "EROFS": "read-only file system",
    "EXDEV": "cross-device link not permitted",
    "EBUSY": "resource busy or locked",
    "ENOSPC": "no space left on device",
    "ENAMETOOLONG": "name too long",
    "EIO": "i/o error",
    "EAGAIN": "resource temporarily unavailable",
    "EDEADLK": "resource deadlock would occur",
    "EFBIG": "file too large",
    "ECANCELED": "operation canceled",
    "ETIMEDOUT": "operation timed out",
    "ENOTCONN": "not connected",
    "EPROTO": "protocol error",
    "ENOTSUP": "operation not supported on socket",  # libuv's words for it, which Node shows
}

_CLASSES: dict[str, type[OSError]] = {
    "ENOENT": FileNotFoundError,
    "EEXIST": FileExistsError,
    "ENOTDIR": NotADirectoryError,
    "EISDIR": IsADirectoryError,
    "EPERM": PermissionError,
    "EACCES": PermissionError,
}


class FsError(OSError):
    """Base of every py_vfs error; ``FsError.of(code, ...)`` picks the right OSError subclass."""

    code: str
    syscall: str
    dest: str | None
    hint: str | None

    def __init__(self, code: str, syscall: str, path: str | None = None,
                 dest: str | None = None) -> None:
        number = getattr(errno, code, errno.EIO)
        super().__init__(number, os.strerror(number), path)
        self.code = code
        self.syscall = syscall
        self.dest = dest
        self.hint = None  # what the user can do about it, shown after the message

    def with_hint(self, hint: str) -> FsError:
        """The same error, telling the user what to do (``mount reconnect /w``...)."""
        self.hint = hint
        return self

    def __str__(self) -> str:
        text = f"{self.code}: {_DESCRIPTIONS.get(self.code, self.strerror.lower())}, {self.syscall}"
        if self.filename is not None:
            text += f" '{self.filename}'"
        if self.dest is not None:
            text += f" -> '{self.dest}'"
        if self.hint:
            text += f" ({self.hint})"
        return text

    def __reduce__(self):  # keep pickling (and copies) working despite the custom __init__
        return (_rebuild, (self.code, self.syscall, self.filename, self.dest))

    @staticmethod
    def of(code: str, syscall: str, path: str | None = None, dest: str | None = None) -> FsError:
        """An error of the class matching ``code``: FileNotFoundError for ENOENT, and so on."""
        return _error_class(code)(code, syscall, path, dest)


def _rebuild(code: str, syscall: str, path: str | None, dest: str | None) -> FsError:
    return FsError.of(code, syscall, path, dest)


_SUBCLASSES: dict[str, type[FsError]] = {}


def _error_class(code: str) -> type[FsError]:
    if code not in _SUBCLASSES:
        base = _CLASSES.get(code, OSError)
        if base is OSError:
            _SUBCLASSES[code] = type(f"FsError_{code}", (FsError,), {})
        else:
            _SUBCLASSES[code] = type(f"FsError_{code}", (FsError, base), {})
    return _SUBCLASSES[code]
