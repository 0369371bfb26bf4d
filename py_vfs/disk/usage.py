"""How much the disk holds and how much room is left (``df``, ``usage()``).

Everything but the quota comes from the in-memory index, so ``usage()`` reads no content: a
file's chunks are fixed-size pieces (``CHUNK_SIZE``) but the last, so their lengths follow from
the node's size. ``stored_bytes`` counts each distinct chunk once (what deduplication leaves)
plus the bytes of every inline file (each record holds its own copy).
The quota is the store's to know (the browser's ``navigator.storage.estimate()``, the free space
of the SQLite file's file system, nothing in memory).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.node import DIRECTORY, FILE, SYMLINK, Node
from .content import CHUNK_SIZE


@dataclass(frozen=True, slots=True)
class Usage:
    """Counts and bytes of the disk; the quota fields are None where the store cannot tell."""

    files: int
    directories: int
    symlinks: int
    content_bytes: int  # the sum of the files' sizes, as `du` would count them
    stored_bytes: int  # the chunks' bytes, each distinct chunk once, and the inline bytes
    chunks: int
    inline_files: int  # files whose bytes are in their node record (no chunk)
    store_bytes: int | None = None  # what the backend occupies (origin usage, SQLite file)
    quota_bytes: int | None = None
    available_bytes: int | None = None
    persisted: bool | None = None
    history_chunks: int = 0  # chunks only the journal keeps (for time travel)
    history_bytes: int = 0
    history_since: int | None = None  # the oldest revision the journal still has
    history_trimmed: dict[str, Any] | None = None  # the last trim: revisions, time, reason

    def to_dict(self) -> dict[str, Any]:
        """The usage as the JS API returns it."""
        return {
            "files": self.files, "directories": self.directories, "symlinks": self.symlinks,
            "contentBytes": self.content_bytes, "storedBytes": self.stored_bytes,
            "chunks": self.chunks, "inlineFiles": self.inline_files,
            "storeBytes": self.store_bytes,
            "quotaBytes": self.quota_bytes, "availableBytes": self.available_bytes,
            "persisted": self.persisted,
            "historyChunks": self.history_chunks, "historyBytes": self.history_bytes,
            "historySince": self.history_since, "historyTrimmed": self.history_trimmed,
        }


def chunk_lengths(node: Node) -> dict[str, int]:
    """Each chunk of a file with its length, derived from the node's size alone."""
    lengths: dict[str, int] = {}
    remaining = node.size
    for key in node.chunks:
        lengths[key] = min(CHUNK_SIZE, remaining)
        remaining -= CHUNK_SIZE
    return lengths


def measure(nodes: list[Node], estimate: dict[str, Any] | None,
            history: dict[str, Any] | None = None) -> Usage:
    """Usage of ``nodes`` (the index), with the store's ``estimate()`` for the quota and what
    the journal's history holds (``Journal.cost``)."""
    kinds = {FILE: 0, DIRECTORY: 0, SYMLINK: 0}
    content = inline_bytes = inline_files = 0
    lengths: dict[str, int] = {}
    for node in nodes:
        kinds[node.kind] = kinds.get(node.kind, 0) + 1
        if node.kind == FILE:
            content += node.size
            if node.inline is not None:  # its size is its inline bytes: nothing to decode
                inline_files += 1
                inline_bytes += node.size
            lengths.update(chunk_lengths(node))
    estimate = estimate or {}
    return Usage(
        files=kinds[FILE], directories=kinds[DIRECTORY], symlinks=kinds[SYMLINK],
        content_bytes=content, stored_bytes=sum(lengths.values()) + inline_bytes,
        chunks=len(lengths), inline_files=inline_files,
        store_bytes=_int_or_none(estimate.get("usage")),
        quota_bytes=_int_or_none(estimate.get("quota")),
        available_bytes=_available(estimate),
        persisted=None if estimate.get("persisted") is None else bool(estimate["persisted"]),
        history_chunks=(history or {}).get("chunks", 0),
        history_bytes=(history or {}).get("bytes", 0),
        history_since=(history or {}).get("since"),
        history_trimmed=(history or {}).get("trimmed"),
    )


def _available(estimate: dict[str, Any]) -> int | None:
    if estimate.get("available") is not None:
        return int(estimate["available"])
    usage, quota = estimate.get("usage"), estimate.get("quota")
    if usage is None or quota is None:
        return None
    return max(0, int(quota) - int(usage))


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def human(size: int | None) -> str:
    """Sizes as ``df -h`` prints them: 1024-based, one decimal below 10 (``4.0K``, ``12M``)."""
    if size is None:
        return "-"
    value = float(size)
    for unit in ("", "K", "M", "G", "T", "P"):
        if value < 1024 or unit == "P":
            if unit == "":
                return str(int(value))
            # Rounded up, as df does: a disk never looks emptier than it is.
            if value < 10:
                return f"{math.ceil(value * 10) / 10:.1f}{unit}"
            return f"{math.ceil(value)}{unit}"
        value /= 1024
    raise AssertionError("unreachable")
