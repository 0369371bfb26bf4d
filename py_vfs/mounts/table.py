"""The mount table: the mounted folders, and the virtual nodes that stand for their entries.

A mount point is an ordinary (empty) directory of the disk; the table maps its node id to the
``Mount``. The resolver (``py_vfs/resolver.py``) walks the disk as usual and, the moment it steps
onto a mount point, folds the rest of the path into a ``Place`` inside the folder: there are no
symlinks there, so the remaining names fold lexically and are looked up with one backend call.

What a lookup inside a mount answers is a *virtual node*: a ``Node`` built from the backend's
answer, never stored in the index, whose id names the mount and the path inside it. Read-only
operations of the VFS (stat, readdir, walk, find, glob, grep, read_file...) then work on it
unchanged; the few places that read children or content ask the table (``covers``). Mutations
never see virtual nodes: ``mounts/ops.py`` routes them before they reach the disk code.

Nothing read from a folder is kept: each lookup and listing asks the backend again, so changes
made outside the VFS show at once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import paths
from ..engine import STEP_RUNNING
from ..errors import FsError
from ..node import DIRECTORY, Node
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
    backend: Backend
    read_only: bool = False
    state: str = ACTIVE
    mounted_ms: float = field(default_factory=lambda: time.time() * 1000.0)
    streams: int = 0  # open read and write streams: unmount is EBUSY meanwhile

    @property
    def active(self) -> bool:
        return self.state == ACTIVE

    def info(self) -> dict[str, Any]:
        """What ``mounts()`` reports, in the JS API's spelling."""
        return {"path": self.path, "name": self.backend.name, "readOnly": self.read_only,
                "state": self.state}

    def check_active(self, syscall: str, path: str | None) -> None:
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


@dataclass(frozen=True)
class Place:
    """Where a path leads: inside ``mount`` at ``rel`` (``mount`` None: on the disk)."""

    mount: Mount | None = None
    rel: Rel = ()
    must_be_dir: bool = False


DISK = Place()


class MountTable:
    """The mounts of one VFS, by canonical path and by the node id of their mount point."""

    def __init__(self) -> None:
        self.by_path: dict[str, Mount] = {}
        self.points: dict[str, Mount] = {}
        # Resolutions that went into a mounted folder so far: an answer computed while this
        # moved came (partly) from a folder that changes outside the VFS, so the page must not
        # cache it (py_vfs/page_cache.py).
        self.entered = 0

    def __bool__(self) -> bool:
        return bool(self.by_path)

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
