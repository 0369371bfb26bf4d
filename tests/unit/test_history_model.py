"""The journal, its replay by another tab, and restore by revision, against a model.

Random operations (and restores to random earlier revisions) run on one tab of a store; after
each step:

- the tab's watch events are those computed from its trees before and after the step
  (``trees.tree_events``), and the newest journal entry names exactly their paths;
- a restore by revision gives the tree recorded at that revision (kind, link target, mode,
  content of every path), and is itself journaled with the events of the trees;
- now and then a second tab on the same store catches up by replaying the log: it must reach
  the first tab's tree and fire, in order, the events the first tab fired since it last caught
  up.

Each seed's generator is seeded by the seed alone, so a failure reproduces alone."""

from __future__ import annotations

import asyncio
import os
import random

import pytest
from trees import as_tuple, contents, node_tree, paths_of, tree_events

from py_vfs import VFS, FsError
from py_vfs.storage.memory import MemoryStore

SEEDS = int(os.environ.get("PYVFS_HISTORY_SEEDS", "12"))
STEPS = 40
NAMES = ("/a", "/b", "/d", "/d/c", "/d/e", "/d/e/f", "/l", "/d/l")
TARGETS = ("/a", "/d", "d", "../a", "e", "/nowhere")


async def random_change(vfs: VFS, rng: random.Random) -> None:
    name, other = rng.choice(NAMES), rng.choice(NAMES)
    op = rng.choice(("write", "write", "append", "mkdir", "rm", "rename", "rename", "symlink",
                     "cp", "chmod", "truncate"))
    try:
        if op == "write":
            await vfs.write_file(name, f"v{rng.randrange(100)}" * rng.choice((1, 400)))
        elif op == "append":
            await vfs.append_file(name, "+")
        elif op == "mkdir":
            await vfs.mkdir(name, recursive=True)
        elif op == "rm":
            await vfs.rm(name, recursive=True)
        elif op == "rename":
            await vfs.rename(name, other)
        elif op == "symlink":
            await vfs.symlink(rng.choice(TARGETS), name)
        elif op == "cp":
            await vfs.cp(name, other, recursive=True)
        elif op == "chmod":
            await vfs.chmod(name, rng.choice((0o600, 0o644, 0o755)))
        else:
            await vfs.truncate(name, rng.randrange(3))
    except FsError:
        pass


@pytest.mark.parametrize("seed", range(SEEDS))
def test_journal_replay_and_restore_by_revision_match_the_model(seed):
    async def scenario():
        rng = random.Random(f"history-model-{seed}")
        store = MemoryStore()
        tab, other = await VFS.open(store), await VFS.open(store)
        heard: list = []
        heard_there: list = []
        tab.watch("/", lambda event: heard.append(as_tuple(event)), True)
        other.watch("/", lambda event: heard_there.append(as_tuple(event)), True)
        recorded = {tab.revision: contents(tab)}
        since_caught_up: list = []  # what the other tab must replay, in order
        steps: list = []
        for _ in range(STEPS):
            before, revision = node_tree(tab), tab.revision
            heard.clear()
            if rng.random() < 0.2 and len(recorded) > 1:
                back_to = rng.choice(sorted(recorded))
                steps.append(("restore", back_to))
                await tab.restore(revision=back_to)
                assert contents(tab) == recorded[back_to], f"seed {seed}: {steps}"
            else:
                await random_change(tab, rng)
                steps.append(("change", tab.revision))
            after = node_tree(tab)
            assert sorted(heard, key=repr) == tree_events(before, after), f"seed {seed}: {steps}"
            since_caught_up += heard
            if tab.revision != revision:
                recorded[tab.revision] = contents(tab)
                newest = (await tab.journal(limit=1))[0]
                assert newest["revision"] == tab.revision
                assert set(newest["paths"]) == paths_of(heard), f"seed {seed}: {steps}"
            if rng.random() < 0.3:
                heard_there.clear()
                await other.sync()
                assert contents(other) == contents(tab), f"seed {seed}: {steps}"
                assert heard_there == since_caught_up, f"seed {seed}: {steps}"
                since_caught_up = []

    asyncio.run(scenario())
