"""The POSIX rules of the namespace, written once: mkdir, rm, rmdir, unlink, rename, symlink,
and the decisions of copy_file and cp.

Each rule is the kernel's checks in the kernel's order, over a ``Side``: a small protocol of
look up / list / change that both the disk (``disk_side.DiskSide``, in one transaction) and a
mounted folder (``mounts/side.MountSide``, through its backend) satisfy, the way zen-fs puts every
backend behind one ``FileSystem`` contract. A side names an entry by an *at* of its own (the
disk: the parent node, its canonical path and the name; a folder: the path inside it), found by
``locate``; the rules never look inside one.

What stays per side: the disk also knows symlinks and transactions, a folder knows permission
(``enter``: EACCES while waiting) and read-only mounts (``writable``: EROFS, checked after every
other rule and before the one change, so that a refused call changes nothing).

The copies (``copy_file``, ``cp``) are walks of many steps, made two ways: on the disk
(``copies.py``: index nodes sharing chunks, in one transaction) and by content when a copy
reaches into a mount (``mount_copies.py``: streams, through the public calls, after a dry run).
Both ask the same functions here for every decision (``check_copy_file``, ``check_cp``,
``copy_action``): given the kinds of a source and of what is at its destination, and whether
they are one entry, the action to take or the error, so the codes and their order are written
once; each walk keeps only its way of looking and of making the change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, SYMLINK

At = TypeVar("At")


class Kind(Protocol):
    """What a rule needs of an entry: its kind (file, directory, symlink)."""

    @property
    def kind(self) -> str:
        """``file``, ``directory`` or ``symlink``."""
        ...


class Side(Protocol[At]):
    """One file system the rules act on (see the module docstring)."""

    def enter(self) -> None:
        """Before anything: may the call look here at all?"""

    def locate(self, path: str) -> At | None:
        """Where the last name of ``path`` is (None: ``path`` is ``/``); errors of the way may
        raise here or at the first look (``check_parent``, ``entry``)."""

    def check_parent(self, at: At) -> None:
        """The directory holding ``at`` exists (ENOENT) and is one (ENOTDIR)."""

    def entry(self, at: At) -> Kind | None:
        """The entry at ``at`` (a final link not followed), or None when it is missing."""

    def is_empty(self, at: At) -> bool:
        """Whether the directory at ``at`` has no entries."""

    def key(self, at: At) -> tuple[str, ...]:
        """The canonical names leading to ``at``: equal keys name one place."""

    def same(self, src: At, dst: At) -> bool:
        """Whether two places are one entry (the same name, or two names of one entry)."""

    def check_busy(self, path: str) -> None:
        """EBUSY when ``path`` names a mount point or a directory holding one (removing or
        moving it would drop a folder out of the tree, in every tab); asked before anything
        else of a removal or a rename, and quiet when ``path`` cannot be looked up."""

    def writable(self, syscall: str | None = None) -> None:
        """Just before the one change: may this side be changed?"""

    def safe_point(self) -> None:
        """After a long change: a cancelled call stops here (the disk drops its change before
        the commit; a folder's change is made already)."""

    def make_dirs(self, path: str, mode: int) -> None:
        """``mkdir -p``: what is missing (each side follows its own way: the disk its links)."""

    def remove(self, at: At) -> None:
        """Remove the entry at ``at`` and all it holds."""

    def make_dir(self, at: At, mode: int) -> None:
        """Create a directory at ``at``."""

    def make_link(self, at: At, target: str) -> None:
        """Create a symlink at ``at``."""

    def move(self, src: At, dst: At, replaced: Kind | None) -> None:
        """Move ``src`` to ``dst``, replacing ``replaced`` (an empty directory or a
        non-directory, already checked)."""

    def rename_same(self, src: At, dst: At) -> None:
        """A rename whose two ends are one entry (``same``)."""


def _within(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    return inner[:len(outer)] == outer


def mkdir(side: Side[At], path: str, mode: int) -> None:
    """``mkdir(2)``: any entry at ``path``, even a dangling link, is EEXIST."""
    side.enter()
    at = side.locate(path)
    if at is None:
        raise FsError.of("EEXIST", "mkdir", path)
    if side.entry(at) is not None:
        raise FsError.of("EEXIST", "mkdir", path)
    side.check_parent(at)
    side.writable()
    side.make_dir(at, mode)


def _existing(side: Side[At], path: str, syscall: str) -> tuple[At, Kind]:
    """The entry ``path`` names, for a call that removes it: ``/`` is EPERM (EBUSY on Linux),
    a missing one ENOENT."""
    at = side.locate(path)
    if at is None:
        raise FsError.of("EPERM", syscall, path)
    entry = side.entry(at)
    if entry is None:
        raise FsError.of("ENOENT", syscall, path)
    return at, entry


def rm(side: Side[At], path: str, *, recursive: bool, force: bool) -> None:
    """``rm``: a directory needs ``recursive`` unless empty; ``force``: a missing entry (or
    way) is no error."""
    side.enter()
    side.check_busy(path)
    try:
        at, entry = _existing(side, path, "rm")
    except FileNotFoundError:
        if force:
            return
        raise
    if paths.has_trailing_slash(path) and entry.kind != DIRECTORY:
        raise FsError.of("ENOTDIR", "rm", path)
    if entry.kind == DIRECTORY and not recursive and not side.is_empty(at):
        raise FsError.of("ENOTEMPTY", "rm", path)
    side.writable()
    side.remove(at)


def rmdir(side: Side[At], path: str) -> None:
    """``rmdir(2)``: an empty directory only."""
    side.enter()
    side.check_busy(path)
    at, entry = _existing(side, path, "rmdir")
    if entry.kind != DIRECTORY:
        raise FsError.of("ENOTDIR", "rmdir", path)
    if not side.is_empty(at):
        raise FsError.of("ENOTEMPTY", "rmdir", path)
    side.writable()
    side.remove(at)


def unlink(side: Side[At], path: str) -> None:
    """``unlink(2)``: a file or a link (the link itself), never a directory."""
    side.enter()
    at, entry = _existing(side, path, "unlink")
    if entry.kind == DIRECTORY:
        raise FsError.of("EISDIR", "unlink", path)
    if paths.has_trailing_slash(path):
        raise FsError.of("ENOTDIR", "unlink", path)
    side.writable()
    side.remove(at)


def symlink(side: Side[At], target: str, path: str) -> None:
    """``symlink(2)``: an empty target is ENOENT, an existing ``path`` (even a dangling link)
    EEXIST, and a new name with a trailing slash ENOENT, as on Linux."""
    side.enter()
    if not target:
        raise FsError.of("ENOENT", "symlink", target, path)
    at = side.locate(path)
    if at is None:
        raise FsError.of("EEXIST", "symlink", path)
    side.check_parent(at)
    if side.entry(at) is not None:
        raise FsError.of("EEXIST", "symlink", target, path)
    if paths.has_trailing_slash(path):
        raise FsError.of("ENOENT", "symlink", target, path)
    side.make_link(at, target)


def rename(side: Side[At], old: str, new: str) -> None:
    """``rename(2)``, its checks in the kernel's order: both parents, ``/`` (EPERM here, EBUSY
    on Linux), the source, a trailing slash on a non-directory, a directory into itself, a
    target that holds the source, a no-op onto one entry, what may replace what. A mount point
    in the way (EBUSY) is asked first, before anything else."""
    side.enter()
    side.check_busy(old)
    side.check_busy(new)
    src, dst = side.locate(old), side.locate(new)
    if src is None or dst is None:
        raise FsError.of("EPERM", "rename", old, new)
    side.check_parent(src)
    side.check_parent(dst)
    entry = side.entry(src)
    if entry is None:
        raise FsError.of("ENOENT", "rename", old, new)
    is_dir = entry.kind == DIRECTORY
    if not is_dir and (paths.has_trailing_slash(old) or paths.has_trailing_slash(new)):
        raise FsError.of("ENOTDIR", "rename", old, new)
    src_key, dst_key = side.key(src), side.key(dst)
    if src_key != dst_key:
        if _within(dst_key, src_key):
            raise FsError.of("EINVAL", "rename", old, new)
        if _within(src_key, dst_key):
            raise FsError.of("ENOTEMPTY", "rename", old, new)
    existing = side.entry(dst)
    if existing is not None and side.same(src, dst):
        side.rename_same(src, dst)
        return
    if existing is not None:
        replaced_dir = existing.kind == DIRECTORY
        if replaced_dir and not is_dir:
            raise FsError.of("EISDIR", "rename", old, new)
        if is_dir and not replaced_dir:
            raise FsError.of("ENOTDIR", "rename", old, new)
        if replaced_dir and not side.is_empty(dst):
            raise FsError.of("ENOTEMPTY", "rename", old, new)
    side.writable()
    side.move(src, dst, existing)


# What one copied entry does at its destination (``copy_action``).
CREATE, REPLACE, MERGE, SKIP = "create", "replace", "merge", "skip"


def check_copy_file(source: str, src: str, dst: str) -> None:
    """``copyfile`` of a ``source`` kind (its links followed): a directory is EISDIR."""
    if source == DIRECTORY:
        raise FsError.of("EISDIR", "copyfile", src, dst)


def check_cp(source: str, src_path: str, src: str, dst: str, *, recursive: bool,
             destination: Callable[[], str]) -> None:
    """``cp`` of a ``source`` kind (a final link not followed) found at the canonical
    ``src_path``: a directory needs ``recursive`` (EISDIR) and may not go into itself, wherever
    the links in ``dst`` lead (EINVAL; ``destination`` gives that place, asked only then)."""
    if source != DIRECTORY:
        return
    if not recursive:
        raise FsError.of("EISDIR", "cp", src, dst)
    if paths.is_within(destination(), src_path):
        raise FsError.of("EINVAL", "cp", src, dst)


def _holds_links() -> bool:
    return True


def copy_action(source: str, existing: str | None, dst: str, *, same: bool = False,
                holds_links: Callable[[], bool] = _holds_links) -> str:
    """What a copy of one entry of kind ``source`` does at ``dst``, where ``existing`` is the
    kind of the entry found (None: nothing), ``same`` whether the two are one entry, and
    ``holds_links`` whether ``dst``'s side can hold symlinks (a mounted folder cannot; asked
    only when a link would land there). The caller looks ``existing`` up as the copy lands: for
    a file where a link at ``dst`` leads (a write follows it), for a link or a directory the
    name itself.

    - a file: CREATE (with the source's mode), EISDIR onto a directory (named ``copyfile``
      under ``cp`` too, as Node's are), SKIP onto itself (libuv's copyfile under Node's
      ``fs.copyFile`` leaves it as it is), else REPLACE the content (the file keeps its mode);
    - a link: EISDIR onto a directory, SKIP onto itself, EPERM where links cannot be, else
      CREATE, or REPLACE any non-directory;
    - a directory: CREATE, MERGE into a directory, ENOTDIR onto anything else.
    """
    if source == DIRECTORY:
        if existing is None:
            return CREATE
        if existing != DIRECTORY:
            raise FsError.of("ENOTDIR", "cp", dst)
        return MERGE
    if existing is not None:
        if existing == DIRECTORY:
            raise FsError.of("EISDIR", "cp" if source == SYMLINK else "copyfile", dst)
        if same:
            return SKIP
    if source == SYMLINK and not holds_links():
        raise FsError.of("EPERM", "cp", dst).with_hint(
            "a mounted folder cannot hold symbolic links")
    return CREATE if existing is None else REPLACE
