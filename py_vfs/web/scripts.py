"""The Pyodide edge of code the shell does not run in its own Python (py_vfs/shell/realm.py).

The worker (web/worker/worker.mjs) hands ``open_api`` two functions:

- ``jsh(childId, init)`` starts a ``.jsh`` script of the unrestricted shell in a dedicated Web
  Worker of its own (web/worker/jsh_host.mjs, web/realm/jsh_worker.mjs), its ``fs`` a
  MessagePort bound to
  the child API ``childId`` (as ``vfs.restrict``'s views are: py_vfs/web/views.py): the whole
  disk as a view whose changes are made by the script's writer (its file name);
- ``realm(key, childId, init)`` starts code a restricted view (a scoop) runs, Python or
  ``.jsh``, in that view's realm (web/worker/realm_pool.mjs): a sandboxed frame whose only authority
  is a port bound to ``childId``, a child API over exactly the view the shell works in. Views
  with the same scope and writer share one realm (``realm_key``).
"""

from __future__ import annotations

from typing import Any

from ..core.messages import RUN, kind
from ..shell.realm import CodeStart, RealmRun, set_realm
from ..views.restricted import RestrictedView
from .views import ViewChannels

# A run's messages (py_vfs/core/messages.py, RUN): its end, and its writes to stdout and stderr.
_EXIT = kind(RUN, "exit")
_WRITES = (kind(RUN, "out"), kind(RUN, "err"))


class _JsRun:
    """A running script as Python sees it (``realm.RealmRun``) over a JS run handle
    (web/worker/jsh_host.mjs's ``ScriptRun``, web/worker/realm_pool.mjs's runs)."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    async def next(self) -> dict[str, Any]:
        """The run's next message, as plain Python (``data`` as bytes)."""
        event = await self._handle.next()
        message: dict[str, Any] = {"type": str(event.type)}
        if message["type"] == _EXIT:
            message["code"] = int(event.code)
        elif message["type"] in _WRITES:
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
        """Let go of the run (stopped at once when it has not ended)."""
        self._handle.terminate()


def realm_key(view: RestrictedView) -> str:
    """Views that may do exactly the same (scope and writer) share a realm."""
    return f"{view.writer}|{view.scope!r}"


def use_js_realm(channels: ViewChannels[Any], js_start: Any, js_realm: Any) -> None:
    """Run ``.jsh`` scripts through ``js_start(childId, init)`` and a view's code through
    ``js_realm(key, childId, init)`` (web/worker/worker.mjs), their children kept by
    ``channels`` (the disk's API: its steps block them too)."""
    from js import Object
    from pyodide.ffi import to_js

    async def start(vfs: Any, code: CodeStart) -> RealmRun:
        init = to_js(code.to_init(), dict_converter=Object.fromEntries)
        if isinstance(vfs, RestrictedView):
            return _JsRun(js_realm(realm_key(vfs), channels.adopt(vfs), init))
        view = vfs.restrict("/", "/", writer=code.writer)
        return _JsRun(js_start(channels.adopt(view), init))

    set_realm(start)
