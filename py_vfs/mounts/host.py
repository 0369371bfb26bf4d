"""Where the folders to mount come from: the shell asks its host.

In the browser only the page can show a folder picker and keep the handles (the worker that
runs Python cannot), so the browser's host forwards the shell's ``mount``, ``unmount`` and
``reconnect`` to the page (``fsa.BrowserHost``). On CPython, and in tests, ``LocalHost`` mounts
host directories named on the command line, once enabled (``Shell(vfs, host_mounts=True)``, as
``python -m py_vfs shell`` does): by default a shell cannot mount any host path.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..core.errors import FsError
from .backend import Backend, BackendError
from .local import LocalBackend


class Mountable(Protocol):
    """What a host mounts into: the VFS's mount operations."""

    async def mount(self, path: str, backend: Backend, *,
                    read_only: bool = False) -> dict[str, Any]:
        """``VFS.mount``."""

    async def unmount(self, path: str) -> dict[str, Any]:
        """``VFS.unmount``."""

    async def reconnect(self, path: str, backend: Backend | None = None) -> dict[str, Any]:
        """``VFS.reconnect``."""


class MountHost(Protocol):
    """Where the shell's ``mount``, ``unmount`` and ``reconnect`` go."""

    async def mount(self, path: str, *, read_only: bool, folder: str | None) -> dict[str, Any]:
        """Mount a folder at ``path``: the one named ``folder``, or one the user picks."""
        ...

    async def unmount(self, path: str) -> dict[str, Any]:
        """Unmount the folder at ``path``."""
        ...

    async def reconnect(self, path: str) -> dict[str, Any]:
        """Make the waiting mount at ``path`` active again."""
        ...


class NeedsFolder(Exception):
    """``mount`` on a host with no picker and no folder named."""


def no_host_folder_in_view(name: str) -> FsError:
    """The refusal of a host folder to a restricted view (a scoop): EPERM, and why."""
    return FsError.of("EPERM", "mount", name).with_hint(
        "no host folder is mounted inside a scoop or any restricted view: Python has no "
        "in-process sandbox, so the folder would give the scoop's code the host")


class LocalHost:
    """Mounts directories of the machine Python runs on (``mount PATH FOLDER``), only when
    ``enabled``: a shell that runs untrusted lines (an agent's tool calls, a script from an
    archive) must not reach ``/etc`` by mounting it. ``python -m py_vfs shell`` enables it."""

    host_folders = True  # what it mounts are host folders, which no view may (view_hosts.py)

    def __init__(self, vfs: Mountable, *, enabled: bool = False) -> None:
        self.vfs = vfs
        self.enabled = enabled

    async def mount(self, path: str, *, read_only: bool, folder: str | None) -> dict[str, Any]:
        """Mount the host directory ``folder`` at ``path`` (EACCES unless enabled; EPERM for a
        shell on a restricted view)."""
        if getattr(self.vfs, "scope", None) is not None:
            raise no_host_folder_in_view(folder or path)
        if not self.enabled:
            raise FsError.of("EACCES", "mount", folder or path).with_hint(
                "this shell cannot mount host folders: only `python -m py_vfs shell` enables "
                "them (Shell(vfs, host_mounts=True))")
        if folder is None:
            raise NeedsFolder("name the host FOLDER to mount: mount [--read-only] PATH FOLDER")
        try:
            backend = LocalBackend(folder)
        except BackendError as error:
            raise FsError.of(error.code, "mount", folder) from None
        return await self.vfs.mount(path, backend, read_only=read_only)

    async def unmount(self, path: str) -> dict[str, Any]:
        """Unmount the folder at ``path``."""
        return await self.vfs.unmount(path)

    async def reconnect(self, path: str) -> dict[str, Any]:
        """Make the waiting mount at ``path`` active again."""
        return await self.vfs.reconnect(path)
