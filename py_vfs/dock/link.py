"""What the sync engine needs of HTTP: one request, and the dock's server-sent events.

Each runtime gives its own (CPython: ``transport.HttpTransport``; the browser's worker: fetch),
so the engine itself has no thread or socket.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class Reply:
    """An HTTP answer: its status and body."""

    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


class Transport(Protocol):
    """How the engine reaches the dock."""

    async def request(self, method: str, url: str, headers: dict[str, str],
                      body: bytes | None = None) -> Reply:
        """One HTTP request; raises ``OSError`` when the dock cannot be reached."""

    def events(self, url: str, headers: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
        """The dock's server-sent events (each ``{"head": N}``) until the stream ends."""




class Offline(Exception):
    """The dock cannot be reached (or said to come back later)."""


class Refusal(Exception):
    """The dock refused a request (4xx): ``status`` and its answer."""

    def __init__(self, status: int, body: Any) -> None:
        message = (body.get("message") or body.get("error")) if isinstance(body, dict) \
            else None
        super().__init__(f"{status}: {message or body}")
        self.status, self.body = status, body
