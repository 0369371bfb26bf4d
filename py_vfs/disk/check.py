"""The integrity check (``fsck``): verify every reference the stored disk makes.

It reads what is *stored*, not the in-memory index, because the question is whether the disk
would boot into a correct file system: every node's parent exists and is a directory, the parent
chains reach the root without a cycle, names are unique per directory, every chunk a file names
is stored with the right sha256, and the chunk lengths add up to the file's size (or, for a small
file inline in its record, its bytes decode to exactly its size and it names no chunk). Chunks
are read one at a time straight from the store (never through the cache, which could hide a
corrupt copy), so the check holds about one chunk in memory whatever the disk's size.

Stored chunks that no node references are not problems: a streaming write stores its chunks
before the node that names them, and a crash can leave some behind. They are counted as
*reclaimable* for garbage collection to take.

Other layers add their own checks with ``EXTRA_CHECKS`` (the change log of multi-tab sync is
meant to register one there), so this module need not know their records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.node import DIRECTORY, FILE, ROOT_ID, SYMLINK, Node, decode_inline, name_key
from ..storage import Store
from .content import HELD_PREFIX, SNAPSHOT_PREFIX

KINDS = (FILE, DIRECTORY, SYMLINK)

Progress = Callable[[int, int], None]
"""``progress(done, total)``: chunks verified so far out of those to verify."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken reference: ``kind`` is a stable word for programs, ``where`` a path when the
    node is reachable, else the store key, and ``message`` a sentence for people."""

    kind: str
    where: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """The problem as the JS API and the shell report it."""
        return {"kind": self.kind, "where": self.where, "message": self.message}


@dataclass
class Report:
    """What ``check()`` found: no problems means the disk is healthy."""

    problems: list[Problem] = field(default_factory=list)
    nodes: int = 0
    chunks: int = 0
    chunk_bytes: int = 0
    inline_files: int = 0
    inline_bytes: int = 0
    reclaimable_chunks: int = 0
    reclaimable_bytes: int = 0
    history_chunks: int = 0  # stored for the journal or a snapshot only (not reclaimable)
    history_bytes: int = 0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def add(self, kind: str, where: str, message: str) -> None:
        """Record one problem of ``kind`` at ``where``."""
        self.problems.append(Problem(kind, where, message))

    def to_dict(self) -> dict[str, Any]:
        """The report as the JS API and the shell show it."""
        return {
            "ok": self.ok, "problems": [p.to_dict() for p in self.problems],
            "nodes": self.nodes, "chunks": self.chunks, "chunkBytes": self.chunk_bytes,
            "inlineFiles": self.inline_files, "inlineBytes": self.inline_bytes,
            "reclaimableChunks": self.reclaimable_chunks,
            "reclaimableBytes": self.reclaimable_bytes,
            "historyChunks": self.history_chunks, "historyBytes": self.history_bytes,
        }


ExtraCheck = Callable[[Store, dict[str, Node], Report], Awaitable[None]]
# Checks of records other layers own, run after the nodes and chunks: each gets the store, the
# stored nodes by id, and the report to add problems to. The change log registers here.
EXTRA_CHECKS: list[ExtraCheck] = []


async def check(store: Store, format_version: int, progress: Progress | None = None) -> Report:
    """Verify the stored disk; see the module docstring for what is checked."""
    report = Report()
    await _check_format(store, format_version, report)
    nodes = await _load_nodes(store, report)
    report.nodes = len(nodes)
    tree = _Tree(nodes)
    _check_tree(tree, report)
    await _check_names(store, tree, report)
    lengths = await _check_chunks(store, tree, report, progress)
    _check_sizes(tree, lengths, report)
    for extra in EXTRA_CHECKS:
        await extra(store, nodes, report)
    return report


async def _check_format(store: Store, format_version: int, report: Report) -> None:
    stored = await store.get("meta", "format")
    if stored is None:
        report.add("format", "meta/format", "no format version is stored")
    elif str(stored) != str(format_version):
        report.add("format", "meta/format",
                   f"format version {stored} is not the {format_version} this code reads")


async def _load_nodes(store: Store, report: Report) -> dict[str, Node]:
    nodes: dict[str, Node] = {}
    for key, value in await store.get_all("nodes"):
        try:
            nodes[key] = Node.from_record(key, str(value))
        except (ValueError, KeyError, TypeError) as error:
            report.add("record", f"nodes/{key}", f"unreadable node record ({error!r})")
    return nodes


async def _check_names(store: Store, tree: _Tree, report: Report) -> None:
    """The ``names`` keyspace is exactly the stored nodes' directory entries: one key per node
    but the root (``parent id/name`` -> its id), none more (a reader that resolves paths with
    it, web/page/early_reader.mjs, would otherwise find a file the disk does not have, or miss one).
    A node already reported (an orphan, a second entry with its name) is not reported again."""
    stored = {str(key): str(value) for key, value in await store.get_all("names")}
    reported = {problem.where for problem in report.problems}
    for node in tree.nodes.values():
        if node.parent is None:
            continue
        key = name_key(node.parent, node.name)
        found = stored.pop(key, None)
        if found != node.id and tree.where(node) not in reported:
            said = "no entry" if found is None else f"an entry naming {found}"
            report.add("names", tree.where(node), f"names/{key} has {said}, not this node")
    for key, value in stored.items():
        report.add("names", f"names/{key}", f"an entry naming {value}, which no node has there")


class _Tree:
    """The stored nodes with their paths, computed once (a node off the tree keeps its key)."""

    def __init__(self, nodes: dict[str, Node]) -> None:
        self.nodes = nodes
        self.paths: dict[str, str] = {}
        self.broken: set[str] = set()

    def path(self, node_id: str) -> str | None:
        """The node's path, or None when its parent chain breaks or loops."""
        if node_id == ROOT_ID:
            return "/"
        if node_id in self.paths or node_id in self.broken:
            return self.paths.get(node_id)
        chain: list[Node] = []
        seen: set[str] = set()
        current = node_id
        while current != ROOT_ID and current not in self.paths:
            node = self.nodes.get(current)
            if node is None or node.parent is None or current in seen or current in self.broken:
                self.broken.update(n.id for n in chain)
                return None
            chain.append(node)
            seen.add(current)
            current = node.parent
        base = "/" if current == ROOT_ID else self.paths[current]
        for node in reversed(chain):
            base = base.rstrip("/") + "/" + node.name
            self.paths[node.id] = base
        return self.paths[node_id]

    def where(self, node: Node) -> str:
        return self.path(node.id) or f"nodes/{node.id}"


def _check_tree(tree: _Tree, report: Report) -> None:
    _check_root(tree, report)
    names: dict[tuple[str, str], str] = {}
    for node in tree.nodes.values():
        if node.id == ROOT_ID:
            continue
        _check_node(tree, node, report)
        key = (node.parent or "", node.name)
        if key in names:
            report.add("duplicate-name", tree.where(node),
                       f"the name is also used by node {names[key]} in the same directory")
        else:
            names[key] = node.id


def _check_root(tree: _Tree, report: Report) -> None:
    root = tree.nodes.get(ROOT_ID)
    if root is None:
        report.add("root", f"nodes/{ROOT_ID}", "the root directory is missing")
    elif root.kind != DIRECTORY or root.parent is not None:
        report.add("root", "/", "the root is not a directory without a parent")


def _check_node(tree: _Tree, node: Node, report: Report) -> None:
    where = tree.where(node)
    parent = tree.nodes.get(node.parent or "")
    if node.kind not in KINDS:
        report.add("kind", where, f"unknown kind {node.kind!r}")
    if not node.name or "/" in node.name or node.name in (".", ".."):
        report.add("name", where, f"invalid name {node.name!r}")
    if parent is None:
        report.add("orphan", where, f"its parent {node.parent!r} does not exist")
    elif parent.kind != DIRECTORY:
        report.add("parent", where, f"its parent {tree.where(parent)} is not a directory")
    elif tree.path(node.id) is None:
        report.add("cycle", where, "its parent chain never reaches the root")
    if node.kind != FILE and node.chunks:
        report.add("chunks", where, f"a {node.kind} must not name chunks")
    if node.inline is not None and (node.kind != FILE or node.chunks):
        report.add("inline", where, "only a file without chunks may hold inline content")
    # A symlink's size is its target's length in UTF-8 bytes (as lstat), not in characters.
    if node.kind == SYMLINK and node.size != len((node.target or "").encode("utf-8",
                                                                            "surrogatepass")):
        report.add("size", where, f"symlink size {node.size} is not its target's length")


async def _check_chunks(store: Store, tree: _Tree, report: Report,
                        progress: Progress | None) -> dict[str, int]:
    """Read each stored chunk once; return the length of every referenced chunk found intact."""
    referenced = {key for node in tree.nodes.values() for key in node.chunks}
    history = await _history_chunks(store, report)
    stored = set(await store.keys("chunks"))
    lengths: dict[str, int] = {}
    total = len(stored)
    for done, key in enumerate(sorted(stored), 1):
        data = await store.get("chunks", key)
        size = len(data) if isinstance(data, bytes | bytearray | memoryview) else 0
        if key in referenced:
            report.chunks += 1
            report.chunk_bytes += size
            if _valid_chunk(key, data, report):
                lengths[key] = size
        elif key in history:
            report.history_chunks += 1
            report.history_bytes += size
        else:
            report.reclaimable_chunks += 1
            report.reclaimable_bytes += size
        if progress is not None:
            progress(done, total)
    for key in sorted(referenced - stored):
        users = ", ".join(sorted(tree.where(n) for n in tree.nodes.values() if key in n.chunks))
        report.add("missing-chunk", f"chunks/{key}", f"not stored, but named by {users}")
    return lengths


async def _history_chunks(store: Store, report: Report) -> set[str]:
    """The chunks the journal holds (``held:`` markers) or a snapshot's records name: stored on
    purpose though no node references them. A snapshot naming a chunk that is not stored is a
    problem (restoring it would fail)."""
    keys = {str(key)[len(HELD_PREFIX):] for key, _ in await store.get_prefix("meta", HELD_PREFIX)}
    named: dict[str, str] = {}
    for key, value in await store.get_prefix("meta", SNAPSHOT_PREFIX):
        try:
            records = json.loads(str(value))["nodes"]
            for record in records.values():
                for chunk in json.loads(record).get("chunks", ()):
                    named.setdefault(chunk, str(key)[len(SNAPSHOT_PREFIX):])
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            report.add("snapshot", f"meta/{key}", f"does not decode: {error}")
    stored = set(await store.keys("chunks"))
    for chunk in sorted(set(named) - stored):
        report.add("missing-chunk", f"chunks/{chunk}",
                   f"not stored, but named by snapshot {named[chunk]!r}")
    return keys | set(named)


def _valid_chunk(key: str, data: object, report: Report) -> bool:
    if not isinstance(data, bytes | bytearray | memoryview):
        report.add("bad-chunk", f"chunks/{key}", f"stored value is {type(data).__name__}, "
                   "not bytes")
        return False
    digest = hashlib.sha256(data).hexdigest()
    if digest != key:
        report.add("bad-hash", f"chunks/{key}", f"content hashes to {digest}")
        return False
    return True


def _check_sizes(tree: _Tree, lengths: dict[str, int], report: Report) -> None:
    """A file's size is the sum of its chunks' lengths (only when all of them are intact), or
    the length of its inline bytes."""
    for node in tree.nodes.values():
        if node.kind == FILE and node.inline is not None:
            _check_inline(tree, node, report)
            continue
        if node.kind != FILE or not all(key in lengths for key in node.chunks):
            continue
        actual = sum(lengths[key] for key in node.chunks)
        if actual != node.size:
            report.add("size", tree.where(node),
                       f"size is {node.size} but its chunks hold {actual} bytes")


def _check_inline(tree: _Tree, node: Node, report: Report) -> None:
    try:
        actual = len(decode_inline(str(node.inline)))
    except ValueError as error:
        report.add("inline", tree.where(node), f"inline content is not base64 ({error})")
        return
    report.inline_files += 1
    report.inline_bytes += actual
    if actual != node.size:
        report.add("size", tree.where(node),
                   f"size is {node.size} but its inline content holds {actual} bytes")


def describe(report: Report) -> list[str]:
    """The lines ``fsck`` prints: one per problem, then a summary."""
    lines = [f"{p.where}: {p.kind}: {p.message}" for p in report.problems]
    summary = (f"{report.nodes} nodes, {report.chunks} chunks ({report.chunk_bytes} bytes), "
               f"{report.inline_files} inline files ({report.inline_bytes} bytes) "
               f"checked: {len(report.problems) or 'no'} problem"
               f"{'' if len(report.problems) == 1 else 's'}")
    lines.append(summary)
    if report.reclaimable_chunks:
        lines.append(f"{report.reclaimable_chunks} unreferenced chunks "
                     f"({report.reclaimable_bytes} bytes) can be reclaimed")
    return lines

