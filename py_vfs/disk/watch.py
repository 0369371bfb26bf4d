"""Watch: listeners on paths, and the events derived from what a commit changed.

An event is a plain dict ``{"type": "create"|"modify"|"delete"|"rename", "path", "kind"}`` plus
``"oldPath"`` for a rename. Events are computed once, by the tab that commits, from the node
changes of its transaction (each node before and after, with the paths before and after), and
stored in the change-log entry, so every other tab fires exactly the same events.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import attrgetter

from ..core import paths
from ..core.node import Node

Event = dict[str, str]
Listener = Callable[[Event], object]
Lookup = Callable[[str], "Node | None"]
PathOf = Callable[[str], "str | None"]
Changes = dict[str, tuple["Node | None", "Node | None"]]

_log = logging.getLogger(__name__)
_pending: set[asyncio.Future] = set()  # async listeners in flight (kept from the collector)
# A node's fields but its mtime and ctime, to tell a directory merely touched (no copy made).
_all_but_times = attrgetter(*(field.name for field in fields(Node)
                              if field.name not in ("mtime_ms", "ctime_ms")))


def path_of(node_id: str, lookup: Lookup, known: dict[str, str | None] | None = None) -> str | None:
    """The path of a node in the tree ``lookup`` describes (None if it is not attached).
    ``known`` caches the paths found so far (for this ``lookup``), so that the paths of a whole
    tree, however deep, cost one step per node rather than one per node and level."""
    known = {} if known is None else known
    chain: list[tuple[str, str]] = []  # (id, name), from the node up
    current: str | None = node_id
    while True:
        if current in known:
            path = known[current]
            break
        node = lookup(current) if current is not None else None
        if node is None:
            path = None
            break
        if node.parent is None:
            path = known[node.id] = "/"
            break
        chain.append((node.id, node.name))
        current = node.parent
    for chained_id, name in reversed(chain):
        path = None if path is None else paths.child(path, name)
        known[chained_id] = path
    return path


def derive_events(changes: Changes, before: Lookup, after: Lookup) -> list[Event]:
    """The events of a set of node changes, in the order the nodes were first changed.

    A directory whose only change is the mtime/ctime bump of gaining or losing an entry reports
    no "modify" of its own: the entry's create/delete/rename already says what happened.
    """
    moved_in = _parents_of_entry_changes(changes)
    known_before: dict[str, str | None] = {}
    known_after: dict[str, str | None] = {}

    def before_path(node_id: str) -> str | None:
        return path_of(node_id, before, known_before)

    def after_path(node_id: str) -> str | None:
        return path_of(node_id, after, known_after)

    events: list[Event] = []
    for node_id, (old, new) in changes.items():
        event = _event(node_id, old, new, before_path, after_path, moved_in)
        if event is not None:
            events.append(event)
    return events


def _parents_of_entry_changes(changes: Changes) -> set[str]:
    parents: set[str] = set()
    for old, new in changes.values():
        if old is None or new is None or (old.parent, old.name) != (new.parent, new.name):
            parents.update(n.parent for n in (old, new) if n is not None and n.parent)
    return parents


def _event(node_id: str, old: Node | None, new: Node | None, before: PathOf, after: PathOf,
           moved_in: set[str]) -> Event | None:
    if old is None and new is None:
        return None  # created and removed inside one step
    if old is None:
        return _make("create", after(node_id), new)
    if new is None:
        return _make("delete", before(node_id), old)
    if (old.parent, old.name) != (new.parent, new.name):
        event = _make("rename", after(node_id), new)
        old_path = before(node_id)
        if event is not None and old_path is not None:
            event["oldPath"] = old_path
        return event
    if old == new or (new.is_dir and node_id in moved_in and _touched_only(old, new)):
        return None
    return _make("modify", after(node_id), new)


def _touched_only(old: Node, new: Node) -> bool:
    return _all_but_times(old) == _all_but_times(new)


def _make(kind_of_event: str, path: str | None, node: Node | None) -> Event | None:
    if path is None or node is None:
        return None
    return {"type": kind_of_event, "path": path, "kind": node.kind}


@dataclass(frozen=True)
class _Watcher:
    path: str
    recursive: bool
    listener: Listener

    def wants(self, event: Event) -> bool:
        return any(self._covers(p) for p in (event.get("path"), event.get("oldPath")) if p)

    def _covers(self, path: str) -> bool:
        if path == self.path:
            return True
        if self.recursive:
            return paths.is_within(path, self.path)
        return paths.dirname(path) == self.path


class Watchers:
    """The listeners of one VFS. A listener that raises is logged and does not stop the others;
    one that returns an awaitable is scheduled, not awaited (commits never wait on listeners)."""

    def __init__(self) -> None:
        self._watchers: list[_Watcher] = []

    def add(self, path: str, listener: Listener, recursive: bool = False) -> Callable[[], None]:
        """Subscribe ``listener`` to ``path``; returns the function that unsubscribes."""
        watcher = _Watcher(paths.normalize(path, "watch"), recursive, listener)
        self._watchers.append(watcher)

        def unsubscribe() -> None:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

        return unsubscribe

    def __bool__(self) -> bool:
        return bool(self._watchers)

    def fire(self, events: list[Event]) -> None:
        """Call the listeners of each event's paths."""
        for event in events:
            for watcher in list(self._watchers):
                if watcher.wants(event):
                    _call(watcher.listener, dict(event))


def _call(listener: Listener, event: Event) -> None:
    try:
        result = listener(event)
        if inspect.isawaitable(result):
            future = asyncio.ensure_future(result)
            _pending.add(future)
            future.add_done_callback(_pending.discard)
    except Exception:  # a broken listener must not undo or hide a commit
        _log.exception("watch listener failed on %s", event)
