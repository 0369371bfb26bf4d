"""The worker's half of the page's stat cache (web/page/stat_cache.mjs; docs/architecture.md,
"The page's stat cache").

The page may answer ``stat``, ``lstat``, ``exists`` and ``readdir`` from memory, but only with
answers the worker *stamped* with a view number. The number moves whenever the index changes
after an answer was stamped (whatever the cause: a mutation, its rollback, another tab's commit
caught up, a reload), and the new number is posted to the page at that moment, before any watch
event or answer computed on the new state: so the page drops its cache before it can see the
change any other way, and it never keeps an answer stamped with an older number than the last
it heard of. Answers that went into a mounted folder are never stamped: a folder changes
outside the VFS.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from ..core.node import DIRECTORY, DIRECTORY_SIZE, Node, ino_of
from ..vfs import VFS
from .protocol import OPS

# The operations whose answers the page may keep (all synchronous reads of the index), as
# py_vfs/web/protocol.py declares them.
CACHEABLE = frozenset(op.name for op in OPS if op.cached)
# Errors that follow from the index alone, so they stay right until it changes.
CACHEABLE_ERRORS = frozenset({"ENOENT", "ENOTDIR"})


class Views:
    """``post(view)`` tells the page that answers stamped before ``view`` are stale. Changes
    after which nothing was stamped move nothing: a mutation that puts a thousand nodes posts
    at most one message."""

    def __init__(self, post: Callable[[int], None] | None) -> None:
        self.view = 0
        self._post = post
        self._stamped = False

    def changed(self) -> None:
        if not self._stamped:
            return
        self._stamped = False
        self.view += 1
        if self._post is not None:
            self._post(self.view)

    def stamp(self, envelope: dict[str, Any], op: str, mounts_entered: bool) -> dict[str, Any]:
        """``envelope`` with the current view when the page may keep it."""
        error = envelope.get("error")
        if (op in CACHEABLE and not mounts_entered
                and (error is None or error["code"] in CACHEABLE_ERRORS)):
            self._stamped = True
            envelope["view"] = self.view
        return envelope


def listing(vfs: VFS, path: str, siblings: bool = False) -> dict[str, Any]:
    """``readdir`` and the lstat of its entries in one answer, so the stat calls that usually
    follow a listing need no round trip: ``{path, names, kinds, numbers}``, the directory's
    canonical path, the names joined by "/" (which no name holds) and the kinds by ",", and
    per entry six numbers, size, mode, mtimeMs, ctimeMs, atimeMs, ino, as float64 bytes (size
    -1: no stat, the entry's comes from a mounted folder; an ino has 52 bits, exact in a
    float64). A few strings and one buffer cross to
    JS far cheaper than an object per entry. When every entry's id is one ``new_id`` makes
    (``_derivable``), the ids come too, joined by "/", and each ino is 0: the page derives it
    from the id as ``ino_of`` does (``ino_of`` was half of a listing's time in Python).

    ``siblings`` (the page asks when it is walking a folder's subdirectories one after the
    other, web/page/stat_cache.mjs): ``siblings`` holds, in the same shape, the listings of the
    directories after this one in its parent, in name order, as many as fit in
    ``SIBLING_ENTRIES`` entries and ``SIBLING_DIRS`` directories, so the walk's next readdir
    calls need no round trip either. They are read in the same synchronous call, so they are
    of the same state of the index as the listing itself. None while a folder is mounted
    anywhere: listing one would enter it, and then nothing of the answer may be kept."""
    directory, nodes = vfs.scandir(path)
    answer = _listed(vfs, directory, nodes)
    if siblings and directory != "/" and not vfs.mount_table:
        answer["siblings"] = _siblings(vfs, directory)
    return answer


# A sibling listing stops before these many entries (the stat cache keeps 4,096) or directories.
SIBLING_ENTRIES = 2048
SIBLING_DIRS = 64
# The ids ``new_id`` makes: 16 lowercase hex digits (ino_of: the first 13 of them).
ID_LENGTH = 16
_HEX_OR_SLASH = b"0123456789abcdef/"


def _derivable(ids: str, count: int) -> bool:
    """True when ``ids``, ``count`` ids joined by "/", are all of ``ID_LENGTH`` lowercase hex
    digits, so the page can derive each ino from its id as ``ino_of`` does. Checked with a few
    operations over the whole text (an id from elsewhere, a SQLite image's say, may be any
    text: then the inos are sent)."""
    return (len(ids) == (ID_LENGTH + 1) * count - 1
            and ids[ID_LENGTH::ID_LENGTH + 1] == "/" * (count - 1) and ids.count("/") == count - 1
            and ids.isascii() and not ids.encode("ascii").translate(None, _HEX_OR_SLASH))


def _listed(vfs: VFS, directory: str, nodes: list[Node]) -> dict[str, Any]:
    # One loop, the fields read directly (Node.stat_size inlined): a walk's listing of 900
    # entries is most of its answer's time in Python, and the two properties per node were a
    # third of it (measured in CPython: 100 -> 60 us per 100).
    covers = vfs.mount_table.covers if vfs.mount_table else None
    ids = "/".join([node.id for node in nodes]) if covers is None else ""
    derived = bool(ids) and _derivable(ids, len(nodes))
    numbers: list[float] = []
    add = numbers.extend
    for node in nodes:
        if covers is not None and covers(node):
            add(_NO_STAT)
        else:
            add((DIRECTORY_SIZE if node.kind == DIRECTORY else node.size, node.mode, node.mtime_ms,
                 node.ctime_ms, node.atime_ms, 0 if derived else ino_of(node.id)))
    answer = {"path": directory, "names": "/".join([node.name for node in nodes]),
              "kinds": ",".join([node.kind for node in nodes]),
              "numbers": array("d", numbers).tobytes()}
    if derived:
        answer["ids"] = ids
    return answer


def _siblings(vfs: VFS, directory: str) -> list[dict[str, Any]]:
    parent, _, name = directory.rpartition("/")
    parent = parent or "/"
    prefix = parent.rstrip("/") + "/"
    listed: list[dict[str, Any]] = []
    left = SIBLING_ENTRIES
    for node in vfs.scandir(parent)[1]:
        if node.name <= name or not node.is_dir:
            continue
        sibling, nodes = vfs.scandir(prefix + node.name)
        left -= len(nodes) + 1
        if left < 0:
            break
        listed.append(_listed(vfs, sibling, nodes))
        if len(listed) == SIBLING_DIRS:
            break
    return listed


_NO_STAT = (-1.0, 0.0, 0.0, 0.0, 0.0, 0.0)
