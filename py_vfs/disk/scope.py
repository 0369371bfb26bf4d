"""The sandbox layer: a ``Scope`` (the subtrees a restricted view may read and write) and the
two places it is enforced, whatever operation runs (docs/sandbox.md).

- Reads, in the resolver: while ``SCOPE`` is set, every name the walk steps onto must be
  *visible* (readable, or a directory on the way to a readable subtree), and a walk that
  followed any symlink must end on a *readable* path; otherwise the answer is ENOENT naming only
  the caller's path. Every operation resolves its paths there, so every read, every symlink hop
  and the parents of every write are covered, in steps and streams too.
- Writes, where changes are run (the group commit and steps): a change made under a scope is
  checked, before it can commit, against the events it produced (``watch.derive_events``, the
  same events watchers and the journal get): each created, modified, deleted or renamed path,
  old and new, must be writable, or the change is undone and fails with EACCES. Whatever path
  spelling, symlink or rename an operation took, what it changed is what is checked.

``RestrictedView`` (``views/restricted.py``) sets ``SCOPE`` around every call, checks path arguments
lexically first (so a write outside fails with EACCES before anything runs), and filters the
outputs (listings, watch events, journal and query rows) with the same ``Scope``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import Node
from .watch import Event, derive_events

SCOPE: ContextVar[Scope | None] = ContextVar("py_vfs_scope", default=None)


def _prefixes(given: Iterable[str] | str | None, syscall: str) -> tuple[str, ...]:
    """Absolute, normalized, with no prefix inside another; sorted."""
    if given is None:
        return ()
    if isinstance(given, str):
        given = [given]
    found = []
    for path in given:
        if not isinstance(path, str) or not path.startswith("/"):
            raise FsError.of("EINVAL", syscall, None).with_hint(
                f"a restricted view's paths are absolute, not {path!r}")
        found.append(paths.normalize(path, syscall))
    kept = [p for p in found if not any(q != p and paths.is_within(p, q) for q in found)]
    return tuple(sorted(set(kept)))


def _intersect(mine: tuple[str, ...], asked: tuple[str, ...]) -> list[str]:
    """The subtrees in both sets: for two nested prefixes, the deeper one."""
    out = []
    for a in mine:
        for b in asked:
            if paths.is_within(b, a):
                out.append(b)
            elif paths.is_within(a, b):
                out.append(a)
    return out


class Scope:
    """Read and write prefixes (whole subtrees). What is writable is readable too."""

    def __init__(self, read: Iterable[str] | str | None = (),
                 write: Iterable[str] | str | None = ()) -> None:
        self.write = _prefixes(write, "restrict")
        self.read = _prefixes([*_prefixes(read, "restrict"), *self.write], "restrict")

    def __repr__(self) -> str:
        return f"Scope(read={list(self.read)}, write={list(self.write)})"

    def can_read(self, path: str) -> bool:
        """``path`` (normalized) is in a readable subtree."""
        return any(paths.is_within(path, root) for root in self.read)

    def can_write(self, path: str) -> bool:
        """``path`` (normalized) is in a writable subtree."""
        return any(paths.is_within(path, root) for root in self.write)

    def leads_to(self, path: str) -> bool:
        """``path`` is a directory on the way to a readable subtree (``/scoops`` for
        ``/scoops/a``): visible, listed with only the entries on the way."""
        return any(paths.is_within(root, path) and root != path for root in self.read)

    def visible(self, path: str) -> bool:
        """Readable, or on the way to something readable."""
        return self.can_read(path) or self.leads_to(path)

    def roots_below(self, path: str) -> list[str]:
        """The readable subtrees at or below ``path``."""
        if self.can_read(path):
            return [path]
        return [root for root in self.read if paths.is_within(root, path)]

    def narrow(self, read: Iterable[str] | str | None = (),
               write: Iterable[str] | str | None = ()) -> Scope:
        """A scope within this one: only ever intersects, so it can never widen."""
        asked_write = _prefixes(write, "restrict")
        asked_read = _prefixes([*_prefixes(read, "restrict"), *asked_write], "restrict")
        return Scope(_intersect(self.read, asked_read), _intersect(self.write, asked_write))


def hidden(syscall: str, path: str | None) -> FsError:
    """What a read outside the scope gets: ENOENT naming only the caller's path."""
    return FsError.of("ENOENT", syscall, path)


def denied(syscall: str, path: str | None, dest: str | None = None) -> FsError:
    """What a write outside the scope gets: EACCES naming only the caller's paths."""
    return FsError.of("EACCES", syscall, path, dest).with_hint("outside this view's writable paths")


def require_readable(canonical: str, path: str, syscall: str) -> None:
    """ENOENT unless ``canonical`` is readable in the current scope (none: anything goes). What
    copies a whole subtree asks of its source: a directory on the way to a readable one
    (``/scoops`` for ``/scoops/a``) is visible, but its other entries are not the view's, and a
    copy would bring them where the view reads."""
    scope = SCOPE.get()
    if scope is not None and not scope.can_read(canonical):
        raise hidden(syscall, path)


def check_change(changes: dict[str, tuple[Node | None, Node | None]],
                 now: Callable[[str], Node | None], operation: str) -> None:
    """EACCES unless every path the change touched is writable in the current scope (none:
    anything goes). ``now`` looks nodes up in the index after the change."""
    scope = SCOPE.get()
    if scope is None or not changes:
        return

    def before(node_id: str) -> Node | None:
        return changes[node_id][0] if node_id in changes else now(node_id)

    events: list[Event] = derive_events(changes, before, now)
    for event in events:
        for path in (event.get("path"), event.get("oldPath")):
            if path is not None and not scope.can_write(path):
                raise denied(operation, None)


# ------------------------------------------------------------ outputs, as a view sees them

def event_within(event: Event, scope: Scope) -> Event | None:
    """A watch event as a view sees it: a rename across its edge is the side inside's create
    or delete; None for an event about nothing readable."""
    path, old = event.get("path"), event.get("oldPath")
    inside, was_inside = path is not None and scope.can_read(path), \
        old is not None and scope.can_read(old)
    if event.get("type") == "rename" and inside != was_inside:
        if inside:  # moved in from outside: appears
            return {"type": "create", "path": path, "kind": event.get("kind")}
        return {"type": "delete", "path": old, "kind": event.get("kind")}
    if not inside:
        return None
    return event


def row_within(row: dict[str, Any], scope: Scope) -> dict[str, Any] | None:
    """A journal entry with only its readable paths (None: it has none)."""
    kept = [p for p in row.get("paths", ()) if scope.can_read(p)]
    return {**row, "paths": kept} if kept else None


def query_row_within(row: tuple[Any, ...], scope: Scope) -> tuple[Any, ...] | None:
    """A row of the query's ``journal`` view with only its readable paths (None: none)."""
    kept = [p for p in json.loads(row[-1]) if scope.can_read(p)]  # paths: the last column
    if not kept:
        return None
    return (*row[:-1], json.dumps(kept, ensure_ascii=False, separators=(",", ":")))


def change_within(change: dict[str, Any], scope: Scope) -> dict[str, Any] | None:
    """A diff entry as a view sees it (as ``event_within``)."""
    path, old = change.get("path"), change.get("oldPath")
    inside, was_inside = scope.can_read(path or ""), old is not None and scope.can_read(old)
    if change.get("change") == "renamed" and inside != was_inside:
        kind = "added" if inside else "removed"
        return {"change": kind, "path": path if inside else old, "kind": change.get("kind")}
    return change if inside else None
