"""`git branch`, `git checkout`, `git switch` and `git tag`."""

from __future__ import annotations

import posixpath

from dulwich.objects import Commit, Tag

from .git_base import Git, Usage, options, subcommand
from .git_diff import index_side
from .git_files import clean_message
from .git_repo import GitError, branch_label, identity, worktree_path
from .git_show import head_tree, resolve, tracking
from .git_worktree import restore_paths, switch_trees


def _branches(git: Git) -> dict[bytes, bytes]:
    return {name: git.repo.refs[b"refs/heads/" + name]
            for name in git.repo.refs.keys(base=b"refs/heads")}


def _check_name(name: str, what: str = "branch") -> None:
    from dulwich.refs import check_ref_format
    if not name or name.startswith("-") or not check_ref_format(
            f"refs/heads/{name}".encode("utf-8", "surrogateescape")):
        raise GitError(f"'{name}' is not a valid {what} name")


def _head_id(git: Git) -> bytes | None:
    try:
        return git.repo.refs[b"HEAD"]
    except KeyError:
        return None


def create_branch(git: Git, name: str, start: str | None, force: bool = False) -> bytes:
    """Make branch ``name`` at ``start`` (HEAD by default); its commit id."""
    _check_name(name)
    ref = b"refs/heads/" + name.encode("utf-8", "surrogateescape")
    if ref in git.repo.refs and not force:
        raise GitError(f"a branch named '{name}' already exists")
    target = resolve(git, start).id if start else _head_id(git)
    if target is None:
        raise GitError(f"not a valid object name: '{branch_label(git.repo)}'")
    git.repo.refs.set_if_equals(ref, None, target, message=f"branch: Created from "
                                f"{start or 'HEAD'}".encode("utf-8", "surrogateescape"))
    return target


@subcommand("branch")
def branch(git: Git, args: list[str]) -> int:
    """`git branch [-v]`, `git branch NAME [START]`, `git branch -d|-D NAME...`,
    `git branch -m [OLD] NEW`."""
    found, operands = options(args, {"-d": "delete", "--delete": "delete", "-D": "force_delete",
                                     "-v": "verbose", "-f": "force", "--force": "force",
                                     "-m": "move", "-a": "all", "--all": "all",
                                     "--show-current": "current", "-l": "list",
                                     "--list": "list"}, {})
    repo = git.repo
    current = branch_label(repo)
    if "current" in found:
        git.out("" if current == "detached HEAD" else f"{current}\n")
        return 0
    if "delete" in found or "force_delete" in found:
        if not operands:
            raise GitError("branch name required")
        status = 0
        for name in operands:
            status = max(status, _delete(git, name, current, "force_delete" in found))
        return status
    if "move" in found:
        old, new = (current, operands[0]) if len(operands) == 1 else operands[:2]
        target = create_branch(git, new, old)
        del repo.refs[b"refs/heads/" + old.encode("utf-8", "surrogateescape")]
        if old == current:
            repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/" + new.encode())
        del target
        return 0
    if operands and "list" not in found:
        create_branch(git, operands[0], operands[1] if len(operands) > 1 else None,
                      "force" in found)
        return 0
    lines = []
    if current == "detached HEAD" and _head_id(git):
        lines.append(f"* (HEAD detached at {(_head_id(git) or b'').decode()[:7]})")
    for name, target in sorted(_branches(git).items()):
        text = name.decode("utf-8", "surrogateescape")
        mark = "* " if text == current else "  "
        line = f"{mark}{text}"
        if "verbose" in found:
            width = max(len(n) for n in _branches(git))
            subject = repo[target].message.decode("utf-8", "surrogateescape").split("\n")[0]
            line = f"{mark}{text.ljust(width)} {target.decode()[:7]} {subject}"
        lines.append(line)
    if "all" in found:
        for name in sorted(repo.refs.keys(base=b"refs/remotes")):
            lines.append(f"  remotes/{name.decode('utf-8', 'surrogateescape')}")
    git.out("".join(f"{line}\n" for line in lines))
    return 0


def _delete(git: Git, name: str, current: str, force: bool) -> int:
    repo = git.repo
    ref = b"refs/heads/" + name.encode("utf-8", "surrogateescape")
    if ref not in repo.refs:
        git.err(f"error: branch '{name}' not found.\n")
        return 1
    if name == current:
        git.err(f"error: Cannot delete branch '{name}' checked out at "
                f"'{repo.path.rstrip('/')}'\n")
        return 1
    target = repo.refs[ref]
    head = _head_id(git)
    if not force and head is not None:
        from dulwich.graph import can_fast_forward
        if target != head and not can_fast_forward(repo, target, head):
            git.err(f"error: The branch '{name}' is not fully merged.\nIf you are sure you "
                    f"want to delete it, run 'git branch -D {name}'.\n")
            return 1
    del repo.refs[ref]
    config = repo.get_config()
    section = (b"branch", name.encode("utf-8", "surrogateescape"))
    if config.has_section(section):
        del config[section]
        config.write_to_path()
    git.out(f"Deleted branch {name} (was {target.decode()[:7]}).\n")
    return 0


def switch_to(git: Git, name: str | None, commit: Commit, force: bool = False) -> None:
    """Check out ``commit``'s tree and point HEAD at branch ``name`` (None: detached)."""
    repo = git.repo
    switch_trees(git, head_tree(git), commit.tree, force=force)
    if name is None:  # detached: HEAD holds the id itself (setting it would move a branch)
        with open(posixpath.join(repo.controldir(), "HEAD"), "wb") as file:
            file.write(commit.id + b"\n")
    else:
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/" + name.encode(
            "utf-8", "surrogateescape"))


def _upstream_note(git: Git) -> None:
    note = tracking(git)
    if note:
        git.out(note.removesuffix("\n"))


@subcommand("checkout")
def checkout(git: Git, args: list[str]) -> int:
    """`git checkout BRANCH|COMMIT`, `git checkout -b|-B NEW [START]`,
    `git checkout [COMMIT] -- PATH...`."""
    found, operands = options(args, {"-f": "force", "--force": "force", "-q": "quiet",
                                     "--detach": "detach"},
                              {"-b": "new", "-B": "reset"})
    if "--" in found:
        split = len(operands) - len(args[args.index("--") + 1:])
        return _restore(git, operands[:split], operands[split:])
    return _switch(git, found, operands, "checkout")


def _restore(git: Git, revisions: list[str], paths: list[str]) -> int:
    repo = git.repo
    if revisions:
        from .git_diff import tree_side
        source = tree_side(repo, resolve(git, revisions[0]).tree)
    else:
        source = index_side(repo.open_index())
    restore_paths(git, [worktree_path(repo, git.cwd, p) for p in paths], source, paths)
    return 0


def _switch(git: Git, found: dict, operands: list[str], verb: str) -> int:
    repo = git.repo
    new = (found.get("new") or found.get("reset") or [None])[-1]
    force = "force" in found
    if new is not None:
        start = operands[0] if operands else None
        if "reset" not in found:
            ref = b"refs/heads/" + new.encode("utf-8", "surrogateescape")
            if ref in repo.refs:
                raise GitError(f"a branch named '{new}' already exists")
        target = repo[create_branch(git, new, start, force=True)]
        switch_to(git, new, target, force)
        git.err(f"Switched to a new branch '{new}'\n" if "reset" not in found
                else f"Switched to and reset branch '{new}'\n")
        return 0
    if not operands:
        if verb == "switch":
            raise GitError("missing branch or commit argument")
        return 0
    name = operands[0]
    if name == "-":
        raise Usage("'-' (the previous branch) is not supported")
    ref = b"refs/heads/" + name.encode("utf-8", "surrogateescape")
    if ref in repo.refs and "detach" not in found:
        if name == branch_label(repo):
            git.err(f"Already on '{name}'\n")
            _upstream_note(git)
            return 0
        switch_to(git, name, repo[repo.refs[ref]], force)
        git.err(f"Switched to branch '{name}'\n")
        _upstream_note(git)
        return 0
    remote = _remote_branch(git, name)
    if remote is not None and "detach" not in found:
        return _track(git, name, remote, force)
    try:
        target = resolve(git, name)
    except GitError:
        if verb == "switch":
            raise GitError(f"invalid reference: {name}") from None
        if len(operands) >= 1:
            return _restore(git, [], operands)
        raise
    if verb == "switch" and "detach" not in found:
        raise GitError(f"a branch is expected, got '{name}'")
    switch_to(git, None, target, force)
    subject = target.message.decode("utf-8", "surrogateescape").split("\n")[0]
    git.err(f"HEAD is now at {target.id.decode()[:7]} {subject}\n")
    return 0


def _remote_branch(git: Git, name: str) -> bytes | None:
    """The single remote-tracking branch ``name`` (``origin/NAME``), for `checkout NAME`."""
    found = [ref for ref in git.repo.refs.keys(base=b"refs/remotes")
             if ref.split(b"/", 1)[-1] == name.encode("utf-8", "surrogateescape")]
    return b"refs/remotes/" + found[0] if len(found) == 1 else None


def _track(git: Git, name: str, remote_ref: bytes, force: bool) -> int:
    repo = git.repo
    remote = remote_ref.split(b"/")[2]
    target = repo[repo.refs[remote_ref]]
    create_branch(git, name, remote_ref.decode())
    config = repo.get_config()
    section = (b"branch", name.encode("utf-8", "surrogateescape"))
    config.set(section, b"remote", remote)
    config.set(section, b"merge", b"refs/heads/" + name.encode("utf-8", "surrogateescape"))
    config.write_to_path()
    switch_to(git, name, target, force)
    git.out(f"branch '{name}' set up to track '{remote.decode()}/{name}'.\n")
    git.err(f"Switched to a new branch '{name}'\n")
    return 0


@subcommand("switch")
def switch(git: Git, args: list[str]) -> int:
    """`git switch BRANCH`, `git switch -c|-C NEW [START]`, `git switch --detach COMMIT`."""
    found, operands = options(args, {"-f": "force", "--force": "force", "--discard-changes":
                                     "force", "-q": "quiet", "--detach": "detach",
                                     "-d": "detach"},
                              {"-c": "new", "--create": "new", "-C": "reset",
                               "--force-create": "reset"})
    return _switch(git, found, operands, "switch")


@subcommand("tag")
def tag(git: Git, args: list[str]) -> int:
    """`git tag [-l]`, `git tag NAME [COMMIT]`, `git tag -a NAME -m MESSAGE [COMMIT]`,
    `git tag -d NAME...`."""
    found, operands = options(args, {"-a": "annotate", "--annotate": "annotate",
                                     "-d": "delete", "--delete": "delete", "-l": "list",
                                     "--list": "list", "-f": "force", "--force": "force"},
                              {"-m": "message", "--message": "message"})
    repo = git.repo
    if "delete" in found:
        status = 0
        for name in operands:
            ref = b"refs/tags/" + name.encode("utf-8", "surrogateescape")
            if ref not in repo.refs:
                git.err(f"error: tag '{name}' not found.\n")
                status = 1
                continue
            was = repo.refs[ref]
            del repo.refs[ref]
            git.out(f"Deleted tag '{name}' (was {was.decode()[:7]})\n")
        return status
    if not operands or "list" in found:
        names = sorted(repo.refs.keys(base=b"refs/tags"))
        git.out("".join(f"{n.decode('utf-8', 'surrogateescape')}\n" for n in names))
        return 0
    name = operands[0]
    _check_name(name, "tag")
    ref = b"refs/tags/" + name.encode("utf-8", "surrogateescape")
    if ref in repo.refs and "force" not in found:
        raise GitError(f"tag '{name}' already exists")
    target = resolve(git, operands[1] if len(operands) > 1 else "HEAD")
    if "annotate" in found or "message" in found:
        if "message" not in found:
            raise GitError("no tag message given: git tag -a NAME -m MESSAGE (there is no "
                           "editor here)")
        made = Tag()
        made.name = name.encode("utf-8", "surrogateescape")
        made.object = (Commit, target.id)
        made.tagger, made.tag_time, made.tag_timezone = identity(
            repo.get_config_stack(), git.env, "COMMITTER")
        made.message = clean_message("\n\n".join(found["message"])).encode(
            "utf-8", "surrogateescape")
        repo.object_store.add_object(made)
        repo.refs[ref] = made.id
    else:
        repo.refs[ref] = target.id
    return 0
