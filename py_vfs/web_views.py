"""Restricted views over the JS protocol: ``vfs.restrict(...)`` and ``vfs.scoop(name)`` in
web/api.mjs (docs/sandbox.md).

The scope is bound here, in the worker, never in the page: ``restrict`` and ``scoop`` make a
child ``WebAPI`` over the ``RestrictedView`` (py_vfs/views.py) and answer its id; the worker
then opens a MessagePort whose every call it dispatches to that child, and hands the page the
port only. A view in the page (or in a Web Worker the port was posted to) holds that port and
nothing else: no call it can make reaches the parent API. A child's ``restrict`` makes a
grandchild from its own view, so a view can only narrow.

A preview root asked through a view (``previewRoot``, the view's ``previewUrl``, and the shell's
``open``/``serve`` inside it) must be readable in the view, and is minted for its real path:
changing a link afterwards cannot move what the URL serves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import paths
from .errors import FsError
from .mounts.host import MountHost
from .preview import PreviewHost
from .sandbox import denied, hidden
from .views import RestrictedView

if TYPE_CHECKING:
    from .webapi import WebAPI


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
        """``MountHost.mount`` at a writable path."""
        return await self._host.mount(self._check(path), read_only=read_only, folder=folder)

    async def unmount(self, path: str) -> dict[str, Any]:
        """``MountHost.unmount`` of a writable mount point."""
        return await self._host.unmount(self._check(path))

    async def reconnect(self, path: str) -> dict[str, Any]:
        """``MountHost.reconnect`` of a writable mount point."""
        return await self._host.reconnect(self._check(path))


class ViewChannels:
    """The child APIs (restricted views) made through one ``WebAPI``, by id."""

    def __init__(self, api: WebAPI, make: Callable[[RestrictedView], WebAPI]) -> None:
        self._api = api
        self._make = make
        self._children: dict[int, WebAPI] = {}
        self._next = 1

    def table(self) -> dict[str, Callable[..., Any]]:
        """The operations, by their protocol names."""
        return {"restrict": self.restrict, "scoop": self.scoop, "previewRoot": self.preview_root,
                "releaseView": self.release}

    def _keep(self, view: RestrictedView) -> int:
        child_id, self._next = self._next, self._next + 1
        self._children[child_id] = self._make(view)
        return child_id

    def restrict(self, options: Any = None) -> int:
        """``restrict({read, write, writer})``: a child over the narrower view; its id. With
        neither ``read`` nor ``write``, the same view again (of the disk: all of it), to hand
        to a Web Worker."""
        found = options if isinstance(options, dict) else {}
        vfs = self._api.vfs
        writer = found.get("writer")
        if found.get("read") is None and found.get("write") is None:
            if isinstance(vfs, RestrictedView):
                return self._keep(vfs.as_writer(writer) if writer else vfs)
            return self._keep(vfs.restrict("/", "/", writer=writer))
        return self._keep(vfs.restrict(found.get("read") or (), found.get("write") or (),
                                       writer=writer))

    async def scoop(self, name: str) -> int:
        """``scoop(name)``: a child over the scoop's view (its folders made if needed)."""
        vfs = self._api.vfs
        if isinstance(vfs, RestrictedView):  # a scoop is made from the whole disk only
            raise FsError.of("EACCES", "scoop", None).with_hint("a view cannot open a scoop")
        return self._keep(await vfs.scoop(name))

    def child(self, child_id: int) -> WebAPI:
        """The child API of ``child_id`` (the worker binds its port to it)."""
        if child_id not in self._children:
            raise FsError.of("EBADF", "restrict", None)
        return self._children[child_id]

    def release(self, child_id: int) -> None:
        """Forget a child whose port was closed, and stop its watches."""
        child = self._children.pop(child_id, None)
        if child is not None:
            child.unwatch_all()

    async def preview_root(self, path: str, kind: str = "folder") -> str:
        """The URL of a preview root for ``path`` (a view's ``previewUrl``)."""
        return await self._api.shell.previews.root_url(path, kind)
