"""A mounted folder as a side of the rules (``py_vfs/fs/rules.py``, ``files.py``,
``metadata.py``): the lookups and the one change each rule asks, made on its backend directly.

An *at* of the namespace rules is the path inside the folder (``Rel``); the content and
metadata rules hand over what the resolver found, whose ``place`` holds that path. Every
backend failure becomes the FsError of the user's call (``translated``); ``enter`` is EACCES
while the mount waits for permission, ``writable`` EROFS on a read-only mount (and ENOTSUP inside
a step). A folder has no transactions, so a change of several backend calls (``mkdir -p``, the
directories a write creates) asks everything first, so that a refused call changes nothing.
"""

from __future__ import annotations

import secrets
from typing import Protocol

from ..core.errors import FsError
from ..core.node import Node
from ..disk.engine import CommitEngine
from ..disk.streams import WriteStream
from .backend import DIRECTORY, Entry, Rel
from .checks import missing_dirs, require_parent, stat_or_none
from .streams import MountWriteStream
from .table import Mount, Place, translated


class Located(Protocol):
    """What a lookup found (``py_vfs/fs/resolver.py``'s ``Found``): the node (None: a file to
    create) and where it is."""

    @property
    def node(self) -> Node | None:
        """The entry found, None when its name is free."""
        ...

    @property
    def place(self) -> Place:
        """The mount and the path inside it."""
        ...


class MountSide:
    """One call's view of one mounted folder: where its operands are inside it (``places``,
    by the path the caller gave), the ``syscall``, and the paths its errors name (``shown``)."""

    def __init__(self, mount: Mount, places: dict[str, Place], syscall: str, path: str,
                 *shown: str) -> None:
        self.mount = mount
        self.backend = mount.backend
        self.places = places
        self.syscall = syscall
        self.path = path  # named by EACCES, EROFS
        self.shown = shown or (path,)

    # ------------------------------------------------------------------ the namespace

    def enter(self) -> None:
        """EACCES while the mount waits for permission."""
        self.mount.check_active(self.syscall, self.path)

    def locate(self, path: str) -> Rel:
        """The path inside the folder (found by the resolver already)."""
        return self.places[path].rel

    def check_parent(self, at: Rel) -> None:
        """The directory holding ``at`` exists and is one."""
        with translated(self.syscall, *self.shown):
            require_parent(self.mount, at)

    def entry(self, at: Rel) -> Entry | None:
        """The entry at ``at``, None when its name (or a directory on the way) is missing."""
        with translated(self.syscall, *self.shown):
            return stat_or_none(self.mount, at)

    def is_empty(self, at: Rel) -> bool:
        """Whether the directory at ``at`` lists nothing."""
        with translated(self.syscall, *self.shown):
            return not self.backend.list(at)

    def key(self, at: Rel) -> tuple[str, ...]:
        """Paths inside one folder compare by their names."""
        return at

    def same(self, src: Rel, dst: Rel) -> bool:
        """One name, or two names of one entry (a case-insensitive host, or hard links)."""
        if src == dst:
            return True
        with translated(self.syscall, *self.shown):
            return self.backend.same_entry(src, dst)

    def check_busy(self, path: str) -> None:
        """Mounts do not nest: nothing in a folder is a mount point."""

    def safe_point(self) -> None:
        """A folder's change is made as it goes: nothing is left to drop."""

    def writable(self, syscall: str | None = None) -> None:
        """EROFS on a read-only mount (EACCES while waiting, ENOTSUP inside a step)."""
        self.mount.check_writable(syscall or self.syscall, self.path)

    def remove(self, at: Rel) -> None:
        """Remove the entry at ``at``, a directory with everything in it."""
        with translated(self.syscall, *self.shown):
            self.backend.remove(at)

    def make_dir(self, at: Rel, mode: int) -> None:
        """Create a directory (a folder keeps no mode)."""
        with translated(self.syscall, *self.shown):
            self.backend.mkdir(at)

    def make_dirs(self, path: str, mode: int) -> None:
        """``mkdir -p``: what is missing, outermost first, once all of it is known (a folder
        has no links to follow on the way)."""
        self.enter()
        plan = missing_dirs(self.mount, self.places[path].rel, self.syscall, path,
                            last_exists_error="EEXIST")
        if plan:
            self.writable()
        with translated(self.syscall, path):
            for directory in plan:
                self.backend.mkdir(directory)

    def make_link(self, at: Rel, target: str) -> None:
        """A folder holds no symlinks: EPERM."""
        raise FsError.of("EPERM", self.syscall, *self.shown).with_hint(
            "a mounted folder cannot hold symbolic links")

    def move(self, src: Rel, dst: Rel, replaced: Entry | None) -> None:
        """One move; an empty directory at ``dst`` goes first (a folder cannot move onto a
        directory)."""
        with translated(self.syscall, *self.shown):
            if replaced is not None and replaced.kind == DIRECTORY:
                self.backend.remove(dst)
            self.backend.move(src, dst)

    def rename_same(self, src: Rel, dst: Rel) -> None:
        """Two names of one entry: on a case-insensitive host ``a`` and ``A`` (removing the
        "existing" ``A`` would remove ``a`` itself), elsewhere two hard links. Names that differ
        only in case are renamed through a free temporary name, so that the host takes the new
        spelling; hard links are left as they are, as POSIX rename(2) does."""
        if src == dst:
            return
        self.writable()
        if src[-1].casefold() != dst[-1].casefold():
            return
        temp = (*src[:-1], f".pyvfs-rename-{secrets.token_hex(8)}")
        with translated(self.syscall, *self.shown):
            self.backend.move(src, temp)
            self.backend.move(temp, dst)

    # ------------------------------------------------------------ content and metadata

    def make_parents(self, path: str) -> None:
        """The directories a write to ``path`` lands in, once nothing can refuse it: a file on
        the way (ENOTDIR), the mount (EROFS), a trailing slash (EISDIR)."""
        plan = missing_dirs(self.mount, self.places[path].rel[:-1], "open", path)
        self.writable("open")
        self._no_trailing_slash(path)
        with translated("open", path):
            for directory in plan:
                self.backend.mkdir(directory)

    def check_parents(self, path: str) -> None:
        """Raise what ``make_parents`` would, but EROFS (the folder's writer checks it)."""
        missing_dirs(self.mount, self.places[path].rel[:-1], "open", path)
        self._no_trailing_slash(path)

    def _no_trailing_slash(self, path: str) -> None:
        """A file to create at a path ending in a slash: EISDIR."""
        if self.places[path].must_be_dir:
            raise FsError.of("EISDIR", "open", path)

    def open_stream(self, engine: CommitEngine, path: str, mode: int | None,
                    finish: object) -> WriteStream:
        """The folder's own writer, made at the first chunk (a folder keeps no mode, and its
        writer finishes the file itself)."""
        return MountWriteStream(self.mount, self.places[path].rel, path)

    def write(self, found: Located, data: bytes, mode: int | None,
              digests: object = None) -> None:
        """Create or replace the file (a folder keeps no mode; ``digests`` of disk chunks mean
        nothing here). The writer's new content replaces the old one at its close."""
        self._put(found.place.rel, data, keep=False)

    async def append(self, found: Located, data: bytes) -> None:
        """The folder's writer, started from the current content."""
        self._put(found.place.rel, data, keep=True)

    def _put(self, rel: Rel, data: bytes, *, keep: bool) -> None:
        with translated(self.syscall, self.path):
            writer = self.backend.open_writer(rel, keep=keep)
            try:
                writer.write(data)
            except BaseException:
                writer.abort()
                raise
            writer.close()

    async def truncate(self, found: Located, length: int) -> None:
        """Cut or extend the file, in the folder."""
        with translated(self.syscall, self.path):
            self.backend.truncate(found.place.rel, length)

    def set_mode(self, found: Located, mode: int) -> None:
        """A folder keeps no permission bits: the mode is dropped."""

    def set_times(self, found: Located, atime_ms: float, mtime_ms: float) -> None:
        """Times, where the folder keeps them (a browser folder does not: nothing changes)."""
        with translated(self.syscall, self.path):
            self.backend.set_times(found.place.rel, float(atime_ms), float(mtime_ms))

    def touch(self, found: Located) -> None:
        """The entry's mtime set to now, where the folder allows it."""
        with translated(self.syscall, self.path):
            self.backend.touch(found.place.rel)
