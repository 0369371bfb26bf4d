"""The public API of a disk, declared once: every method with its signature and docstring.

``Surface`` is the declaration; its methods are stubs. ``VFS`` (the facade) implements it, and
the objects that offer the same API over a VFS are generated from it (``fs/forwarding.py``): a
step's ``tx`` (``fs/step.py``), a writer view (``vfs.as_writer``), a restricted view
(``views/restricted.py``), and the Protocols the shell and the copies by content are typed
against. Each ``@api`` says what those need to know of a method:

- ``step``: offered inside a step (``async with vfs.step() as tx``);
- ``view``: offered by a restricted view (a scoop is made from the whole disk only);
- ``writes``, ``syscall``, ``follows``: the arguments that name what the method changes, the
  syscall its errors name, and whether a final link there is followed (file content) or the
  entry itself is changed; a written path left out (``restore``'s) is the whole disk;
- ``whole``: it reaches the whole store (a restricted view needs ``/`` writable);
- ``returns``: what its list holds, for a view to filter: ``files`` (paths of files),
  ``paths`` (of any node), ``entries`` (dicts with a ``path``), ``stream`` (a write stream
  that commits later);
- ``op``, ``js``: its operation in the page's protocol (``web/protocol.py``) and its method
  in the page's API (``web/api.mjs``); None where there is none.

tests/unit/test_surface.py holds every implementation and wrapper, the protocol's operations
and the page's methods against this declaration.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..disk.garbage import DEFAULT_GRACE_MS
from .search import DEFAULT_MAX_FILE_SIZE, GrepResult

if TYPE_CHECKING:
    from ..core.node import DirEntry, Node, Stat
    from ..disk.check import Progress, Report
    from ..disk.streams import ReadStream, WriteStream
    from ..disk.usage import Usage
    from ..disk.watch import Listener
    from ..mounts.backend import Backend

F = TypeVar("F", bound=Callable[..., Any])

MAX_ROWS = 10_000
"""Rows a query returns by default; more are dropped and ``Result.truncated`` says so."""

_SAME = "same"  # ``op`` and ``js`` default to the method's name in camelCase


@dataclass(frozen=True)
class Declared:
    """One method of the declaration, with what the wrappers need to know of it."""

    name: str
    function: Any  # the stub (a property for ``revision``)
    step: bool
    view: bool
    writes: tuple[str, ...]
    syscall: str
    follows: bool
    whole: bool
    returns: str
    op: str | None
    js: str | None

    @functools.cached_property
    def is_async(self) -> bool:
        """Whether the method is a coroutine function."""
        return inspect.iscoroutinefunction(self.function)

    def written(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                ) -> list[tuple[str, str | None]]:
        """The paths a call changes, each with the ``dest`` its errors name (the second of
        two, as rename(2) reports)."""
        code = self.function.__code__
        positional = code.co_varnames[1:code.co_argcount]
        values = []
        for name in self.writes:
            at = positional.index(name) if name in positional else len(args)
            values.append((args[at] if at < len(args) else kwargs.get(name)) or "/")
        dest = values[-1] if len(values) > 1 else None
        return [(value, dest) for value in values]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def api(*, step: bool = False, view: bool = True, writes: tuple[str, ...] = (),
        syscall: str = "", follows: bool = False, whole: bool = False, returns: str = "",
        op: str | None = _SAME, js: str | None = _SAME) -> Callable[[F], F]:
    """Mark a stub of ``Surface`` as a declared method (see the module docstring)."""
    def mark(function: F) -> F:
        name = function.__name__
        function.__declared__ = dict(  # type: ignore[attr-defined]
            step=step, view=view, writes=writes, syscall=syscall or name, follows=follows,
            whole=whole, returns=returns, op=_camel(name) if op == _SAME else op,
            js=_camel(name) if js == _SAME else js)
        return function
    return mark


_CONTENT = {"step": True, "writes": ("path",), "syscall": "open", "follows": True}
_READ = {"step": True}


class Surface:
    """The disk's public methods (stubs: ``VFS`` implements them)."""

    # ----------------------------------------------------------------- the disk

    @api(op=None)
    def close(self) -> None:
        """Close the store."""

    @api(op=None)
    async def flush(self) -> None:
        """A barrier: returns once every mutation started before it has committed. Each one is
        durable when it returns, so nothing is buffered and nothing else needs flushing."""

    @api(op="stepBegin")
    def step(self) -> AbstractAsyncContextManager[Any]:
        """``async with vfs.step() as tx:``: every operation on ``tx`` commits together, or none
        does if the body raises (see py_vfs/fs/step.py and docs/semantics.md)."""

    @api()
    def watch(self, path: str, listener: Listener, recursive: bool = False
              ) -> Callable[[], None]:
        """Call ``listener(event)`` for each change at ``path`` (a directory: also its entries;
        ``recursive``: everything below it), made here, in other tabs, or by steps. Returns the
        function that unsubscribes."""

    @api(js=None)
    async def sync(self) -> bool:
        """Catch up now with what other tabs or processes committed (they are also caught up
        with before every mutation). True if anything changed."""

    @property
    @api(op=None, js=None)
    def revision(self) -> int:
        """The disk revision this VFS has applied."""

    @api(op=None, js="as")
    def as_writer(self, writer: str) -> Surface:
        """The same disk, with every change made by ``writer`` (``agent:planner``): recorded
        on the nodes it writes and in the journal. Cheap: a proxy, no second disk."""

    @api()
    def restrict(self, read: Iterable[str] | str | None = (),
                 write: Iterable[str] | str | None = (), *,
                 writer: str | None = None) -> Any:
        """A view limited to the subtrees ``read`` and ``write`` (writable is readable too):
        reads outside find nothing (ENOENT), writes outside are EACCES (``views/restricted.py``,
        docs/sandbox.md). ``writer``: who its changes are made by (default: this context's
        writer, unless that is the disk's default, ``user``: then the view's own name,
        ``view:<n>``)."""

    @api(view=False)
    async def scoop(self, name: str, *, network: bool = False) -> Any:
        """The scoop ``name``'s view: reads and writes ``/scoops/<name>`` (created with its
        ``workspace``, ``home`` and ``tmp``) and ``/shared``, nothing else, as writer
        ``scoop:<name>``. ``network``: whether its shell's `curl` and `wget` may reach the
        network (off by default)."""

    @api(view=False, op=None, js=None)
    def scoops(self) -> list[str]:
        """The names of the scoops (the folders in ``/scoops``)."""

    # ------------------------------------------------------------ the disk as data

    @api()
    async def journal(self, *, since: object = None, until: object = None,
                      writer: str | None = None, path: str | None = None,
                      limit: int = 100) -> list[dict[str, Any]]:
        """The journal, newest first: revision, time, writer, operation, operations, paths
        (docs/data.md); filtered by time (ms or ISO text), writer, and path (or below it)."""

    @api()
    async def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = (), *,
                    limit: int = MAX_ROWS) -> Any:
        """One read-only SQLite statement over the ``files`` and ``journal`` views
        (``query.py``, docs/data.md): columns, rows, and whether rows beyond ``limit`` were
        dropped. A statement that would write is EACCES; nothing it does reaches the disk."""

    @api(whole=True)
    async def snapshot(self, name: str) -> dict[str, Any]:
        """Record the whole tree as snapshot ``name`` (no content copied)."""

    @api()
    async def snapshots(self) -> list[dict[str, Any]]:
        """Every snapshot: name, time, timeMs, revision, writer, nodes."""

    @api(whole=True, syscall="snapshot")
    async def delete_snapshot(self, name: str) -> None:
        """Delete snapshot ``name`` (ENOENT if there is none)."""

    @api()
    async def diff(self, a: str | int | dict[str, Any] | None,
                   b: str | int | dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """What changed from state ``a`` to ``b`` (default now): a state is a snapshot name,
        a revision (int or ``{"revision": n}``) or ``{"before": time}``."""

    @api(view=False, op="readAt")
    async def at(self, state: str | int | dict[str, Any] | None) -> Any:
        """The disk as it was in ``state`` (as in ``diff``), read only: a ``PastDisk``
        (``data/past.py``) with ``read_file``, ``readdir``, ``stat``, ``lstat``, ``readlink``,
        ``realpath`` and ``exists``. Not offered by a view: history is the whole disk's."""

    @api(writes=("path",))
    async def restore(self, state: str | int | dict[str, Any] | None = None, *,
                      path: str | None = None, revision: int | None = None,
                      before: object = None) -> dict[str, Any]:
        """Put the disk, or the subtree at ``path``, back as it was in a snapshot
        (``state``), at ``revision`` or ``before`` a time: one atomic, journaled change."""

    # ----------------------------------------------------------------- content

    @api(**_READ)
    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        """The whole file (decoded with ``encoding`` when given)."""

    @api(**_CONTENT)
    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None,
                         digests: Sequence[str] | None = None, parents: bool = True) -> None:
        """Replace (or create) a file; missing parent directories are created, unless not
        ``parents`` (then a missing parent is ENOENT, as Node's ``writeFile``). ``digests``:
        the sha256 hex of each chunk of ``data``, when the caller has them (``Content.split``)."""

    @api(**_CONTENT)
    async def append_file(self, path: str, data: bytes | str) -> None:
        """Append to a file (created when missing)."""

    @api(**_CONTENT)
    async def truncate(self, path: str, length: int = 0) -> None:
        """Cut or extend (with zeros) a file to ``length`` bytes."""

    @api(**_READ, op=None, js=None)
    def content_id(self, path: str) -> str:
        """A name for a file's bytes that changes exactly when they do (the preview's ETag)."""

    @api(**_READ, op="openRead", js="createReadStream")
    def open_read(self, path: str, start: int = 0, end: int | None = None) -> ReadStream:
        """The bytes ``[start, end)`` of the file, as an async iterator of chunks."""

    @api(**_CONTENT, returns="stream", op="openWrite", js=None)
    def stream_writer(self, path: str, *, mode: int | None = None,
                      parents: bool = True) -> WriteStream:
        """A writer that creates or replaces the file at ``close`` (see ``streams``); missing
        parents are made then, unless not ``parents`` (ENOENT, as Node's ``writeFile``)."""

    @api(**_CONTENT, op=None, js=None)
    async def write_stream(self, path: str,
                           chunks: Iterable[bytes | str] | AsyncIterable[bytes | str], *,
                           mode: int | None = None) -> None:
        """``write_file`` from an iterable or async iterable of bytes, holding about one chunk
        in memory; the file appears whole when the iterable ends, or not at all."""

    # --------------------------------------------------------------- namespace

    @api(step=True, writes=("path",))
    async def mkdir(self, path: str, *, recursive: bool = False, mode: int | None = None) -> None:
        """``mkdir(2)``, or ``mkdir -p`` with ``recursive``."""

    @api(step=True, writes=("path",))
    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """``rm``: a directory needs ``recursive`` unless empty; ``force``: no ENOENT."""

    @api(step=True, writes=("path",))
    async def rmdir(self, path: str) -> None:
        """``rmdir(2)``."""

    @api(step=True, writes=("path",))
    async def unlink(self, path: str) -> None:
        """``unlink(2)``."""

    @api(step=True, writes=("old", "new"))
    async def rename(self, old: str, new: str) -> None:
        """``rename(2)``."""

    @api(step=True, writes=("path",))
    async def symlink(self, target: str, path: str) -> None:
        """``symlink(2)``: create the link ``path`` -> ``target``."""

    @api(**_READ)
    def readlink(self, path: str) -> str:
        """A link's target."""

    @api(**_READ)
    def realpath(self, path: str) -> str:
        """The canonical path, every link followed."""

    @api(step=True, writes=("dst",), syscall="copyfile", follows=True)
    async def copy_file(self, src: str, dst: str) -> None:
        """``fs.copyFile``: a file's content to ``dst``."""

    @api(step=True, writes=("dst",))
    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """``fs.cp``: ``src`` to exactly ``dst``, links as links, directories merged."""

    # ---------------------------------------------------------------- metadata

    @api(**_READ)
    def stat(self, path: str) -> Stat:
        """``stat(2)``: links followed."""

    @api(**_READ)
    def lstat(self, path: str) -> Stat:
        """``lstat(2)``: a final link is reported itself."""

    @api(**_READ)
    def exists(self, path: str) -> bool:
        """Follows links, like ``os.path.exists``: a dangling link does not exist."""

    @api(step=True, writes=("path",), follows=True)
    async def chmod(self, path: str, mode: int) -> None:
        """``chmod(2)``."""

    @api(step=True, writes=("path",), syscall="utime", follows=True)
    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        """``utimes``, in milliseconds."""

    @api(step=True, writes=("path",), syscall="utime", follows=True, op=None, js=None)
    async def touch(self, path: str) -> None:
        """Create an empty file, or set an existing one's times to now (``touch``)."""

    # ----------------------------------------------------------------- listing

    @api(**_READ)
    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """The names in a directory, sorted (``with_types``: as ``DirEntry``)."""

    @api(**_READ, op=None, js=None)
    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """A directory's canonical path and its entries as nodes (see ``Metadata.scandir``)."""

    @api(**_READ, returns="files")
    def walk(self, path: str = "/") -> list[str]:
        """Every non-directory below ``path`` (links not followed), sorted by path."""

    @api(**_READ)
    def du(self, path: str = "/") -> int:
        """Bytes of file content at or below ``path`` (links count their own size)."""

    @api(**_READ, returns="files")
    def ls(self, prefix: str = "/") -> list[str]:
        """Every non-directory at or under ``prefix`` (segment-aware); ``[]`` when missing."""

    @api(**_READ, returns="entries")
    def find(self, directory: str = "/", pattern: str | None = None) -> list[dict]:
        """Entries below ``directory`` whose path relative to it matches ``pattern``."""

    @api(**_READ, returns="paths")
    def glob(self, pattern: str) -> list[str]:
        """Absolute paths matching ``pattern`` (relative patterns are taken from ``/``)."""

    @api(**_READ)
    async def grep(self, pattern: str, path: str = "/", *, regex: bool = True,
                   ignore_case: bool = False, include: str | None = None,
                   max_results: int | None = None,
                   max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> GrepResult:
        """Lines matching ``pattern`` in the files at or under ``path``, in path order."""

    # ------------------------------------------------------------------ mounts

    @api(writes=("path",))
    async def mount(self, path: str, backend: Backend, *, read_only: bool = False
                    ) -> dict[str, Any]:
        """Mount ``backend`` at ``path`` (see ``mounting.py``)."""

    @api(writes=("path",), syscall="mount", op=None, js=None)
    async def restore_mount(self, path: str, backend: Backend, *, read_only: bool = False,
                            granted: bool = True) -> dict[str, Any]:
        """Bring back a mount kept from an earlier session."""

    @api(step=True, writes=("path",), syscall="umount")
    async def unmount(self, path: str) -> dict[str, Any]:
        """Remove the mount at ``path``; the folder is untouched."""

    @api(step=True, writes=("path",), syscall="mount")
    async def reconnect(self, path: str, backend: Backend | None = None, *,
                        read_only: bool | None = None) -> dict[str, Any]:
        """Make a waiting mount active again (``backend``: attach this folder, also to a mount
        another tab made)."""

    @api(**_READ, returns="entries")
    def mounts(self) -> list[dict[str, Any]]:
        """Every mount: path, folder name, readOnly, state."""

    @api(**_READ, js=None)
    def mount_info(self, path: str) -> dict[str, Any]:
        """The mount at ``path`` (EINVAL if it is not a mount point)."""

    # ------------------------------------------------------------------ health

    @api(step=True, whole=True)
    async def check(self, progress: Progress | None = None) -> Report:
        """Verify the stored disk (``fsck``, see ``check.py``). It runs as a mutation that writes
        nothing, so no write can change the store halfway through the walk."""

    @api(step=True, whole=True)
    async def gc(self, grace_ms: float = DEFAULT_GRACE_MS) -> int:
        """Delete stored chunks nothing references (see ``garbage.py``); returns how many."""

    @api(step=True)
    async def usage(self) -> Usage:
        """Files, directories and bytes from the index (no content read), and the quota."""


DECLARED: dict[str, Declared] = {}
for _name, _member in vars(Surface).items():
    _function = _member.fget if isinstance(_member, property) else _member
    if hasattr(_function, "__declared__"):
        DECLARED[_name] = Declared(_name, _member, **_function.__declared__)
