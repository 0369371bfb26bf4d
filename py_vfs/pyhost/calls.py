"""The replacements of ``open`` and of ``os``'s path functions: each sends a call on a VFS path
to the bound VFS and every other call to the original function (docs/python.md)."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import posix
import stat as stat_module
import sys
import time
import weakref
from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from ..fs.disk_side import DEFAULT_FILE_MODE
from .binding import BOUND, Binding, error, relabel
from .entries import scandir, stat_result
from .pyfile import VFSRawFile, check_arguments, layer, open_file

Handler = Callable[..., Any]

# CPython's own os.utime names the path in its error from 3.13 on (as this Python's does).
_NAMES_UTIME_PATH = sys.version_info >= (3, 13)

# Descriptors of VFS files (os.open, or a file's fileno() for os.fsync): far above the numbers
# the kernel or Emscripten hand out, so that one is never taken for a real descriptor.
_FIRST_FD = 1 << 30
_next_fd = itertools.count(_FIRST_FD)
_FILES: weakref.WeakValueDictionary[int, VFSRawFile] = weakref.WeakValueDictionary()
_OPENED: dict[int, VFSRawFile] = {}  # os.open's files: held until os.close


def _register(raw: VFSRawFile) -> int:
    raw.fd = next(_next_fd)
    _FILES[raw.fd] = raw
    return raw.fd


def _raw_of(file: Any) -> VFSRawFile:
    while not isinstance(file, VFSRawFile):
        file = file.buffer if hasattr(file, "buffer") else file.raw
    return file


def _binding_for(kwargs: dict[str, Any]) -> Binding | None:
    """The bound binding, unless a descriptor-relative call goes to the runtime anyway."""
    binding = BOUND.get()
    if binding is None or any(kwargs.get(key) is not None
                              for key in ("dir_fd", "src_dir_fd", "dst_dir_fd")):
        return None
    return binding


# ----------------------------------------------------------------------------- open()

def make_open(original: Handler) -> Handler:
    """``open`` (``builtins.open`` and ``io.open``)."""

    def open(file: Any, mode: str = "r", buffering: int = -1, encoding: str | None = None,
             errors: str | None = None, newline: str | None = None, closefd: bool = True,
             opener: Any = None) -> Any:
        binding = BOUND.get()
        if isinstance(file, int) and file >= _FIRST_FD:  # os.fdopen of an os.open descriptor
            return _fdopen(file, mode, buffering, encoding, errors, newline, closefd)
        target = None if binding is None else binding.locate(file)
        if target is None:
            if binding is not None:
                file = binding.for_runtime(file)
            return original(file, mode, buffering, encoding, errors, newline, closefd, opener)
        if not closefd:
            raise ValueError("Cannot use closefd=False with file name")
        if not isinstance(mode, str):
            raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
        if opener is not None:  # as CPython's: the opener's descriptor, layered as asked
            check_arguments(mode, buffering, encoding, errors, newline)
            return _fdopen(opener(file, _flags_of(mode)), mode, buffering, encoding, errors,
                           newline, True)
        try:
            result = open_file(binding.runner, binding.vfs, target, mode, buffering, encoding,
                               errors, newline)
        except FsError as exc:
            raise relabel(exc, file) from None
        raw = _raw_of(result)
        raw.name = os.fspath(file)  # as Linux's: the path as given
        _register(raw)
        return result

    return open


def _flags_of(mode: str) -> int:
    """The ``os.open`` flags CPython's ``open`` passes an opener for ``mode``."""
    plus = "+" in mode
    for letter, flags in (("r", 0), ("w", os.O_CREAT | os.O_TRUNC), ("a", os.O_CREAT | os.O_APPEND),
                          ("x", os.O_CREAT | os.O_EXCL)):
        if letter in mode:
            access = os.O_RDWR if plus else os.O_RDONLY if letter == "r" else os.O_WRONLY
            return flags | access | getattr(os, "O_CLOEXEC", 0)
    raise ValueError(f"invalid mode: '{mode}'")


def _fdopen(fd: int, mode: str, buffering: int, encoding: str | None, errors: str | None,
            newline: str | None, closefd: bool) -> Any:
    """A file object over the VFS file behind an ``os.open`` descriptor (``os.fdopen``, or an
    opener's result): with ``closefd`` the file object owns it, and closing it commits."""
    raw = _FILES.get(fd)
    if raw is None or raw.closed:
        raise error(errno.EBADF)
    if not closefd:
        raise error(errno.ENOTSUP)  # closing the file object closes (commits) the VFS file
    layered = layer(raw, mode, buffering, encoding, errors, newline)
    _OPENED.pop(fd, None)  # the file object holds it now
    return layered


# ----------------------------------------------------------------------------- paths

def _stat(binding: Binding, path: str, *, follow_symlinks: bool = True,
          **_: Any) -> os.stat_result:
    return stat_result(binding.call("stat" if follow_symlinks else "lstat", path))


def _lstat(binding: Binding, path: str, **_: Any) -> os.stat_result:
    return stat_result(binding.call("lstat", path))


def _listdir(binding: Binding, path: str, given: Any) -> list[Any]:
    names = binding.call("readdir", path)
    return [os.fsencode(name) for name in names] if isinstance(given, bytes) else list(names)


def _mkdir(binding: Binding, path: str, mode: int = 0o777, **_: Any) -> None:
    binding.call("mkdir", path, mode=None if mode == 0o777 else mode & ~0o022)


def _rmdir(binding: Binding, path: str, **_: Any) -> None:
    binding.call("rmdir", path)


def _unlink(binding: Binding, path: str, **_: Any) -> None:
    binding.call("unlink", path)


def _rename(binding: Binding, old: str, new: str, **_: Any) -> None:
    binding.call("rename", old, new)


def _readlink(binding: Binding, path: str, given: Any) -> Any:
    target = binding.call("readlink", path)
    return os.fsencode(target) if isinstance(given, bytes) else target


def _access(binding: Binding, path: str, mode: int, *, follow_symlinks: bool = True,
            **_: Any) -> bool:
    try:
        found = _stat(binding, path, follow_symlinks=follow_symlinks)
    except OSError:
        return False
    if mode & os.X_OK and not stat_module.S_ISDIR(found.st_mode):
        return bool(found.st_mode & 0o111)
    return True


def _utime(binding: Binding, path: str, times: Any = None, *, ns: Any = None,
           follow_symlinks: bool = True, **_: Any) -> None:
    if not follow_symlinks and binding.call("lstat", path).is_symlink:
        return  # a link's own times are not kept apart from its target's (docs/python.md)
    if times is not None and ns is not None:
        raise ValueError("utime: you may specify either 'times' or 'ns' but not both")
    if ns is not None:
        atime_ms, mtime_ms = ns[0] / 1e6, ns[1] / 1e6
    elif times is not None:
        atime_ms, mtime_ms = times[0] * 1000, times[1] * 1000
    else:
        atime_ms = mtime_ms = time.time() * 1000
    try:
        binding.call("utimes", path, atime_ms, mtime_ms)
    except FsError as exc:
        if _NAMES_UTIME_PATH:
            raise  # labelled with the caller's path by _path_call
        raise error(exc.errno or errno.EIO) from None


def _chmod(binding: Binding, path: str, mode: int, *, follow_symlinks: bool = True,
           **_: Any) -> None:
    if not follow_symlinks and binding.call("lstat", path).is_symlink:
        return  # a link's mode is not its own, as on Linux (lchmod: not supported)
    binding.call("chmod", path, mode)


def _truncate(binding: Binding, path: str, length: int) -> None:
    if length < 0:
        raise error(errno.EINVAL, path)
    if stat_module.S_ISDIR(_stat(binding, path).st_mode):
        raise error(errno.EISDIR, path)
    binding.call("truncate", path, length)


def _chdir(binding: Binding, path: str) -> None:
    if not stat_module.S_ISDIR(_stat(binding, path).st_mode):
        raise error(errno.ENOTDIR, path)
    binding.cwd = binding.call("realpath", path)


def _open_fd(binding: Binding, path: str, flags: int, mode: int = 0o777, **_: Any) -> int:
    """``os.open``: Linux's choice of outcome for ``flags``; a file it makes gets ``mode``
    less the umask (022), as on Linux."""
    access = flags & os.O_ACCMODE
    writes = access != os.O_RDONLY
    made = False
    if flags & os.O_CREAT:
        try:  # one step: made here, or EEXIST when it exists (then O_EXCL fails with it)
            open_file(binding.runner, binding.vfs, path, "xb", 0).close()
            made = True
        except FsError as exc:
            if exc.errno != errno.EEXIST or flags & os.O_EXCL:
                raise
    if made and (mode & 0o7777 & ~0o022) != DEFAULT_FILE_MODE:
        binding.call("chmod", path, mode & 0o7777 & ~0o022)
    # The file exists now (else opening it below is ENOENT, as without O_CREAT on Linux).
    if flags & os.O_TRUNC and writes and not made:
        kind = "w"
    elif flags & os.O_APPEND and writes:
        kind = "a"
    else:
        kind = "r"
    if kind != "r" and not binding.call("exists", path):  # "w" and "a" would make it
        raise error(errno.ENOENT, path)
    plus = "+" if access == os.O_RDWR or (kind == "r" and writes) else ""
    raw = open_file(binding.runner, binding.vfs, path, f"{kind}{plus}b", 0)
    _OPENED[_register(raw)] = raw
    binding.descriptors.add(raw.fd)
    return raw.fd


def close_left_open(binding: Binding) -> None:
    """Closes (commits) the ``os.open`` descriptors of a run that it left open, at its end: on
    Linux what it wrote is in the file by then."""
    for fd in binding.descriptors:
        raw = _OPENED.pop(fd, None)
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.close()
    binding.descriptors.clear()


# Each: (name, how many leading path arguments, the VFS handler (binding, *vfs paths, *rest)).
# A handler taking ``given`` gets the first path as the caller gave it (bytes in, bytes out).
_PATH_CALLS: list[tuple[str, int, Handler]] = [
    ("stat", 1, _stat), ("lstat", 1, _lstat), ("mkdir", 1, _mkdir), ("rmdir", 1, _rmdir),
    ("unlink", 1, _unlink), ("remove", 1, _unlink), ("rename", 2, _rename),
    ("replace", 2, _rename), ("access", 1, _access), ("utime", 1, _utime),
    ("chmod", 1, _chmod), ("truncate", 1, _truncate), ("chdir", 1, _chdir),
    ("open", 1, _open_fd),
]
# Calls on a VFS path that the VFS cannot do: OSError ENOTSUP (docs/python.md).
_UNSUPPORTED = ("link", "mkfifo", "mknod", "chown", "lchown", "chroot", "statvfs",
                "listxattr", "getxattr", "setxattr", "removexattr", "lchmod", "chflags",
                "lchflags", "pathconf")


def _positional(args: tuple[Any, ...], kwargs: dict[str, Any], count: int) -> tuple[Any, ...]:
    """``args`` with the leading path arguments given by keyword (``os.stat(path=...)``,
    ``os.link(src=..., dst=...)``) moved in front, taken out of ``kwargs``."""
    missing = ("path",)[len(args):count] if count == 1 else ("src", "dst")[len(args):count]
    if missing and all(keyword in kwargs for keyword in missing):
        args = (*args, *(kwargs.pop(keyword) for keyword in missing))
    return args


def _to_runtime(binding: Binding, args: tuple[Any, ...], count: int) -> tuple[Any, ...]:
    """The leading ``count`` paths as the runtime's function must get them."""
    return (*(binding.for_runtime(path) for path in args[:count]), *args[count:])


def _path_call(name: str, count: int, handler: Handler, original: Handler) -> Handler:
    def call(*args: Any, **kwargs: Any) -> Any:
        args = _positional(args, kwargs, count)
        binding = _binding_for(kwargs)
        given = args[:count]
        located = [binding.locate(path) for path in given] if binding is not None else []
        if binding is None or len(given) < count:
            return original(*args, **kwargs)
        if all(p is None for p in located):
            return original(*_to_runtime(binding, args, count), **kwargs)
        if any(p is None for p in located):  # one path on each side
            raise error(errno.EXDEV, *given)
        kwargs.pop("dir_fd", None), kwargs.pop("src_dir_fd", None), kwargs.pop("dst_dir_fd", None)
        try:
            return handler(binding, *located, *args[count:], **kwargs)
        except FsError as exc:  # the VFS's: its paths are the VFS's
            raise relabel(exc, *given) from None

    call.__name__ = call.__qualname__ = name
    call.__doc__ = original.__doc__
    return call


def _listing_call(name: str, handler: Handler, original: Handler) -> Handler:
    """``listdir``, ``scandir`` and ``readlink``: the path may be left out (``.``) for the first
    two, and bytes give bytes."""

    def call(path: Any = None, **kwargs: Any) -> Any:
        binding = _binding_for(kwargs)
        given = "." if path is None and name != "readlink" else path
        located = binding.locate(given) if binding is not None and given is not None else None
        if located is None:
            if path is None:
                return original(**kwargs)
            return original(path if binding is None else binding.for_runtime(path), **kwargs)
        try:
            return handler(binding, located, given)
        except FsError as exc:
            raise relabel(exc, given) from None

    call.__name__ = call.__qualname__ = name
    call.__doc__ = original.__doc__
    return call


def _unsupported(name: str, original: Handler) -> Handler:
    count = 2 if name == "link" else 1

    def call(*args: Any, **kwargs: Any) -> Any:
        args = _positional(args, kwargs, count)
        binding = _binding_for(kwargs)
        if binding is None:
            return original(*args, **kwargs)
        paths = args[:count]
        if any(binding.locate(path) is not None for path in paths):
            raise error(errno.ENOTSUP, *paths)
        return original(*_to_runtime(binding, args, count), **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _symlink(original: Handler) -> Handler:
    def symlink(src: Any, dst: Any, target_is_directory: bool = False, **kwargs: Any) -> None:
        binding = _binding_for(kwargs)
        located = binding.locate(dst) if binding is not None else None
        if located is None:
            if binding is not None:
                dst = binding.for_runtime(dst)
            return original(src, dst, target_is_directory, **kwargs)
        try:
            binding.call("symlink", os.fsdecode(src), located)
        except FsError as exc:
            raise relabel(exc, src, dst) from None
        return None

    return symlink


def _getcwd(original: Handler, as_bytes: bool) -> Handler:
    def getcwd() -> Any:
        binding = BOUND.get()
        if binding is None or binding.cwd is None:
            return original()
        return os.fsencode(binding.cwd) if as_bytes else binding.cwd

    getcwd.__name__ = getcwd.__qualname__ = "getcwdb" if as_bytes else "getcwd"
    return getcwd


def _chdir_call(path_call: Handler, original: Handler) -> Handler:
    """``os.chdir``: into a VFS directory sets the virtual cwd; into a runtime one leaves the
    VFS (the process's cwd applies again)."""

    def chdir(*args: Any, **kwargs: Any) -> None:
        args = _positional(args, kwargs, 1)  # os.chdir(path=...) too
        if len(args) != 1 or kwargs:
            return original(*args, **kwargs)  # its own TypeError
        (path,) = args
        binding = BOUND.get()
        if binding is None or isinstance(path, int) or binding.locate(path) is not None:
            return path_call(path)
        original(binding.for_runtime(path))
        binding.cwd = None
        return None

    return chdir


# ----------------------------------------------------------------------------- descriptors

def _fd_call(name: str, handler: Callable[[VFSRawFile, Any], Any], original: Handler) -> Handler:
    def call(fd: Any, *args: Any) -> Any:
        raw = _FILES.get(fd) if isinstance(fd, int) and fd >= _FIRST_FD else None
        if raw is None:
            return original(fd, *args)
        if raw.closed:
            raise error(errno.EBADF)
        try:
            return handler(raw, *args)
        except FsError as exc:
            raise relabel(exc) from None

    call.__name__ = call.__qualname__ = name
    return call


def _close(raw: VFSRawFile) -> None:
    """``os.close``: commits what was written (as ``close()`` does) and frees the descriptor."""
    _OPENED.pop(raw.fd or 0, None)
    binding = BOUND.get()
    if binding is not None:
        binding.descriptors.discard(raw.fd or 0)
    raw.close()


_FD_CALLS: list[tuple[str, Callable[..., Any]]] = [
    ("fsync", lambda raw: raw.sync()), ("fdatasync", lambda raw: raw.sync()),
    ("fstat", lambda raw: stat_result(raw.stat())),
    ("lseek", lambda raw, pos, how: raw.seek(pos, how) if raw.seekable() else raw.tell()),
    ("read", lambda raw, size: raw.read(size)), ("write", lambda raw, data: raw.write(data)),
    ("close", lambda raw: _close(raw)),
]


def replacements() -> dict[str, Handler]:
    """Every replaced ``os`` function by name, each built over the current original."""
    made: dict[str, Handler] = {}
    for name, count, handler in _PATH_CALLS:
        made[name] = _path_call(name, count, handler, getattr(posix, name))
    made["chdir"] = _chdir_call(made["chdir"], posix.chdir)
    for name, handler in (("listdir", _listdir), ("readlink", _readlink),
                          ("scandir", lambda binding, path, given: scandir(binding, given, path))):
        made[name] = _listing_call(name, handler, getattr(posix, name))
    made["symlink"] = _symlink(posix.symlink)
    made["getcwd"] = _getcwd(posix.getcwd, False)
    made["getcwdb"] = _getcwd(posix.getcwdb, True)
    for name in _UNSUPPORTED:
        if hasattr(posix, name):
            made[name] = _unsupported(name, getattr(posix, name))
    for name, handler in _FD_CALLS:
        if hasattr(posix, name):
            made[name] = _fd_call(name, handler, getattr(posix, name))
    return made
