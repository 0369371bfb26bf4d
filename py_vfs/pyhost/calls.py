"""The replacements of ``open`` and of ``os``'s path functions: each sends a call on a VFS path
to the bound VFS and every other call to the original function (docs/python.md)."""

from __future__ import annotations

import errno
import itertools
import os
import posix
import stat as stat_module
import time
import weakref
from collections.abc import Callable
from typing import Any

from py_vfs.errors import FsError
from py_vfs.pyfile import VFSRawFile, open_file
from py_vfs.pyhost.binding import BOUND, Binding, error, relabel
from py_vfs.pyhost.entries import scandir, stat_result

Handler = Callable[..., Any]

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
        target = None if binding is None or opener is not None else binding.locate(file)
        if target is None:
            return original(file, mode, buffering, encoding, errors, newline, closefd, opener)
        if not closefd:
            raise ValueError("Cannot use closefd=False with file name")
        if not isinstance(mode, str):
            raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
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
    except FsError as exc:  # CPython's utime names no path in its error
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
    access = flags & os.O_ACCMODE
    if flags & os.O_CREAT and flags & os.O_EXCL:
        kind = "x"
    elif flags & os.O_TRUNC and access != os.O_RDONLY:
        kind = "w"
    elif flags & os.O_APPEND:
        kind = "a"
    elif access == os.O_RDONLY:
        kind = "r"
    else:  # writes in place: the "+" mode, after making the file if asked
        if flags & os.O_CREAT and not binding.call("exists", path):
            open_file(binding.runner, binding.vfs, path, "xb", 0).close()
        kind = "r"
        access = os.O_RDWR
    plus = "+" if access == os.O_RDWR else ""
    raw = open_file(binding.runner, binding.vfs, path, f"{kind}{plus}b", 0)
    _OPENED[_register(raw)] = raw
    return raw.fd


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


def _path_call(name: str, count: int, handler: Handler, original: Handler) -> Handler:
    keywords = ("path",) if count == 1 else ("src", "dst")

    def call(*args: Any, **kwargs: Any) -> Any:
        missing = keywords[len(args):count]
        if missing and all(keyword in kwargs for keyword in missing):  # os.stat(path=...)
            args = (*args, *(kwargs.pop(keyword) for keyword in missing))
        binding = _binding_for(kwargs)
        given = args[:count]
        located = [binding.locate(path) for path in given] if binding is not None else []
        if binding is None or len(given) < count or all(p is None for p in located):
            return original(*args, **kwargs)
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
            return original(**kwargs) if path is None else original(path, **kwargs)
        try:
            return handler(binding, located, given)
        except FsError as exc:
            raise relabel(exc, given) from None

    call.__name__ = call.__qualname__ = name
    call.__doc__ = original.__doc__
    return call


def _unsupported(name: str, original: Handler) -> Handler:
    def call(*args: Any, **kwargs: Any) -> Any:
        binding = _binding_for(kwargs)
        if binding is not None and args and binding.locate(args[0]) is not None:
            raise error(errno.ENOTSUP, args[0])
        return original(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _symlink(original: Handler) -> Handler:
    def symlink(src: Any, dst: Any, target_is_directory: bool = False, **kwargs: Any) -> None:
        binding = _binding_for(kwargs)
        located = binding.locate(dst) if binding is not None else None
        if located is None:
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

    def chdir(path: Any) -> None:
        binding = BOUND.get()
        if binding is None or isinstance(path, int) or binding.locate(path) is not None:
            return path_call(path)
        if binding.cwd is not None and not os.fsdecode(path).startswith("/"):
            path = f"{binding.cwd.rstrip('/')}/{os.fsdecode(path)}"
        original(path)
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
