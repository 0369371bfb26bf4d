"""A token given a path reaches only that part of its disk, as a restricted view does.

A push may write nodes at or below the path; the directories above it only as far as a write
inside touches them (their times), never their names, places or modes. A pull carries the
nodes at or below the path and the directories on the way to it, nothing else (the other
nodes' records, their events and their ``before`` are left out).
"""

from __future__ import annotations

import json
from typing import Any

from ...core import paths
from ..merge import Record
from ..wire import Invalid
from .db import Database

TIMES = ("mtime", "ctime", "atime", "writer")


def _path_of(lookup: Any, record: Record | None, node_id: str) -> str | None:
    parts, seen = [], set()
    while record is not None and record.get("parent") is not None:
        if node_id in seen:
            return None
        seen.add(node_id)
        parts.append(record["name"])
        node_id = record["parent"]
        record = lookup(node_id)
    if node_id != "root":
        return None
    return "/" + "/".join(reversed(parts))


def _relation(path: str | None, scope: str) -> str:
    if path is None:
        return "out"
    if path == scope or path.startswith(scope.rstrip("/") + "/"):
        return "in"
    if scope == path or scope.startswith(path.rstrip("/") + "/"):
        return "above"
    return "out"


def _lookup(database: Database, db: Any, disk: str, overlay: dict[str, Record | None]) -> Any:
    def lookup(node_id: str) -> Record | None:
        if node_id in overlay:
            return overlay[node_id]
        row = database._run(db, "SELECT record FROM nodes WHERE disk = ? AND id = ?",
                            (disk, node_id)).fetchone()
        return None if row is None else json.loads(row[0])
    return lookup


def inside_path(database: Database, disk: str, entries: list[Record], scope: str) -> None:
    """Refuse (``Invalid``, a 400... made 403 by the caller's message) a push that writes
    outside ``scope``."""
    scope = paths.normalize(scope)
    with database.connection() as db:
        for entry in entries:
            puts = {i: json.loads(r) for i, r in entry["puts"].items()}
            lookup = _lookup(database, db, disk, puts)
            plain = _lookup(database, db, disk, {})
            for node_id, record in [*puts.items(), *((i, None) for i in entry["deletes"])]:
                current = plain(node_id)
                places = [_relation(_path_of(lookup, record, node_id), scope)] if record else []
                if current is not None:
                    places.append(_relation(_path_of(plain, current, node_id), scope))
                if all(place == "in" for place in places) and places:
                    continue
                if record is not None and current is not None and \
                        set(places) <= {"in", "above"} and \
                        {k: v for k, v in record.items() if k not in TIMES} == \
                        {k: v for k, v in current.items() if k not in TIMES}:
                    continue
                raise Forbidden(f"this token reaches only {scope}: the push writes outside it")


class Forbidden(Invalid):
    """A push outside a path token's path (403)."""


def visible_entry(database: Database, disk: str, entry: Record, scope: str) -> Record:
    """``entry`` as a token limited to ``scope`` sees it."""
    scope = paths.normalize(scope)
    with database.connection() as db:
        plain = _lookup(database, db, disk, {})
        keep = set()
        for node_id in [*entry["puts"], *entry["deletes"]]:
            record = json.loads(entry["puts"][node_id]) if node_id in entry["puts"] else None
            old = entry.get("before", {}).get(node_id)
            for candidate in (record, json.loads(old) if old else None, plain(node_id)):
                if candidate is not None and _relation(
                        _path_of(plain, candidate, node_id), scope) in ("in", "above"):
                    keep.add(node_id)
                    break
    out = dict(entry)
    out["puts"] = {i: r for i, r in entry["puts"].items() if i in keep}
    out["deletes"] = [i for i in entry["deletes"] if i in keep]
    out["before"] = {i: r for i, r in entry.get("before", {}).items() if i in keep}
    out["events"] = [e for e in entry.get("events", ())
                     if any(_relation(e.get(k), scope) != "out" for k in ("path", "oldPath"))]
    out.pop("conflicts", None)
    return out
