"""CPython's transport for the sync engine: ``http.client`` in a worker thread.

The engine (``replica.py``) has no thread or socket of its own; this is where they live on
CPython (in the browser's worker, fetch takes this module's place).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import threading
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from .link import Reply

TIMEOUT_S = 30.0


class HttpTransport:
    """``replica.Transport`` over ``http.client`` (http and https)."""

    def __init__(self, timeout: float = TIMEOUT_S) -> None:
        self.timeout = timeout

    def _connection(self, url: str) -> tuple[http.client.HTTPConnection, str]:
        parts = urlsplit(url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else \
            http.client.HTTPConnection
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return kind(parts.hostname or "127.0.0.1", parts.port, timeout=self.timeout), target

    def _request(self, method: str, url: str, headers: dict[str, str],
                 body: bytes | None) -> Reply:
        connection, target = self._connection(url)
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            return Reply(response.status, response.read())
        except (http.client.HTTPException, TimeoutError) as error:
            raise ConnectionError(str(error)) from error
        finally:
            connection.close()

    async def request(self, method: str, url: str, headers: dict[str, str],
                      body: bytes | None = None) -> Reply:
        """``replica.Transport.request``."""
        return await asyncio.to_thread(self._request, method, url, headers, body)

    async def events(self, url: str, headers: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
        """``replica.Transport.events``: a thread reads the stream and hands each event's
        data to the loop."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any] | BaseException | None] = asyncio.Queue()
        stop = threading.Event()
        holder: dict[str, http.client.HTTPConnection] = {}

        def read() -> None:
            try:
                connection, target = self._connection(url)
                connection.timeout = None
                holder["connection"] = connection
                connection.request("GET", target, headers={**headers,
                                                           "Accept": "text/event-stream"})
                response = connection.getresponse()
                if response.status != 200:
                    raise ConnectionError(f"events answered {response.status}")
                data: list[str] = []
                while not stop.is_set():
                    line = response.readline()
                    if not line:
                        break
                    text = line.decode("utf-8").rstrip("\r\n")
                    if text.startswith("data:"):
                        data.append(text[5:].strip())
                    elif not text and data:
                        with contextlib.suppress(ValueError):
                            loop.call_soon_threadsafe(queue.put_nowait,
                                                      json.loads("\n".join(data)))
                        data = []
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except BaseException as error:
                if not stop.is_set():
                    loop.call_soon_threadsafe(queue.put_nowait, error)

        thread = threading.Thread(target=read, daemon=True, name="dock-events")
        thread.start()
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise ConnectionError(str(item))
                yield item
        finally:
            stop.set()
            connection = holder.get("connection")
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.sock.shutdown(2)  # type: ignore[union-attr]
                with contextlib.suppress(Exception):
                    connection.close()
