"""Where a change runs: the side of the place its path leads to.

Every mutation finds where its operands are once (``Resolver.locate``: the disk part of the path
walked, no backend asked) and applies its rule, written once, to the side of that place: the disk
(``disk_side.DiskSide``), staging in one transaction that the commit engine runs, or a mounted
folder (``mounts/side.MountSide``), directly on its backend. ``Concern.apply`` is where "disk or
folder?" is asked for a change, and only there. The rules look their entries up through the
resolver, going on from the place (``Resolver.resolve_from``: in a folder one ``stat``, no second
walk), and make their one change through the side. With no mounts at all nothing is located:
every path is on the disk, walked once, inside the transaction (where it must be: a change that
meets a newer revision of another tab runs again, and looks again).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from ..core.errors import FsError
from ..disk.engine import CommitEngine
from ..disk.streams import Finish, WriteStream
from ..mounts.side import MountSide
from ..mounts.table import DISK, MountTable, Place
from ..storage.transaction import Transaction
from .disk_side import DiskSide, Nodes
from .resolver import Found, Resolver


class FileSide(Protocol):
    """The one change each content and metadata rule (``files.py``, ``metadata.py``) asks of a
    side, once its checks passed; the disk stages it, a folder makes it."""

    def writable(self, syscall: str | None = None) -> None:
        """May this side be changed now (EROFS, EACCES, ENOTSUP on a folder)?"""

    def make_parents(self, path: str) -> None:
        """``mkdir -p`` of the directory a write to ``path`` lands in."""

    def check_parents(self, path: str) -> None:
        """Raise what ``make_parents`` would, making nothing."""

    def open_stream(self, engine: CommitEngine, path: str, mode: int | None,
                    finish: Finish) -> WriteStream:
        """A writer of the file at ``path`` (checked already); on the disk ``finish`` commits
        it at ``close``."""

    def write(self, found: Found, data: bytes, mode: int | None,
              digests: Sequence[str] | None = None) -> None:
        """Create the file ``found`` names, or replace its content."""

    async def append(self, found: Found, data: bytes) -> None:
        """Add ``data`` at the end of the existing file."""

    async def truncate(self, found: Found, length: int) -> None:
        """Cut or extend (with zeros) the existing file to ``length`` bytes."""

    def set_mode(self, found: Found, mode: int) -> None:
        """The permission bits (a folder keeps none)."""

    def set_times(self, found: Found, atime_ms: float, mtime_ms: float) -> None:
        """Access and modification times."""

    def touch(self, found: Found) -> None:
        """Every time of the entry set to now."""


class Concern:
    """One concern of the VFS facade (files, namespace, metadata, copies): the commit engine,
    the resolver, the disk and the mount table it works with."""

    def __init__(self, engine: CommitEngine, resolver: Resolver, disk: Nodes,
                 table: MountTable) -> None:
        self.engine = engine
        self.resolver = resolver
        self.disk = disk
        self.index = disk.index
        self.table = table

    def locate(self, path: str, syscall: str, *, follow: bool = True,
               create: bool = False) -> Place:
        """Where ``path`` leads (``Resolver.locate``); with no mounts, on the disk at once."""
        if not self.table.by_path:
            return DISK
        return self.resolver.locate(path, syscall, follow=follow, create=create)

    def locate_entry(self, path: str, syscall: str) -> Place:
        """Where the last name of ``path`` lives (``Resolver.locate_entry``)."""
        return self.resolver.locate_entry(path, syscall) if self.table.by_path else DISK

    def side(self, place: Place, tx: Transaction | None, syscall: str, *shown: str,
             places: dict[str, Place] | None = None) -> DiskSide | MountSide:
        """The side of ``place`` for one call: the disk staging in ``tx`` (None: changes that
        are only checked, never made), or the folder. It names ``shown`` in its errors;
        ``places`` are where each operand is in the folder (default: ``place``, for the path
        shown first)."""
        if place.mount is None:
            return DiskSide(self.disk, Transaction() if tx is None else tx, syscall, *shown)
        return MountSide(place.mount, places or {shown[0]: place}, syscall, *shown)

    def apply(self, place: Place, rule: Callable[[Any], Any], operation: str, syscall: str,
              *shown: str, places: dict[str, Place] | None = None) -> Awaitable[Any]:
        """Run ``rule`` on the side of ``place`` (see ``side``): on the disk as one change of
        the commit engine, recorded as ``operation`` (its awaitable handed back as it is: no
        coroutine more on the disk's busy paths); in a folder directly."""
        if place.mount is None:
            return self.engine.run(lambda tx: rule(self.side(DISK, tx, syscall, *shown)),
                                   operation)
        return _awaited(rule(self.side(place, None, syscall, *shown, places=places)))

    def write_target(self, side: FileSide, place: Place, path: str, *,
                     parents: bool) -> Found:
        """Where a write to ``path`` lands, as ``open(O_CREAT)`` finds it (a final link
        followed, a dangling one creating its target), checked: a directory there is EISDIR,
        and the side must take the change. ``parents``: missing directories are made first,
        as ``mkdir -p`` makes them (looked for only when the path's way is missing)."""
        try:
            found = self.resolver.resolve_from(place, path, "open", create=True)
        except FileNotFoundError:
            if not parents:
                raise
            side.make_parents(path)
            found = self.resolver.resolve_from(place, path, "open", create=True)
        side.writable("open")
        if found.node is not None and found.node.is_dir:
            raise FsError.of("EISDIR", "open", path)
        return found


async def _awaited(result: Any) -> Any:
    """A folder's rule ran already: its result, awaited if it is a coroutine."""
    return await result if inspect.isawaitable(result) else result
