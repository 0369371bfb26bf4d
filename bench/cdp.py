"""A flat Chrome DevTools Protocol connection to the browser, for what Playwright does not reach.

Playwright opens CDP sessions on pages and frames only; our VFS runs in a dedicated worker. So
the bench launches Chromium with `--remote-debugging-port` as well (beside Playwright's own pipe)
and talks to that endpoint over one WebSocket in flat mode: `Target.attachToTarget` with
`flatten: true` returns a session id, and every later message for that target carries it. Flat
sessions are the supported way; the non-flat `Target.sendMessageToTarget` is deprecated.

Every call has a bound: `call` raises CDPTimeout naming the method and the target when no answer
came in time, instead of waiting forever on a wedged renderer.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import time
import urllib.request

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

HOST = "127.0.0.1"
CALL_TIMEOUT = 10.0


class CDPError(RuntimeError):
    """A CDP call was answered with an error, got no answer, or the connection closed."""


class CDPTimeout(CDPError):
    """A CDP call got no answer within its bound."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for --remote-debugging-port)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def debugging_args(port: int) -> list[str]:
    """Chromium flags that open the DevTools endpoint on 127.0.0.1:`port`."""
    return [f"--remote-debugging-port={port}", f"--remote-debugging-address={HOST}"]


class FlatCDP:
    """One WebSocket to the browser's DevTools endpoint, speaking CDP with flat sessions."""

    def __init__(self, port: int, timeout: float = CALL_TIMEOUT):
        version_url = f"http://{HOST}:{port}/json/version"
        try:
            with urllib.request.urlopen(version_url, timeout=timeout) as reply:
                endpoint = json.load(reply)["webSocketDebuggerUrl"]
            self._stack = contextlib.ExitStack()
            self.ws: ClientConnection = self._stack.enter_context(
                connect(endpoint, max_size=None, open_timeout=timeout, proxy=None)
            )
        except OSError as e:
            raise CDPError(f"no DevTools endpoint at {version_url}: {e}") from e
        self.ids = itertools.count(1)

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = CALL_TIMEOUT) -> dict:
        """Send one command (to `session`'s target, or to the browser) and wait for its answer."""
        message_id = next(self.ids)
        message = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        target = f"session {session}" if session else "the browser"
        deadline = time.monotonic() + timeout
        try:
            self.ws.send(json.dumps(message))
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                reply = json.loads(self.ws.recv(timeout=left))
                if reply.get("id") == message_id:
                    break
        except TimeoutError:
            raise CDPTimeout(f"CDP {method} to {target}: no answer within {timeout:.0f} s") \
                from None
        except ConnectionClosed as e:
            raise CDPError(f"CDP {method} to {target}: connection closed ({e})") from e
        if "error" in reply:
            raise CDPError(f"CDP {method} to {target}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def targets(self) -> list[dict]:
        """Every target of the browser (pages, workers, service workers, ...)."""
        return self.call("Target.getTargets")["targetInfos"]

    def attach(self, target_id: str) -> str:
        """A flat session on the target; its id goes into every message for it."""
        return self.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})[
            "sessionId"
        ]

    def detach(self, session: str) -> None:
        self.call("Target.detachFromTarget", {"sessionId": session})

    def close(self) -> None:
        self._stack.close()
