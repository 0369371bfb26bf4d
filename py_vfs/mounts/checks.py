"""The questions every mounted operation asks its backend before changing anything."""

from __future__ import annotations

from ..core.errors import FsError
from .backend import DIRECTORY, BackendError, Entry, Rel
from .table import Mount, translated


def stat_or_none(mount: Mount, rel: Rel) -> Entry | None:
    """The entry at ``rel``, or None when its name is missing (other failures raise)."""
    try:
        return mount.backend.stat(rel)
    except BackendError as error:
        if error.code == "ENOENT":
            return None
        raise


def require_parent(mount: Mount, rel: Rel) -> None:
    """The directory that holds ``rel`` must exist (ENOENT) and be one (ENOTDIR)."""
    if len(rel) > 1 and mount.backend.stat(rel[:-1]).kind != DIRECTORY:
        raise BackendError("ENOTDIR")


def missing_dirs(mount: Mount, rel: Rel, syscall: str, shown: str, *,
                 last_exists_error: str = "ENOTDIR") -> list[Rel]:
    """What ``mkdir -p rel`` must create, outermost first; a file on the way is ENOTDIR (the
    last name: ``last_exists_error``), as ``VFS._make_dirs`` answers."""
    if not rel:
        return []
    with translated(syscall, shown):
        last = stat_or_none(mount, rel)
        if last is not None and last.kind == DIRECTORY:
            return []
        for depth in range(1, len(rel) + 1):
            entry = stat_or_none(mount, rel[:depth])
            if entry is None:
                return [rel[:i] for i in range(depth, len(rel) + 1)]
            if entry.kind != DIRECTORY:
                code = last_exists_error if depth == len(rel) else "ENOTDIR"
                raise FsError.of(code, syscall, shown)
    return []
