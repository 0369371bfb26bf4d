"""The JS API's view of the disk's history: journal, snapshots, diff and restore
(``vfs.journal`` ... in web/api.mjs), answered over the VFS's facade (py_vfs/vfs.py).

Kept apart from web/webapi.py, which routes to it: these calls take camelCase options and states
from JS and hand the facade its keywords; states (a snapshot name, a revision,
``{revision}``, ``{before}``) pass as they are (py_vfs/data/snapshots.py checks them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class HistoryOps:
    """The history operations of the protocol over ``vfs`` (a VFS)."""

    def __init__(self, vfs: Any) -> None:
        self.vfs = vfs

    def table(self) -> dict[str, Callable[..., Any]]:
        """Operation name -> function, merged into WebAPI's table."""
        return {"journal": self.journal, "snapshot": self.vfs.snapshot,
                "snapshots": self.vfs.snapshots, "deleteSnapshot": self.vfs.delete_snapshot,
                "diff": self.diff, "restore": self.restore}

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
