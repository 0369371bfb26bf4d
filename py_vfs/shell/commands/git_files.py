"""`git init`, `add`, `rm`, `mv` and `commit`: the index and new commits, built with dulwich's
objects so that their ids are real git's for the same content, names and dates."""

from __future__ import annotations

import os
import posixpath
import stat as stat_module
from typing import Any

from dulwich.config import StackedConfig
from dulwich.ignore import IgnoreFilterManager
from dulwich.index import index_entry_from_stat
from dulwich.objects import Blob, Commit

from .git_base import Git, Usage, options, subcommand
from .git_diff import Contents, changes, commit_summary, file_mode, index_side, tree_side
from .git_repo import (
    GitError,
    VfsRepo,
    branch_label,
    global_config_path,
    head_commit,
    identity,
    read_config,
    worktree_path,
)
from .git_show import git_date, long_status


@subcommand("init")
def init(git: Git, args: list[str]) -> int:
    """`git init [-q] [-b BRANCH] [--bare] [DIR]`."""
    found, operands = options(args, {"-q": "quiet", "--quiet": "quiet", "--bare": "bare"},
                              {"-b": "branch", "--initial-branch": "branch"})
    path = posixpath.normpath(posixpath.join(git.cwd, operands[0] if operands else "."))
    bare = "bare" in found
    control = path if bare else posixpath.join(path, ".git")
    if os.path.exists(posixpath.join(control, "HEAD")):
        message = "Reinitialized existing"
    else:
        config = StackedConfig([read_config(global_config_path(git.env))])
        branch = (found.get("branch") or [None])[-1]
        if branch is None:
            try:
                branch = config.get((b"init",), b"defaultBranch").decode()
            except KeyError:
                branch = "master"
        os.makedirs(path, exist_ok=True)
        maker = VfsRepo.init_bare if bare else VfsRepo.init
        maker(path, config=config, default_branch=branch.encode(), symlinks=True) \
            if not bare else maker(path, config=config, default_branch=branch.encode())
        message = "Initialized empty"
    if "quiet" not in found:
        git.out(f"{message} Git repository in {control.rstrip('/')}/\n")
    return 0


def _ignore(git: Git) -> IgnoreFilterManager:
    return IgnoreFilterManager.from_repo(git.repo)


def _walk(git: Git, top: bytes, ignore: IgnoreFilterManager) -> list[bytes]:
    """The files under ``top`` (a work-tree path) that are not ignored, nor in ``.git``."""
    root = git.repo.path
    full = posixpath.join(root, top.decode("utf-8", "surrogateescape"))
    if not os.path.isdir(full) or os.path.islink(full):
        return [top] if os.path.lexists(full) else []
    found = []
    for name in sorted(os.listdir(full)):
        if name == ".git":
            continue
        path = (top.decode("utf-8", "surrogateescape") + "/" + name).lstrip("/")
        info = os.lstat(posixpath.join(root, path))
        directory = stat_module.S_ISDIR(info.st_mode)
        if ignore.is_ignored(path + ("/" if directory else "")):
            continue
        encoded = path.encode("utf-8", "surrogateescape")
        found += _walk(git, encoded, ignore) if directory else [encoded]
    return found


def stage(git: Git, index: Any, path: bytes) -> None:
    """Put the work tree's ``path`` in the index (its blob in the object store)."""
    repo = git.repo
    full = posixpath.join(repo.path, path.decode("utf-8", "surrogateescape"))
    info = os.lstat(full)
    mode = file_mode(info)
    if mode == 0o120000:
        data = os.readlink(full).encode("utf-8", "surrogateescape")
    else:
        with open(full, "rb") as file:
            data = file.read()
    blob = Blob.from_string(data)
    if blob.id not in repo.object_store:
        repo.object_store.add_object(blob)
    index[path] = index_entry_from_stat(info, blob.id, mode)


def _under(path: bytes, top: bytes) -> bool:
    return not top or path == top or path.startswith(top.rstrip(b"/") + b"/")


@subcommand("add")
def add(git: Git, args: list[str]) -> int:
    """`git add [-A|-u] [--] PATHSPEC...`: stage new and changed files, and deletions."""
    found, operands = options(args, {"-A": "all", "--all": "all", "-u": "update",
                                     "--update": "update", "-v": "verbose",
                                     "--verbose": "verbose", "-f": "force"}, {})
    if not operands and not ({"all", "update"} & set(found)):
        git.err("Nothing specified, nothing added.\nhint: Maybe you wanted to say "
                "'git add .'?\nhint: Turn this message off by running\nhint: \"git config "
                "advice.addEmptyPathspec false\"\n")
        return 0
    repo = git.repo
    tops = [worktree_path(repo, git.cwd, op) for op in operands] or [b""]
    index = repo.open_index()
    ignore = _ignore(git)
    tracked = set(index_side(index))
    for top, operand in zip(tops, operands or ["."], strict=True):
        files = [p for p in tracked if _under(p, top)] if "update" in found \
            else _walk(git, top, ignore)
        gone = [p for p in tracked if _under(p, top) and not os.path.lexists(
            posixpath.join(repo.path, p.decode("utf-8", "surrogateescape")))]
        if not files and not gone:
            raise GitError(f"pathspec '{operand}' did not match any files")
        for path in files:
            if path not in gone:
                stage(git, index, path)
        for path in gone:
            del index[path]
    index.write()
    return 0


@subcommand("rm")
def rm(git: Git, args: list[str]) -> int:
    """`git rm [--cached] [-r] [-f] [-q] PATHSPEC...`."""
    found, operands = options(args, {"--cached": "cached", "-r": "recursive", "-f": "force",
                                     "--force": "force", "-q": "quiet", "--quiet": "quiet"}, {})
    if not operands:
        raise Usage("No pathspec was given. Which files should I remove?")
    repo = git.repo
    index = repo.open_index()
    tracked = sorted(index_side(index))
    chosen: list[bytes] = []
    for operand in operands:
        top = worktree_path(repo, git.cwd, operand)
        matched = [p for p in tracked if _under(p, top)]
        if not matched:
            raise GitError(f"pathspec '{operand}' did not match any files")
        if matched != [top] and "recursive" not in found:
            raise GitError(f"not removing '{operand}' recursively without -r")
        chosen += matched
    for path in chosen:
        if "quiet" not in found:
            git.out(f"rm '{path.decode('utf-8', 'surrogateescape')}'\n")
        del index[path]
        if "cached" not in found:
            full = posixpath.join(repo.path, path.decode("utf-8", "surrogateescape"))
            if os.path.lexists(full):
                os.remove(full)
            _prune_dirs(repo.path, posixpath.dirname(full))
    index.write()
    return 0


def _prune_dirs(root: str, directory: str) -> None:
    """Remove the directories left empty up to the work tree's root, as git does."""
    while directory.startswith(root.rstrip("/") + "/"):
        try:
            os.rmdir(directory)
        except OSError:
            return
        directory = posixpath.dirname(directory)


@subcommand("mv")
def mv(git: Git, args: list[str]) -> int:
    """`git mv [-f] SOURCE... DESTINATION`."""
    found, operands = options(args, {"-f": "force", "--force": "force", "-v": "verbose"}, {})
    if len(operands) < 2:
        raise Usage("usage: git mv [<options>] <source>... <destination>")
    repo = git.repo
    index = repo.open_index()
    tracked = index_side(index)
    *sources, target = operands
    target_full = posixpath.normpath(posixpath.join(git.cwd, target))
    into = os.path.isdir(target_full)
    if len(sources) > 1 and not into:
        raise GitError(f"destination '{target}' is not a directory")
    for source in sources:
        old = worktree_path(repo, git.cwd, source)
        full = posixpath.normpath(posixpath.join(git.cwd, source))
        dest = posixpath.join(target_full, posixpath.basename(full)) if into else target_full
        moved = [p for p in tracked if _under(p, old)]
        if not os.path.lexists(full):
            raise GitError(f"bad source, source={source}, destination={target}")
        if not moved:
            raise GitError(f"not under version control, source={source}, "
                           f"destination={target}")
        if os.path.lexists(dest) and "force" not in found:
            raise GitError(f"destination exists, source={source}, destination={target}")
        os.rename(full, dest)
        new = worktree_path(repo, "/", dest)
        for path in moved:
            entry = index[path]
            del index[path]
            index[new + path[len(old):]] = entry
    index.write()
    return 0


def clean_message(text: str) -> str:
    """A message as git's whitespace cleanup leaves it: trailing spaces and leading, trailing
    and repeated blank lines gone, ending in a newline."""
    lines = [line.rstrip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def make_commit(git: Git, tree: bytes, parents: list[bytes], message: str,
                author: tuple[bytes, int, int] | None = None) -> Commit:
    """A commit of ``tree`` (stored), its author and committer from the env or config."""
    config = git.repo.get_config_stack()
    who, when, zone = author or identity(config, git.env, "AUTHOR")
    committer, at, at_zone = identity(config, git.env, "COMMITTER")
    commit = Commit()
    commit.tree = tree
    commit.parents = parents
    commit.author, commit.author_time, commit.author_timezone = who, when, zone
    commit.committer, commit.commit_time, commit.commit_timezone = committer, at, at_zone
    commit.encoding = None
    commit.message = message.encode("utf-8", "surrogateescape")
    git.repo.object_store.add_object(commit)
    return commit


def advance(git: Git, commit: Commit, reflog: str) -> None:
    """Point HEAD (its branch) at ``commit``, with a reflog entry."""
    repo = git.repo
    repo.refs.set_if_equals(b"HEAD", None, commit.id, message=reflog.encode(
        "utf-8", "surrogateescape"), committer=commit.committer,
        timestamp=commit.commit_time, timezone=commit.commit_timezone)


@subcommand("commit")
def commit(git: Git, args: list[str]) -> int:
    """`git commit [-a] [-q] [--allow-empty] [--amend] -m MESSAGE...`."""
    found, _ = options(args, {"-a": "all", "--all": "all", "-q": "quiet", "--quiet": "quiet",
                              "--allow-empty": "empty", "--amend": "amend",
                              "--no-edit": "no-edit"},
                       {"-m": "message", "--message": "message", "-F": "file", "--file": "file"})
    repo = git.repo
    index = repo.open_index()
    if "all" in found:
        for path in list(index_side(index)):
            full = posixpath.join(repo.path, path.decode("utf-8", "surrogateescape"))
            if os.path.lexists(full):
                stage(git, index, path)
            else:
                del index[path]
        index.write()
    if any(not hasattr(entry, "sha") for _, entry in index.iteritems()):
        raise GitError("Committing is not possible because you have unmerged files.\nhint: "
                       "Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: "
                       "as appropriate to mark resolution and make a commit.\nfatal: Exiting "
                       "because of an unresolved conflict.", prefix="error: ")
    head = head_commit(repo)
    amend = "amend" in found
    merge_head = _merge_head(repo)
    if amend and head is None:
        raise GitError("You have nothing to amend.")
    messages = list(found.get("message", []))
    for name in found.get("file", []):
        with open(posixpath.join(git.cwd, name), encoding="utf-8", errors="surrogateescape") \
                as file:
            messages.append(file.read())
    if not messages and merge_head is not None:
        with open(posixpath.join(repo.controldir(), "MERGE_MSG"), encoding="utf-8",
                  errors="surrogateescape") as file:
            messages = ["\n".join(line for line in file.read().split("\n")
                                  if not line.startswith("#"))]
    if not messages and amend:
        messages = [head.message.decode("utf-8", "surrogateescape")]
    if not messages:
        raise GitError("no commit message given: git commit -m MESSAGE (there is no editor "
                       "here)", status=1, prefix="error: ")
    message = clean_message("\n\n".join(m.strip("\n") for m in messages))
    if not message:
        git.err("Aborting commit due to empty commit message.\n")
        return 1
    tree = index.commit(repo.object_store)
    base = (head.parents[0] if amend and head.parents else None) if amend else \
        (head.id if head else None)
    base_tree = repo[base].tree if base else None
    if not amend and "empty" not in found and head is not None and tree == head.tree \
            and merge_head is None:
        git.out(long_status(git, commit_mode=True))
        return 1
    if head is None and "empty" not in found and not index_side(index):
        git.out(long_status(git, commit_mode=True))
        return 1
    parents = list(head.parents) if amend else ([head.id] if head else [])
    if merge_head is not None:
        parents.append(merge_head)
    author = None
    if amend and not any(f"GIT_AUTHOR_{k}" in git.env for k in ("NAME", "EMAIL", "DATE")):
        author = (head.author, head.author_time, head.author_timezone)
    made = make_commit(git, tree, parents, message, author)
    subject = message.split("\n", 1)[0]
    kind = "commit (amend)" if amend else "commit" if head else "commit (initial)"
    advance(git, made, f"{'commit (merge)' if merge_head else kind}: {subject}")
    for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"):
        if os.path.exists(posixpath.join(repo.controldir(), name)):
            os.remove(posixpath.join(repo.controldir(), name))
    if "quiet" in found:
        return 0
    root = " (root-commit)" if not parents else ""
    git.out(f"[{branch_label(repo)}{root} {made.id[:7].decode()}] {subject}\n")
    if made.author != made.committer:
        git.out(f" Author: {made.author.decode('utf-8', 'surrogateescape')}\n")
    if amend:
        git.out(f"{_date_line(made)}")
    contents = Contents(repo)
    git.out(commit_summary(changes(tree_side(repo, base_tree), tree_side(repo, tree),
                                   contents=contents),
                           contents))
    return 0


def _merge_head(repo: VfsRepo) -> bytes | None:
    """The commit a merge in progress merges (``MERGE_HEAD``), or None."""
    try:
        with open(posixpath.join(repo.controldir(), "MERGE_HEAD"), "rb") as file:
            return file.read().split()[0]
    except (FileNotFoundError, IndexError):
        return None


def _date_line(made: Commit) -> str:
    return f" Date: {git_date(made.author_time, made.author_timezone)}\n"

