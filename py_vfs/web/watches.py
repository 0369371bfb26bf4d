"""The page's ``vfs.watch`` subscriptions of one JS API: each forwards the disk's events to the
page, tagged with the id the page gave it (``notify(watchId, event)``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import FsError
from .options import flag

Notify = Callable[[int, dict[str, str]], None]


class Watches:
    """The watches of one API over ``vfs`` (a VFS or a restricted view); ``notify`` posts an
    event to the page (None: no page to post to, and ``watch`` is EINVAL)."""

    def __init__(self, vfs: Any, notify: Notify | None = None) -> None:
        self.vfs = vfs
        self.notify = notify
        self._unsubscribe: dict[int, Callable[[], None]] = {}

    def connect(self, js_notify: Any) -> None:
        """Pyodide: where a view's child API posts its watch events (its port, worker.mjs)."""
        from js import Object
        from pyodide.ffi import to_js

        def notify(watch_id: int, event: dict[str, str]) -> None:
            js_notify(watch_id, to_js(event, dict_converter=Object.fromEntries))

        self.notify = notify

    def watch(self, watch_id: int, path: str, options: Any = None) -> None:
        """Forward the events of a JS ``vfs.watch`` to the page, tagged with its id."""
        notify = self.notify
        if notify is None:
            raise FsError.of("EINVAL", "watch", path)
        self._unsubscribe[watch_id] = self.vfs.watch(
            path, lambda event: notify(watch_id, event), recursive=flag(options, "recursive"))

    def unwatch(self, watch_id: int) -> None:
        """Stop the watch ``watch_id`` (nothing if there is none)."""
        unsubscribe = self._unsubscribe.pop(watch_id, None)
        if unsubscribe is not None:
            unsubscribe()

    def clear(self) -> None:
        """Stop every watch."""
        for watch_id in list(self._unsubscribe):
            self.unwatch(watch_id)
