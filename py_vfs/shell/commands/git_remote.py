"""`git clone`, `git fetch`, `git pull` and `git push` over smart HTTP (``git_http``)."""

from __future__ import annotations

import os
import posixpath
from typing import Any

from dulwich.config import StackedConfig
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.graph import can_fast_forward
from dulwich.objects import ZERO_SHA

from .git_base import Git, Usage, options, subcommand
from .git_http import client_for, remote_failure
from .git_merge import merge_into_head
from .git_repo import GitError, VfsRepo, branch_label, global_config_path, open_repo, read_config
from .git_worktree import switch_trees

_FAILURES = (NotGitRepository, HangupException, GitProtocolError)


def _fetch(git: Git, repo: Any, url: str, remote: str, depth: int | None = None,
           only: str | None = None) -> Any:
    """Fetch ``url``'s branches (or branch ``only``) and tags into ``repo``: its refs under
    ``refs/remotes/REMOTE/``; dulwich's result (the remote's refs and symrefs)."""
    client, path = client_for(git.bound, url)

    def wants(refs: Any, depth: Any = None) -> list[bytes]:
        chosen = [sha for name, sha in refs.items() if sha and sha != ZERO_SHA and (
            name.startswith(b"refs/tags/") or (name.startswith(b"refs/heads/") and (
                only is None or name == b"refs/heads/" + only.encode())))]
        return [sha for sha in dict.fromkeys(chosen) if sha not in repo.object_store]

    try:
        result = client.fetch(path, repo, determine_wants=wants, depth=depth)
    except _FAILURES as exc:
        raise remote_failure(exc, url) from None
    for name, sha in result.refs.items():
        if not sha or sha not in repo.object_store:
            continue
        if name.startswith(b"refs/heads/"):
            branch = name[len(b"refs/heads/"):]
            if only is None or branch == only.encode():
                repo.refs[f"refs/remotes/{remote}/".encode() + branch] = sha
        elif name.startswith(b"refs/tags/") and not name.endswith(b"^{}") \
                and name not in repo.refs:
            repo.refs[name] = sha
    return result


@subcommand("clone")
def clone(git: Git, args: list[str]) -> int:
    """`git clone [-q] [--depth N] [-b BRANCH] [--single-branch] URL [DIR]`."""
    found, operands = options(args, {"-q": "quiet", "--quiet": "quiet",
                                     "--single-branch": "single", "--no-single-branch": "all",
                                     "--bare": "bare"},
                              {"--depth": "depth", "-b": "branch", "--branch": "branch",
                               "-o": "origin", "--origin": "origin"})
    if not operands or len(operands) > 2:
        raise Usage("You must specify a repository to clone.")
    url = operands[0]
    name = operands[1] if len(operands) > 1 else posixpath.basename(
        url.rstrip("/")).removesuffix(".git") or "repo"
    target = posixpath.normpath(posixpath.join(git.cwd, name))
    if os.path.exists(target) and os.listdir(target):
        raise GitError(f"destination path '{name}' already exists and is not an empty "
                       "directory.")
    depth = int(found["depth"][-1]) if "depth" in found else None
    if depth is not None and depth < 1:
        raise GitError(f"depth {depth} is not a positive number")
    branch = (found.get("branch") or [None])[-1]
    single = "single" in found or (depth is not None and "all" not in found)
    remote = (found.get("origin") or ["origin"])[-1]
    if "quiet" not in found:
        git.err(f"Cloning into '{name}'...\n")
    created = not os.path.exists(target)
    try:
        repo = _cloned(git, url, target, remote, depth, branch, single)
    except BaseException:
        if created and os.path.exists(target):
            import shutil
            shutil.rmtree(target, ignore_errors=True)
        raise
    del repo
    return 0


def _cloned(git: Git, url: str, target: str, remote: str, depth: int | None,
            branch: str | None, single: bool) -> VfsRepo:
    os.makedirs(target, exist_ok=True)
    config = StackedConfig([read_config(global_config_path(git.env))])
    VfsRepo.init(target, config=config, symlinks=True)
    repo = open_repo(target, git.env)
    settings = repo.get_config()
    section = (b"remote", remote.encode())
    settings.set(section, b"url", url.encode())
    fetch_spec = f"+refs/heads/{branch or '*'}:refs/remotes/{remote}/{branch or '*'}" \
        if single and branch else f"+refs/heads/*:refs/remotes/{remote}/*"
    settings.set(section, b"fetch", fetch_spec.encode())
    settings.write_to_path()
    result = _fetch(git, repo, url, remote, depth, branch if single else None)
    head = result.symrefs.get(b"HEAD", b"")
    chosen = branch or (head[len(b"refs/heads/"):].decode() if head else None)
    if single and branch is None and chosen:  # only the default branch is wanted
        for ref in list(repo.refs.keys(base=f"refs/remotes/{remote}".encode())):
            if ref != chosen.encode():
                del repo.refs[f"refs/remotes/{remote}/".encode() + ref]
    if chosen is None or f"refs/remotes/{remote}/{chosen}".encode() not in repo.refs:
        if branch is not None:
            raise GitError(f"Remote branch {branch} not found in upstream {remote}")
        git.err("warning: You appear to have cloned an empty repository.\n")
        return repo
    tip = repo.refs[f"refs/remotes/{remote}/{chosen}".encode()]
    repo.refs.set_symbolic_ref(f"refs/remotes/{remote}/HEAD".encode(),
                               f"refs/remotes/{remote}/{chosen}".encode())
    repo.refs[b"refs/heads/" + chosen.encode()] = tip
    repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/" + chosen.encode())
    settings = repo.get_config()
    settings.set((b"branch", chosen.encode()), b"remote", remote.encode())
    settings.set((b"branch", chosen.encode()), b"merge", b"refs/heads/" + chosen.encode())
    settings.write_to_path()
    switch_trees(Git(git.bound, git.env, target, repo), None, repo[tip].tree)
    return repo


def _remote_url(git: Git, remote: str) -> str:
    try:
        return git.repo.get_config().get((b"remote", remote.encode()), b"url").decode()
    except KeyError:
        raise GitError(f"'{remote}' does not appear to be a git repository\nfatal: Could not "
                       "read from remote repository.\n\nPlease make sure you have the correct "
                       "access rights\nand the repository exists.") from None


def _upstream(git: Git) -> tuple[str, str | None]:
    """The current branch's remote and branch there (``origin``, None without one)."""
    current = branch_label(git.repo)
    config = git.repo.get_config()
    try:
        remote = config.get((b"branch", current.encode()), b"remote").decode()
        merge = config.get((b"branch", current.encode()), b"merge").decode()
        return remote, merge.removeprefix("refs/heads/")
    except KeyError:
        return "origin", None


def _report_fetch(git: Git, url: str, remote: str, before: dict[bytes, bytes]) -> None:
    """What `git fetch` prints on standard error: each remote branch that moved."""
    lines = []
    for ref, sha in sorted(git.repo.refs.as_dict(f"refs/remotes/{remote}".encode()).items()):
        if ref == b"HEAD" or before.get(ref) == sha:
            continue
        name = ref.decode("utf-8", "surrogateescape")
        old = before.get(ref)
        if old is None:
            lines.append(f" * [new branch]      {name:<10} -> {remote}/{name}\n")
        else:
            span = f"{old.decode()[:7]}..{sha.decode()[:7]}"
            lines.append(f"   {span}  {name:<10} -> {remote}/{name}\n")
    if lines:
        git.err(f"From {url}\n" + "".join(lines))


@subcommand("fetch")
def fetch(git: Git, args: list[str]) -> int:
    """`git fetch [-q] [--depth N] [REMOTE]`."""
    found, operands = options(args, {"-q": "quiet", "--quiet": "quiet", "--all": "all",
                                     "--tags": "tags", "--prune": "prune", "-p": "prune"},
                              {"--depth": "depth"})
    remote = operands[0] if operands else _upstream(git)[0]
    url = _remote_url(git, remote)
    before = git.repo.refs.as_dict(f"refs/remotes/{remote}".encode())
    depth = int(found["depth"][-1]) if "depth" in found else None
    _fetch(git, git.repo, url, remote, depth)
    if "quiet" not in found:
        _report_fetch(git, url, remote, before)
    return 0


@subcommand("pull")
def pull(git: Git, args: list[str]) -> int:
    """`git pull [-q] [--ff-only] [REMOTE [BRANCH]]`: fetch, then merge the upstream."""
    found, operands = options(args, {"-q": "quiet", "--quiet": "quiet", "--ff-only": "ff_only",
                                     "--no-rebase": "merge", "--ff": "ff"}, {})
    remote, branch = _upstream(git)
    if operands:
        remote = operands[0]
        branch = operands[1] if len(operands) > 1 else branch
    url = _remote_url(git, remote)
    before = git.repo.refs.as_dict(f"refs/remotes/{remote}".encode())
    _fetch(git, git.repo, url, remote)
    if "quiet" not in found:
        _report_fetch(git, url, remote, before)
    if branch is None:
        raise GitError("There is no tracking information for the current branch.\nPlease "
                       "specify which branch you want to merge with: git pull <remote> "
                       "<branch>", status=1, prefix="")
    message = f"Merge branch '{branch}' of {url}\n"
    return merge_into_head(git, f"{remote}/{branch}", message, "ff_only" in found)


@subcommand("push")
def push(git: Git, args: list[str]) -> int:
    """`git push [-u] [-f] [--tags] [REMOTE [BRANCH|SRC:DST]...]`, `git push REMOTE
    --delete BRANCH`."""
    found, operands = options(args, {"-u": "upstream", "--set-upstream": "upstream",
                                     "-f": "force", "--force": "force", "--tags": "tags",
                                     "-q": "quiet", "--quiet": "quiet", "-d": "delete",
                                     "--delete": "delete"}, {})
    repo = git.repo
    current = branch_label(repo)
    remote, upstream = _upstream(git)
    if operands:
        remote = operands[0]
    specs = operands[1:] or [f"{current}:{upstream or current}"]
    if current == "detached HEAD" and not operands[1:]:
        raise GitError("You are not currently on a branch.")
    url = _remote_url(git, remote)
    updates: dict[bytes, bytes] = {}
    for spec in specs:
        source, _, dest = spec.partition(":")
        dest = dest or source
        if "delete" in found:
            updates[b"refs/heads/" + source.encode()] = ZERO_SHA
            continue
        local = repo.refs.as_dict().get(b"refs/heads/" + source.encode()) or \
            repo.refs.as_dict().get(b"refs/tags/" + source.encode())
        if local is None:
            raise GitError(f"src refspec {source} does not match any", status=1,
                           prefix="error: ")
        kind = b"refs/tags/" if b"refs/tags/" + source.encode() in repo.refs else b"refs/heads/"
        updates[kind + dest.encode()] = local
    if "tags" in found:
        updates.update(repo.refs.as_dict(b"refs/tags") and {
            b"refs/tags/" + name: sha for name, sha in repo.refs.as_dict(b"refs/tags").items()})
    client, path = client_for(git.bound, url)
    report: list[str] = []
    rejected: list[bytes] = []

    def decide(remote_refs: dict[bytes, bytes]) -> dict[bytes, bytes]:
        new = dict(remote_refs)
        for ref, sha in updates.items():
            old = remote_refs.get(ref)
            short = ref.split(b"/", 2)[2].decode()
            src = short if sha != ZERO_SHA else ""
            if old == sha:
                report.append(f" = [up to date]      {src} -> {short}\n")
                continue
            if sha != ZERO_SHA and old and old != ZERO_SHA and "force" not in found and \
                    ref.startswith(b"refs/heads/") and (old not in repo.object_store or
                                                        not can_fast_forward(repo, old, sha)):
                report.append(f" ! [rejected]        {src} -> {short} (fetch first)\n"
                              if old not in repo.object_store else
                              f" ! [rejected]        {src} -> {short} (non-fast-forward)\n")
                rejected.append(ref)
                continue
            if sha == ZERO_SHA:
                report.append(f" - [deleted]         {short}\n")
            elif not old:
                kind = "tag" if ref.startswith(b"refs/tags/") else "branch"
                report.append(f" * [new {kind}]      {src} -> {short}\n".replace(
                    "[new tag]      ", "[new tag]         "))
            else:
                mark = "+" if "force" in found else " "
                dots = "..." if "force" in found else ".."
                report.append(f" {mark} {old.decode()[:7]}{dots}{sha.decode()[:7]}  {src} -> "
                              f"{short}\n")
            new[ref] = sha
        return new

    try:
        result = client.send_pack(path, decide, repo.generate_pack_data)
    except _FAILURES as exc:
        raise remote_failure(exc, url) from None
    failed = [ref for ref, why in (result.ref_status or {}).items() if why]
    if "quiet" not in found or rejected or failed:
        git.err(f"To {url}\n" + "".join(report))
    if rejected or failed:
        git.err(f"error: failed to push some refs to '{url}'\n")
        return 1
    for ref, sha in updates.items():
        if ref.startswith(b"refs/heads/"):
            tracking = f"refs/remotes/{remote}/".encode() + ref[len(b"refs/heads/"):]
            if sha == ZERO_SHA:
                if tracking in repo.refs:
                    del repo.refs[tracking]
            else:
                repo.refs[tracking] = sha
    if "upstream" in found and current != "detached HEAD":
        settings = repo.get_config()
        dest = specs[0].partition(":")[2] or specs[0].partition(":")[0]
        settings.set((b"branch", current.encode()), b"remote", remote.encode())
        settings.set((b"branch", current.encode()), b"merge", f"refs/heads/{dest}".encode())
        settings.write_to_path()
        git.out(f"branch '{current}' set up to track '{remote}/{dest}'.\n")
    return 0
