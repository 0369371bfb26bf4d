"""A randomized differential test of a restricted view against a model of what it should allow.

Two disks get the same history: ``shared``, seen through a view (read ``/r`` and ``/s/r``,
write ``/w``) and also changed directly by its "user", and ``plain``, the model: the full disk,
unrestricted. Names come in sibling pairs that share a prefix (``/w`` beside ``/wx``, ``/r``
beside ``/rx``, ``/s/r`` beside ``/s/rx``), so a scope compared as strings shows; links are made
to every kind of place (readable, writable, outside, "on the way" like ``/`` and ``/s``) and
renames, copies and removals go through and across the boundary.

For each operation through the view the model says what should happen, from the full disk
alone and the rules of docs/sandbox.md (its own code, not the product's):

- a write argument spelled outside the writable paths: EACCES;
- an argument whose walk (``walk``, below: links followed as the resolver does) steps onto a
  name that is not visible, or follows a link and ends on a path that is not readable: ENOENT;
- otherwise the operation is run on ``plain``: an error is the view's error too; if it changed
  a path that is not writable (the changed paths come from the two trees, ``trees.py``) the
  view must refuse with EACCES and ``plain`` is put back (``restore`` by revision, itself
  checked against the tree it had); else the view must succeed.

So a refusal is checked as well as a success: a view that refuses too much fails as surely as one
that lets too much through. After every step (a view's operation or the user's), besides the two
disks being equal:

- reads through the view of a sample of paths (exists, stat, lstat, readlink, realpath, read,
  readdir), and its walk, find and ``files`` query rows, are the model's: the full disk's answer,
  or ENOENT where the walk is hidden, and listings filtered by the rules;
- the events of watchers on the full disk and on the view are those computed from the trees
  before and after the step (a node created, deleted, renamed or modified; ``trees.tree_events``),
  filtered by each watcher's folder and, for the view, by the view (a rename across its edge is
  the create or delete of the side inside);
- the newest journal entry names exactly the paths of those events, and the view's journal (and
  its ``journal`` query rows) are the full disk's entries reduced to their readable paths.

Any difference fails, naming the seed and the steps so far. Each seed's random generator is
seeded by the seed alone, so a failure reproduces alone:
``pytest 'tests/unit/test_sandbox_differential.py::test_a_restricted_view_matches_the_model[17]'``.
``PYVFS_SANDBOX_SEEDS`` changes the number of seeds (e.g. 2000 for a soak)."""

from __future__ import annotations

import asyncio
import json
import os
import posixpath
import random
import sys
from collections.abc import Callable
from typing import Any

import pytest
from trees import as_tuple, contents, node_tree, paths_of, tree_events

from py_vfs import VFS, FsError

READ = ("/r", "/s/r")
WRITE = ("/w",)
SEEDS = int(os.environ.get("PYVFS_SANDBOX_SEEDS", "24" if sys.platform == "emscripten" else "150"))
STEPS = 50
PROBES = 4  # paths read through the view after each step, each in every way (READS)
HISTORY_EVERY = 10  # steps between checks of the view's whole journal and query rows

BASES = ("/w", "/wx", "/r", "/rx", "/o", "/s", "/s/r", "/s/rx")
LEAVES = ("a", "b", "d", "d/c", "l", "d/l")
# Spellings that go through links or climb with "..": folded or followed before any check.
THROUGH = ("/w/l/a", "/w/l/d", "/w/l/d/c", "/w/l/r/a", "/w/l/rx/a", "/w/d/l/c", "/w/d/l/a",
           "/w/l/l/a", "/w/../wx/a", "/wx/../w/b", "/w/d/../l/a", "/s/r/l/a", "/w/l/r")
NAMES = tuple(f"{base}/{leaf}" for base in BASES for leaf in LEAVES) + THROUGH + BASES
WRITABLE_NAMES = tuple(n for n in NAMES if n.startswith("/w/") or n == "/w")
TARGETS = ("/", "/s", "/s/r", "/s/rx", "/w", "/wx", "/r", "/rx", "/o", "/r/a", "/wx/a", "/o/d",
           "/r/d", "/wx/d", "a", "d", "../wx", "../r", "../s", "../../s/r", "../rx/a", "l",
           "/w/l", "..", "../..")
LINKS = ("/w/l", "/w/d/l")  # the links THROUGH goes through
START = ("/w/a", "/w/d/c", "/wx/a", "/wx/d/c", "/r/a", "/r/d/c", "/rx/a", "/o/a", "/o/d/c",
         "/s/r/a", "/s/r/d/c", "/s/rx/a", "/s/o")

HIDDEN = "hidden"


# ------------------------------------------------------------------------ the rules, as a model

def within(path: str, root: str) -> bool:
    """``path`` is ``root`` or below it, segment by segment (``/wx`` is not below ``/w``)."""
    return root == "/" or path == root or path.startswith(root + "/")


def readable(path: str) -> bool:
    return any(within(path, root) for root in READ + WRITE)


def writable(path: str) -> bool:
    return any(within(path, root) for root in WRITE)


def on_the_way(path: str) -> bool:
    return any(root != path and within(root, path) for root in READ + WRITE)


def visible(path: str) -> bool:
    return readable(path) or on_the_way(path)


def normal(path: str) -> str:
    return posixpath.normpath(path)


def walk(disk: VFS, path: str, follow: bool, create: bool) -> str | None:
    """Where ``path`` leads on the full disk, or HIDDEN when a view must not see it: each name
    stepped onto must be visible, a missing name created must be readable, and a walk that
    followed a link must end on a readable path. None: the walk stops (missing, not a
    directory, a loop) and the operation on the full disk gives the error."""
    pending = list(reversed([s for s in normal(path).split("/") if s]))
    stack: list[tuple[str, bool]] = [("/", True)]
    hops = 0
    while pending:
        segment = pending.pop()
        if segment in ("", "."):
            continue
        if segment == "..":
            if len(stack) > 1:
                stack.pop()
            continue
        directory, is_dir = stack[-1]
        if not is_dir:
            return None  # ENOTDIR
        here = posixpath.join(directory, segment)
        if not visible(here):
            return HIDDEN
        try:
            info = disk.lstat(here)
        except FsError:
            if create and not readable(here):
                return HIDDEN
            return None
        if info.type == "symlink" and (pending or follow):
            hops += 1
            if hops > 40:
                return None
            target = info.target or ""
            if target.startswith("/"):
                stack = [("/", True)]
            pending.extend(reversed([s for s in target.split("/") if s]))
            continue
        stack.append((here, info.type == "directory"))
    end = stack[-1][0]
    if hops and not readable(end):
        return HIDDEN
    return end


# ------------------------------------------------------------------------ trees and their events

def covers(folder: str, recursive: bool, path: str | None) -> bool:
    if path is None:
        return False
    if path == folder:
        return True
    return within(path, folder) if recursive else posixpath.dirname(path) == folder


def seen_by_view(event: tuple) -> tuple | None:
    """A full-disk event as the view must report it."""
    kind, path, old, node_kind = event
    inside, was_inside = readable(path), old is not None and readable(old)
    if kind == "rename" and inside != was_inside:
        return ("create", path, None, node_kind) if inside else ("delete", old, None, node_kind)
    return event if inside else None


# Watchers on the full disk and on the view: (folder, recursive).
DISK_WATCHES = (("/", True), ("/w", True), ("/w/d", False), ("/wx", True), ("/r", False))
VIEW_WATCHES = (("/", True), ("/w/d", False), ("/w", False), ("/s", True), ("/r", True))


# ------------------------------------------------------------------------ operations

# name -> the arguments each resolves: (index, how, create, written). "path": the whole path
# is walked, its last link followed (a write lands on a link's target); "entry": the parent is
# walked (links followed) and the last name is acted on (rm, rename, mkdir, symlink), as
# ``resolver.lookup_parent`` does; "source": the whole path, the last link not followed, and
# it must end on a readable path (``cp -r`` of a directory on the way, such as /s, would copy
# what the view may not see);
# "prefixes": each prefix of the path as a "path" (``mkdir -p`` looks each one up: so a link to a
# directory on the way, such as /s, cannot be gone through by ``mkdir -p`` though a read of a
# readable path beyond it can); "parents": the prefixes of its directory (a write makes its
# missing parents as ``mkdir -p`` does).
SPECS = {
    "write_file": [(0, "path", True, True), (0, "parents", True, True)],
    "append_file": [(0, "path", True, True), (0, "parents", True, True)],
    "truncate": [(0, "path", False, True)],
    "chmod": [(0, "path", False, True)],
    "mkdir": [(0, "entry", True, True)],
    "mkdir_p": [(0, "prefixes", True, True)],
    "symlink": [(1, "entry", True, True)],
    "rename": [(0, "entry", False, True), (1, "entry", True, True)],
    "copy_file": [(0, "path", False, False), (1, "path", True, True)],
    "cp": [(0, "source", False, False), (1, "path", True, True), (1, "entry", True, True)],
    "rm": [(0, "entry", False, True)],
    "unlink": [(0, "entry", False, True)],
    "rmdir": [(0, "entry", False, True)],
}
# When an argument is hidden, the error the view may give besides ENOENT: ``mkdir -p`` of a link
# it may not follow finds an entry that is not a directory.
HIDDEN_ALSO = {"mkdir_p": {"EEXIST"}}


def hidden_walk(disk: VFS, path: str, how: str, create: bool) -> bool:
    if how == "parents":  # a write creates the missing parents, as ``mkdir -p`` of them
        return hidden_walk(disk, posixpath.dirname(normal(path)), "prefixes", create)
    if how == "prefixes":  # mkdir -p: each directory on the way is looked up on its own
        names = [n for n in normal(path).split("/") if n]
        return any(walk(disk, "/" + "/".join(names[:n]), True, create) == HIDDEN
                   for n in range(1, len(names) + 1))
    if how == "source":
        end = walk(disk, path, False, create)
        return end == HIDDEN or (end is not None and not readable(end))
    if how == "entry":
        parent, name = posixpath.split(normal(path))
        if name and walk(disk, parent, True, False) == HIDDEN:
            return True
        return walk(disk, path, False, create) == HIDDEN
    return walk(disk, path, True, create) == HIDDEN


def random_operation(rng: random.Random, names: tuple[str, ...]) -> tuple[str, tuple]:
    def name() -> str:
        return rng.choice(names if rng.random() < 0.55 else NAMES)

    op = rng.choice([*SPECS, "write_file", "symlink", "symlink", "rename", "rename", "cp"])
    data = f"v{rng.randrange(1000)}"
    args = {
        "write_file": lambda: (name(), data), "append_file": lambda: (name(), data),
        "truncate": lambda: (name(), 1), "chmod": lambda: (name(), rng.choice((0o600, 0o755))),
        "symlink": lambda: (rng.choice(TARGETS), rng.choice(LINKS) if rng.random() < 0.5
                            else name()),
        "rename": lambda: (rng.choice(THROUGH) if rng.random() < 0.3 else name(), name()),
        "copy_file": lambda: (rng.choice(NAMES), name()),
        "cp": lambda: (rng.choice(NAMES), name()),
    }.get(op, lambda: (name(),))()
    return op, args


def call(disk: Any, op: str, args: tuple) -> Any:
    if op == "mkdir_p":
        return disk.mkdir(args[0], recursive=True)
    if op in ("rm", "cp"):
        return getattr(disk, op)(*args, recursive=True)
    return getattr(disk, op)(*args)


class Loop:
    """One event loop for a whole seed (``asyncio.run`` per call would cost most of the time)."""
    runner: Any = None

    @classmethod
    def run(cls, coroutine: Any) -> Any:
        return cls.runner.run(coroutine)


def outcome(run: Callable[[], Any]) -> tuple[str, Any]:
    try:
        result = run()
        if asyncio.iscoroutine(result):
            result = Loop.run(result)
        return ("ok", result)
    except FsError as error:
        return ("error", error.code)


def kind_of(disk: VFS, path: str) -> str | None:
    try:
        return disk.lstat(path).type
    except FsError:
        return None


def copied_to(disk: VFS, src: str, dst: str) -> list[tuple[str, str]]:
    """Where ``cp -r`` of a directory puts each entry below it, and how that place is walked:
    a copy that lands on an existing entry goes by path (a link there is followed), a link
    copied replaces the entry."""
    top = disk.realpath(src)
    out = []
    for path, node in node_tree(disk).values():
        if path != top and within(path, top):
            out.append((normal(dst) + path[len(top):],
                        "entry" if node.kind == "symlink" else "path"))
    return out


WRITER = "agent:differential"


def expected(plain: VFS, op: str, args: tuple) -> tuple[tuple[str, Any], set[str]]:
    """What the view must answer (and the errors it may give instead of the one named), from
    the full disk; ``plain`` is left as the view must leave ``shared``."""
    specs = SPECS[op]
    if op == "cp" and kind_of(plain, args[0]) == "symlink":  # a link copied replaces the entry
        specs = [specs[0], specs[2]]
    if any(written and not writable(normal(args[i])) for i, _, _, written in specs):
        return ("error", "EACCES"), set()
    hidden = any(hidden_walk(plain, args[i], how, create) for i, how, create, _ in specs)
    if op == "cp" and not hidden and kind_of(plain, args[0]) == "directory":
        hidden = any(hidden_walk(plain, at, how, True) for at, how in copied_to(plain, *args))
    revision, before = plain.revision, node_tree(plain)
    result = outcome(lambda: call(plain.as_writer(WRITER), op, args))
    changed = tree_events(before, node_tree(plain)) if plain.revision != revision else []
    outside = any(p is not None and not writable(p) for e in changed for p in e[1:3])
    if (hidden or outside) and plain.revision != revision:  # the view refuses: put it back
        Loop.run(plain.as_writer(WRITER).restore(revision=revision))
        assert node_tree(plain) == before, "restore by revision did not give the tree back"
    if hidden:
        also = {result[1], "EACCES"} if result[0] == "error" or outside else set()
        return ("error", "ENOENT"), also | HIDDEN_ALSO.get(op, set())
    if result[0] == "error":
        return result, set()
    if outside:
        return ("error", "EACCES"), set()
    return result, set()


# ------------------------------------------------------------------------ comparisons

READS = ("exists", "stat", "lstat", "readlink", "realpath", "read_file", "readdir")


def read_model(plain: VFS, fn: str, path: str) -> tuple[str, Any]:
    follow = fn not in ("lstat", "readlink")
    end = walk(plain, path, follow, False)
    if fn == "exists":
        return ("ok", end != HIDDEN and plain.exists(path))
    if end == HIDDEN:
        return ("error", "ENOENT")
    got = outcome(lambda: read(plain, fn, path))
    if fn == "readdir" and got[0] == "ok":
        canonical = plain.realpath(path)
        got = ("ok", [n for n in got[1] if visible(posixpath.join(canonical, n))])
    return got


def read(disk: Any, fn: str, path: str) -> Any:
    if fn in ("stat", "lstat"):
        info = getattr(disk, fn)(path)
        return (info.type, info.size, info.mode, info.path, info.target)
    if fn == "readdir":
        return sorted(disk.readdir(path))
    return getattr(disk, fn)(path)


def journal_seen(rows: list[dict]) -> list[tuple]:
    out = []
    for row in rows:
        kept = [p for p in row["paths"] if readable(p)]
        if kept:
            out.append((row["revision"], row["writer"], row["operation"], kept))
    return out


class Run:
    """One seed: the two disks, the view, the watchers, and the steps so far."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(f"sandbox-differential-{seed}")
        # One writer for the disk's own calls and the view's: a directory whose writer changes
        # when an entry comes or goes is "modified" (watch.derive_events), which this model
        # leaves to the writer tests (test_view_writers.py, test_shell_history.py).
        self.shared, self.plain = VFS.memory(), VFS.memory()
        links = [(self.rng.choice(TARGETS), link) for link in LINKS]  # where THROUGH goes
        for disk in (self.shared, self.plain):
            for path in START:
                Loop.run(disk.as_writer(WRITER).write_file(path, path))
            for target, link in links:
                Loop.run(disk.as_writer(WRITER).symlink(target, link))
        self.view = self.shared.restrict(read=list(READ), write=list(WRITE), writer=WRITER)
        self.got: dict[tuple, list] = {}
        for folder, recursive in DISK_WATCHES:
            self._listen(self.shared, "disk", folder, recursive)
        for folder, recursive in VIEW_WATCHES:
            self._listen(self.view, "view", folder, recursive)
        self.history: list = [("links", links)]

    def _listen(self, disk: Any, who: str, folder: str, recursive: bool) -> None:
        events = self.got.setdefault((who, folder, recursive), [])
        disk.watch(folder, lambda event: events.append(as_tuple(event)), recursive)

    def where(self) -> str:
        return f"seed {self.seed}, steps: {self.history}"

    def step(self) -> None:
        user = self.rng.random() < 0.25
        op, args = random_operation(self.rng, NAMES if user else WRITABLE_NAMES)
        self.history.append(("user" if user else "view", op, args))
        for events in self.got.values():
            events.clear()
        before, revision = node_tree(self.shared), self.shared.revision
        if user:
            got = outcome(lambda: call(self.shared.as_writer(WRITER), op, args))
            want = outcome(lambda: call(self.plain.as_writer(WRITER), op, args))
            assert got == want, f"the full disk answered {got}, its twin {want}; {self.where()}"
        else:
            want, also = expected(self.plain, op, args)
            got = outcome(lambda: call(self.view, op, args))
            ok = got == want or (got[0] == "error" and got[1] in also)
            assert ok, f"{op}{args} through the view: {got}, the model says {want} " \
                       f"(or {sorted(also)}); {self.where()}"
        assert contents(self.shared) == contents(self.plain), f"the disks differ; {self.where()}"
        events = tree_events(before, node_tree(self.shared))
        self.check_events(events)
        self.check_journal(events, revision)

    def check_events(self, events: list[tuple]) -> None:
        for (who, folder, recursive), got in self.got.items():
            want = [e for e in events if covers(folder, recursive, e[1])
                    or covers(folder, recursive, e[2])]
            if who == "view":
                want = [seen for seen in map(seen_by_view, want) if seen is not None]
            assert sorted(got, key=repr) == sorted(want, key=repr), \
                f"{who} watcher of {folder} (recursive: {recursive}) got {got}, want {want}; " \
                f"{self.where()}"

    def check_journal(self, events: list[tuple], revision: int) -> None:
        """The newest entry names the step's paths (every step)."""
        if self.shared.revision != revision and events:
            newest = Loop.run(self.shared.journal(limit=1))[0]
            assert set(newest["paths"]) == paths_of(events), \
                f"journal entry {newest} for events {events}; {self.where()}"

    def check_history(self) -> None:
        """The view's journal and its journal and files query rows (every few steps: they are
        cumulative, so what one step got wrong is still there)."""
        rows = Loop.run(self.shared.journal(limit=10_000))
        want = journal_seen(rows)
        got = [(r["revision"], r["writer"], r["operation"], r["paths"])
               for r in Loop.run(self.view.journal(limit=10_000))]
        assert got == want, f"the view's journal {got}, the model {want}; {self.where()}"
        query = Loop.run(self.view.query("SELECT revision, paths FROM journal"))
        got_rows = sorted((r[0], sorted(json.loads(r[1]))) for r in query.rows)
        assert got_rows == sorted((w[0], sorted(w[3])) for w in want), self.where()
        rows = Loop.run(self.view.query("SELECT path FROM files")).rows
        want = Loop.run(self.plain.query("SELECT path FROM files")).rows
        assert sorted(r[0] for r in rows) == sorted(r[0] for r in want if visible(r[0])), \
            self.where()

    def check_reads(self) -> None:
        for path in self.rng.sample(NAMES, PROBES):
            for fn in READS:
                want = read_model(self.plain, fn, path)
                got = outcome(lambda fn=fn, path=path: read(self.view, fn, path))
                assert got == want, f"view.{fn}({path!r}): {got}, the model says {want}; " \
                                    f"{self.where()}"
        assert self.view.walk("/") == [p for p in self.plain.walk("/") if readable(p)], \
            self.where()
        found = sorted(e["path"] for e in self.view.find("/"))
        assert found == sorted(e["path"] for e in self.plain.find("/") if visible(e["path"])), \
            self.where()


@pytest.mark.parametrize("seed", range(SEEDS))
def test_a_restricted_view_matches_the_model(seed):
    with asyncio.Runner() as Loop.runner:  # tests/unit/aio.py's in Pyodide
        run = Run(seed)
        for number in range(1, STEPS + 1):
            run.step()
            run.check_reads()
            if number % HISTORY_EVERY == 0:
                run.check_history()


def test_the_model_itself():
    """The model's rules on the names this test uses (so a slip in it cannot hide a bug)."""
    assert readable("/w") and readable("/w/a") and readable("/s/r/a") and readable("/r")
    assert not readable("/wx") and not readable("/wx/a") and not readable("/s/rx")
    assert not readable("/s") and visible("/s") and visible("/") and not visible("/s/rx")
    assert not visible("/o") and not visible("/rx") and not visible("/s/o")
    assert writable("/w/d/c") and not writable("/wx/a") and not writable("/r/a")
    disk = VFS.memory()
    links = (("/s", "/w/l", HIDDEN), ("/", "/w/m", HIDDEN), ("/r", "/w/n", "/r"),
             ("../wx", "/w/o", HIDDEN), ("../s/r", "/w/p", "/s/r"))
    with asyncio.Runner() as runner:
        for path in START:
            runner.run(disk.write_file(path, path))
        for target, name, _ in links:
            runner.run(disk.symlink(target, name))
    for _, name, where in links:
        assert walk(disk, name, True, False) == where, name
        assert walk(disk, name, False, False) == name
    assert walk(disk, "/w/l/r/a", True, False) == "/s/r/a"
    assert walk(disk, "/w/l/rx/a", True, False) == HIDDEN
    assert walk(disk, "/wx/a", True, False) == HIDDEN
    assert hidden_walk(disk, "/w/l/r", "entry", False)  # its parent, /s, is reached by a link
    assert not hidden_walk(disk, "/w/p/a", "entry", False)
