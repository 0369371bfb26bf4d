"""`git merge`: a fast-forward, or a three-way merge of the trees (file contents merged with
merge3), with git's conflict markers, its messages and a merge in progress (``MERGE_HEAD``)
that the next `git commit` concludes."""

from __future__ import annotations

import os
import posixpath

import merge3
from dulwich.graph import find_merge_base
from dulwich.index import ConflictedIndexEntry, index_entry_from_stat, index_entry_from_tree_entry
from dulwich.objects import Blob

from .git_base import Git, options, subcommand
from .git_diff import Contents, Side, changes, is_binary, merge_summary, tree_side
from .git_files import advance, make_commit
from .git_repo import GitError, branch_label
from .git_show import head_tree, resolve
from .git_worktree import local_changes, remove_file, switch_trees, write_file


def merge_message(git: Git, name: str) -> str:
    """git's default message: ``Merge branch 'NAME'`` (``into BRANCH`` but for master/main)."""
    current = branch_label(git.repo)
    kind = "branch" if b"refs/heads/" + name.encode() in git.repo.refs else "commit"
    into = "" if current in ("master", "main", "detached HEAD") else f" into {current}"
    if "/" in name and b"refs/remotes/" + name.encode() in git.repo.refs:
        kind = "remote-tracking branch"
    return f"Merge {kind} '{name}'{into}\n"


def merge_into_head(git: Git, name: str, message: str | None = None,
                    ff_only: bool = False, no_ff: bool = False) -> int:
    """Merge commit ``name`` into HEAD (what `git merge` and `git pull` do); the status."""
    repo = git.repo
    other = resolve(git, name)
    try:
        head = repo[repo.refs[b"HEAD"]]
    except KeyError:
        switch_trees(git, None, other.tree)
        advance(git, other, f"merge {name}: Fast-forward")
        return 0
    bases = find_merge_base(repo, [head.id, other.id])
    if other.id == head.id or other.id in bases:
        git.out("Already up to date.\n")
        return 0
    contents = Contents(repo)
    if head.id in bases and not no_ff:
        switch_trees(git, head.tree, other.tree, verb="merge")
        git.out(f"Updating {head.id.decode()[:7]}..{other.id.decode()[:7]}\nFast-forward\n")
        git.out(merge_summary(changes(tree_side(repo, head.tree), tree_side(repo, other.tree),
                                      contents=contents), contents))
        advance(git, other, f"merge {name}: Fast-forward")
        return 0
    if ff_only:
        raise GitError("Not possible to fast-forward, aborting.")
    base_tree = repo[bases[0]].tree if bases else None
    ours, theirs = tree_side(repo, head.tree), tree_side(repo, other.tree)
    merged, conflicts, notes = _merge_trees(git, tree_side(repo, base_tree), ours, theirs, name)
    index = repo.open_index()
    dirty = local_changes(git, index, ours)
    touched = {p for p in set(merged) | set(ours) if merged.get(p) != ours.get(p)}
    touched |= set(conflicts)
    if dirty & touched:
        listing = "".join(f"\t{p.decode('utf-8', 'surrogateescape')}\n"
                          for p in sorted(dirty & touched))
        raise GitError("Your local changes to the following files would be overwritten by "
                       f"merge:\n{listing}Please commit your changes or stash them before you "
                       "merge.\nAborting\nMerge with strategy ort failed.", status=2,
                       prefix="error: ")
    _apply(git, ours, merged, conflicts)
    git.out("".join(notes))
    text = message or merge_message(git, name)
    if conflicts:
        control = repo.controldir()
        _write(posixpath.join(control, "MERGE_HEAD"), other.id + b"\n")
        _write(posixpath.join(control, "MERGE_MODE"), b"")
        listing = "".join(f"#\t{p.decode('utf-8', 'surrogateescape')}\n" for p in conflicts)
        _write(posixpath.join(control, "MERGE_MSG"),
               f"{text.rstrip()}\n\n# Conflicts:\n{listing}".encode("utf-8", "surrogateescape"))
        git.out("Automatic merge failed; fix conflicts and then commit the result.\n")
        return 1
    tree = repo.open_index().commit(repo.object_store)
    made = make_commit(git, tree, [head.id, other.id], text if text.endswith("\n")
                       else text + "\n")
    advance(git, made, f"merge {name}: Merge made by the 'ort' strategy.")
    git.out("Merge made by the 'ort' strategy.\n")
    git.out(merge_summary(changes(ours, tree_side(repo, tree), contents=contents), contents))
    return 0


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)


def _merge_trees(git: Git, base: Side, ours: Side, theirs: Side, name: str,
                 ) -> tuple[Side, dict[bytes, tuple[bytes, tuple]], list[str]]:
    """The merged tree (clean paths), the conflicted paths (their merged text with markers,
    and the three versions), and the lines git prints (`Auto-merging`, `CONFLICT`)."""
    merged: Side = {}
    conflicts: dict[bytes, tuple[bytes, tuple]] = {}
    notes: list[str] = []
    store = git.repo.object_store
    for path in sorted(set(base) | set(ours) | set(theirs)):
        b, o, t = base.get(path), ours.get(path), theirs.get(path)
        shown = path.decode("utf-8", "surrogateescape")
        if o == t or t == b:
            if o is not None:
                merged[path] = o
            continue
        if o == b:
            if t is not None:
                merged[path] = t
            continue
        if o is None or t is None:
            kept = "HEAD" if t is None else name
            gone = name if t is None else "HEAD"
            notes.append(f"CONFLICT (modify/delete): {shown} deleted in {gone} and modified "
                         f"in {kept}.  Version {kept} of {shown} left in tree.\n")
            kept_version = o if o is not None else t
            conflicts[path] = (store[kept_version[1]].data if kept_version else b"", (b, o, t))
            continue
        notes.append(f"Auto-merging {shown}\n")
        base_data = store[b[1]].data if b else b""
        sides = (base_data, store[o[1]].data, store[t[1]].data)
        if any(is_binary(data) for data in sides):  # also what is too big to merge by lines
            notes.append(f"warning: Cannot merge binary files: {shown} (HEAD vs. {name})\n"
                         f"CONFLICT (content): Merge conflict in {shown}\n")
            conflicts[path] = (sides[1], (b, o, t))
            continue
        text, clean = merge_text(*sides, name)
        if clean:
            blob = Blob.from_string(text)
            store.add_object(blob)
            merged[path] = (o[0], blob.id)
        else:
            kind = "content" if b else "add/add"
            notes.append(f"CONFLICT ({kind}): Merge conflict in {shown}\n")
            conflicts[path] = (text, (b, o, t))
    return merged, conflicts, notes


def merge_text(base: bytes, ours: bytes, theirs: bytes, name: str) -> tuple[bytes, bool]:
    """The three-way merge of a file's versions: the text (with git's markers where they
    conflict) and whether it merged cleanly."""
    lines = [data.splitlines(keepends=True) for data in (base, ours, theirs)]
    merger = merge3.Merge3(*lines)
    clean = not any(region[0] == "conflict" for region in merger.merge_regions())
    out = merger.merge_lines(name_a=b"HEAD", name_b=name.encode("utf-8", "surrogateescape"),
                             start_marker=b"<<<<<<<", mid_marker=b"=======",
                             end_marker=b">>>>>>>")
    return b"".join(out), clean


def _apply(git: Git, ours: Side, merged: Side, conflicts: dict) -> None:
    """The merge's result in the work tree and the index (conflicts as stages 1 to 3)."""
    repo = git.repo
    index = repo.open_index()
    for path in sorted(set(ours) | set(merged)):
        if path in conflicts:
            continue
        if path not in merged:
            remove_file(git, path)
            if path in index:
                del index[path]
        elif merged[path] != ours.get(path):
            mode, blob_id = merged[path]
            info = write_file(git, path, mode, repo.object_store[blob_id].data)
            index[path] = index_entry_from_stat(info, blob_id, mode)
    for path, (text, versions) in conflicts.items():
        mode = next(v[0] for v in versions if v is not None)
        write_file(git, path, mode, text)
        entries = [index_entry_from_tree_entry(v[0], v[1]) if v else None for v in versions]
        index[path] = ConflictedIndexEntry(*entries)
    index.write()


@subcommand("merge")
def merge(git: Git, args: list[str]) -> int:
    """`git merge [--ff-only|--no-ff] [-m MESSAGE] COMMIT`, `git merge --abort`."""
    found, operands = options(args, {"--ff-only": "ff_only", "--no-ff": "no_ff",
                                     "--abort": "abort", "--ff": "ff", "-q": "quiet",
                                     "--no-edit": "no_edit"},
                              {"-m": "message", "--message": "message"})
    repo = git.repo
    merging = posixpath.join(repo.controldir(), "MERGE_HEAD")
    if "abort" in found:
        if not os.path.exists(merging):
            raise GitError("There is no merge to abort (MERGE_HEAD missing).")
        _abort(git)
        return 0
    if os.path.exists(merging):
        raise GitError("You have not concluded your merge (MERGE_HEAD exists).\nPlease, "
                       "commit your changes before you merge.", prefix="error: ")
    if len(operands) != 1:
        raise GitError("No remote for the current branch." if not operands else
                       "merging more than one commit (octopus) is not supported")
    message = "\n\n".join(found["message"]) if "message" in found else None
    return merge_into_head(git, operands[0], message, "ff_only" in found, "no_ff" in found)


def _abort(git: Git) -> None:
    """`git merge --abort`: back to HEAD's tree, the merge's state gone."""
    repo = git.repo
    index = repo.open_index()
    head = tree_side(repo, head_tree(git))
    for path, entry in list(index.iteritems()):
        if not hasattr(entry, "sha"):
            del index[path]
    index.write()
    switch_trees(git, None, head_tree(git) or b"", verb="merge", force=True)
    from .git_worktree import restore_paths
    restore_paths(git, [b""], head, ["."])
    for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"):
        path = posixpath.join(repo.controldir(), name)
        if os.path.exists(path):
            os.remove(path)
