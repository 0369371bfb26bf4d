"""The dock's conflict rules (docs/dock.md, "Conflict rules"), on ``merge.merge`` itself: a dock
kept in a dict, pushes from replicas on the revision they last had, and after each push the tree
every replica converges to and the writers of the dock's journal.

Pure Python (no server, no database): the dock tier (tests/dock) runs the same rules through
real dock processes on SQLite and Postgres.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from py_vfs.core.json_text import compact
from py_vfs.core.node import DIRECTORY, FILE, ROOT_ID
from py_vfs.dock.merge import Held, Record, merge
from py_vfs.dock.wire import conflict_name

T0 = 1_780_000_000_000.0  # a time in ms: the records' mtime


def folder(parent: str, name: str, writer: str, mtime: float = T0) -> Record:
    return {"parent": parent, "name": name, "kind": DIRECTORY, "mode": 0o755, "mtime": mtime,
            "ctime": mtime, "atime": mtime, "size": 0, "writer": writer}


def file(parent: str, name: str, text: str, writer: str, mtime: float = T0) -> Record:
    data = text.encode()
    return {"parent": parent, "name": name, "kind": FILE, "mode": 0o644, "mtime": mtime,
            "ctime": mtime, "atime": mtime, "size": len(data),
            "inline": base64.b64encode(data).decode(), "writer": writer}


class Dock:
    """A dock's tree (node id -> record) and journal, with ``merge.Source`` over the tree."""

    def __init__(self) -> None:
        self.nodes: dict[str, Record] = {ROOT_ID: {**folder(ROOT_ID, "", "dock"), "parent": None}}
        self.log: list[Record] = []

    # merge.Source
    def node(self, node_id: str) -> Record | None:
        return self.nodes.get(node_id)

    def child(self, parent: str, name: str) -> str | None:
        return next((i for i, r in self.nodes.items()
                     if r["parent"] == parent and r["name"] == name), None)

    def children(self, parent: str) -> list[str]:
        return [i for i, r in self.nodes.items() if r["parent"] == parent]

    def count(self) -> int:
        return len(self.nodes)

    def push(self, replica: str, base: int, entries: list[Record], *,
             confirm: bool = False) -> list[Record]:
        """Merge ``entries`` pushed on ``base``; the dock entries they became."""
        merged = merge(self, entries, self.log[base:], replica=replica, confirm=confirm)
        for node_id, record in merged.writes.items():
            if record is None:
                self.nodes.pop(node_id, None)
            else:
                self.nodes[node_id] = record
        self.log.extend(merged.entries)
        return merged.entries

    def path(self, node_id: str) -> str:
        record = self.nodes[node_id]
        if record["parent"] is None:
            return ""
        return f"{self.path(record['parent'])}/{record['name']}"

    def tree(self) -> dict[str, str | None]:
        """Every path: a file's text, None for a directory."""
        return {self.path(i): (None if r["kind"] == DIRECTORY else
                               base64.b64decode(r["inline"]).decode())
                for i, r in self.nodes.items() if i != ROOT_ID}

    def writers(self) -> list[str]:
        return [entry["writer"] for entry in self.log]


class Replica:
    """A replica's journal entries as it pushes them: writer, origin and, per node, its
    record before (what the replica had)."""

    def __init__(self, name: str, dock: Dock) -> None:
        self.name, self.dock = name, dock
        self.rev = 0
        self.base = len(dock.log)
        self.known: dict[str, Record] = {i: dict(r) for i, r in dock.nodes.items()}

    def entry(self, puts: dict[str, Record] | None = None,
              deletes: list[str] | None = None) -> Record:
        """One of this replica's commits, made on the tree it knows."""
        puts, deletes = puts or {}, deletes or []
        self.rev += 1
        before = {i: (compact(self.known[i]) if i in self.known else None)
                  for i in [*puts, *deletes]}
        for node_id, record in puts.items():
            self.known[node_id] = record
        for node_id in deletes:
            self.known.pop(node_id, None)
        return {"v": 2, "writer": self.name, "time": T0, "op": "writeFile", "ops": ["writeFile"],
                "puts": {i: compact(r) for i, r in puts.items()}, "deletes": deletes,
                "before": before, "events": [],
                "origin": {"replica": self.name, "rev": self.rev}}

    def push(self, *entries: Record, confirm: bool = False) -> list[Record]:
        out = self.dock.push(self.name, self.base, list(entries), confirm=confirm)
        self.pull()
        return out

    def pull(self) -> None:
        self.base = len(self.dock.log)
        self.known = {i: dict(r) for i, r in self.dock.nodes.items()}


@pytest.fixture
def dock() -> Dock:
    return Dock()


def seeded(dock: Dock) -> tuple[Replica, Replica]:
    """/docs/a.txt, pushed by alice; bob has pulled it."""
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(alice.entry({"d": folder(ROOT_ID, "docs", "alice"),
                            "a": file("d", "a.txt", "one", "alice")}))
    bob.pull()
    return alice, bob


def test_a_node_only_one_side_changed_takes_that_record(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry({"a": file("d", "a.txt", "two", "alice", T0 + 1)}))
    bob.push(bob.entry({"b": file("d", "b.txt", "bee", "bob", T0 + 2)}))
    assert dock.tree() == {"/docs": None, "/docs/a.txt": "two", "/docs/b.txt": "bee"}
    assert dock.writers() == ["alice", "alice", "bob"]
    assert all("conflicts" not in entry for entry in dock.log)


def test_a_file_edited_on_both_sides_keeps_both_versions(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry({"a": file("d", "a.txt", "alice's", "alice", T0 + 1)}))
    [entry] = bob.push(bob.entry({"a": file("d", "a.txt", "bob's", "bob", T0 + 2)}))
    copy = conflict_name("a.txt", "alice", T0 + 1)
    assert dock.tree() == {"/docs": None, "/docs/a.txt": "bob's", f"/docs/{copy}": "alice's"}
    assert dock.writers() == ["alice", "alice", "bob"]
    [conflict] = entry["conflicts"]
    assert conflict["name"] == "a.txt" and conflict["copy"] == copy
    assert conflict["node"] == "a" and conflict["writers"] == ["alice", "bob"]


def test_a_move_on_one_side_and_an_edit_on_the_other_both_stay(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry({"a": file("d", "renamed.txt", "one", "alice", T0 + 1)}))
    [entry] = bob.push(bob.entry({"a": file("d", "a.txt", "edited", "bob", T0 + 2)}))
    assert dock.tree() == {"/docs": None, "/docs/renamed.txt": "edited"}
    assert "conflicts" not in entry
    assert dock.writers() == ["alice", "alice", "bob"]


def test_a_delete_against_an_edit_keeps_the_edit(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry({"a": file("d", "a.txt", "kept", "alice", T0 + 1)}))
    [entry] = bob.push(bob.entry(deletes=["a"]))
    assert dock.tree() == {"/docs": None, "/docs/a.txt": "kept"}
    # Written back in puts, so every replica (the deleting one too) restores it.
    assert json.loads(entry["puts"]["a"])["inline"] == base64.b64encode(b"kept").decode()
    assert entry["deletes"] == []
    assert dock.writers() == ["alice", "alice", "bob"]


def test_a_folder_is_not_deleted_while_it_holds_a_write_of_the_other_side(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry({"n": file("d", "new.txt", "new", "alice", T0 + 1)}))
    bob.push(bob.entry(deletes=["a", "d"]))
    assert dock.tree() == {"/docs": None, "/docs/new.txt": "new"}
    assert dock.writers() == ["alice", "alice", "bob"]


def test_a_folder_rename_against_a_write_inside_it_keeps_the_write(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry({"d": folder(ROOT_ID, "papers", "alice", T0 + 1)}))
    bob.push(bob.entry({"n": file("d", "new.txt", "bob's", "bob", T0 + 2)}))
    assert dock.tree() == {"/papers": None, "/papers/a.txt": "one", "/papers/new.txt": "bob's"}
    assert dock.writers() == ["alice", "alice", "bob"]


def test_a_write_into_a_folder_the_other_side_deleted_brings_it_back(dock):
    alice, bob = seeded(dock)
    alice.push(alice.entry(deletes=["a", "d"]))
    assert dock.tree() == {}
    bob.push(bob.entry({"n": file("d", "new.txt", "bob's", "bob", T0 + 2)}))
    assert dock.tree() == {"/docs": None, "/docs/new.txt": "bob's"}
    assert dock.writers() == ["alice", "alice", "bob"]


def test_two_new_files_of_one_name_keep_both(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(alice.entry({"x": file(ROOT_ID, "notes.md", "alice's", "alice", T0 + 1)}))
    [entry] = bob.push(bob.entry({"y": file(ROOT_ID, "notes.md", "bob's", "bob", T0 + 2)}))
    copy = conflict_name("notes.md", "alice", T0 + 1)
    assert dock.tree() == {"/notes.md": "bob's", f"/{copy}": "alice's"}
    assert entry["conflicts"][0]["writers"] == ["alice", "bob"]
    assert dock.writers() == ["alice", "bob"]


def default_content(replica: Replica, ids: str) -> Record:
    """What a fresh replica installs (docs/defaults.md): a folder and a file in it, its own
    node ids, the same bytes on every replica."""
    return replica.entry({f"{ids}-dir": folder(ROOT_ID, "welcome", replica.name),
                          f"{ids}-file": file(f"{ids}-dir", "README.md", "hello",
                                              replica.name)})


def test_the_same_bytes_at_the_same_path_on_two_fresh_replicas_are_no_conflict(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(default_content(alice, "a"))
    [entry] = bob.push(default_content(bob, "b"))
    assert dock.tree() == {"/welcome": None, "/welcome/README.md": "hello"}
    assert "conflicts" not in entry
    # The pushed nodes are told to be the dock's ones (the replica moves onto them).
    assert entry["aliases"] == {"b-dir": "a-dir", "b-file": "a-file"}
    assert sorted(entry["deletes"]) == ["b-dir", "b-file"] and entry["puts"] == {}
    assert dock.writers() == ["alice", "bob"]


def test_a_file_taken_as_the_docks_then_edited_in_the_same_push_edits_the_docks(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(default_content(alice, "a"))
    edit = {"b-file": file("b-dir", "README.md", "bob's edit", "bob", T0 + 5)}
    bob.push(default_content(bob, "b"), bob.entry(edit))
    assert dock.tree() == {"/welcome": None, "/welcome/README.md": "bob's edit"}
    assert set(dock.nodes) == {ROOT_ID, "a-dir", "a-file"}
    assert all("conflicts" not in entry for entry in dock.log)
    assert dock.writers() == ["alice", "bob", "bob"]


def test_a_file_taken_as_the_docks_then_deleted_in_the_same_push_is_deleted(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(default_content(alice, "a"))
    bob.push(default_content(bob, "b"), bob.entry(deletes=["b-file"]))
    assert dock.tree() == {"/welcome": None}
    assert dock.writers() == ["alice", "bob", "bob"]


def test_the_same_path_with_other_bytes_or_another_kind_is_still_a_conflict(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(alice.entry({"x": file(ROOT_ID, "same", "bytes", "alice", T0 + 1)}))
    [entry] = bob.push(bob.entry({"y": folder(ROOT_ID, "same", "bob", T0 + 2)}))
    copy = conflict_name("same", "alice", T0 + 1)
    assert dock.tree() == {"/same": None, f"/{copy}": "bytes"}
    assert len(entry["conflicts"]) == 1
    assert dock.writers() == ["alice", "bob"]


def many_files(replica: Replica, count: int) -> Record:
    return replica.entry({f"f{i}": file(ROOT_ID, f"f{i}.txt", str(i), replica.name)
                          for i in range(count)})


def test_a_mass_deletion_is_held_until_confirmed(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(many_files(alice, 40))
    bob.pull()
    deletion = bob.entry(deletes=[f"f{i}" for i in range(30)])
    with pytest.raises(Held) as held:
        bob.push(deletion)
    assert (held.value.deletes, held.value.nodes) == (30, 41)
    assert len(dock.tree()) == 40 and dock.writers() == ["alice"]  # nothing changed
    bob.push(deletion, confirm=True)
    assert sorted(dock.tree()) == [f"/f{i}.txt" for i in range(30, 40)]
    assert dock.writers() == ["alice", "bob"]


def test_a_small_deletion_is_not_held(dock):
    alice, bob = Replica("alice", dock), Replica("bob", dock)
    alice.push(many_files(alice, 30))
    bob.pull()
    bob.push(bob.entry(deletes=[f"f{i}" for i in range(20)]))  # 20: not more than the floor
    assert len(dock.tree()) == 10
    assert dock.writers() == ["alice", "bob"]


def test_each_pushed_entry_is_one_dock_entry_with_its_writer_and_origin(dock: Any):
    alice = Replica("alice", dock)
    first = alice.entry({"x": file(ROOT_ID, "x", "1", "alice")})
    second = alice.entry({"x": file(ROOT_ID, "x", "2", "alice")})
    entries = alice.push(first, second)
    assert [e["origin"] for e in entries] == [{"replica": "alice", "rev": 1},
                                              {"replica": "alice", "rev": 2}]
    assert dock.tree() == {"/x": "2"} and dock.writers() == ["alice", "alice"]
