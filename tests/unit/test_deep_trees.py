"""Trees deeper than Python's recursion limit: every traversal must handle them, and the shell
must never let an unexpected exception escape.

A user can build such a tree without ever typing a long path: create a short chain, move the
tree into its bottom, rename the chain to the tree's name, repeat. ``deep_tree`` does just that.
"""

from __future__ import annotations

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.shell import Shell

DEPTH = 3000  # directories: three times CPython's default recursion limit (1,000)
STEP = 100  # levels added per round, each by a short mkdir -p and two renames


async def deep_tree(vfs: VFS, top: str, depth: int) -> None:
    """``top`` with ``depth`` nested directories named ``d`` below it (``top`` counts as one)
    and a file ``f`` in the deepest one; no path used is longer than a few hundred bytes."""
    await vfs.mkdir(top)
    await vfs.write_file(top + "/f", "bottom")
    built = 1
    while built < depth:
        levels = min(STEP, depth - built - 1)
        chain = "/chain" + "/d" * levels
        await vfs.mkdir(chain, recursive=True)
        await vfs.rename(top, chain + "/d")
        await vfs.rename("/chain", top)
        built += levels + 1


@pytest.fixture
def deep() -> VFS:
    vfs = VFS.memory()
    run(deep_tree(vfs, "/t", DEPTH))
    return vfs


def test_the_helper_builds_the_depth_asked(deep):
    bottom = "/t" + "/d" * (DEPTH - 1) + "/f"
    assert len(bottom) > 4096  # deeper than any path the user could type
    assert deep.walk("/t") == [bottom]


def test_walk_du_find_ls_glob_reach_the_bottom(deep):
    bottom = "/t" + "/d" * (DEPTH - 1) + "/f"
    assert deep.walk("/t") == [bottom]
    assert deep.du("/t") == len("bottom")
    found = deep.find("/t")
    assert len(found) == DEPTH  # DEPTH - 1 directories below /t, and the file
    assert found[-1] == {"path": bottom, "type": "file"}
    assert deep.ls("/t") == [bottom]
    assert deep.glob("/t/**/f") == [bottom]
    assert [m["path"] for m in run(deep.grep("bottom", "/t")).matches] == [bottom]


def test_rm_r_removes_a_deep_tree_whole(deep):
    run(deep.rm("/t", recursive=True))
    assert deep.readdir("/") == []
    assert len(deep.index.nodes) == 1  # only the root is left
    assert run(deep.check()).ok


def test_cp_r_copies_a_deep_tree_and_both_can_go(deep):
    run(deep.cp("/t", "/copy", recursive=True))
    assert deep.du("/copy") == len("bottom")
    assert len(deep.find("/copy")) == DEPTH
    run(deep.rm("/t", recursive=True))
    run(deep.rm("/copy", recursive=True))
    assert deep.readdir("/") == []
    assert run(deep.check()).ok


def test_cp_r_into_an_existing_deep_tree_merges_or_changes_nothing(deep):
    """Merging walks the destination by path, so below 4,096 bytes it works and beyond it the
    copy is ENAMETOOLONG (as GNU cp: "File name too long") and leaves nothing behind."""
    run(deep.mkdir("/copy"))
    run(deep.cp("/t", "/copy", recursive=True))  # /copy exists: merged, /copy/d/... created
    assert len(deep.find("/copy")) == DEPTH
    before = len(deep.index.nodes)
    with pytest.raises(OSError) as info:
        run(deep.cp("/t", "/copy", recursive=True))  # now every level exists: merged by path
    assert info.value.code == "ENAMETOOLONG"
    assert len(deep.index.nodes) == before


def test_shell_rm_cp_tree_on_a_deep_tree():
    vfs = VFS.memory()
    run(deep_tree(vfs, "/t", DEPTH))
    shell = Shell(vfs)
    result = run(shell.run("cp -r t c"))
    assert (result.code, result.stderr) == (0, "")
    result = run(shell.run("rm -r t c"))
    assert (result.code, result.stderr) == (0, "")
    assert vfs.readdir("/") == []


def test_shell_tree_draws_a_tree_deeper_than_the_recursion_limit():
    depth = 1200  # deeper than the recursion limit, shallower than PATH_MAX
    vfs = VFS.memory()
    run(deep_tree(vfs, "/t", depth))
    result = run(Shell(vfs).run("tree t"))
    assert (result.code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[-1] == f"{depth} directories, 1 file"  # tree 2.1 counts t itself
    assert lines[-3].endswith("└── f")
    assert lines[-3].startswith("    " * (depth - 1))


def test_shell_find_walks_a_tree_deeper_than_the_recursion_limit():
    depth = 1200  # deeper than the recursion limit, shallower than PATH_MAX
    vfs = VFS.memory()
    run(deep_tree(vfs, "/t", depth))
    result = run(Shell(vfs).run("find t -depth -name f -o -name t"))
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == "t" + "/d" * (depth - 1) + "/f\nt\n"


def test_the_shell_reports_an_unexpected_exception_instead_of_dying(monkeypatch):
    vfs = VFS.memory()
    shell = Shell(vfs)

    def broken(path):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setattr(vfs, "stat", broken)
    result = run(shell.run("echo before; cd /; echo after"))
    assert result.stdout == "before\nafter\n"
    assert result.stderr == "sh: internal error: RuntimeError: something broke\n"
    assert result.code == 0  # the last command, echo, succeeded
    result = run(shell.run("cd /"))
    assert (result.code, result.stderr) == (1, "sh: internal error: RuntimeError: something "
                                               "broke\n")
