"""The mount table: the mounted folders, and the virtual nodes that stand for their entries.

A mount point is an ordinary (empty) directory of the disk; the table maps its node id to the
``Mount``. The resolver (``py_vfs/fs/resolver.py``) walks the disk as usual and, the moment it steps
onto a mount point, folds the rest of the path into a ``Place`` inside the folder: there are no
symlinks there, so the remaining names fold lexically and are looked up with one backend call.

What a lookup inside a mount answers is a *virtual node*: a ``Node`` built from the backend's
answer, never stored in the index, whose id names the mount and the path inside it. Read-only
operations of the VFS (stat, readdir, walk, find, glob, grep, read_file...) then work on it
unchanged; the few places that read children or content ask the table (``covers``). Mutations
see virtual nodes only through a side (``py_vfs/mounts/side.py``), which turns them back into
paths inside the folder.

Nothing read from a folder is kept: each lookup and listing asks the backend again, so changes
made outside the VFS show at once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, Node
from ..disk.engine import STEP_RUNNING
from ..disk.index import Index
from .backend import Backend, BackendError, Entry, Rel

# Ids of virtual nodes start with NUL, which no stored id (hex) contains.
MARK = "\0"
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
        """The VFS path of ``rel`` inside this mount."""
        return self.path if not rel else paths.child(self.path, "/".join(rel))

    def node_id_of(self, rel: Rel) -> str:
        """The id of the virtual node of ``rel`` (never stored: it starts with NUL)."""
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
        """The virtual node of ``entry``, listed in the directory ``rel``."""
        return self.vnode((*rel, entry.name), entry, self.node_id_of(rel))


@dataclass(frozen=True)
class Place:
    """Where a path leads: inside ``mount`` at ``rel`` (``mount`` None: on the disk), and what
    the walk that found it knew on the way, so that the lookup inside goes on from there:
    whether a trailing slash asks for a directory, the disk directory that holds the mount
    point (``outside``), and whether a symlink was followed (a scope then wants a readable
    end)."""

    mount: Mount | None = None
    rel: Rel = ()
    must_be_dir: bool = False
    outside: Node | None = None
    linked: bool = False


DISK = Place()


class MountTable:
    """The mounts of one VFS, by canonical path and by the node id of their mount point."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.by_path: dict[str, Mount] = {}
        self.points: dict[str, Mount] = {}
        # Resolutions that went into a mounted folder so far: an answer computed while this
        # moved came (partly) from a folder that changes outside the VFS, so the page must not
        # cache it (py_vfs/web/page_cache.py).
        self.entered = 0
        index.on_marks = self.follow_marks

    def follow_marks(self) -> None:
        """Bring the table in line with the mount points the disk records (``Index.marks``),
        whoever changed them: a mount another tab (or an earlier session) made appears here as
        waiting, not attached, so no write of this tab lands below its mount point; one
        unmounted elsewhere goes from here too."""
        marks = self.index.marks
        for mount in list(self.points.values()):
            if mount.node_id not in marks:
                self.discard(mount)
        for node_id, name in marks.items():
            if node_id not in self.points:
                self.add(Mount(self._disk_path(node_id), node_id, None, state=WAITING,
                               label=name))

    def _disk_path(self, node_id: str) -> str:
        names = []
        node = self.index.get(node_id)
        while node.parent is not None:
            names.append(node.name)
            node = self.index.get(node.parent)
        return "/" + "/".join(reversed(names))

    def __bool__(self) -> bool:
        return bool(self.by_path)

    def add(self, mount: Mount) -> None:
        """Enter ``mount`` in the table."""
        self.by_path[mount.path] = mount
        self.points[mount.node_id] = mount

    def discard(self, mount: Mount) -> None:
        """Take ``mount`` out of the table."""
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

    # -------------------------------------------------------------- children and content

    def names(self, directory: Node) -> list[str]:
        """The sorted names in a mounted directory (none while the mount waits)."""
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
        """The bytes ``[start, end)`` of a mounted file."""
        mount, rel = self.of(node)
        mount.check_active("read", mount.path_of(rel))
        with translated("read", mount.path_of(rel)):
            return mount.backend.read(rel, start, end)
