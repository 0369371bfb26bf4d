"""The time stamps of nodes, and one time for every change of a group commit's round.

``now()`` is milliseconds since the epoch. While a round of the group commit runs its changes
(``py_vfs/disk/group_commit.py``), ``now()`` gives the time the round began: the writes one
commit makes durable together carry one time, as Linux stamps the writes of one clock tick
alike (its file times come from a coarse clock). A directory that gains a hundred entries in
one round is then stamped once, not copied and stored again for each entry
(``Nodes.touch_dir``).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

_ROUND: contextvars.ContextVar[float | None] = contextvars.ContextVar("round_time", default=None)


def now() -> float:
    """The time stamp of a change made now: the round's time inside a round."""
    stamp = _ROUND.get()
    return time.time() * 1000.0 if stamp is None else stamp


@contextlib.contextmanager
def one_time() -> Iterator[None]:
    """Inside, ``now()`` is one time: the time it was entered."""
    token = _ROUND.set(now())
    try:
        yield
    finally:
        _ROUND.reset(token)
