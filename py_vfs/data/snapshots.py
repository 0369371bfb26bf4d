"""Snapshots, diffs and restores: the whole tree recorded under a name, compared, put back.

A snapshot is every node record of the disk at one revision, stored in ``meta`` under
``snapshot:<name>`` (one value), with a small catalogue under ``snapshots``: O(number of nodes),
no content copied (the records name the chunks, which are shared; a chunk a snapshot names is
never collected while the snapshot exists). Creating and deleting one are commits, journaled.

A *state* of the disk is a snapshot (its name), a revision still in the journal
(``{"revision": n}``), a moment (``{"before": time}``: the revision the disk was at then) or the
disk now (None). ``diff`` compares two states node by node: nodes keep their id across renames,
so a moved file is one ``renamed`` change, not a removal and an addition. ``restore`` makes the
disk, or one subtree, equal to a state as one atomic step, journaled like any change (so it can
be undone by restoring the revision before it).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..core.node import DIRECTORY, ROOT_ID, Node
from ..disk.clock import now
from ..disk.content import HELD_PREFIX, SNAPSHOT_PREFIX, Content
from ..disk.engine import CommitEngine
from ..disk.index import Index
from ..disk.journal import Journal, iso
from ..disk.watch import path_of
from ..fs.disk_side import new_id
from ..fs.resolver import Resolver
from ..storage import Store
from ..storage.transaction import Transaction

CATALOGUE = "snapshots"
MAX_NAME = 128
MAX_SNAPSHOTS = 1000

Tree = dict[str, Node]
State = str | int | dict[str, Any] | None


def check_name(name: object, syscall: str) -> str:
    """A snapshot name: 1 to 128 printable characters, no ``/``."""
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or "/" in name \
            or not name.isprintable() or name != name.strip():
        raise FsError.of("EINVAL", syscall).with_hint(
            f"a snapshot name is 1 to {MAX_NAME} printable characters without '/' or "
            f"surrounding spaces, not {name!r}")
    return name


def _paths(tree: Tree) -> dict[str, str]:
    """The path of every attached node of ``tree``."""
    known: dict[str, str | None] = {}
    out = {}
    for node_id in tree:
        found = path_of(node_id, tree.get, known)
        if found is not None:
            out[node_id] = found
    return out


def _same_content(a: Node, b: Node) -> bool:
    return (a.kind, a.size, a.chunks, a.inline, a.target) == (b.kind, b.size, b.chunks,
                                                              b.inline, b.target)


def diff_trees(old: Tree, new: Tree) -> list[dict[str, Any]]:
    """The changes from ``old`` to ``new``, sorted by path: ``added``, ``removed``,
    ``modified`` (a file's content or a link's target; with sizes) and ``renamed`` (moved or
    renamed; with ``oldPath``). Directory time stamps are not changes."""
    before, after = _paths(old), _paths(new)
    changes = []
    for node_id, path in after.items():
        node = new[node_id]
        if node_id == ROOT_ID:
            continue
        if node_id not in before:
            changes.append({"change": "added", "path": path, "kind": node.kind,
                            "size": node.size})
            continue
        was = old[node_id]
        if (was.parent, was.name) != (node.parent, node.name):
            changes.append({"change": "renamed", "path": path, "oldPath": before[node_id],
                            "kind": node.kind, "size": node.size})
        if node.kind != DIRECTORY and not _same_content(was, node):
            changes.append({"change": "modified", "path": path, "kind": node.kind,
                            "size": node.size, "oldSize": was.size})
    for node_id, path in before.items():
        if node_id not in after and node_id != ROOT_ID:
            node = old[node_id]
            changes.append({"change": "removed", "path": path, "kind": node.kind,
                            "size": node.size})
    return _replaced_in_place(changes)


def _replaced_in_place(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A path removed and added again as the same kind (a link made anew, a file written by
    delete-and-create) is one ``modified`` change, as a path-based diff shows it."""
    removed = {c["path"]: c for c in changes if c["change"] == "removed"}
    out = []
    for change in changes:
        gone = removed.get(change["path"])
        if change["change"] == "added" and gone is not None and gone["kind"] == change["kind"]:
            if change["kind"] != DIRECTORY:
                out.append({**change, "change": "modified", "oldSize": gone["size"]})
            del removed[change["path"]]
        elif change["change"] != "removed":
            out.append(change)
    out.extend(removed.values())
    out.sort(key=lambda change: (change["path"], change["change"]))
    return out


def _find(tree: Tree, path: str) -> Node | None:
    """The node at canonical ``path`` in ``tree`` (names only, no link followed)."""
    children: dict[tuple[str, str], Node] = {
        (node.parent, node.name): node for node in tree.values() if node.parent is not None}
    node = tree.get(ROOT_ID)
    for name in [s for s in path.split("/") if s]:
        if node is None or not node.is_dir:
            return None
        node = children.get((node.id, name))
    return node


def _below(tree: Tree, top: Node) -> list[Node]:
    """``top`` and every node below it, parents before their entries."""
    kids: dict[str, list[Node]] = {}
    for node in tree.values():
        if node.parent is not None:
            kids.setdefault(node.parent, []).append(node)
    out, stack = [], [top]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(kids.get(node.id, ()))
    return out


@dataclass(eq=False)
class Snapshots:
    """Snapshots, diff and restore of one VFS, over its index, journal and engine."""

    store: Store
    index: Index
    content: Content
    engine: CommitEngine
    resolver: Resolver
    history: Journal

    def __post_init__(self) -> None:
        self.history.snapshot_chunks = self.chunks

    async def _catalogue(self) -> list[dict[str, Any]]:
        stored = await self.store.get("meta", CATALOGUE)
        return [] if stored is None else list(json.loads(str(stored)))

    async def list(self) -> list[dict[str, Any]]:
        """Every snapshot: name, time (ISO), timeMs, revision, writer, files (nodes)."""
        return await self._catalogue()

    async def chunks(self) -> set[str]:
        """Every chunk a snapshot names (kept by garbage collection and trimming)."""
        keys: set[str] = set()
        for entry in await self._catalogue():
            for node in (await self._records(entry["name"])).values():
                keys.update(node.chunks)
        return keys

    async def _records(self, name: str) -> Tree:
        stored = await self.store.get("meta", SNAPSHOT_PREFIX + name)
        if stored is None:
            raise FsError.of("ENOENT", "snapshot", name).with_hint(f"no snapshot named {name!r}")
        records = json.loads(str(stored))["nodes"]
        return {node_id: Node.from_record(node_id, record) for node_id, record in records.items()}

    async def create(self, name: str) -> dict[str, Any]:
        """Record the whole tree as snapshot ``name`` (EEXIST if taken)."""
        check_name(name, "snapshot")
        made: dict[str, Any] = {}

        async def change(tx: Transaction) -> None:
            catalogue = await self._catalogue()
            if any(entry["name"] == name for entry in catalogue):
                raise FsError.of("EEXIST", "snapshot", name).with_hint(
                    f"a snapshot named {name!r} exists")
            if len(catalogue) >= MAX_SNAPSHOTS:
                raise FsError.of("ENOSPC", "snapshot", name).with_hint(
                    f"at most {MAX_SNAPSHOTS} snapshots: delete one first")
            nodes = {node.id: node.to_record() for node in self.index.nodes.values()}
            stamp = time.time() * 1000.0
            made.update(name=name, time=iso(stamp), timeMs=stamp,
                        revision=self.engine.revision + 1, writer=tx.writer, nodes=len(nodes))
            tx.put_meta(SNAPSHOT_PREFIX + name, json.dumps({"nodes": nodes},
                                                           separators=(",", ":")))
            tx.put_meta(CATALOGUE, json.dumps([*catalogue, made], separators=(",", ":")))
            tx.notes["snapshot"] = name

        await self.engine.run(change, "snapshot")
        return dict(made)

    async def delete(self, name: str) -> None:
        """Delete snapshot ``name``; the chunks only it kept go (unless history holds them)."""
        check_name(name, "deleteSnapshot")

        async def change(tx: Transaction) -> None:
            catalogue = await self._catalogue()
            if not any(entry["name"] == name for entry in catalogue):
                raise FsError.of("ENOENT", "deleteSnapshot", name).with_hint(
                    f"no snapshot named {name!r}")
            mine = {key for node in (await self._records(name)).values() for key in node.chunks}
            rest = [entry for entry in catalogue if entry["name"] != name]
            others = set()
            for entry in rest:
                others.update(k for n in (await self._records(entry["name"])).values()
                              for k in n.chunks)
            held = {str(key)[len(HELD_PREFIX):]
                    for key, _ in await self.store.get_prefix("meta", HELD_PREFIX)}
            for key in mine - others - held:
                if not self.content.refs[key] and not self.content.pins[key]:
                    tx.delete_chunk(key)
                    if key in self.content.loose:
                        self.content.loose.discard(key)
                        tx.on_rollback(lambda key=key: self.content.loose.add(key))
            tx.delete_meta(SNAPSHOT_PREFIX + name)
            tx.put_meta(CATALOGUE, json.dumps(rest, separators=(",", ":")))
            tx.notes["snapshot"] = name

        await self.engine.run(change, "deleteSnapshot")

    # ------------------------------------------------------------ states

    async def tree(self, state: State, syscall: str) -> Tree:
        """The nodes of a state (see the module docstring); the caller holds the mutex."""
        if state is None or state == "now":
            return dict(self.index.nodes)
        if isinstance(state, str):
            return await self._records(check_name(state, syscall))
        if isinstance(state, int) and not isinstance(state, bool):
            return await self.history.tree_at(state, syscall)
        if isinstance(state, dict):
            if "snapshot" in state:
                return await self._records(check_name(state["snapshot"], syscall))
            if "revision" in state:
                return await self.history.tree_at(state["revision"], syscall)
            if "before" in state:
                revision = await self.history.revision_before(state["before"])
                return await self.history.tree_at(revision, syscall)
        raise FsError.of("EINVAL", syscall).with_hint(
            "a state is a snapshot name, a revision, {revision: N} or {before: time}")

    async def diff(self, a: State, b: State = None) -> list[dict[str, Any]]:
        """What changed from state ``a`` to state ``b`` (default: now)."""
        async with self.engine.mutex:
            await self.engine.catch_up()
            old = await self.tree(a, "diff")
            new = await self.tree(b, "diff")
        return diff_trees(old, new)

    async def restore(self, state: State, path: str | None = None) -> dict[str, Any]:
        """Make the disk (or the subtree at ``path``) what it was in ``state``, as one
        atomic, journaled change; returns the journal entry's summary (its revision)."""
        if state is None:
            raise FsError.of("EINVAL", "restore").with_hint("restore needs a state to go back to")

        async def change(tx: Transaction) -> dict[str, Any]:
            target = await self.tree(state, "restore")
            if path is None or paths.normalize(path, "restore") == "/":
                count = await self._restore_all(target, tx)
            else:
                count = await self._restore_at(target, paths.normalize(path, "restore"), tx)
            return {"revision": self.engine.revision + 1, "restored": count}

        return await self.engine.run(change, "restore")

    async def _adopt(self, nodes: list[Node], tx: Transaction) -> None:
        """The chunks the restored nodes name must still be stored (EIO if history lost one)."""
        wanted = {key for node in nodes for key in node.chunks if not self.content.refs[key]}
        if not wanted:
            return
        missing = wanted - set(await self.store.keys("chunks"))
        if missing:
            raise FsError.of("EIO", "restore").with_hint(
                f"{len(missing)} chunks of that state are no longer stored")
        self.content.adopt(wanted, tx)

    def _check_marks(self, doomed: list[Node]) -> None:
        for node in doomed:
            if node.id in self.index.marks:
                raise FsError.of("EBUSY", "restore", path_of(node.id, self.index.nodes.get))

    async def _restore_all(self, target: Tree, tx: Transaction) -> int:
        live = self.index.nodes
        doomed = [node for node_id, node in live.items() if node_id not in target]
        self._check_marks(doomed)
        order = _below(target, target[ROOT_ID])
        await self._adopt(order, tx)
        for node in doomed:
            if node.id in self.index.nodes:
                self.index.remove(node, tx)
        return self._put_all(order, tx)

    def _put_all(self, order: list[Node], tx: Transaction) -> int:
        changed = 0
        for node in order:
            current = self.index.nodes.get(node.id)
            if current is None or current.changed(writer=None) != node.changed(writer=None):
                self.index.put(node, tx)
                changed += 1
        return changed

    async def _restore_at(self, target: Tree, path: str, tx: Transaction) -> int:
        parent, _, name = self.resolver.lookup_parent(path, "restore")
        live_top = self.index.child(parent, name)
        then = _find(target, path)
        if live_top is None and then is None:
            raise FsError.of("ENOENT", "restore", path)
        live_ids = {n.id for n in _below(self.index.nodes, live_top)} if live_top else set()
        order = _below(target, then) if then is not None else []
        # A node of that state that lives elsewhere now (moved out since) comes back as a copy.
        fresh = {n.id: new_id() for n in order if n.id in self.index.nodes and n.id not in live_ids}
        moved = []
        for node in order:
            parent_id = fresh.get(node.parent or "", node.parent)
            if node is then:
                parent_id, node = parent.id, node.changed(name=name)
            moved.append(node.changed(id=fresh.get(node.id, node.id), parent=parent_id))
        keep = {n.id for n in moved}
        doomed = [self.index.nodes[i] for i in live_ids if i not in keep]
        self._check_marks(doomed)
        await self._adopt(moved, tx)
        for node in doomed:
            if node.id in self.index.nodes:
                self.index.remove(node, tx)
        changed = self._put_all(moved, tx) + len(doomed)
        stamp = now()
        self.index.put(self.index.get(parent.id).changed(mtime_ms=stamp, ctime_ms=stamp), tx)
        return changed

