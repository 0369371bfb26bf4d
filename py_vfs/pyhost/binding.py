"""Which VFS, runner and current directory the running user code sees (a context variable), and
how a path it names is mapped: to the VFS, or left to Python's runtime (docs/python.md,
"Python's own file API")."""

from __future__ import annotations

import errno
import inspect
import os
import posix
import posixpath
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from ..core.blocking import Blocking, PageLoop
from ..views.page_disks import working_on
from .pyfile import make_unmade

T = TypeVar("T")

# The runtime's own roots: the standard library and site-packages (/lib), Python's home and the
# process's cwd (/home/pyodide), scratch space that tempfile and libraries need fast (/tmp),
# and the emulated devices. Every other absolute path is the VFS's, as the shell shows it.
RUNTIME_ROOTS = ("/lib", "/usr", "/dev", "/proc", "/sys", "/tmp", "/home/pyodide")

BOUND: ContextVar[Binding | None] = ContextVar("py_vfs_pyhost", default=None)


class PageRunner(PageLoop):
    """The page's runner (``blocking.PageLoop``: ``block_on``, JSPI) whose calls run with no
    binding: py_vfs's own code sees Python's own file API unchanged."""

    def run(self, awaitable: Awaitable[T]) -> T:
        """``awaitable``'s result, this call blocked on it."""
        token = BOUND.set(None)
        try:
            return super().run(awaitable)
        finally:
            BOUND.reset(token)

    def call(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` at once (the VFS's loop is this thread's), blocking on
        its result only when it is awaitable."""
        token = BOUND.set(None)
        try:
            result = function(*args, **kwargs)
        finally:
            BOUND.reset(token)
        return self.run(result) if inspect.isawaitable(result) else result


class Binding:
    """One run's way to the disk: ``runner`` (how a synchronous call waits for it) and ``cwd``,
    the virtual current directory (None when the code changed into a runtime directory: then
    the process's own cwd applies). The disk or view it reaches is the one the running command
    works on (``vfs``, from ``page_disks.working_on``, which fsspec reaches too).

    ``vfs_roots``: when given, only paths under them are the VFS's (the unit tests map a
    temporary directory); otherwise every path but ``RUNTIME_ROOTS``."""

    def __init__(self, runner: Blocking, cwd: str | None,
                 vfs_roots: tuple[str, ...] | None = None) -> None:
        self.runner = runner
        self.descriptors: set[int] = set()  # its open os.open descriptors (closed at its end)
        self.cwd = cwd
        self.vfs_roots = vfs_roots

    @property
    def vfs(self) -> Any:
        """The disk or restricted view the running command works on."""
        view = working_on.get()
        if view is None:
            raise RuntimeError("no disk to bind: a binding is used while a shell command runs "
                               "(page_disks.working)")
        return view

    def owns(self, absolute: str) -> bool:
        """True when the normalized absolute path is the VFS's."""
        if self.vfs_roots is not None:
            return any(_under(absolute, root) for root in self.vfs_roots)
        return not any(_under(absolute, root) for root in RUNTIME_ROOTS)

    def locate(self, path: Any) -> str | None:
        """The VFS path ``path`` names (relative ones against the virtual cwd), or None when it
        is the runtime's (or a file descriptor)."""
        if isinstance(path, int):
            return None
        text = os.fsdecode(path)
        if not text:  # names no file, as on Linux: the VFS says so when the cwd is its
            return "" if self.cwd is not None else None
        if text.startswith("/"):
            absolute = text
        else:
            base = self.cwd if self.cwd is not None else ORIGINAL_GETCWD()
            absolute = f"{base.rstrip('/')}/{text}"
        # Linux reads "//tmp" as "/tmp"; normpath keeps two leading slashes (POSIX leaves
        # their meaning open), so fold them first.
        return absolute if self.owns(posixpath.normpath("/" + absolute.lstrip("/"))) else None

    def for_runtime(self, path: Any) -> Any:
        """``path`` as the runtime's own function must get it: a relative path joined to the
        virtual cwd, since the process's cwd is not the run's, and normalized, since the part
        on the disk does not exist in the runtime (bytes stay bytes)."""
        if self.cwd is None or not isinstance(path, str | bytes | os.PathLike):
            return path
        given = os.fspath(path)
        text = os.fsdecode(given)
        if not text or text.startswith("/"):
            return path
        joined = posixpath.normpath(f"{self.cwd.rstrip('/')}/{text}")
        return os.fsencode(joined) if isinstance(given, bytes) else joined

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """A method of the VFS (stat, mkdir...) on the VFS's loop; its result, awaited when it
        is a coroutine. The files this code opened to be made at their close are made first
        (``pyfile.make_unmade``): it sees them as Linux shows them, from their ``open``."""
        vfs = self.vfs
        make_unmade(vfs)
        return self.runner.call(getattr(vfs, method), *args, **kwargs)


ORIGINAL_GETCWD: Callable[[], str] = posix.getcwd


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")  # root "/": every path


def error(code: int, *names: Any) -> OSError:
    """Linux's error for ``code``: the OSError subclass Python picks, with the path(s) as the
    caller gave them."""
    shown = [_shown(name) for name in names] + [None, None]
    return OSError(code, os.strerror(code), shown[0], None, shown[1])


def _shown(name: Any) -> Any:
    """A path as an OSError carries it: str or bytes, as given (a path-like: its fspath)."""
    return None if name is None or isinstance(name, int) else os.fspath(name)


def relabel(exc: OSError, *names: Any) -> OSError:
    """The VFS's error (its paths are the VFS's) as Linux reports it: same errno and class,
    the path(s) as the caller gave them."""
    return error(exc.errno or errno.EIO, *names)


@contextmanager
def bound(binding: Binding) -> Iterator[Binding]:
    """Binds ``binding`` to the running context."""
    token = BOUND.set(binding)
    try:
        yield binding
    finally:
        BOUND.reset(token)
