"""Which scripts the unrestricted shell (the "cone") may pick up by name (docs/scripts.md,
"Folders a scoop can write").

A scoop writes ``/scoops/<name>`` and ``/shared``. A script there that the cone ran by name
would run with the cone's rights, the whole disk: a scoop could plant ``/shared/bin/less.py``
and wait for the user to type ``less``. So:

- the cone's default ``$PATH`` has no ``/shared/bin`` (``CONE_PATH``); a shell inside a view
  (a scoop) keeps it (``VIEW_PATH``);
- whatever ``$PATH`` holds, the cone's lookup skips a file a scoop could write: one whose path,
  a symlink on the way to it, or the file it leads to lies below ``/shared`` or ``/scoops``
  (``scoop_could_write``). ``which`` and ``command not found`` say what was skipped.

The same holds for a shell on any view that may write outside ``/shared`` and ``/scoops``
(``guarded``): a script a scoop wrote would get what that view may write and the scoop may not.
In a scoop's own view (or a narrower one) nothing is skipped: what runs there has no more than
any scoop's rights.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from ..core import paths

if TYPE_CHECKING:
    from .disk import Disk

CONE_PATH = "/workspace/bin:/workspace/skills"
VIEW_PATH = "/workspace/bin:/shared/bin:/workspace/skills"
SCOOP_ROOTS = ("/shared", "/scoops")  # what some scoop may write (py_vfs/views/scoops.py)
MAX_HOPS = 40  # symlinks followed before giving up, as Linux's ELOOP
SKIPPED = "not run from the whole disk: a scoop can write it"  # why, as `which` says


def guarded(vfs: Any) -> bool:
    """True when a shell on ``vfs`` may write what no scoop may: the whole disk (the cone), or
    a view with a writable path outside ``/shared`` and ``/scoops``."""
    scope = getattr(vfs, "scope", None)
    return scope is None or not all(in_scoop_reach(prefix) for prefix in scope.write)


def default_path(vfs: Any) -> str:
    """``$PATH`` when the shell starts (and while it is unset) on ``vfs``."""
    return CONE_PATH if guarded(vfs) else VIEW_PATH


def in_scoop_reach(path: str) -> bool:
    """``path`` (absolute, normalized) lies in ``/shared`` or ``/scoops``."""
    return any(paths.is_within(path, root) for root in SCOOP_ROOTS)


def scoop_could_write(vfs: Disk, path: str) -> bool:
    """True when the shell on ``vfs`` is ``guarded`` and a scoop could change what ``path``
    runs: the path itself, a symlink met on the way, or where the links lead is in a scoop's
    reach (also when the links cannot be followed to the end)."""
    if not guarded(vfs):
        return False
    return any(in_scoop_reach(place) for place in _places(vfs, path))


def _places(vfs: Disk, path: str) -> list[str]:
    """``path``, every symlink met while following it, and where it leads (lexically, as the
    resolver walks); a walk that fails or loops ends with the scoop root, to be refused."""
    places = [path]
    pending = [part for part in path.split("/") if part]
    current, hops = "/", 0
    while pending:
        part = pending.pop(0)
        if part in (".", ".."):
            current = posixpath.dirname(current) if part == ".." else current
            continue
        step = paths.child(current, part)
        try:
            node = vfs.lstat(step)
        except OSError:
            return [*places, step]
        if node.type != "symlink":
            current = step
            continue
        hops += 1
        try:
            target = vfs.readlink(step)
        except OSError:
            target = ""
        if hops > MAX_HOPS or not target:
            return [*places, SCOOP_ROOTS[0]]
        places.append(step)
        current = "/" if target.startswith("/") else current
        pending = [piece for piece in target.split("/") if piece] + pending
    return [*places, current]
