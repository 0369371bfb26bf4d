"""Scripts from the disk: finding a command in the ``$PATH`` folders and running it.

A command name that is no builtin is looked up in each folder of ``$PATH`` (default
``DEFAULT_PATH``) as ``NAME``, ``NAME.jsh`` and ``NAME.py``, in that order, then among the
skills' scripts (py_vfs/shell/skills.py); a name with a ``/`` is a path. What runs it
(docs/shell.md, "Scripts"):

- a ``.jsh`` file, or one whose ``#!`` line names ``jsh`` or ``node``: JavaScript in a worker
  realm of its own (py_vfs/shell/realm.py);
- a ``.py`` file or one whose ``#!`` line names python, when executable (a mode bit ``x``; a
  skill's script needs none, as a skill's instructions run it with ``python FILE``): as
  ``python FILE`` would (commands/python_cmd.py): in this Python, or inside a scoop in the
  scoop's realm;
- one whose ``#!`` line names ``sh`` or ``bash`` (``#!/usr/bin/env bash``), or a text file
  without a ``#!`` line, when executable: a shell script, in a new shell process of this
  shell (shell_script.py);
- not executable: ``Permission denied``, 126; another interpreter: 127 as bash 5.2
  (shebang.py); no such file: 127 ``command not found``.

A running script is interrupted by the call's signal (Ctrl-C): ``interruptible`` cancels the
awaiting task, and the script ends with status 130.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .context import Context, describe, resolve
from .format import quote_name, visible
from .pipes import SIGPIPE_STATUS, BrokenPipe
from .python_run import run_python_file
from .realm import CANNOT_RUN, code_start, fail, run_in_realm
from .shebang import FIRST_LINE_BYTES, Interpreter, interpreter
from .shell_script import InvocationError, decode, parse_invocation, read_script, run_script
from .skills import skill_scripts
from .trust import SKIPPED, default_path, scoop_could_write

if TYPE_CHECKING:
    from .disk import Disk

DEFAULT_PATH = "/workspace/bin:/workspace/skills"  # the cone's (trust.py: a scoop's differs)
SUFFIXES = ("", ".jsh", ".py")  # tried in this order in each $PATH folder
NOT_FOUND = 127
SHEBANG_BYTES = FIRST_LINE_BYTES  # how much of a file is read to find its `#!` line
MAX_LISTED = 4096  # files of one $PATH folder that `commands` and Tab look at


def search_path(env: dict[str, str], default: str = DEFAULT_PATH) -> list[str]:
    """The folders of ``$PATH`` (``default`` when unset); an empty entry is the cwd in sh
    and is skipped here (a script runs by ``./name``)."""
    return [folder for folder in env.get("PATH", default).split(":") if folder]


def _is_file(vfs: Disk, path: str) -> bool:
    try:
        return vfs.stat(path).type == "file"
    except OSError:
        return False


@dataclass(frozen=True)
class Script:
    """A file a command name runs, and where it was found: ``folder`` is the ``$PATH`` folder
    or the skill's folder ("" for a name with a ``/``), ``skill`` the skill's name ("" when
    not a skill's)."""

    path: str
    folder: str = ""
    skill: str = ""


def locate(vfs: Disk, cwd: str, name: str, env: dict[str, str],
           skipped: list[str] | None = None, *, every: bool = True) -> list[Script]:
    """Every file the name ``name`` could run, first the one that runs (only that one unless
    ``every``): a name with a ``/`` is that path (if it is a file), else the ``$PATH`` folders'
    ``NAME``, ``NAME.jsh``, ``NAME.py``, then the skills' scripts named ``name``; in the cone
    (trust.guarded), not those a scoop could write, which go to ``skipped``."""
    if "/" in name:
        try:
            path = resolve(cwd, name)
        except OSError:
            return []
        return [Script(path)] if _is_file(vfs, path) else []
    if not name or name in (".", ".."):
        return []
    found = []
    for script in _candidates(vfs, cwd, name, env):
        if not scoop_could_write(vfs, script.path):
            found.append(script)
            if not every:
                break
        elif skipped is not None:
            skipped.append(script.path)
    return found


def _candidates(vfs: Disk, cwd: str, name: str, env: dict[str, str]) -> Iterator[Script]:
    """The files named ``name`` in the $PATH folders, then in the skills, as they are met."""
    for folder in search_path(env, default_path(vfs)):
        for suffix in SUFFIXES:
            path = posixpath.join(resolve(cwd, folder), name + suffix)
            if _is_file(vfs, path):
                yield Script(path, folder)
    for offered in skill_scripts(vfs, cwd, env, name):
        yield Script(offered.path, offered.folder, offered.skill)


def find_scripts(vfs: Disk, cwd: str, name: str, env: dict[str, str],
                 skipped: list[str] | None = None) -> list[str]:
    """The paths of ``locate``: every file ``name`` could run, the one that runs first."""
    return [script.path for script in locate(vfs, cwd, name, env, skipped)]


def every_script(vfs: Disk, cwd: str, env: dict[str, str]) -> list[tuple[str, Script]]:
    """Every command the ``$PATH`` folders and the skills offer, as (name, script), in the
    order a lookup meets them (a name met twice: the first one runs). Of a ``$PATH`` folder,
    as ``compgen -c`` lists them, the files that can run: with an ``x`` mode bit, or ``.jsh``
    (``NAME``, ``NAME.jsh``, ``NAME.py`` as ``NAME``; the first ``MAX_LISTED`` by name); not
    those a scoop could write, in the cone."""
    found: list[tuple[str, Script]] = []
    for folder in search_path(env, default_path(vfs)):
        try:
            place = resolve(cwd, folder)
            entries = sorted(str(entry) for entry in vfs.readdir(place))[:MAX_LISTED]
        except OSError:
            continue
        for entry in sorted(entries, key=_suffix_rank):
            path = posixpath.join(place, entry)
            name = _strip_suffix(entry)
            if name and _can_run(vfs, path) and not scoop_could_write(vfs, path):
                found.append((name, Script(path, folder)))
    for offered in skill_scripts(vfs, cwd, env):
        if not scoop_could_write(vfs, offered.path):
            found.append((offered.name, Script(offered.path, offered.folder, offered.skill)))
    return found


def _can_run(vfs: Disk, path: str) -> bool:
    """A file of a $PATH folder that may run by name: an ``x`` mode bit, or a ``.jsh``."""
    try:
        node = vfs.stat(path)
    except OSError:
        return False
    return node.type == "file" and (path.endswith(".jsh") or bool(node.mode & 0o111))


def _suffix_rank(entry: str) -> int:
    """Where ``entry`` comes in a folder's lookup order: NAME, NAME.jsh, NAME.py."""
    for rank, suffix in reversed(list(enumerate(SUFFIXES))):
        if entry.endswith(suffix):
            return rank
    return 0


def _strip_suffix(entry: str) -> str:
    for suffix in SUFFIXES:
        if suffix and entry.endswith(suffix):
            return entry[: -len(suffix)]
    return entry


def script_names(vfs: Disk, cwd: str, env: dict[str, str]) -> set[str]:
    """The command names the ``$PATH`` folders and the skills offer, for Tab completion."""
    return {name for name, _ in every_script(vfs, cwd, env)}


async def kind_of(vfs: Disk, path: str) -> str | None:
    """``"sh"``, ``"jsh"``, ``"python"``, or None for a file this shell cannot run
    (shebang.py)."""
    return (await _interpreter(vfs, path)).kind


async def _interpreter(vfs: Disk, path: str) -> Interpreter:
    first = b"".join([chunk async for chunk in vfs.open_read(path, 0, SHEBANG_BYTES)])
    return interpreter(path, first)


def _executable(vfs: Disk, path: str) -> bool:
    return bool(vfs.stat(path).mode & 0o111)


async def run_external(ctx: Context, argv: list[str]) -> int:
    """Run ``argv[0]`` as a script (the interpreter's answer to a name that is no builtin):
    127 when nothing is found, 126 when the file cannot run, else the script's status."""
    name = argv[0]
    skipped: list[str] = []
    found = locate(ctx.vfs, ctx.cwd, name, ctx.env, skipped, every=False)
    if not found:
        if "/" not in name:
            note = f" ({quote_name(skipped[0])} {SKIPPED})" if skipped else ""
            return fail(ctx, "command not found" + note, NOT_FOUND)
        if _is_dir(ctx.vfs, ctx.cwd, name):
            return fail(ctx, "Is a directory", CANNOT_RUN)
        return fail(ctx, "No such file or directory", NOT_FOUND)
    path = found[0].path
    if scoop_could_write(ctx.vfs, path):  # named by its path: not by the whole disk either
        return fail(ctx, f"Permission denied: {SKIPPED} (run it inside a scoop)", CANNOT_RUN)
    try:
        how = await _interpreter(ctx.vfs, path)
        # bash checks the x bit; a .jsh runs without one, and so does a skill's Python script
        # (a skill's instructions run it with `python FILE`: docs/scripts.md).
        exempt = path.endswith(".jsh") or (found[0].skill and how.kind == "python")
        if not exempt and not _executable(ctx.vfs, path):
            return fail(ctx, "Permission denied", CANNOT_RUN)
    except OSError as exc:
        return fail(ctx, describe(exc), CANNOT_RUN)
    if how.kind is None:
        if how.raw:
            ctx.stderr.write_nowait(visible(how.error) + "\n")
            return how.status
        return fail(ctx, how.error, how.status)
    try:
        if how.kind == "jsh":
            return await run_jsh(ctx, path, argv[1:])
        if how.kind == "sh":
            return await run_shell_file(ctx, path, [name if "/" in name else path, *argv[1:]],
                                        how.args)
        return await run_python_file(ctx, path, argv[1:])
    except BrokenPipe:
        return SIGPIPE_STATUS


async def run_shell_file(ctx: Context, path: str, argv: list[str], shebang: list[str]) -> int:
    """Run the shell script at ``path`` as a new shell process, ``$0`` ``argv[0]``, with the
    options its ``#!`` line gives (``#!/bin/sh -e``, read as ``sh`` reads them)."""
    try:
        found = parse_invocation([word for arg in shebang for word in arg.split()])
    except InvocationError as exc:
        return fail(ctx, str(exc), exc.status)
    try:
        data = await read_script(ctx, path)
    except OSError as exc:
        return fail(ctx, describe(exc), CANNOT_RUN)
    return await run_script(ctx, decode(data), argv, found.options)


async def run_command(ctx: Context, args: list[str]) -> int:
    """``run_external`` for the command ``ctx.name`` with ``args``, as a command's run."""
    return await run_external(ctx, [ctx.name, *args])


def _is_dir(vfs: Disk, cwd: str, name: str) -> bool:
    try:
        return vfs.stat(resolve(cwd, name)).type == "directory"
    except OSError:
        return False


async def run_jsh(ctx: Context, path: str, args: list[str]) -> int:
    """Run the ``.jsh`` script at ``path`` in a realm of its own with ``fs`` restricted as the
    shell is (its view inside a scoop); its exit status."""
    data = await ctx.vfs.read_file(path)
    source = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return await run_in_realm(ctx, code_start(ctx, "jsh", path, source, ["jsh", path, *args]))
