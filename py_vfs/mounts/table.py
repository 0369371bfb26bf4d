"""The mount table, and how a path lookup continues inside a mounted folder.

A mount point is an ordinary (empty) directory of the disk; the table maps its node id to the
``Mount``. ``VFS._resolve`` walks the disk as usual and, the moment it steps onto a mount point,
hands the rest of the path to ``MountTable.enter``: inside a folder there are no symlinks, so the
remaining names are folded lexically and looked up with one backend call.

What a lookup inside a mount answers is a *virtual node*: a ``Node`` built from the backend's
answer, never stored in the index, whose id names the mount and the path inside it. Read-only
operations of the VFS (stat, readdir, walk, find, glob, grep, read_file...) then work on it
unchanged; the few places that read children or content ask the table (``covers``). Mutations
never see virtual nodes: ``ops`` routes them before they reach the disk code.

Nothing read from a folder is kept: each lookup and listing asks the backend again, so changes
made outside the VFS show at once.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import paths
from ..errors import FsError
from ..node import DIRECTORY, Node
from ..step import ACTIVE as STEP_RUNNING
from .backend import Backend, BackendError, Entry, Rel

if TYPE_CHECKING:
    from ..vfs import VFS
    from .ops import MountOps

# Ids of virtual nodes start with NUL, which no stored id (hex) contains.
MARK = "\0"
_MUST_BE_DIR = "/"  # vfs._MUST_BE_DIR: a trailing slash still pending
FILE_MODE, DIR_MODE = 0o644, 0o755
READ_ONLY_MASK = 0o555
ACTIVE, WAITING = "active", "waiting"


@contextlib.contextmanager
def translated(syscall: str, path: str | None, dest: str | None = None) -> Iterator[None]:
    """A backend's failure becomes the FsError of the user's operation and path."""
    try:
        yield
    except BackendError as error:
        raise FsError.of(error.code, syscall, path, dest) from None


@dataclass
class Mount:
    """One mounted folder. ``state`` is WAITING while the browser has not (yet) granted access;
    its paths then answer EACCES naming ``mount reconnect``."""

    path: str
    node_id: str
    # None: the disk records a mount here (another tab, or an earlier session, made it) that
    # this VFS has not attached yet; it waits for ``reconnect`` with the folder.
    backend: Backend | None
    read_only: bool = False
    state: str = ACTIVE
    mounted_ms: float = field(default_factory=lambda: time.time() * 1000.0)
    streams: int = 0  # open read and write streams: unmount is EBUSY meanwhile
    label: str = ""  # the folder's name as the disk records it (shown while not attached)

    @property
    def active(self) -> bool:
        """True when the folder can be used now."""
        return self.state == ACTIVE and self.backend is not None

    @property
    def name(self) -> str:
        """The folder's name."""
        return self.backend.name if self.backend is not None else self.label

    def info(self) -> dict[str, Any]:
        """What ``mounts()`` reports, in the JS API's spelling."""
        return {"path": self.path, "name": self.name, "readOnly": self.read_only,
                "state": self.state}

    def check_active(self, syscall: str, path: str | None) -> None:
        """EACCES, naming ``mount reconnect``, unless the folder can be used now."""
        if self.backend is None:
            raise FsError.of("EACCES", syscall, path).with_hint(
                f"a folder is mounted at {self.path} on this disk but not attached here "
                f"(another tab or an earlier session mounted it): run `mount reconnect "
                f"{self.path}`, or `umount {self.path}`")
        if not self.active:
            raise FsError.of("EACCES", syscall, path).with_hint(
                f"the folder mounted at {self.path} is waiting for permission: "
                f"run `mount reconnect {self.path}`")

    def check_writable(self, syscall: str, path: str | None) -> None:
        """Every change to the folder passes here first: not while waiting, not on a read-only
        mount, not inside a step (a folder has no transactions to join it)."""
        self.check_active(syscall, path)
        if self.read_only:
            raise FsError.of("EROFS", syscall, path)
        if STEP_RUNNING.get() is not None:
            raise FsError.of("ENOTSUP", syscall, path).with_hint(
                "a mounted folder cannot take part in a step: change it outside the step")

    def path_of(self, rel: Rel) -> str:
        return self.path if not rel else paths.child(self.path, "/".join(rel))

    def node_id_of(self, rel: Rel) -> str:
        return MARK + self.node_id + MARK + "/".join(rel)

    def vnode(self, rel: Rel, entry: Entry, parent_id: str) -> Node:
        """The virtual node of ``rel``: the folder's kind, size and mtime; fixed modes (a folder
        keeps none), without write bits on a read-only mount."""
        is_dir = entry.kind == DIRECTORY
        mode = DIR_MODE if is_dir else FILE_MODE
        if self.read_only:
            mode &= READ_ONLY_MASK
        mtime = self.mounted_ms if entry.mtime_ms is None else entry.mtime_ms
        return Node(self.node_id_of(rel), parent_id, rel[-1] if rel else paths.basename(self.path),
                    entry.kind, mode, mtime, mtime, mtime, size=0 if is_dir else entry.size)

    def child_vnode(self, rel: Rel, entry: Entry) -> Node:
        return self.vnode((*rel, entry.name), entry, self.node_id_of(rel))


class Crossing(Exception):
    """Raised while probing (``MountTable.locate``): the path continues inside ``mount``."""

    def __init__(self, mount: Mount, rel: Rel, must_be_dir: bool) -> None:
        super().__init__(mount.path)
        self.mount = mount
        self.rel = rel
        self.must_be_dir = must_be_dir


@dataclass(frozen=True)
class Place:
    """Where a path leads: inside ``mount`` at ``rel`` (``mount`` None: on the disk)."""

    mount: Mount | None = None
    rel: Rel = ()
    must_be_dir: bool = False


DISK = Place()


class MountTable:
    """The mounts of one VFS, by canonical path and by the node id of their mount point."""

    def __init__(self, vfs: VFS) -> None:
        self.vfs = vfs
        self.by_path: dict[str, Mount] = {}
        self.points: dict[str, Mount] = {}
        self._probing = False
        # Resolutions that went into a mounted folder so far: an answer computed while this
        # moved came (partly) from a folder that changes outside the VFS, so the page must not
        # cache it (py_vfs/page_cache.py).
        self.entered = 0
        vfs.index.on_marks = self.follow_marks

    def follow_marks(self) -> None:
        """Bring the table in line with the mount points the disk records (``Index.marks``),
        whoever changed them: a mount another tab (or an earlier session) made appears here as
        waiting, not attached, so no write of this tab lands below its mount point; one
        unmounted elsewhere goes from here too."""
        marks = self.vfs.index.marks
        for mount in list(self.points.values()):
            if mount.node_id not in marks:
                self.discard(mount)
        for node_id, name in marks.items():
            if node_id not in self.points:
                self.add(Mount(self._disk_path(node_id), node_id, None, state=WAITING,
                               label=name))

    def _disk_path(self, node_id: str) -> str:
        names = []
        node = self.vfs.index.get(node_id)
        while node.parent is not None:
            names.append(node.name)
            node = self.vfs.index.get(node.parent)
        return "/" + "/".join(reversed(names))

    def __bool__(self) -> bool:
        return bool(self.by_path)

    @functools.cached_property
    def ops(self) -> MountOps:
        """The mutations under mounts (built on first use: ``ops`` imports this module)."""
        from .ops import MountOps

        return MountOps(self.vfs, self)

    def add(self, mount: Mount) -> None:
        self.by_path[mount.path] = mount
        self.points[mount.node_id] = mount

    def discard(self, mount: Mount) -> None:
        self.by_path.pop(mount.path, None)
        self.points.pop(mount.node_id, None)

    def covers(self, node: Node) -> bool:
        """True for a mount point and for every virtual node: their children and content live
        in a backend."""
        return node.id in self.points or node.id.startswith(MARK)

    def within(self, path: str) -> list[Mount]:
        """The mounts at or below the disk path ``path``."""
        return [m for m in self.by_path.values() if paths.is_within(m.path, path)]

    def of(self, node: Node) -> tuple[Mount, Rel]:
        """The mount and the path inside it of a mount point or a virtual node."""
        if node.id in self.points:
            return self.points[node.id], ()
        _, point, rel = node.id.split(MARK, 2)
        return self.points[point], tuple(rel.split("/")) if rel else ()

    # -------------------------------------------------------------- resolution

    def enter(self, stack: list[tuple[Node, str]], pending: list[str], path: str, syscall: str,
              follow: bool, create: bool) -> tuple[Node | None, str, Node, str]:
        """Finish ``VFS._resolve`` inside the mount whose point is on top of ``stack``: the
        same answer (node, canonical path, parent, name), with virtual nodes."""
        self.entered += 1
        point, point_path = stack[-1]
        mount = self.points[point.id]
        rel: list[str] = []
        must_be_dir = False
        while pending:
            segment = pending.pop()
            if segment == _MUST_BE_DIR:
                must_be_dir = not pending
            elif segment != "..":
                rel.append(segment)
            elif rel:
                rel.pop()
            else:  # a link's ``..`` climbed out of the folder: go on from the disk
                return tuple(self._leave(point_path, pending, path, syscall, follow, create))
        if self._probing:
            raise Crossing(mount, tuple(rel), must_be_dir)
        mount.check_active(syscall, path)
        return self._lookup(mount, tuple(rel), stack, path, syscall, must_be_dir, create)

    def _leave(self, point_path: str, pending: list[str], path: str, syscall: str,
               follow: bool, create: bool) -> Any:
        rest = [s for s in reversed(pending) if s != _MUST_BE_DIR]
        again = "/".join([paths.dirname(point_path).rstrip("/"), *rest]) or "/"
        if pending and pending[0] == _MUST_BE_DIR:
            again += "/"
        return self.vfs._resolve(again, syscall, follow=follow, create=create)

    def _lookup(self, mount: Mount, rel: Rel, stack: list[tuple[Node, str]], path: str,
                syscall: str, must_be_dir: bool, create: bool) -> tuple[Any, str, Node, str]:
        canonical = mount.path_of(rel)
        outside = stack[-2][0]  # the disk directory that holds the mount point

        def vnode(at: Rel, entry: Entry) -> Node:
            return mount.vnode(at, entry, mount.node_id_of(at[:-1]) if at else outside.id)

        if not rel:
            return vnode((), Entry("", DIRECTORY)), canonical, outside, paths.basename(canonical)
        parent = vnode(rel[:-1], Entry(rel[-2] if len(rel) > 1 else "", DIRECTORY))
        if create and must_be_dir:  # as the disk: the way first, then the trailing slash
            with translated(syscall, path):
                self._require_dir(mount, rel[:-1])
            raise FsError.of("EISDIR", syscall, path)
        try:
            entry = mount.backend.stat(rel)
        except BackendError as error:
            if not (create and error.code == "ENOENT"):
                raise FsError.of(error.code, syscall, path) from None
            with translated(syscall, path):
                self._require_dir(mount, rel[:-1])
            return None, canonical, parent, rel[-1]
        if must_be_dir and entry.kind != DIRECTORY:
            raise FsError.of("ENOTDIR", syscall, path)
        return vnode(rel, entry), canonical, parent, rel[-1]

    @staticmethod
    def _require_dir(mount: Mount, rel: Rel) -> None:
        if rel and mount.backend.stat(rel).kind != DIRECTORY:
            raise BackendError("ENOTDIR")

    def locate(self, path: str, syscall: str, *, follow: bool = True,
               create: bool = False) -> Place:
        """Where ``path`` leads, without asking any backend: the mount and the names below its
        root (the disk's own errors, and paths that stay on the disk, give ``DISK``)."""
        self._probing = True
        try:
            self.vfs._resolve(path, syscall, follow=follow, create=create)
        except Crossing as crossing:
            return Place(crossing.mount, crossing.rel, crossing.must_be_dir)
        except FsError:
            return DISK
        finally:
            self._probing = False
        return DISK

    def locate_entry(self, path: str, syscall: str) -> Place:
        """Where the last name of ``path`` lives (what rm, mkdir, rename act on): its parent is
        followed, the name itself is not. A mount point itself is on the disk."""
        segments = [s for s in paths.normalize(path, syscall).split("/") if s]
        if not segments:
            return DISK
        parent = self.locate("/" + "/".join(segments[:-1]), syscall)
        if parent.mount is None:
            return DISK
        return Place(parent.mount, (*parent.rel, segments[-1]), paths.has_trailing_slash(path))

    # -------------------------------------------------------------- children and content

    def names(self, directory: Node) -> list[str]:
        mount, rel = self.of(directory)
        if not mount.active:
            return []
        with translated("scandir", mount.path_of(rel)):
            return sorted(entry.name for entry in mount.backend.list(rel))

    def entries(self, directory: Node, *, sizes: bool = False) -> list[Node]:
        """The children of a mounted directory as virtual nodes, sorted by name (with sizes and
        mtimes only when asked). A mount that waits for permission looks empty here, so a walk
        of the disk passes it by."""
        mount, rel = self.of(directory)
        if not mount.active:
            return []
        with translated("scandir", mount.path_of(rel)):
            listed = mount.backend.list(rel, detail=sizes)
        return [mount.child_vnode(rel, entry) for entry in sorted(listed)]

    def read(self, node: Node, start: int = 0, end: int | None = None) -> bytes:
        mount, rel = self.of(node)
        mount.check_active("read", mount.path_of(rel))
        with translated("read", mount.path_of(rel)):
            return mount.backend.read(rel, start, end)
