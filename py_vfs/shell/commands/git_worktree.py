"""Moving the work tree and the index from one tree to another (checkout, switch, merge,
clone), refusing, as git does, to overwrite local changes."""

from __future__ import annotations

import os
import posixpath
from typing import Any

from dulwich.index import index_entry_from_stat

from .git_base import Git
from .git_diff import Contents, Side, changes, index_side, tree_side, worktree_side
from .git_repo import GitError


def write_file(git: Git, path: bytes, mode: int, data: bytes) -> os.stat_result:
    """Write a file of the work tree (its directories made, a symlink as one); its stat."""
    full = posixpath.join(git.repo.path, path.decode("utf-8", "surrogateescape"))
    os.makedirs(posixpath.dirname(full), exist_ok=True)
    if os.path.lexists(full) and (mode == 0o120000 or os.path.islink(full)):
        os.remove(full)
    if mode == 0o120000:
        os.symlink(data.decode("utf-8", "surrogateescape"), full)
    else:
        with open(full, "wb") as file:
            file.write(data)
        os.chmod(full, 0o755 if mode == 0o100755 else 0o644)
    return os.lstat(full)


def remove_file(git: Git, path: bytes) -> None:
    """Remove a file of the work tree and the directories it leaves empty."""
    root = git.repo.path.rstrip("/")
    full = posixpath.join(root, path.decode("utf-8", "surrogateescape"))
    if os.path.lexists(full):
        os.remove(full)
    directory = posixpath.dirname(full)
    while directory.startswith(root + "/"):
        try:
            os.rmdir(directory)
        except OSError:
            return
        directory = posixpath.dirname(directory)


def local_changes(git: Git, index: Any, head: Side) -> set[bytes]:
    """The paths whose index or work-tree version differs from HEAD's."""
    staged = index_side(index)
    work = worktree_side(git.repo, index, Contents(git.repo))
    dirty = {path for path in set(head) | set(staged) if head.get(path) != staged.get(path)}
    dirty |= {path for path in staged if staged.get(path) != work.get(path)}
    return dirty


def switch_trees(git: Git, old_tree: bytes | None, new_tree: bytes, verb: str = "checkout",
                 force: bool = False) -> None:
    """Update the work tree and index from ``old_tree`` to ``new_tree``; local changes to a
    file that differs between them stop it first (git's error, status 1)."""
    repo = git.repo
    index = repo.open_index()
    old, new = tree_side(repo, old_tree), tree_side(repo, new_tree)
    moving = changes(old, new, renames=False)
    touched = {c.old or c.new for c in moving} | {c.new or c.old for c in moving}
    if not force:
        dirty = sorted(touched & local_changes(git, index, old))
        untracked = sorted(c.new for c in moving if c.kind == "A" and c.new is not None
                           and c.new not in index_side(index) and os.path.lexists(
                               posixpath.join(repo.path, c.new.decode("utf-8",
                                                                      "surrogateescape"))))
        if dirty:
            listing = "".join(f"\t{p.decode('utf-8', 'surrogateescape')}\n" for p in dirty)
            raise GitError(f"Your local changes to the following files would be overwritten "
                           f"by {verb}:\n{listing}Please commit your changes or stash them "
                           f"before you {'switch branches' if verb == 'checkout' else verb}."
                           "\nAborting", status=1, prefix="error: ")
        if untracked:
            listing = "".join(f"\t{p.decode('utf-8', 'surrogateescape')}\n" for p in untracked)
            raise GitError(f"The following untracked working tree files would be overwritten "
                           f"by {verb}:\n{listing}Please move or remove them before you "
                           f"{'switch branches' if verb == 'checkout' else verb}.\nAborting",
                           status=1, prefix="error: ")
    for change in moving:
        if change.kind == "D" and change.old is not None:
            remove_file(git, change.old)
            if change.old in index:
                del index[change.old]
            continue
        path = change.new or b""
        data = repo.object_store[change.new_id].data
        index[path] = index_entry_from_stat(write_file(git, path, change.new_mode, data),
                                            change.new_id, change.new_mode)
    index.write()


def restore_paths(git: Git, paths: list[bytes], source: Side, operands: list[str]) -> None:
    """`git checkout [COMMIT] -- PATHS`: the files under ``paths`` as ``source`` has them
    (in the index too)."""
    repo = git.repo
    index = repo.open_index()
    for top, operand in zip(paths, operands, strict=True):
        chosen = [p for p in source if not top or p == top or p.startswith(top + b"/")]
        if not chosen:
            raise GitError(f"pathspec '{operand}' did not match any file(s) known to git",
                           status=1, prefix="error: ")
        for path in chosen:
            mode, blob_id = source[path]
            data = repo.object_store[blob_id].data
            index[path] = index_entry_from_stat(write_file(git, path, mode, data), blob_id, mode)
    index.write()
