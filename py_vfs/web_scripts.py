"""The Pyodide edge of ``.jsh`` scripts: the realm py_vfs/shell/scripts.py runs them in.

The worker (web/worker.mjs) hands ``open_api`` a ``jsh(childId, init)`` function that starts a
script in a dedicated Web Worker of its own (web/jsh_host.mjs, web/jsh_worker.mjs) and serves
the script's ``fs`` on a MessagePort bound to the child API ``childId`` (as ``vfs.restrict``'s
views are: py_vfs/web_views.py). The child is made here over exactly the view the shell works
in: inside a scoop its ``RestrictedView``; outside, the whole disk as a view whose changes are
made by the script's writer (its file name).
"""

from __future__ import annotations

from typing import Any

from .shell.scripts import JshStart, RealmRun, set_realm
from .views import RestrictedView
from .web_views import ViewChannels


class _JsRun:
    """A running script as Python sees it (``scripts.RealmRun``) over web/jsh_host.mjs's
    ``ScriptRun``."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    async def next(self) -> dict[str, Any]:
        """The script's next message, as plain Python (``data`` as bytes)."""
        event = await self._handle.next()
        message: dict[str, Any] = {"type": str(event.type)}
        if message["type"] == "exit":
            message["code"] = int(event.code)
        elif message["type"] in ("out", "err"):
            message["id"] = int(event.id)
            message["data"] = event.data.to_bytes()
        return message

    def ack(self, write_id: int) -> None:
        """The shell took the write ``write_id``."""
        self._handle.ack(write_id)

    def give(self, data: bytes | None) -> None:
        """A chunk of standard input (None: its end)."""
        from pyodide.ffi import to_js

        self._handle.give(None if data is None else to_js(data))

    def terminate(self) -> None:
        """Stop the script's worker and close its port (the child API is forgotten)."""
        self._handle.terminate()


def use_js_realm(channels: ViewChannels[Any], js_start: Any) -> None:
    """Run ``.jsh`` scripts through ``js_start(childId, init)`` (web/worker.mjs), their ``fs``
    children kept by ``channels`` (the disk's API: its steps block them too)."""
    from js import Object
    from pyodide.ffi import to_js

    async def start(vfs: Any, script: JshStart) -> RealmRun:
        view = vfs if isinstance(vfs, RestrictedView) else vfs.restrict("/", "/",
                                                                         writer=script.writer)
        child_id = channels.adopt(view)
        init = {"path": script.path, "source": script.source, "argv": script.argv,
                "env": script.env, "cwd": script.cwd}
        return _JsRun(js_start(child_id, to_js(init, dict_converter=Object.fromEntries)))

    set_realm(start)
