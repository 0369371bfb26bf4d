"""Writers: who made a change. ``vfs.as_writer(name)`` is the same disk written under a name.

A writer is a short name (``user``, ``shell``, ``agent:planner``, ``tab:3``) recorded on every
node a change writes and on its journal entry. The name of the current context lives in a
context variable (``transaction.WRITER``); a ``WriterView`` sets it around every call it
forwards, so the commit engine, a step opened through it and a stream it opens all take it. The
view is a thin proxy: no second disk, no second engine.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from ..core.errors import FsError
from ..storage.transaction import WRITER

MAX_WRITER = 64


def check_writer(name: object) -> str:
    """A writer's name: 1 to 64 printable characters without spaces at either end."""
    if not isinstance(name, str) or not 0 < len(name) <= MAX_WRITER or not name.isprintable() \
            or name != name.strip():
        raise FsError.of("EINVAL", "writer").with_hint(
            f"a writer is 1 to {MAX_WRITER} printable characters, such as 'agent:planner', "
            f"not {name!r}")
    return name


class WriterView:
    """``target`` (a VFS) with every change made by ``writer``."""

    def __init__(self, target: Any, writer: str) -> None:
        self._target = target
        self.writer = check_writer(writer)

    def as_writer(self, writer: str) -> WriterView:
        """The same disk under another writer's name."""
        return WriterView(self._target, writer)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value) or name.startswith("_"):
            return value
        writer = self.writer
        if inspect.iscoroutinefunction(value):
            @functools.wraps(value)
            async def call_async(*args: Any, **kwargs: Any) -> Any:
                token = WRITER.set(writer)
                try:
                    return await value(*args, **kwargs)
                finally:
                    WRITER.reset(token)
            return call_async

        @functools.wraps(value)
        def call(*args: Any, **kwargs: Any) -> Any:
            token = WRITER.set(writer)
            try:
                return value(*args, **kwargs)
            finally:
                WRITER.reset(token)
        return call
