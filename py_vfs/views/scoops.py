"""Scoops: ``vfs.scoop(name)``, a restricted view with a fixed layout (docs/sandbox.md):
``/workspace`` is the user's, ``/shared`` every scoop's, ``/scoops/<name>/{workspace,home,tmp}``
one scoop's own."""

from __future__ import annotations

from typing import Any

from ..core import paths
from ..core.errors import FsError
from ..disk.scope import Scope
from ..disk.writers import check_writer
from .restricted import RestrictedView

SCOOPS = "/scoops"
SHARED = "/shared"
SCOOP_FOLDERS = ("workspace", "home", "tmp")


def check_scoop(name: object) -> str:
    """A scoop's name: one path segment (a writer name ``scoop:<name>`` must fit too)."""
    if not isinstance(name, str) or not name or "/" in name or name in (".", "..") \
            or "\0" in name:
        raise FsError.of("EINVAL", "scoop").with_hint(
            f"a scoop's name is one path segment, such as 'planner', not {name!r}")
    check_writer(f"scoop:{name}")
    return name


async def open_scoop(vfs: Any, name: str, network: bool = False) -> RestrictedView:
    """The scoop ``name``'s view, its folders created first if needed (``vfs.scoop``);
    ``network``: whether its shell may reach the network (`curl`, `wget`), off by default."""
    home = paths.child(SCOOPS, check_scoop(name))
    for folder in SCOOP_FOLDERS:
        await vfs.mkdir(paths.child(home, folder), recursive=True)
    await vfs.mkdir(SHARED, recursive=True)
    return RestrictedView(vfs, Scope(write=[home, SHARED]), f"scoop:{name}",
                          network=network)


def scoop_names(vfs: Any) -> list[str]:
    """The scoops there are: the folders in ``/scoops``."""
    if not vfs.exists(SCOOPS):
        return []
    return [e.name for e in vfs.readdir(SCOOPS, with_types=True) if e.type == "directory"]
