"""The JS API against Node itself: the call sequences of fs_differential.mjs (hand-written ones
and seeded random ones) run by Node on its real node:fs/promises over a temporary directory
and by the page on py_vfs's API, and every result and error (code, syscall, message) must be
the same, but for the deliberate differences docs/api.md lists ("Differences from Node")."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SEED, COUNT, LENGTH = 20240530, 24, 30


def _reference() -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the reference side of the suite is Node itself")
    done = subprocess.run([node, str(HERE / "node_fs_reference.mjs"), str(SEED), str(COUNT),
                           str(LENGTH)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"the Node reference run failed: {done.stderr}"
    return json.loads(done.stdout)


def _ours(page) -> dict:
    # Served from the page's origin (its CSP loads scripts from there only).
    source = (HERE / "fs_differential.mjs").read_text()
    page.route("**/__fs_differential.mjs", lambda route: route.fulfill(
        body=source, content_type="text/javascript"))
    return page.evaluate("""async ([seed, count, length]) => {
      const vfs = await window.pyvfs.ready;
      const {runAll, generated, SEQUENCES} = await import("/__fs_differential.mjs");
      const hand = await runAll(vfs, "/ndiff/hand", SEQUENCES, vfs.constants);
      const random = await runAll(vfs, "/ndiff/random", generated(seed, count, length),
                                  vfs.constants);
      return {hand, random, sequences: {hand: SEQUENCES, random: generated(seed, count, length)}};
    }""", [SEED, COUNT, LENGTH])


# Deliberate differences (docs/api.md, "Differences from Node"), by call: what Node answers
# and what py_vfs answers instead.
def _deliberate(call: list, theirs: dict, ours: dict) -> bool:
    method = call[0]
    if method == "link" and "value" in theirs:  # no hard links here: EPERM
        return ours.get("error", {}).get("code") == "EPERM"
    if method == "rm" and theirs.get("error", {}).get("code") == "ERR_FS_EISDIR":
        return ours.get("error", {}).get("code") == "EISDIR"  # POSIX codes only
    return _no_sparse_files(theirs.get("value"), ours.get("value"))


def _no_sparse_files(theirs: object, ours: object) -> bool:
    """The same Stats but for ``blocks``, where Linux has fewer: a hole (a file extended by
    truncate) that the disk stores as allocated blocks."""
    if not (isinstance(theirs, dict) and isinstance(ours, dict) and "stats" in theirs):
        return False
    a, b = dict(theirs), dict(ours)
    blocks = a.pop("blocks", None), b.pop("blocks", None)
    return a == b and all(isinstance(n, int) for n in blocks) and blocks[0] < blocks[1]


def _differences(app, kind: str) -> list[str]:
    theirs, ours = _reference(), _ours(app)
    sequences = ours.pop("sequences")
    differences = []
    for n, (their_seq, our_seq) in enumerate(zip(theirs[kind], ours[kind], strict=True)):
        for i, (a, b) in enumerate(zip(their_seq, our_seq, strict=True)):
            if a != b and not _deliberate(sequences[kind][n][i], a, b):
                differences.append(f"{kind} sequence {n} call {i} "
                                   f"{json.dumps(sequences[kind][n][i])}:\n  node: "
                                   f"{json.dumps(a)}\n  ours: {json.dumps(b)}")
    return differences


def test_the_hand_written_sequences_answer_as_node_fs_promises_does(app):
    differences = _differences(app, "hand")
    assert not differences, "\n".join(differences)


def test_the_generated_sequences_answer_as_node_fs_promises_does(app):
    differences = _differences(app, "random")
    assert not differences, "\n".join(differences)
