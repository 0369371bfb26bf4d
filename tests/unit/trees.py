"""A disk's tree as the tests' model sees it, and the watch events a change must fire, computed
from the trees before and after it alone (not from the commit's change set, as the product
does): the reference for watch events, journal paths and replays
(test_sandbox_differential.py, test_history_model.py)."""

from __future__ import annotations

import posixpath
from typing import Any

Tree = dict[str, tuple[str, Any]]  # node id -> (path, node)
EventTuple = tuple[str, str, "str | None", str]  # type, path, oldPath, kind


def node_tree(disk: Any) -> Tree:
    """Every node of the disk by id, the root included: its path and the node itself (links
    not followed)."""
    root = disk.index.root  # scandir lists a directory's entries, not the directory
    out: Tree = {root.id: ("/", root)}
    stack = ["/"]
    while stack:
        directory, nodes = disk.scandir(stack.pop())
        for node in nodes:
            path = posixpath.join(directory, node.name)
            out[node.id] = (path, node)
            if node.kind == "directory":
                stack.append(path)
    return out


def contents(disk: Any) -> dict[str, tuple]:
    """Every entry by path: kind, link target, mode, size and content (by its chunks)."""
    return {path: (node.kind, node.target, node.mode, node.size, node.chunks, node.inline)
            for path, node in node_tree(disk).values()}


def tree_events(before: Tree, after: Tree) -> list[EventTuple]:
    """The events a change must fire, from the two trees: a node only before is deleted, only
    after created; one whose parent or name changed is renamed (its entries move with it: no
    event of their own); one otherwise changed is modified, except a directory whose only
    change is the time bump of an entry coming or going (docs/semantics.md, "Watch"). Sorted:
    the order of events within one commit is not the model's to say."""
    events: list[EventTuple] = []
    entry_parents = set()
    for node_id in before.keys() | after.keys():
        old, new = before.get(node_id, (None, None))[1], after.get(node_id, (None, None))[1]
        if old is None or new is None or (old.parent, old.name) != (new.parent, new.name):
            entry_parents.update(n.parent for n in (old, new) if n is not None)
    for node_id in before.keys() | after.keys():
        (old_path, old), (new_path, new) = (before.get(node_id, (None, None)),
                                            after.get(node_id, (None, None)))
        if old is None:
            events.append(("create", new_path, None, new.kind))
        elif new is None:
            events.append(("delete", old_path, None, old.kind))
        elif (old.parent, old.name) != (new.parent, new.name):
            events.append(("rename", new_path, old_path, new.kind))
        elif old != new:
            times_only = (old.mode, old.target, old.size, old.chunks, old.inline, old.kind) == (
                new.mode, new.target, new.size, new.chunks, new.inline, new.kind)
            if not (new.kind == "directory" and node_id in entry_parents and times_only):
                events.append(("modify", new_path, None, new.kind))
    return sorted(events, key=repr)


def as_tuple(event: dict) -> EventTuple:
    """A watch listener's event as ``tree_events`` spells it."""
    return (event["type"], event["path"], event.get("oldPath"), event["kind"])


def paths_of(events: list[EventTuple]) -> set[str]:
    """The paths a journal entry of these events names (old and new of a rename)."""
    return {p for event in events for p in event[1:3] if p is not None}
