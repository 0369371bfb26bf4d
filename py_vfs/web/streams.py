"""The stream sessions of the JS API, one family for the eleven stream operations: a session is
opened by one call (``openRead``, ``openWrite``, ``exportOpen``, ``importOpen``, a preview
body), lives here between calls under an id, is pulled (``readChunk``, ``exportChunk``) or
pushed (``writeChunk``, ``importChunk``) one piece per call, so neither side ever holds the
whole file, and ends by its last piece, its finish (``finishWrite``, ``importFinish``) or
``closeStream``. A pulled or pushed session that fails is forgotten.
"""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

from ..core.errors import FsError

T = TypeVar("T")


class Sessions:
    """The open stream sessions of one WebAPI, by id."""

    def __init__(self) -> None:
        self._open: dict[int, Any] = {}
        self._next = 1

    def __len__(self) -> int:
        return len(self._open)

    def keep(self, session: Any) -> int:
        """Keep ``session`` until it ends; its id."""
        session_id = self._next
        self._next += 1
        self._open[session_id] = session
        return session_id

    def get(self, session_id: int, kind: type[T] | tuple[type, ...], syscall: str) -> T:
        """The open session ``session_id``, which must be a ``kind`` (else EBADF)."""
        session = self._open.get(session_id)
        if not isinstance(session, kind):
            raise FsError.of("EBADF", syscall, None)
        return session  # type: ignore[return-value]

    def take(self, session_id: int, kind: type[T], syscall: str) -> T:
        """The session ``session_id``, forgotten here (its finish owns it now)."""
        session = self.get(session_id, kind, syscall)
        del self._open[session_id]
        return session

    async def pull(self, session_id: int, kind: type | tuple[type, ...],
                   syscall: str) -> bytes | None:
        """The next piece of a pulled session, or None at its end (then forgotten)."""
        session = self.get(session_id, kind, syscall)
        try:
            return await anext(session)
        except StopAsyncIteration:
            del self._open[session_id]
            return None
        except BaseException:
            self._open.pop(session_id, None)
            await session.aclose()
            raise

    async def push(self, session_id: int, kind: type, syscall: str, data: bytes) -> None:
        """One more piece of a pushed session."""
        session = self.get(session_id, kind, syscall)
        try:
            written = session.write(data)
            if inspect.isawaitable(written):
                await written
        except BaseException:
            self._open.pop(session_id, None)
            raise

    async def close(self, session_id: int) -> None:
        """``closeStream``: cancel a session; what it holds is let go (a write stream's chunks,
        a read stream's pins, an export's temporary file). Unknown ids are ignored."""
        session = self._open.pop(session_id, None)
        if hasattr(session, "abort"):
            await session.abort()
        elif hasattr(session, "aclose"):
            await session.aclose()
