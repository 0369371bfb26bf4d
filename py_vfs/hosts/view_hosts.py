"""What a shell or API running inside a restricted view asks of the page, checked against the
view first: preview roots only for readable paths (by their real path), mounts only at
writable ones (the page, which does them, works on the whole disk)."""

from __future__ import annotations

from typing import Any

from ..core import paths
from ..disk.scope import denied, hidden
from ..mounts.host import MountHost, no_host_folder_in_view
from ..views.restricted import RestrictedView
from .preview import PreviewHost


class ViewPreviews:
    """Preview roots minted through a view: readable ones only, by their real path."""

    def __init__(self, view: RestrictedView, previews: PreviewHost) -> None:
        self._view = view
        self._previews = previews

    async def root_url(self, root: str, kind: str) -> str:
        """``PreviewHost.root_url`` of ``root``'s real path, if the view may read it."""
        real = self._view.realpath(root)
        if not self._view.scope.can_read(real):
            raise hidden("preview", root)
        return await self._previews.root_url(real, kind)


class ViewHost:
    """The shell's mount requests from inside a view: only at a path the view may write (the
    page, which does them, works on the whole disk)."""

    def __init__(self, view: RestrictedView, host: MountHost) -> None:
        self._view = view
        self._host = host

    def _check(self, path: str) -> str:
        if not self._view.scope.can_write(paths.normalize(path, "mount")):
            raise denied("mount", path)
        return path

    async def mount(self, path: str, *, read_only: bool, folder: str | None) -> dict[str, Any]:
        """``MountHost.mount`` at a writable path; never a host folder (CPython's
        ``LocalHost``): EPERM."""
        if getattr(self._host, "host_folders", False):
            raise no_host_folder_in_view(path)
        return await self._host.mount(self._check(path), read_only=read_only, folder=folder)

    async def unmount(self, path: str) -> dict[str, Any]:
        """``MountHost.unmount`` of a writable mount point."""
        return await self._host.unmount(self._check(path))

    async def reconnect(self, path: str) -> dict[str, Any]:
        """``MountHost.reconnect`` of a writable mount point."""
        return await self._host.reconnect(self._check(path))
