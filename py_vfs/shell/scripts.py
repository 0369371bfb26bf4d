"""Scripts from the disk: finding a command in the ``$PATH`` folders and running it.

A command name that is no builtin is looked up in each folder of ``$PATH`` (default
``DEFAULT_PATH``) as ``NAME``, ``NAME.jsh`` and ``NAME.py``, in that order; a name with a ``/`` is
a path. What runs it (docs/shell.md, "Scripts"):

- a ``.jsh`` file, or one whose ``#!`` line names ``jsh`` or ``node``: JavaScript in a worker
  realm of its own (py_vfs/shell/realm.py);
- a ``.py`` file or one whose ``#!`` line names python, when executable (a mode bit ``x``): as
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
from typing import TYPE_CHECKING

from .context import Context, describe, resolve
from .format import quote_name, visible
from .pipes import SIGPIPE_STATUS, BrokenPipe
from .python_run import run_python_file
from .realm import CANNOT_RUN, code_start, fail, run_in_realm
from .shebang import FIRST_LINE_BYTES, Interpreter, interpreter
from .shell_script import InvocationError, decode, parse_invocation, read_script, run_script
from .trust import SKIPPED, default_path, scoop_could_write

if TYPE_CHECKING:
    from .disk import Disk

DEFAULT_PATH = "/workspace/bin:/workspace/skills"  # the cone's (trust.py: a scoop's differs)
SUFFIXES = ("", ".jsh", ".py")  # tried in this order in each $PATH folder
NOT_FOUND = 127
SHEBANG_BYTES = FIRST_LINE_BYTES  # how much of a file is read to find its `#!` line


def search_path(env: dict[str, str], default: str = DEFAULT_PATH) -> list[str]:
    """The folders of ``$PATH`` (``default`` when unset); an empty entry is the cwd in sh
    and is skipped here (a script runs by ``./name``)."""
    return [folder for folder in env.get("PATH", default).split(":") if folder]


def _is_file(vfs: Disk, path: str) -> bool:
    try:
        return vfs.stat(path).type == "file"
    except OSError:
        return False


def find_scripts(vfs: Disk, cwd: str, name: str, env: dict[str, str],
                 skipped: list[str] | None = None) -> list[str]:
    """Every file the name ``name`` could run, first the one that runs: a name with a ``/`` is
    that path (if it is a file), else the ``$PATH`` folders' ``NAME``, ``NAME.jsh``,
    ``NAME.py``; in the cone (trust.guarded), not those a scoop could write, which go to
    ``skipped``."""
    if "/" in name:
        try:
            path = resolve(cwd, name)
        except OSError:
            return []
        return [path] if _is_file(vfs, path) else []
    if not name or name in (".", ".."):
        return []
    found = []
    for folder in search_path(env, default_path(vfs)):
        for suffix in SUFFIXES:
            path = posixpath.join(resolve(cwd, folder), name + suffix)
            if not _is_file(vfs, path):
                continue
            if not scoop_could_write(vfs, path):
                found.append(path)
            elif skipped is not None:
                skipped.append(path)
    return found


def script_names(vfs: Disk, cwd: str, env: dict[str, str]) -> set[str]:
    """The command names the ``$PATH`` folders offer (``NAME``, ``NAME.jsh``, ``NAME.py`` as
    ``NAME``), for Tab completion."""
    names: set[str] = set()
    for folder in search_path(env, default_path(vfs)):
        try:
            entries = vfs.readdir(resolve(cwd, folder))
        except OSError:
            continue
        for entry in entries:
            name = str(entry)
            if scoop_could_write(vfs, posixpath.join(resolve(cwd, folder), name)):
                continue
            for suffix in SUFFIXES:
                if suffix and name.endswith(suffix):
                    name = name[: -len(suffix)]
                    break
            names.add(name)
    return names


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
    found = find_scripts(ctx.vfs, ctx.cwd, name, ctx.env, skipped)
    if not found:
        if "/" not in name:
            note = f" ({quote_name(skipped[0])} {SKIPPED})" if skipped else ""
            return fail(ctx, "command not found" + note, NOT_FOUND)
        if _is_dir(ctx.vfs, ctx.cwd, name):
            return fail(ctx, "Is a directory", CANNOT_RUN)
        return fail(ctx, "No such file or directory", NOT_FOUND)
    path = found[0]
    if scoop_could_write(ctx.vfs, path):  # named by its path: not by the whole disk either
        return fail(ctx, f"Permission denied: {SKIPPED} (run it inside a scoop)", CANNOT_RUN)
    try:
        # bash checks the x bit first; a .jsh runs without one (docs/scripts.md).
        if not path.endswith(".jsh") and not _executable(ctx.vfs, path):
            return fail(ctx, "Permission denied", CANNOT_RUN)
        how = await _interpreter(ctx.vfs, path)
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
