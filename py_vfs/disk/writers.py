"""Writers: who made a change, named by a short text checked here.

A writer is a short name (``user``, ``shell``, ``agent:planner``, ``tab:3``) recorded on every
node a change writes and on its journal entry. The name of the current context lives in a
context variable (``transaction.WRITER``); ``vfs.as_writer(name)``, a ``WriterView``
(``fs/forwarding.py``), sets it around every call it forwards.
"""

from __future__ import annotations

from ..core.errors import FsError

MAX_WRITER = 64


def check_writer(name: object) -> str:
    """A writer's name: 1 to 64 printable characters without spaces at either end."""
    if not isinstance(name, str) or not 0 < len(name) <= MAX_WRITER or not name.isprintable() \
            or name != name.strip():
        raise FsError.of("EINVAL", "writer").with_hint(
            f"a writer is 1 to {MAX_WRITER} printable characters, such as 'agent:planner', "
            f"not {name!r}")
    return name
