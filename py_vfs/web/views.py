"""Restricted views over the JS protocol: ``vfs.restrict(...)`` and ``vfs.scoop(name)`` in
web/api.mjs (docs/sandbox.md).

The scope is bound here, in the worker, never in the page: ``restrict`` and ``scoop`` make a
child ``WebAPI`` over the ``RestrictedView`` (views/restricted.py) and answer its id; the worker
then opens a MessagePort whose every call it dispatches to that child, and hands the page the
port only. A view in the page (or in a Web Worker the port was posted to) holds that port and
nothing else: no call it can make reaches the parent API. A child's ``restrict`` makes a
grandchild from its own view, so a view can only narrow.

A preview root asked through a view (``previewRoot``, the view's ``previewUrl``, and the shell's
``open``/``serve`` inside it) must be readable in the view, and is minted for its real path:
changing a link afterwards cannot move what the URL serves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar

from ..core.errors import FsError
from ..views.restricted import RestrictedView


class Child(Protocol):
    """A child API: what the channels ask of one (``WebAPI`` is one)."""

    def unwatch_all(self) -> None:
        """Stop the child's watches."""


C = TypeVar("C", bound=Child)


class ViewChannels(Generic[C]):
    """The child APIs (restricted views) made through one ``WebAPI`` over ``vfs`` (the disk or
    a view), by id: ``make`` builds one over a view, ``root_url`` mints preview roots."""

    def __init__(self, vfs: Any, make: Callable[[RestrictedView], C],
                 root_url: Callable[[str, str], Awaitable[str]]) -> None:
        self._vfs = vfs
        self._make = make
        self._root_url = root_url
        self._children: dict[int, C] = {}
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
        vfs = self._vfs
        writer = found.get("writer")
        if found.get("read") is None and found.get("write") is None:
            if isinstance(vfs, RestrictedView):
                return self._keep(vfs.as_writer(writer) if writer else vfs)
            return self._keep(vfs.restrict("/", "/", writer=writer))
        return self._keep(vfs.restrict(found.get("read") or (), found.get("write") or (),
                                       writer=writer))

    def adopt(self, view: RestrictedView) -> int:
        """A child over ``view``, a view made elsewhere (a ``.jsh`` script's ``fs`` is the
        shell's own view: py_vfs/web/scripts.py); its id."""
        return self._keep(view)

    async def scoop(self, name: str, options: Any = None) -> int:
        """``scoop(name, {network})``: a child over the scoop's view (its folders made if
        needed); ``network`` true lets its shell's `curl` and `wget` reach the network."""
        vfs = self._vfs
        if isinstance(vfs, RestrictedView):  # a scoop is made from the whole disk only
            raise FsError.of("EACCES", "scoop", None).with_hint("a view cannot open a scoop")
        found = options if isinstance(options, dict) else {}
        return self._keep(await vfs.scoop(name, network=found.get("network") is True))

    def child(self, child_id: int) -> C:
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
        return await self._root_url(path, kind)
