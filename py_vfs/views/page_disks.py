"""Which disk Python code in the page reaches by name: the disk its worker serves, or the view
the running code works on (docs/python.md).

The worker serves one disk (worker/worker.mjs records it here by name). A shell command runs
on the disk or on a restricted view of it (a scoop): ``working_on`` holds the one the running
command works on, a context variable that the shell sets around each command, so a script run
by ``python`` (from the terminal, a ``.py`` script, ``vfs.runPython``) and every task it starts
see it. ``reach(name)`` is what ``fsspec.filesystem("pyvfs", name=...)`` resolves, at each
call (fsspec caches one instance per set of options, shared by every caller):

- outside a restricted view: the page's disk, when ``name`` is None or its name; another name
  is ENOENT (each disk is served by a worker of its own);
- inside a restricted view: that view and nothing else. ``name`` may be None or the disk's
  own name (the view's paths are the disk's); another name is EACCES, as is any way out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..core.errors import FsError
from .restricted import RestrictedView

_page: dict[str, Any] = {}  # {"name": the disk's name, "vfs": its VFS}, once the worker opened it

# The disk or the view the running shell command works on (None outside the shell): the one
# source of it for fsspec (``reach``) and for Python's own file API (``py_vfs.pyhost``).
working_on: ContextVar[Any] = ContextVar("py_vfs_working_on", default=None)


@contextmanager
def working(view: Any) -> Iterator[Any]:
    """Runs the block with ``view`` (a VFS or a restricted view) as the one the running code
    works on, as the shell does around each command."""
    token = working_on.set(view)
    try:
        yield view
    finally:
        working_on.reset(token)


def serve(name: str, api: Any) -> None:
    """Records the disk this worker serves: ``name`` (openVFS's) and its API (a ``WebAPI``)."""
    record(name, api.vfs)


def record(name: str, vfs: Any) -> None:
    """Records the disk (or, in a scoop's realm, the view) this Python reaches by ``name``."""
    _page.update(name=name, vfs=vfs)


def confined(vfs: Any) -> bool:
    """True for a restricted view, here or reached over a realm's port (``confined``)."""
    return isinstance(vfs, RestrictedView) or bool(getattr(vfs, "confined", False))


def served() -> str | None:
    """The name of the disk this Python serves (None: no page disk, as on CPython)."""
    return _page.get("name")


def reach(name: str | None) -> Any:
    """The disk or view that code running now reaches as the page's disk ``name`` (None: the
    one it works on): see the module docstring."""
    current = working_on.get()
    if "vfs" not in _page:
        raise FsError.of("ENOENT", "open", name).with_hint(
            "no page disk in this Python: fsspec's name= names the disk of the page's worker")
    own = _page["name"]
    if confined(current):
        if name not in (None, own):
            raise FsError.of("EACCES", "open", name).with_hint(
                "code running in a restricted view reaches only that view")
        return current
    if name not in (None, own):
        raise FsError.of("ENOENT", "open", name).with_hint(
            f"this worker serves the disk {own!r}; each disk is served by a worker of its own")
    return current if current is not None else _page["vfs"]
