"""The JS API's view of the disk's history: journal, snapshots, diff, restore and the reads of
a past state (``vfs.journal`` ... and ``vfs.at(state)`` in web/api.mjs), answered over the VFS's
facade (py_vfs/vfs.py).

Kept apart from web/webapi.py, which routes to it: these calls take camelCase options and states
from JS and hand the facade its keywords; states (a snapshot name, a revision,
``{revision}``, ``{before}``) pass as they are (py_vfs/data/snapshots.py checks them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from .options import encoding_of, flag, read_file

# The reads ``readAt`` offers on a past disk (``vfs.at(state)``), by their JS names.
PAST_CALLS = ("readFile", "readdir", "stat", "lstat", "readlink", "realpath", "exists")


class HistoryOps:
    """The history operations of the protocol over ``vfs`` (a VFS)."""

    def __init__(self, vfs: Any) -> None:
        self.vfs = vfs

    def table(self) -> dict[str, Callable[..., Any]]:
        """Operation name -> function, merged into WebAPI's table."""
        return {"journal": self.journal, "snapshot": self.vfs.snapshot,
                "snapshots": self.vfs.snapshots, "deleteSnapshot": self.vfs.delete_snapshot,
                "diff": self.diff, "restore": self.restore, "readAt": self.read_at}

    async def journal(self, options: Any = None) -> list[dict[str, Any]]:
        """``journal({since, until, writer, path, limit})``: entries, newest first."""
        found = options if isinstance(options, dict) else {}
        keywords = {key: found[key] for key in ("since", "until", "writer", "path")
                    if found.get(key) is not None}
        if found.get("limit") is not None:
            keywords["limit"] = int(found["limit"])
        return await self.vfs.journal(**keywords)

    async def diff(self, a: Any, b: Any = None) -> list[dict[str, Any]]:
        """``diff(a, b)``: what changed from ``a`` to ``b`` (default now)."""
        return await self.vfs.diff(a, b)

    async def restore(self, state: Any, options: Any = None) -> dict[str, Any]:
        """``restore(state, {path})``: the disk (or ``path``) back as it was in ``state``."""
        path = options.get("path") if isinstance(options, dict) else None
        return await self.vfs.restore(state, path=path)

    async def read_at(self, state: Any, call: str, path: str, options: Any = None) -> Any:
        """``vfs.at(state)[call](path, options)``: one read of the disk as it was in
        ``state``. A view has no history of its own to offer (EACCES)."""
        if call not in PAST_CALLS:
            raise FsError.of("EINVAL", "at", path).with_hint(
                f"a past disk offers {', '.join(PAST_CALLS)}, not {call!r}")
        at = getattr(self.vfs, "at", None)
        if at is None:
            raise FsError.of("EACCES", "at", path).with_hint(
                "a restricted view cannot read the disk's history")
        past = await at(state)
        if call == "readFile":
            encoding_of(options)  # a bad encoding is refused before anything is read
            return await read_file(past, path, options)
        if call == "readdir":
            return past.readdir(path, with_types=flag(options, "withFileTypes"))
        return getattr(past, call)(path)
