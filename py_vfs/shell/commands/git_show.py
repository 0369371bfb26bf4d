"""`git status`, `git log` and `git diff`: what the repository holds and what changed, in git's
porcelain formats (long and short status, the default and ``--oneline`` log, patches)."""

from __future__ import annotations

import heapq
import os
import posixpath
import re
import stat as stat_module
import time
from typing import Any

from dulwich.objectspec import parse_commit

from .git_base import Git, Usage, options, quote_path, subcommand
from .git_diff import (
    Change,
    Contents,
    changes,
    index_side,
    name_status,
    patch,
    stat,
    tree_side,
    worktree_side,
)
from .git_repo import GitError, branch_label, worktree_path

_LABELS = {"A": "new file", "M": "modified", "D": "deleted", "R": "renamed"}


def git_date(seconds: int, zone: int) -> str:
    """A date as git's default format shows it: ``Tue Nov 14 23:13:20 2023 +0100``."""
    moment = time.gmtime(seconds + zone)
    sign = "-" if zone < 0 else "+"
    hours, minutes = divmod(abs(zone) // 60, 60)
    return (time.strftime("%a %b ", moment) + str(moment.tm_mday)
            + time.strftime(" %H:%M:%S %Y", moment) + f" {sign}{hours:02d}{minutes:02d}")


def resolve(git: Git, spec: str) -> Any:
    """The commit ``spec`` names (a branch, tag, id, ``HEAD~1``...); git's fatal error
    otherwise."""
    match = re.fullmatch(r"(.*?)((?:[~^]\d*)*)", spec)
    base, steps = (match.group(1), match.group(2)) if match else (spec, "")
    try:
        made = parse_commit(git.repo, (base or "HEAD").encode("utf-8", "surrogateescape"))
        for mark, count in re.findall(r"([~^])(\d*)", steps):
            number = int(count) if count else 1
            if mark == "~":
                for _ in range(number):
                    made = git.repo[made.parents[0]]
            elif number:
                made = git.repo[made.parents[number - 1]]
        return made
    except (KeyError, ValueError, IndexError) as exc:
        raise GitError(f"bad revision '{spec}'") from exc


def head_tree(git: Git) -> bytes | None:
    """HEAD's tree, or None before the first commit."""
    try:
        return git.repo[git.repo.refs[b"HEAD"]].tree
    except KeyError:
        return None


class State:
    """The three states status compares: HEAD's tree, the index, the work tree."""

    def __init__(self, git: Git) -> None:
        repo = git.repo
        self.git = git
        self.index = repo.open_index()
        self.contents = Contents(repo)
        self.head = tree_side(repo, head_tree(git))
        self.staged_side = index_side(self.index)
        self.work = worktree_side(repo, self.index, self.contents)
        self.conflicted = sorted(path for path, entry in self.index.iteritems()
                                 if not hasattr(entry, "sha"))
        self.staged = [c for c in changes(self.head, self.staged_side, contents=self.contents)
                       if (c.new or c.old) not in self.conflicted]
        self.unstaged = [c for c in changes(self.staged_side, self.work, renames=False)]
        self.unstaged += [Change("D", p, None, self.staged_side[p][0]) for p in self.staged_side
                          if p not in self.work and p not in {c.old for c in self.unstaged}]
        self.unstaged.sort(key=lambda c: c.old or b"")
        self.untracked = untracked(git, set(self.staged_side) | set(self.conflicted))


def untracked(git: Git, tracked: set[bytes]) -> list[str]:
    """The untracked files, a directory with no tracked file shown as ``dir/`` (git's
    ``normal`` mode); ignored files are left out."""
    from dulwich.ignore import IgnoreFilterManager
    ignore = IgnoreFilterManager.from_repo(git.repo)
    prefixes = {p[:i] for p in tracked for i in range(len(p)) if p[i:i + 1] == b"/"}
    found: list[str] = []

    def visit(directory: str) -> bool:
        """Adds what is untracked under ``directory``; True when it holds any such file."""
        any_found = False
        full = posixpath.join(git.repo.path, directory)
        for name in sorted(os.listdir(full)):
            if not directory and name == ".git":
                continue
            path = f"{directory}{name}"
            is_dir = stat_module.S_ISDIR(os.lstat(posixpath.join(full, name)).st_mode)
            if ignore.is_ignored(path + ("/" if is_dir else "")):
                continue
            encoded = path.encode("utf-8", "surrogateescape")
            if is_dir:
                if encoded in prefixes:
                    any_found = visit(path + "/") or any_found
                elif _holds_files(git, path, ignore):
                    found.append(path + "/")
                    any_found = True
            elif encoded not in tracked:
                found.append(path)
                any_found = True
        return any_found

    visit("")
    return found


def _holds_files(git: Git, directory: str, ignore: Any) -> bool:
    full = posixpath.join(git.repo.path, directory)
    for name in os.listdir(full):
        path = f"{directory}/{name}"
        is_dir = stat_module.S_ISDIR(os.lstat(posixpath.join(full, name)).st_mode)
        if ignore.is_ignored(path + ("/" if is_dir else "")):
            continue
        if not is_dir or _holds_files(git, path, ignore):
            return True
    return False


def _named(git: Git, change: Change) -> str:
    if change.kind == "R":
        return f"{git.relative(change.old or b'')} -> {git.relative(change.new or b'')}"
    return git.relative(change.new or change.old or b"")


def tracking(git: Git) -> str:
    """`Your branch is ...` for a branch with an upstream (and the blank line after)."""
    from dulwich.graph import find_merge_base  # noqa: F401 (what `ahead`/`behind` rest on)
    repo = git.repo
    target = repo.refs.read_ref(b"HEAD") or b""
    if not target.startswith(b"ref: refs/heads/"):
        return ""
    branch = target[len(b"ref: refs/heads/"):]
    config = repo.get_config()
    try:
        remote = config.get((b"branch", branch), b"remote")
        merge = config.get((b"branch", branch), b"merge")
    except KeyError:
        return ""
    name = f"{remote.decode()}/{merge.decode().removeprefix('refs/heads/')}"
    upstream = repo.refs.as_dict().get(f"refs/remotes/{name}".encode())
    if upstream is None:
        return (f"Your branch is based on '{name}', but the upstream is gone.\n"
                "  (use \"git branch --unset-upstream\" to fixup)\n\n")
    head = repo.refs.as_dict().get(b"refs/heads/" + branch)
    ahead, behind = _count(repo, head, upstream), _count(repo, upstream, head)
    if not ahead and not behind:
        return f"Your branch is up to date with '{name}'.\n\n"
    if ahead and not behind:
        return (f"Your branch is ahead of '{name}' by {_commits(ahead)}.\n"
                "  (use \"git push\" to publish your local commits)\n\n")
    if behind and not ahead:
        return (f"Your branch is behind '{name}' by {_commits(behind)}, and can be "
                "fast-forwarded.\n  (use \"git pull\" to update your local branch)\n\n")
    return (f"Your branch and '{name}' have diverged,\nand have {ahead} and {behind} different "
            "commits each, respectively.\n  (use \"git pull\" to merge the remote branch into "
            "yours)\n\n")


def _commits(count: int) -> str:
    return f"{count} commit" + ("s" if count != 1 else "")


def _count(repo: Any, tip: bytes | None, other: bytes | None) -> int:
    """How many commits reach from ``tip`` and not from ``other``."""
    if tip is None:
        return 0
    walker = repo.get_walker(include=[tip], exclude=[other] if other else None)
    return sum(1 for _ in walker)


def long_status(git: Git, commit_mode: bool = False) -> str:
    """`git status`'s long format (also what `git commit` prints with nothing to commit)."""
    state = State(git)
    repo = git.repo
    target = repo.refs.read_ref(b"HEAD") or b""
    if target.startswith(b"ref: refs/heads/"):
        out = [f"On branch {target[16:].decode('utf-8', 'surrogateescape')}\n"]
    else:
        out = [f"HEAD detached at {target[:7].decode()}\n"]
    out.append(tracking(git))
    born = head_tree(git) is not None
    if not born:
        out.append("\nNo commits yet\n\n")
    if os.path.exists(posixpath.join(repo.controldir(), "MERGE_HEAD")):
        if state.conflicted:
            out.append("You have unmerged paths.\n  (fix conflicts and run \"git commit\")\n"
                       "  (use \"git merge --abort\" to abort the merge)\n\n")
        else:
            out.append("All conflicts fixed but you are still merging.\n  (use \"git commit\" "
                       "to conclude merge)\n\n")
    if state.staged:
        hint = "git restore --staged <file>..." if born else "git rm --cached <file>..."
        out.append(f"Changes to be committed:\n  (use \"{hint}\" to unstage)\n")
        out += [f"\t{(_LABELS[c.kind] + ':').ljust(12)}{_named(git, c)}\n" for c in state.staged]
        out.append("\n")
    if state.conflicted:
        out.append("Unmerged paths:\n  (use \"git add <file>...\" to mark resolution)\n")
        out += [f"\tboth modified:   {git.relative(p)}\n" for p in state.conflicted]
        out.append("\n")
    if state.unstaged:
        verb = "add/rm" if any(c.kind == "D" for c in state.unstaged) else "add"
        out.append(f"Changes not staged for commit:\n  (use \"git {verb} <file>...\" to "
                   "update what will be committed)\n  (use \"git restore <file>...\" to "
                   "discard changes in working directory)\n")
        out += [f"\t{(_LABELS[c.kind] + ':').ljust(12)}{_named(git, c)}\n"
                for c in state.unstaged]
        out.append("\n")
    if state.untracked:
        out.append("Untracked files:\n  (use \"git add <file>...\" to include in what will "
                   "be committed)\n")
        out += [f"\t{git.relative(p.encode('utf-8', 'surrogateescape'))}\n"
                for p in state.untracked]
        out.append("\n")
    if state.staged:
        pass
    elif state.conflicted or state.unstaged:
        out.append("no changes added to commit (use \"git add\" and/or \"git commit -a\")\n")
    elif state.untracked:
        out.append("nothing added to commit but untracked files present (use \"git add\" to "
                   "track)\n")
    elif not born:
        out.append("nothing to commit (create/copy files and use \"git add\" to track)\n")
    else:
        out.append("nothing to commit, working tree clean\n")
    return "".join(out)


def short_status(git: Git, porcelain: bool) -> str:
    """`git status -s` (paths relative to the cwd) or `--porcelain` (to the top)."""
    state = State(git)
    show = quote_path if porcelain else git.relative
    codes: dict[bytes, list[str]] = {}
    for change in state.staged:
        codes.setdefault(change.new or change.old or b"", [" ", " ", ""])[0] = change.kind
        if change.kind == "R":
            codes[change.new or b""][2] = show(change.old or b"") + " -> "
    for change in state.unstaged:
        codes.setdefault(change.old or b"", [" ", " ", ""])[1] = change.kind
    for path in state.conflicted:
        codes[path] = ["U", "U", ""]
    lines = [f"{x}{y} {before}{show(path)}\n" for path, (x, y, before) in sorted(codes.items())]
    lines += [f"?? {show(p.encode('utf-8', 'surrogateescape'))}\n" for p in state.untracked]
    return "".join(lines)


@subcommand("status")
def status(git: Git, args: list[str]) -> int:
    """`git status [-s|--short|--porcelain]`."""
    found, _ = options(args, {"-s": "short", "--short": "short", "--porcelain": "porcelain",
                              "-b": "branch", "--branch": "branch", "--long": "long"}, {})
    if "porcelain" in found or "short" in found:
        if "branch" in found:
            git.out(f"## {branch_label(git.repo)}\n")
        git.out(short_status(git, "porcelain" in found))
    else:
        git.out(long_status(git))
    return 0


def walk(repo: Any, tips: list[bytes], count: int | None = None,
         exclude: set[bytes] | None = None) -> list[Any]:
    """The commits reachable from ``tips`` in git's default order: newest commit date first,
    ties in the order they were reached; at most ``count``."""
    seen = set(exclude or ())
    shallow = repo.get_shallow()  # a shallow clone's boundary: their parents are not here
    queue: list[tuple[int, int, bytes]] = []
    order = 0
    for tip in tips:
        if tip not in seen:
            seen.add(tip)
            heapq.heappush(queue, (-repo[tip].commit_time, order, tip))
            order += 1
    found = []
    while queue and (count is None or len(found) < count):
        _, _, commit_id = heapq.heappop(queue)
        made = repo[commit_id]
        found.append(made)
        for parent in () if commit_id in shallow else made.parents:
            if parent not in seen and parent in repo.object_store:
                seen.add(parent)
                heapq.heappush(queue, (-repo[parent].commit_time, order, parent))
                order += 1
    return found


@subcommand("log")
def log(git: Git, args: list[str]) -> int:
    """`git log [--oneline] [-n N|-N] [REVISION]`."""
    found, operands = options(args, {"--oneline": "oneline", "--stat": "stat",
                                     "--reverse": "reverse"},
                              {"-n": "count", "--max-count": "count"})
    count = int(found["count"][-1]) if "count" in found else None
    if count is not None and count < 0:
        count = None
    repo = git.repo
    revisions = [op for op in operands if op != "--"]
    try:
        include = [resolve(git, spec).id for spec in revisions] or [repo.refs[b"HEAD"]]
    except KeyError:
        raise GitError(f"your current branch '{branch_label(repo)}' does not have any commits "
                       "yet") from None
    walked = walk(repo, include, count)
    if "reverse" in found:
        walked.reverse()
    first = True
    for made in walked:
        if "oneline" in found:
            subject = made.message.decode("utf-8", "surrogateescape").split("\n", 1)[0]
            git.out(f"{made.id[:7].decode()} {subject}\n")
            continue
        lines = ["" if first else "\n", f"commit {made.id.decode()}\n"]
        first = False
        if len(made.parents) > 1:
            lines.append("Merge: " + " ".join(p[:7].decode() for p in made.parents) + "\n")
        lines.append(f"Author: {made.author.decode('utf-8', 'surrogateescape')}\n")
        lines.append(f"Date:   {git_date(made.author_time, made.author_timezone)}\n\n")
        text = made.message.decode("utf-8", "surrogateescape").rstrip("\n")
        lines += [f"    {line}".rstrip() + "\n" if line else "\n" for line in text.split("\n")]
        git.out("".join(lines))
    return 0


@subcommand("diff")
def diff(git: Git, args: list[str]) -> int:
    """`git diff [--cached|--staged] [--stat|--name-only|--name-status] [A [B]] [-- PATH...]`."""
    found, operands = options(args, {"--cached": "cached", "--staged": "cached",
                                     "--stat": "stat", "--name-only": "names",
                                     "--name-status": "status", "--exit-code": "exit",
                                     "--quiet": "quiet"}, {"-U": "context", "--unified": "context"})
    repo = git.repo
    paths: list[bytes] = []
    if "--" in found:
        split = len(operands) - len([a for a in args[args.index("--") + 1:]])
        paths = [worktree_path(repo, git.cwd, p) for p in operands[split:]]
        operands = operands[:split]
    revisions: list[str] = []
    for operand in operands:
        if ".." in operand:
            left, _, right = operand.partition("..")
            revisions += [left or "HEAD", right or "HEAD"]
        else:
            revisions.append(operand)
    contents = Contents(repo)
    if len(revisions) > 2:
        raise Usage("usage: git diff [<options>] [<commit>] [<commit>] [--] [<path>...]")
    index = repo.open_index()
    if len(revisions) == 2:
        old = tree_side(repo, resolve(git, revisions[0]).tree)
        new = tree_side(repo, resolve(git, revisions[1]).tree)
    elif "cached" in found:
        old = tree_side(repo, resolve(git, revisions[0]).tree if revisions else head_tree(git))
        new = index_side(index)
    else:
        old = tree_side(repo, resolve(git, revisions[0]).tree) if revisions \
            else index_side(index)
        new = worktree_side(repo, index, contents, list(set(old) | set(index_side(index))))
    found_changes = [c for c in changes(old, new, contents=contents)
                     if not paths or any(_within(c.new or c.old or b"", p) for p in paths)]
    context = int(found["context"][-1]) if "context" in found else 3
    if "quiet" not in found:
        if "stat" in found:
            git.out(stat(found_changes, contents))
        elif "names" in found:
            git.out("".join(f"{quote_path(c.new or c.old or b'')}\n"
                            for c in found_changes))
        elif "status" in found:
            git.out("".join(name_status(c) for c in found_changes))
        else:
            for change in found_changes:
                git.out(patch(change, contents, context))
    return 1 if found_changes and ({"exit", "quiet"} & set(found)) else 0


def _within(path: bytes, top: bytes) -> bool:
    return not top or path == top or path.startswith(top.rstrip(b"/") + b"/")


@subcommand("rev-parse")
def rev_parse(git: Git, args: list[str]) -> int:
    """`git rev-parse [--short] REVISION...` (``REV^{tree}`` too)."""
    found, operands = options(args, {"--short": "short", "--show-toplevel": "top",
                                     "--abbrev-ref": "abbrev"}, {})
    if "top" in found:
        git.out(git.repo.path.rstrip("/") + "\n")
    for spec in operands:
        if "abbrev" in found and spec == "HEAD":
            git.out(branch_label(git.repo).replace("detached HEAD", "HEAD") + "\n")
            continue
        if spec.endswith("^{tree}"):
            object_id = resolve(git, spec[:-7]).tree
        else:
            object_id = _object_id(git, spec)
        text = object_id.decode()
        git.out((text[:7] if "short" in found else text) + "\n")
    return 0


def _object_id(git: Git, spec: str) -> bytes:
    """What ``spec`` names, a tag object staying itself (``rev-parse v1`` of an annotated
    tag is the tag's id)."""
    refs = git.repo.refs.as_dict()
    for prefix in (b"", b"refs/", b"refs/tags/", b"refs/heads/", b"refs/remotes/"):
        name = prefix + spec.encode("utf-8", "surrogateescape")
        if name in refs:
            return refs[name]
    if spec == "HEAD":
        return resolve(git, spec).id
    return resolve(git, spec).id
