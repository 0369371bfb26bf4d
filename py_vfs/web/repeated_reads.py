"""A read repeated in one message from the page is answered once.

The page sends the calls of one turn as one message (docs/architecture.md, "Calls of one turn"),
and a program that reads in parallel often asks the same thing several times in one turn:
isomorphic-git lists the pack folder for every object it reads, so a checkout's batch of reads
holds as many listings of that folder as objects. The calls of a message run in their order in
one entry into Python (py_vfs/web/write_runs.py, ``call_in_runs``), and nothing changes the
index between two calls of it but a call that may change the disk. So a read the page could
keep (an answer stamped with a view: py_vfs/web/page_cache.py) is answered with the envelope of
the same read (same operation, arguments and writer) made earlier in the message, as long as no
call that may change the disk (``mutating`` in py_vfs/web/protocol.py) came between them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .envelopes import Envelope
from .page_cache import CACHEABLE
from .protocol import BY_NAME


class RepeatedReads:
    """The answers of the keepable reads of one message so far, since its last change."""

    def __init__(self) -> None:
        self._answers: dict[Hashable, Envelope] = {}

    def changed(self) -> None:
        """A call that may change the disk was made: what was read before may differ now."""
        self._answers.clear()

    def look_up(self, op: str, args: list[Any],
                writer: str | None) -> tuple[Envelope | None, Hashable | None]:
        """The envelope of the same read made earlier in the message, if any, and the read's
        key for ``keep`` (None: not a read the page may keep). A call that may change the disk
        (or is unknown) forgets every earlier answer."""
        spec = BY_NAME.get(op)
        if spec is None or spec.mutating:
            self.changed()
            return None, None
        key = _key(op, args, writer)
        return (None, None) if key is None else (self._answers.get(key), key)

    def keep(self, key: Hashable | None, envelope: Envelope | None) -> None:
        """Keep ``envelope``, the answer of the read ``look_up`` gave ``key`` for, when the page
        may keep it too (stamped with a view)."""
        if key is not None and isinstance(envelope, dict) and "view" in envelope:
            self._answers[key] = envelope


def _key(op: str, args: list[Any], writer: str | None) -> Hashable | None:
    """What makes two reads the same: the operation, the writer and each argument with its type
    (``True`` and ``1`` are not the same option), or None when an argument has no such form."""
    if op not in CACHEABLE:
        return None
    parts: list[Hashable] = [op, writer]
    for arg in args:
        if isinstance(arg, dict):
            parts.append((dict, tuple(sorted((str(k), type(v), v) for k, v in arg.items()))))
        else:
            parts.append((type(arg), arg))
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:  # a list, say
        return None
    return key
