"""A mounted folder as a ``rules.Side``: the namespace rules, asked of its backend.

An *at* here is the path inside the folder (``Rel``). Every backend failure becomes the FsError
of the user's call (``translated``); ``enter`` is EACCES while the mount waits for permission,
``writable`` EROFS on a read-only mount (and ENOTSUP inside a step), checked only after every
other rule, so that a refused call changes nothing.
"""

from __future__ import annotations

import secrets

from ..core.errors import FsError
from .backend import DIRECTORY, Entry, Rel
from .checks import require_parent, stat_or_none
from .table import Mount, Place, translated


def side_of(place: Place, syscall: str, path: str, *shown: str) -> MountSide:
    """The side of the one operand ``path``, found at ``place`` (inside a mount)."""
    assert place.mount is not None
    return MountSide(place.mount, {path: place.rel}, syscall, path, *shown)


class MountSide:
    """One call's view of one mounted folder: where its operands are inside it (``places``,
    by the path the caller gave), the ``syscall``, and the paths its errors name (``shown``)."""

    def __init__(self, mount: Mount, places: dict[str, Rel], syscall: str, path: str,
                 *shown: str) -> None:
        self.mount = mount
        self.places = places
        self.syscall = syscall
        self.path = path  # named by EACCES, EROFS
        self.shown = shown or (path,)

    def enter(self) -> None:
        """EACCES while the mount waits for permission."""
        self.mount.check_active(self.syscall, self.path)

    def locate(self, path: str) -> Rel:
        """The path inside the folder (found by the resolver already)."""
        return self.places[path]

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
            return not self.mount.backend.list(at)

    def key(self, at: Rel) -> tuple[str, ...]:
        """Paths inside one folder compare by their names."""
        return at

    def same(self, src: Rel, dst: Rel) -> bool:
        """One name, or two names of one entry (a case-insensitive host, or hard links)."""
        if src == dst:
            return True
        with translated(self.syscall, *self.shown):
            return self.mount.backend.same_entry(src, dst)

    def in_use(self, at: Rel) -> bool:
        """Mounts do not nest: nothing in a folder is a mount point."""
        return False

    def writable(self) -> None:
        """EROFS on a read-only mount (EACCES while waiting, ENOTSUP inside a step)."""
        self.mount.check_writable(self.syscall, self.path)

    def remove(self, at: Rel) -> None:
        """Remove the entry at ``at``, a directory with everything in it."""
        with translated(self.syscall, *self.shown):
            self.mount.backend.remove(at)

    def make_dir(self, at: Rel, mode: int) -> None:
        """Create a directory (a folder keeps no mode)."""
        with translated(self.syscall, *self.shown):
            self.mount.backend.mkdir(at)

    def make_link(self, at: Rel, target: str) -> None:
        """A folder holds no symlinks: EPERM."""
        raise FsError.of("EPERM", self.syscall, *self.shown).with_hint(
            "a mounted folder cannot hold symbolic links")

    def move(self, src: Rel, dst: Rel, replaced: Entry | None) -> None:
        """One move; an empty directory at ``dst`` goes first (a folder cannot move onto a
        directory)."""
        with translated(self.syscall, *self.shown):
            if replaced is not None and replaced.kind == DIRECTORY:
                self.mount.backend.remove(dst)
            self.mount.backend.move(src, dst)

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
            self.mount.backend.move(src, temp)
            self.mount.backend.move(temp, dst)
