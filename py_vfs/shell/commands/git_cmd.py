"""`git`: the version control commands on the disk (docs/shell.md, "git"), on dulwich.

This module registers the command, reads the subcommand and hands it to its module; the work
runs synchronously with Python's file API on the VFS (``git_runner``). Our output is git's
porcelain for the common flags; failures are git's (``fatal: ...``, status 128; usage errors
status 129).
"""

from __future__ import annotations

import posixpath

from ..context import Context
from .git_base import SUBCOMMANDS, Git, Usage
from .git_runner import Bound, Stopped, can_run, run_bound
from .registry import command

INTERRUPTED = 130


def _load() -> None:
    """Import the subcommands' modules (dulwich with them) on the first run. dulwich first:
    in the page its import installs the wheels (py_vfs/web/lazy_wheels.py)."""
    import dulwich  # noqa: F401
    import merge3  # noqa: F401

    from . import (  # noqa: F401
        git_branching,
        git_config,
        git_files,
        git_merge,
        git_remote,
        git_show,
    )


def _work(bound: Bound, args: list[str]) -> int:
    ctx = bound.ctx
    cwd = ctx.cwd
    while args and args[0] == "-C" and len(args) > 1:
        cwd = posixpath.normpath(posixpath.join(cwd, args[1]))
        args = args[2:]
    if not args:
        bound.err("usage: git [-C <path>] <command> [<args>]\n")
        return 1
    name, rest = args[0], args[1:]
    run = SUBCOMMANDS.get(name)
    if run is None:
        bound.err(f"git: '{name}' is not a git command. See 'git --help'.\n")
        return 1
    from .git_repo import GitError
    git = Git(bound, ctx.env, cwd)
    try:
        return run(git, rest)
    except Usage as exc:
        git.err(f"error: {exc}\n")
        return 129
    except GitError as exc:
        git.err(f"{exc.prefix}{exc}\n")
        return exc.status
    except OSError as exc:  # the disk refused (a scoop's read-only folder, a full disk...)
        where = f"{exc.filename}: " if exc.filename else ""
        git.err(f"fatal: {where}{exc.strerror or exc}\n")
        return 128


@command("git [-C PATH] COMMAND [ARGS...]", "version control (init, clone, status, add, "
         "commit, log, diff, branch, checkout, merge, tag, remote, fetch, pull, push, config)")
async def git(ctx: Context, args: list[str]) -> int:
    """Run a git subcommand on the disk's repositories (docs/shell.md, "git")."""
    if args in (["--version"], ["version"]):
        ctx.out("git version 2.39.5 (py_vfs, dulwich)\n")
        return 0
    if not can_run():
        ctx.err("cannot run here: git waits for the disk synchronously, which needs a "
                "browser with JSPI (WebAssembly stack switching)")
        return 1
    try:
        _load()
    except ImportError as exc:
        ctx.err(f"dulwich is not installed (pip install 'py_vfs[git]'): {exc}")
        return 1
    try:
        return await run_bound(ctx, lambda bound: _work(bound, list(args)))
    except Stopped:
        return INTERRUPTED

