"""What a command name means, in the order the shell tries it (docs/shell.md, "Scripts"):

1. an alias (expanded when the line is read, so before anything else);
2. a shell keyword (``if``, ``for``...);
3. a function;
4. a builtin: every command of this shell (py_vfs/shell/commands/);
5. a script in a ``$PATH`` folder (``NAME``, ``NAME.jsh``, ``NAME.py``), folder by folder;
6. a skill's script (py_vfs/shell/skills.py).

``meanings`` answers `type -a`, `command -v` and `which`; ``every_command`` answers `commands`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..parser import KEYWORDS
from ..scripts import Script, every_script, locate
from .registry import COMMANDS

if TYPE_CHECKING:
    from ..context import Session
    from ..disk import Disk

KINDS = ("alias", "keyword", "function", "builtin", "file")  # bash's words (type -t)


@dataclass(frozen=True)
class Meaning:
    """One thing a name runs: its ``kind`` (one of ``KINDS``), the alias's value or the
    file's path (``text``), and for a file where it was found (``script``)."""

    name: str
    kind: str
    text: str = ""
    script: Script | None = None

    @property
    def origin(self) -> str:
        """Where it comes from, as `commands` says it: ``builtin``, ``function``, ``alias``,
        ``$PATH FOLDER``, ``skill NAME``, or ``path`` (a name with a ``/``)."""
        if self.script is None:
            return self.kind
        if self.script.skill:
            return f"skill {self.script.skill}"
        return f"$PATH {self.script.folder}" if self.script.folder else "path"


def meanings(session: Session, vfs: Disk, name: str, *, others: bool = True,
             every: bool = True, env: dict[str, str] | None = None,
             skipped: list[str] | None = None) -> list[Meaning]:
    """Everything ``name`` could run, the one that runs first: the alias, keyword, function and
    builtin (unless ``others`` is false), then the files a lookup finds with ``env``'s $PATH
    (default: the shell's; a name with a ``/``: that file, if it can run); the files a scoop
    could write go to ``skipped`` instead. Only the first, unless ``every``."""
    found: list[Meaning] = []
    if others and "/" not in name:
        if name in session.aliases:
            found.append(Meaning(name, "alias", session.aliases[name]))
        if name in KEYWORDS:
            found.append(Meaning(name, "keyword"))
        if name in session.functions:
            found.append(Meaning(name, "function"))
        if name in COMMANDS:
            found.append(Meaning(name, "builtin"))
    if found and not every:
        return found[:1]
    scripts = locate(vfs, session.cwd, name, env or session.environment(), skipped, every=every)
    if "/" in name:  # a path: only a file that can run (bash: an executable one)
        scripts = [script for script in scripts if _runnable(vfs, script.path)]
    return found + [Meaning(name, "file", script.path, script) for script in scripts]


def _runnable(vfs: Disk, path: str) -> bool:
    """A file named by its path runs when it has an ``x`` mode bit, or is a ``.jsh`` script."""
    try:
        return path.endswith(".jsh") or bool(vfs.stat(path).mode & 0o111)
    except OSError:
        return False


def every_command(session: Session, vfs: Disk) -> list[Meaning]:
    """Every name that runs something, with what runs it and all it shadows, sorted by name and
    then in the order of ``meanings`` (keywords are not commands and are left out)."""
    found: list[Meaning] = [Meaning(name, "alias", value)
                            for name, value in session.aliases.items()]
    found += [Meaning(name, "function") for name in session.functions]
    found += [Meaning(name, "builtin") for name in COMMANDS]
    scripts = every_script(vfs, session.cwd, session.environment())
    found += [Meaning(name, "file", script.path, script) for name, script in scripts]
    order = {kind: rank for rank, kind in enumerate(KINDS)}
    ranked = sorted(enumerate(found), key=lambda item: (item[1].name, order[item[1].kind],
                                                        item[0]))
    return [meaning for _, meaning in ranked]
