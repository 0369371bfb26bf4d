"""How the dock puts a push on top of its head: the conflict rules (docs/dock.md).

A replica pushes its journal entries as it made them, on the dock revision it last had (its
*base*). Whatever other replicas pushed since (the dock's entries after the base, less the
pusher's own) is *theirs*. Each pushed entry becomes one dock entry, in order, adjusted where it
meets theirs, and nothing is ever lost:

- a node only one side changed takes that side's record;
- a node both changed: the fields each side changed are taken from it (a move on one side and a
  write on the other both stay; a directory's times, the later); when both changed a file's
  content, both versions are kept: the push (the later) keeps the name, the dock's version is
  kept beside it as ``name (conflict from <writer> <time>).ext``, and the entry records both
  writers under ``conflicts``;
- a delete against an edit keeps the edit (the node is written back in ``puts``), and a
  directory is not deleted while it holds something the push does not delete;
- a write into a directory theirs deleted brings the directory back (its last record);
- two different nodes given one name: two directories become one (the pushed one's entries
  move into the dock's, the pushed directory is deleted), and so do two files (or links) of
  the same content (the dock's stays, the pushed one is deleted, its later writes go to the
  dock's); otherwise the push keeps the name and the dock's node is renamed as above.

Pure Python over a ``Source`` (what the dock's database answers inside its transaction), so it
is tested without a server.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.json_text import compact
from ..core.node import DIRECTORY
from .wire import conflict_name

Record = dict[str, Any]
CONTENT = ("kind", "chunks", "inline", "target", "size")
TIMES = ("mtime", "ctime", "atime")


class Source(Protocol):
    """The dock's tree at its head, read inside the push's transaction."""

    def node(self, node_id: str) -> Record | None:
        """The record of ``node_id``, or None."""

    def child(self, parent: str, name: str) -> str | None:
        """The id of the entry ``name`` of directory ``parent``, or None."""

    def children(self, parent: str) -> list[str]:
        """The ids of the entries of directory ``parent``."""

    def count(self) -> int:
        """How many nodes the disk holds."""


class Held(Exception):
    """The push would delete more than the allowed share of the disk: held for confirmation."""

    def __init__(self, deletes: int, nodes: int, share: float) -> None:
        super().__init__(f"the push deletes {deletes} of {nodes} nodes, more than "
                         f"{share:.0%} of the disk: push again with confirm to apply it")
        self.deletes, self.nodes, self.share = deletes, nodes, share


@dataclass
class Merged:
    """What a push becomes: the dock entries to append, and the node writes in order."""

    entries: list[Record] = field(default_factory=list)
    writes: dict[str, Record | None] = field(default_factory=dict)


class View:
    """The dock's tree with this push's writes laid over it."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.nodes: dict[str, Record | None] = {}
        self.names: dict[tuple[str, str], str | None] = {}

    def get(self, node_id: str) -> Record | None:
        if node_id in self.nodes:
            return self.nodes[node_id]
        return self.source.node(node_id)

    def child(self, parent: str, name: str) -> str | None:
        key = (parent, name)
        if key in self.names:
            return self.names[key]
        found = self.source.child(parent, name)
        if found is not None and (found in self.nodes and (
                self.nodes[found] is None or _place(self.nodes[found]) != key)):
            return None
        return found

    def children(self, parent: str) -> set[str]:
        found = {i for i in self.source.children(parent)
                 if i not in self.nodes or (self.nodes[i] or {}).get("parent") == parent}
        found |= {i for i, r in self.nodes.items() if r is not None and r.get("parent") == parent}
        return found

    def set(self, node_id: str, record: Record | None) -> None:
        old = self.get(node_id)
        if old is not None and old.get("parent") is not None and \
                self.child(old["parent"], old["name"]) == node_id:
            self.names[_place(old)] = None
        self.nodes[node_id] = record
        if record is not None and record.get("parent") is not None:
            self.names[_place(record)] = node_id


def _place(record: Record) -> tuple[str, str]:
    return (record["parent"], record["name"])


def _same(a: Record | None, b: Record | None) -> bool:
    """Equal records, reading times aside (a read's atime is no change)."""
    if a is None or b is None:
        return a is b
    return {k: v for k, v in a.items() if k != "atime"} == \
        {k: v for k, v in b.items() if k != "atime"}


def _content(record: Record | None) -> tuple[Any, ...] | None:
    return None if record is None else tuple(record.get(k) for k in CONTENT)


def identical(a: Record, b: Record) -> bool:
    """Two nodes that are one to whoever reads them: two directories, or two files (links) of
    the same bytes (chunk hashes, inline bytes, size; a link's target)."""
    if a["kind"] == DIRECTORY or b["kind"] == DIRECTORY:
        return a["kind"] == b["kind"]
    return _content(a) == _content(b)


def three_way(ours: Record, base: Record | None, theirs: Record) -> Record:
    """Each field from the side that changed it (ours when both did); times the later; the
    content as one field."""
    base = base or {}
    out = dict(theirs)
    for key in set(ours) | set(theirs):
        if key in TIMES or key in CONTENT:
            continue
        if ours.get(key) != base.get(key):
            if key in ours:
                out[key] = ours[key]
            else:
                out.pop(key, None)
    if _content(ours) != _content(base) or _content(theirs) == _content(base):
        for key in CONTENT:
            if key in ours:
                out[key] = ours[key]
            else:
                out.pop(key, None)
    for key in TIMES:
        out[key] = max(ours.get(key, 0), theirs.get(key, 0))
    return out


def others_changes(since: Iterable[Record], replica: str) -> tuple[set[str], dict[str, Record]]:
    """From the dock's entries after the base: the node ids others changed, and the last record
    each node had before others deleted it (to bring a directory back)."""
    changed: set[str] = set()
    graves: dict[str, Record] = {}
    for entry in since:
        if (entry.get("origin") or {}).get("replica") == replica:
            continue
        changed.update(entry["puts"])
        changed.update(entry["deletes"])
        for node_id in entry["deletes"]:
            old = entry.get("before", {}).get(node_id)
            if old is not None:
                graves[node_id] = json.loads(old)
    return changed, graves


def merge(source: Source, entries: list[Record], since: list[Record], *, replica: str,
          confirm: bool = False, delete_share: float = 0.5, delete_floor: int = 20) -> Merged:
    """The dock entries ``entries`` (pushed on a base, checked by ``wire.check_entry``) become,
    given the dock's entries after that base (``since``). Raises ``Held`` for a mass deletion
    without ``confirm``."""
    changed, graves = others_changes(since, replica)
    view = View(source)
    alias: dict[str, str] = {}  # a pushed directory -> the dock's one of the same name
    out = Merged()
    deleting = sum(len(e["deletes"]) for e in entries)
    if not confirm and deleting > delete_floor:
        total = source.count()
        if deleting > delete_share * total:
            raise Held(deleting, total, delete_share)
    for entry in entries:
        puts = {i: json.loads(r) for i, r in entry["puts"].items()}
        before = {i: (json.loads(r) if r is not None else None)
                  for i, r in entry["before"].items()}
        writes: dict[str, Record | None] = {}
        old_of: dict[str, Record | None] = {}
        conflicts: list[Record] = []
        made: dict[str, str] = {}  # this entry's aliases, told to the replica that pushed it

        def write(node_id: str, record: Record | None, *, view: View = view,
                  writes: dict[str, Record | None] = writes,
                  old_of: dict[str, Record | None] = old_of) -> None:
            if node_id not in old_of:
                old_of[node_id] = view.get(node_id)
            writes[node_id] = record
            view.set(node_id, record)

        deletes = _same_files(alias, view, puts, before, entry["deletes"])
        _deletes(deletes, puts, before, changed, view, write)
        for node_id in _parents_first(puts):
            record = puts[node_id]
            if record.get("parent") in alias:
                record = {**record, "parent": alias[record["parent"]]}
            current = view.get(node_id)
            if node_id in changed and not _same(current, before.get(node_id)) and \
                    current is not None:
                record = _both_changed(node_id, record, before.get(node_id), current, view,
                                       write, conflicts, entry["writer"])
            if record.get("parent") is not None:
                _ensure_parent(record["parent"], view, graves, write)
                occupant = view.child(record["parent"], record["name"])
                if occupant is not None and occupant != node_id:
                    theirs = view.get(occupant)
                    if theirs is not None and identical(theirs, record):
                        alias[node_id] = made[node_id] = occupant
                        if view.get(node_id) is not None:
                            write(node_id, None)
                        else:
                            writes[node_id] = None
                            old_of.setdefault(node_id, None)
                        continue
                    if theirs is not None:
                        moved = {**theirs, "name": _free_name(
                            view, record["parent"], conflict_name(
                                theirs["name"], theirs.get("writer"), theirs.get("mtime", 0)))}
                        write(occupant, moved)
                        conflicts.append({"name": record["name"], "copy": moved["name"],
                                          "node": node_id, "copyNode": occupant,
                                          "writers": [theirs.get("writer"), entry["writer"]]})
            write(node_id, record)
        dock_entry = {key: value for key, value in entry.items()
                      if key not in ("puts", "deletes", "before")}
        dock_entry["puts"] = {i: compact(r) for i, r in writes.items() if r is not None}
        dock_entry["deletes"] = [i for i, r in writes.items() if r is None]
        dock_entry["before"] = {i: None if old_of[i] is None else compact(old_of[i])
                                for i in writes}
        if conflicts:
            dock_entry["conflicts"] = conflicts
        if made:
            dock_entry["aliases"] = made
        out.entries.append(dock_entry)
        for node_id, record in writes.items():
            out.writes[node_id] = record
    return out


def _same_files(alias: dict[str, str], view: View, puts: dict[str, Record],
                before: dict[str, Record | None], deletes: list[str]) -> list[str]:
    """A file an earlier entry of the push made as one the dock had (same name and bytes:
    ``alias``), written or deleted again: the write goes to the dock's node (``puts`` and
    ``before`` changed in place), and so does the delete (the list returned). Its base is the
    dock's node while that still holds the bytes the pushed one had."""
    files = {pushed: dock for pushed, dock in alias.items()
             if (view.get(dock) or {}).get("kind") not in (None, DIRECTORY)}
    for pushed in [i for i in [*puts, *deletes] if i in files]:
        dock = files[pushed]
        current, old = view.get(dock), before.pop(pushed, None)
        before[dock] = current if current and old and identical(current, old) else old
        if pushed in puts:
            puts[dock] = puts.pop(pushed)
    return [files.get(i, i) for i in deletes]


def _deletes(deletes: list[str], puts: dict[str, Record], before: dict[str, Record | None],
             changed: set[str], view: View, write: Any) -> None:
    """The entry's deletes, children before their directories; a node another replica changed
    since the base, or a directory still holding something, is kept (written back)."""
    pending = [i for i in deletes if view.get(i) is not None]
    doomed = set(pending)
    progress = True
    while pending and progress:
        progress = False
        for node_id in list(pending):
            current = view.get(node_id)
            if node_id in changed and not _same(current, before.get(node_id)):
                pending.remove(node_id)
                doomed.discard(node_id)
                write(node_id, current)  # a delete against an edit keeps the edit
                progress = True
                continue
            kids = view.children(node_id) if current and current["kind"] == DIRECTORY else set()
            if kids - doomed:
                if not kids & doomed:  # what it holds stays: so does it
                    pending.remove(node_id)
                    doomed.discard(node_id)
                    write(node_id, current)
                    progress = True
                continue
            pending.remove(node_id)
            write(node_id, None)
            progress = True
    for node_id in pending:  # a directory whose kept entries stayed
        doomed.discard(node_id)
        write(node_id, view.get(node_id))


def _both_changed(node_id: str, ours: Record, base: Record | None, theirs: Record, view: View,
                  write: Any, conflicts: list[Record], writer: str) -> Record:
    """Both sides changed ``node_id`` since the base: its merged record (and, when both
    changed a file's content, the dock's version kept beside it as a new node)."""
    merged = three_way(ours, base, theirs)
    if ours["kind"] == DIRECTORY or theirs["kind"] == DIRECTORY or \
            _content(ours) in (_content(theirs), _content(base)) or \
            _content(theirs) == _content(base):
        return merged
    copy_id = f"{node_id[:40]}-c{len(view.nodes)}"
    while view.get(copy_id) is not None:
        copy_id += "x"
    name = _free_name(view, theirs["parent"], conflict_name(
        theirs["name"], theirs.get("writer"), theirs.get("mtime", 0)))
    write(copy_id, {**theirs, "name": name})
    conflicts.append({"name": merged["name"], "copy": name, "node": node_id,
                      "copyNode": copy_id, "writers": [theirs.get("writer"), writer]})
    return merged


def _ensure_parent(parent: str, view: View, graves: dict[str, Record], write: Any) -> None:
    """A write into a directory deleted since the base brings the directory back (and its
    own deleted parents), as it last was."""
    chain = []
    current = parent
    while view.get(current) is None and current in graves and current not in chain:
        chain.append(current)
        current = graves[current].get("parent")
        if current is None:
            break
    for node_id in reversed(chain):
        record = graves[node_id]
        occupant = view.child(record["parent"], record["name"]) if record.get("parent") else None
        if occupant is not None and occupant != node_id:
            record = {**record, "name": _free_name(view, record["parent"], conflict_name(
                record["name"], record.get("writer"), record.get("mtime", 0)))}
        write(node_id, record)


def _free_name(view: View, parent: str, name: str) -> str:
    candidate, number = name, 1
    while view.child(parent, candidate) is not None:
        number += 1
        candidate = f"{name} {number}"
    return candidate


def _parents_first(puts: dict[str, Record]) -> list[str]:
    """The ids of ``puts`` with every directory before what the entry puts inside it."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(node_id: str, depth: int = 0) -> None:
        if node_id in seen or depth > len(puts):
            return
        seen.add(node_id)
        parent = puts[node_id].get("parent")
        if parent in puts:
            visit(parent, depth + 1)
        order.append(node_id)

    for node_id in puts:
        visit(node_id)
    return order
