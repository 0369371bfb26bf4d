"""Skills' scripts as commands: where the shell looks for skills, and the commands they offer
(docs/shell.md, "Scripts").

A skill is a folder holding a ``SKILL.md`` (the Agent Skills convention: the name and a
description of a task, with the files it needs beside it). Its scripts are the files directly in
the folder or in its ``scripts/`` subfolder whose name ends in ``.py``, ``.jsh``, ``.sh`` or
``.bash``, or that have an ``x`` mode bit; the command's name is the file's name without its
last extension (``tool.py`` runs as ``tool``). Skills are looked for in these skills folders,
in this order (``skills_folders``):

1. ``.agents/skills`` then ``.claude/skills`` in the current directory, then in each of its
   parents up to ``/`` (at most ``MAX_PARENTS`` levels up), nearest first;
2. the same two in ``$HOME``;
3. ``/workspace/skills``, ``/workspace/.agents/skills``, ``/workspace/.claude/skills``.

A name two skills offer runs the first one found: folders in that order, skills by name in a
folder, the skill's own files before its ``scripts/``. A command is looked up after the
builtins, the functions and the ``$PATH`` folders (py_vfs/shell/scripts.py).

There is no cache, so nothing can be stale (another tab, a mounted folder changed on the
computer): a lookup lists the skills folders that exist, each at most ``MAX_SKILLS`` skills and
each skill at most ``MAX_ENTRIES`` files (the first ones by name; the rest are not commands),
and stops after ``MAX_READ`` skills and files in all: a few ``readdir`` calls for a name no
builtin or ``$PATH`` folder answers. Nothing walks the disk.
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .context import list_entries, resolve

if TYPE_CHECKING:
    from .disk import Disk

SKILL_FILE = "SKILL.md"  # what makes a folder a skill
SCRIPTS_FOLDER = "scripts"  # a skill's scripts may also sit there (the Agent Skills layout)
SCRIPT_SUFFIXES = (".py", ".jsh", ".sh", ".bash")  # scripts even without an x mode bit
PROJECT_FOLDERS = (".agents/skills", ".claude/skills")  # in the cwd, its parents and $HOME
WORKSPACE_FOLDERS = ("/workspace/skills", "/workspace/.agents/skills",
                     "/workspace/.claude/skills")
MAX_PARENTS = 32  # levels above the current directory looked at
MAX_SKILLS = 256  # skills read in one skills folder (the first ones by name)
MAX_ENTRIES = 256  # files read in one skill folder or its scripts/ (the first ones by name)
MAX_READ = 4096  # skills and files looked at by one lookup in all (then it stops)


@dataclass(frozen=True)
class SkillScript:
    """A script a skill offers as a command: the command's ``name``, the file's ``path``, the
    skill's name (its folder's) and the skill's folder."""

    name: str
    path: str
    skill: str
    folder: str


def command_name(filename: str) -> str:
    """The command a file in a skill runs as: its name without its last extension
    (``tool.py`` -> ``tool``; a name without one, or a dot file's, as it is)."""
    stem, dot, _ = filename.rpartition(".")
    return stem if dot and stem else filename


def skills_folders(cwd: str, env: dict[str, str]) -> list[str]:
    """The folders skills are looked for in, in order (the module's list), each once; whether
    they exist is not asked here."""
    bases = [cwd]
    while bases[-1] != "/" and len(bases) <= MAX_PARENTS:
        bases.append(posixpath.dirname(bases[-1]))
    home = env.get("HOME", "")
    if home.startswith("/"):
        with contextlib.suppress(OSError):
            bases.append(resolve("/", home))
    found = [posixpath.join(base, folder) for base in bases for folder in PROJECT_FOLDERS]
    found += WORKSPACE_FOLDERS
    return list(dict.fromkeys(found))


def skill_scripts(vfs: Disk, cwd: str, env: dict[str, str],
                  name: str | None = None) -> Iterator[SkillScript]:
    """Every script the skills offer, in precedence order (a name offered twice comes twice:
    the first runs); only those named ``name`` when it is given. At most ``MAX_READ`` skills
    and files are looked at in all."""
    left = MAX_READ
    for folder in skills_folders(cwd, env):
        for skill in _skills(vfs, folder, left):
            left -= 1
            path = posixpath.join(folder, skill)
            for place in (path, posixpath.join(path, SCRIPTS_FOLDER)):
                files = _files(vfs, place, max(0, min(MAX_ENTRIES, left)))
                left -= len(files)
                for file in files:
                    wanted = name is None or command_name(file) == name
                    if wanted and _is_script(vfs, place, file):
                        yield SkillScript(command_name(file), posixpath.join(place, file),
                                          skill, path)
            if left <= 0:
                return


def _skills(vfs: Disk, folder: str, most: int) -> list[str]:
    """The skills in a skills folder: its subfolders holding a SKILL.md, by name (of the first
    ``most`` and ``MAX_SKILLS`` subfolders)."""
    try:
        entries = list_entries(vfs, folder)
    except OSError:
        return []
    names = sorted(entry.name for entry in entries
                   if entry.type in ("directory", "symlink") and not entry.name.startswith("."))
    return [name for name in names[:min(MAX_SKILLS, most)]
            if _is_file(vfs, posixpath.join(folder, name, SKILL_FILE))]


def _files(vfs: Disk, place: str, most: int) -> list[str]:
    """The first ``most`` names of ``place`` by name, but for dot files, SKILL.md and
    folders."""
    try:
        entries = list_entries(vfs, place)
    except OSError:
        return []
    names = sorted(entry.name for entry in entries if entry.type in ("file", "symlink"))
    return [file for file in names if not file.startswith(".") and file != SKILL_FILE][:most]


def _is_script(vfs: Disk, place: str, file: str) -> bool:
    """A file of a skill is a command: its name ends in ``SCRIPT_SUFFIXES`` or it has an x."""
    try:
        node = vfs.stat(posixpath.join(place, file))
    except OSError:
        return False
    return node.type == "file" and (file.endswith(SCRIPT_SUFFIXES) or bool(node.mode & 0o111))


def _is_file(vfs: Disk, path: str) -> bool:
    try:
        return vfs.stat(path).type == "file"
    except OSError:
        return False
