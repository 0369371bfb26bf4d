"""The one resolver: a path, in one pass, to the place it names.

A path resolves as the kernel resolves it: every intermediate symlink always, the last one only
when asked (or by a trailing slash), ``..`` in the user's path folded lexically first (as Node's
``path.resolve`` does) and ``..`` inside a link's target physically, against the link's
directory. The walk goes down the index; the moment it steps onto a mount point, the rest of the
path is inside that folder: a folder has no symlinks, so the remaining names fold lexically into
the path inside the mount (``rel``), and a ``..`` that climbs out of the folder (from a link's
target) continues on the disk.

Two questions, one walk:

- ``locate``: where a path leads, without asking any backend: ``DISK``, or a mount and the
  names below its root (what the operations route on);
- ``resolve``: what is there: a ``Found`` (the node, its canonical path, the directory that holds
  it, the name, and its ``Place``), with virtual nodes for a folder's entries
  (``mounts/table.py``), asking the folder with one ``stat``; ``resolve_from`` goes on from a
  ``Place`` that ``locate`` found, without walking the disk again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, SYMLINK, Node
from ..disk.index import Index
from ..disk.scope import SCOPE, hidden
from ..mounts.backend import BackendError, Entry, Rel
from ..mounts.table import DISK, Mount, MountTable, Place, translated

MAX_SYMLINK_HOPS = 40
# Directory paths kept for the next walks (``Index.dir_ids``) at most: past it they all go.
_KNOWN_DIRS = 4096

# What Linux answers when "/" itself is the thing to create or replace; removing or renaming it
# is EPERM (docs/semantics.md, "The root").
_ROOT_ERRORS = {"mkdir": "EEXIST", "open": "EISDIR", "symlink": "EEXIST", "copyfile": "EISDIR"}

# A pending segment that names nothing: what was resolved just before it must be a directory. It
# stands for a trailing slash, on the user's path or at the end of a link's target.
_MUST_BE_DIR = "/"

_NO_ENTRIES: dict[str, str] = {}  # the entries of a directory the index has none of (read only)


class Found(NamedTuple):
    """Where a path leads: ``node`` (None when only its last name is missing and the caller
    creates it), its canonical path, the directory that holds (or would hold) it, and the side
    it is on (``place``: ``DISK``, or the mount and the path inside it)."""

    node: Node | None
    path: str
    parent: Node
    name: str
    place: Place = DISK


class _Again(NamedTuple):
    """A link's ``..`` climbed out of a mounted folder: resolve ``path`` from the disk."""

    path: str


class Resolver:
    """Path resolution over one index and its mount table."""

    def __init__(self, index: Index, table: MountTable) -> None:
        self.index = index
        self.table = table

    # ------------------------------------------------------------------ the walk

    def _beyond(self, outcome: Found | Place | _Again, path: str, syscall: str,
                follow: bool, create: bool) -> Found:
        """The rare rest of a walk: a link's ``..`` that left a folder goes on from the disk;
        a crossing is looked up inside its mount."""
        while isinstance(outcome, _Again):
            outcome = self._walk_once(outcome.path, syscall, follow, create, True)
        if isinstance(outcome, Found):
            return outcome
        outcome.mount.check_active(syscall, path)
        return self._inside(outcome, path, syscall, create)

    def _walk_once(self, path: str, syscall: str, follow: bool,
                   create: bool, linked: bool = False,
                   known: bool = True) -> Found | Place | _Again:
        pending = paths.segments(path, syscall)  # a list of its own, consumed from the end
        points = self.table.points
        # ``Index.child``, ``paths.child`` and the nodes' kind properties, inlined below: a walk
        # is on every operation's path, and a call costs more than its work here.
        children, nodes, dir_ids = self.index.children, self.index.nodes, self.index.dir_ids
        hops = 1 if linked else 0  # ``linked``: this walk goes on from a link's target
        scope = SCOPE.get()  # a restricted view's (disk/scope.py): outside it, nothing is there
        # A directory walked before (``Index.dir_ids``) that holds the last name: the walk
        # starts there (a plain walk of the disk only: no view's scope to check on the way, no
        # folder mounted that it could cross into, no link's target to go on from).
        start = None
        if known and not hops and scope is None and not points and len(pending) > 1:
            held = "/".join(pending[:-1])
            start_id = dir_ids.get(held)
            start = None if start_id is None else nodes.get(start_id)
        if start is not None:
            stack: list[tuple[Node, str]] = [(start, "/" + held)]
            pending = pending[-1:]
        else:
            stack = [(self.index.root, "/")]
            pending.reverse()
            known = False
        names_left = len(pending)  # in ``pending``, not counting _MUST_BE_DIR markers
        if paths.has_trailing_slash(path):
            pending.insert(0, _MUST_BE_DIR)
        while pending:
            segment = pending.pop()
            if segment == _MUST_BE_DIR:
                if not stack[-1][0].is_dir:
                    raise FsError.of("ENOTDIR", syscall, path)
                continue
            names_left -= 1
            if segment == "..":
                if len(stack) > 1:
                    stack.pop()
                continue
            directory, dir_path = stack[-1]
            if directory.kind != DIRECTORY:
                raise FsError.of("ENOTDIR", syscall, path)
            last = names_left == 0  # only trailing-slash markers may follow
            if create and last and pending:
                raise FsError.of("EISDIR", syscall, path)
            if last and not known and not hops and scope is None and not points \
                    and dir_path != "/":
                if len(dir_ids) >= _KNOWN_DIRS:
                    dir_ids.clear()
                dir_ids[dir_path[1:]] = directory.id
            node_id = children.get(directory.id, _NO_ENTRIES).get(segment)
            node = None if node_id is None else nodes[node_id]
            node_path = ("" if dir_path == "/" else dir_path) + "/" + segment
            if scope is not None and not scope.visible(node_path):
                raise hidden(syscall, path)
            if node is None:
                if create and last:
                    if scope is not None and not scope.can_read(node_path):
                        raise hidden(syscall, path)
                    return Found(None, node_path, directory, segment)
                raise FsError.of("ENOENT", syscall, path)
            if node.kind == SYMLINK and (pending or follow):
                if known:  # its target may climb above where this walk started: from "/"
                    return self._walk_once(path, syscall, follow, create, linked, False)
                hops += 1
                if hops > MAX_SYMLINK_HOPS:
                    raise FsError.of("ELOOP", syscall, path)
                target = node.target or ""
                if target.startswith("/"):
                    stack = [(self.index.root, "/")]
                if target.endswith("/"):
                    pending.append(_MUST_BE_DIR)
                more = paths.split_segments(target, syscall)
                pending.extend(reversed(more))
                names_left += len(more)
                continue
            if node.id in points:  # the rest of the path is in a folder
                return self._cross(points[node.id], directory, node_path, pending, hops > 0)
            stack.append((node, node_path))
        node, canonical = stack[-1]
        if scope is not None and hops and not scope.can_read(canonical):
            raise hidden(syscall, path)  # a link may lead only into what is readable
        parent = stack[-2][0] if len(stack) > 1 else node
        return Found(node, canonical, parent, paths.basename(canonical))

    def _cross(self, mount: Mount, outside: Node, point_path: str,
               pending: list[str], linked: bool) -> Place | _Again:
        """Fold the rest of the path inside ``mount``: no links there, so lexically."""
        self.table.entered += 1
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
            else:  # climbed out of the folder: the rest goes on from the disk
                rest = [s for s in reversed(pending) if s != _MUST_BE_DIR]
                again = "/".join([paths.dirname(point_path).rstrip("/"), *rest]) or "/"
                if pending and pending[0] == _MUST_BE_DIR:
                    again += "/"
                return _Again(again)
        return Place(mount, tuple(rel), must_be_dir, outside, linked)

    # ------------------------------------------------------------------ the answers

    def locate(self, path: str, syscall: str, *, follow: bool = True,
               create: bool = False) -> Place:
        """Where ``path`` leads, without asking any backend: the mount and the names below its
        root (the disk's own errors, and paths that stay on the disk, give ``DISK``)."""
        try:
            outcome = self._walk_once(path, syscall, follow, create)
            while isinstance(outcome, _Again):
                outcome = self._walk_once(outcome.path, syscall, follow, create, True)
        except FsError:
            return DISK
        return DISK if isinstance(outcome, Found) else outcome

    def locate_entry(self, path: str, syscall: str) -> Place:
        """Where the last name of ``path`` lives (what rm, mkdir, rename act on): its parent is
        followed, the name itself is not. A mount point itself is on the disk."""
        names = paths.segments(path, syscall)
        if not names:
            return DISK
        parent = self.locate("/" + "/".join(names[:-1]), syscall)
        if parent.mount is None:
            return DISK
        return replace(parent, rel=(*parent.rel, names[-1]),
                       must_be_dir=paths.has_trailing_slash(path))

    def resolve(self, path: str, syscall: str, *, follow: bool = True,
                create: bool = False) -> Found:
        """Resolve ``path`` as the kernel does (see the module docstring).

        With ``create`` (what ``open(O_CREAT)`` does) a missing last name is an answer, not
        ENOENT, also at the end of a dangling link, so that the write creates the link's target;
        and a trailing slash after the last name is EISDIR, whether it exists or not.
        """
        outcome = self._walk_once(path, syscall, follow, create)
        if isinstance(outcome, Found):  # the disk: no more calls
            return outcome
        return self._beyond(outcome, path, syscall, follow, create)

    def resolve_from(self, place: Place, path: str, syscall: str, *, follow: bool = True,
                     create: bool = False) -> Found:
        """``resolve``, going on from the ``place`` that ``locate`` found for ``path`` (with the
        same ``follow``): on the disk the walk is made now, in a folder only the folder is
        asked (no second walk of the disk part)."""
        if place.mount is None:
            return self.resolve(path, syscall, follow=follow, create=create)
        place.mount.check_active(syscall, path)
        return self._inside(place, path, syscall, create)

    def _inside(self, crossing: Place, path: str, syscall: str, create: bool) -> Found:
        """The answer inside a mount: virtual nodes, one ``stat`` of the folder."""
        mount, rel, must_be_dir = crossing.mount, crossing.rel, crossing.must_be_dir
        assert mount is not None and crossing.outside is not None
        canonical = mount.path_of(rel)
        scope = SCOPE.get()
        if scope is not None and not (scope.can_read(canonical) or (
                not crossing.linked and scope.leads_to(canonical))):
            raise hidden(syscall, path)

        def vnode(at: Rel, entry: Entry) -> Node:
            return mount.vnode(at, entry, mount.node_id_of(at[:-1]) if at else crossing.outside.id)

        if not rel:
            return Found(vnode((), Entry("", DIRECTORY)), canonical, crossing.outside,
                         paths.basename(canonical), crossing)
        parent = vnode(rel[:-1], Entry(rel[-2] if len(rel) > 1 else "", DIRECTORY))
        if create and must_be_dir:  # as the disk: the way first, then the trailing slash
            with translated(syscall, path):
                _require_dir(mount, rel[:-1])
            raise FsError.of("EISDIR", syscall, path)
        try:
            entry = mount.backend.stat(rel)
        except BackendError as error:
            if not (create and error.code == "ENOENT"):
                raise FsError.of(error.code, syscall, path) from None
            with translated(syscall, path):
                _require_dir(mount, rel[:-1])
            return Found(None, canonical, parent, rel[-1], crossing)
        if must_be_dir and entry.kind != DIRECTORY:
            raise FsError.of("ENOTDIR", syscall, path)
        return Found(vnode(rel, entry), canonical, parent, rel[-1], crossing)

    def lookup(self, path: str, syscall: str, *, follow: bool = True) -> tuple[Node, str]:
        """The node at ``path`` and its canonical path (see ``resolve``)."""
        found = self._walk_once(path, syscall, follow, False)  # ``resolve``, one call less
        if not isinstance(found, Found):
            found = self._beyond(found, path, syscall, follow, False)
        assert found.node is not None
        return found.node, found.path

    def exists(self, path: str) -> bool:
        """Follows links, like ``os.path.exists``: a dangling link does not exist; a path that
        could never name anything (EINVAL, ENAMETOOLONG) raises."""
        try:
            self.lookup(path, "access")
        except FsError as error:
            if error.code in ("EINVAL", "ENAMETOOLONG"):
                raise
            return False
        return True

    def is_dir(self, path: str, syscall: str) -> bool:
        """Whether ``path`` leads to a directory (following links); no error for a bad path."""
        try:
            node, _ = self.lookup(path, syscall)
        except FsError:
            return False
        return node.is_dir

    def lookup_parent(self, path: str, syscall: str) -> tuple[Node, str, str]:
        """The directory that holds (or would hold) the last name of ``path``, its canonical
        path, and that name."""
        names = paths.segments(path, syscall)
        if not names:
            raise FsError.of(_ROOT_ERRORS.get(syscall, "EPERM"), syscall, path)
        name = names[-1]
        parent_path = "/" + "/".join(names[:-1])
        try:
            parent, canonical = self.lookup(parent_path, syscall)
        except FsError as error:
            raise FsError.of(error.code, syscall, path) from None
        if not parent.is_dir:
            raise FsError.of("ENOTDIR", syscall, path)
        return parent, canonical, name

    def write_target(self, path: str, syscall: str) -> tuple[Node, str, Node | None]:
        """Where a write to ``path`` lands, as with ``open(O_CREAT)``: the directory, the name
        and the file there (None: to be created). Writes follow a final symlink; a dangling one
        creates its target."""
        found = self.resolve(path, syscall, create=True)
        return found.parent, found.name, found.node

    def destination(self, path: str, syscall: str) -> str:
        """The canonical path an entry created at ``path`` would have (its parent resolved)."""
        if paths.normalize(path, syscall) == "/":
            return "/"
        _, parent_path, name = self.lookup_parent(path, syscall)
        return paths.child(parent_path, name)


def _require_dir(mount: Mount, rel: Rel) -> None:
    if rel and mount.backend.stat(rel).kind != DIRECTORY:
        raise BackendError("ENOTDIR")
