"""A bound on every stage of the bench, including the waits that cannot be interrupted.

The sync Playwright API has no timeout on `page.evaluate`, and a renderer that stopped answering
blocks it for ever. So each stage runs under a timer: the runner says which stage it is in and
what it waits for as it goes, and when the timer fires the watchdog prints both and ends the
process (exit status 3). The Playwright driver then sees its pipe close and takes the browsers
down with it. The runner's own polling loops have shorter deadlines and fail more gracefully
first; this is the backstop for a wait that never returns.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

EXIT_TIMEOUT = 3


class Watchdog:
    """Ends the run with a message naming the stage and the wait that outlived its bound."""

    def __init__(self) -> None:
        self.stage_name = "start-up"
        self.waiting = "nothing yet"
        self._timer: threading.Timer | None = None

    def waiting_for(self, what: str) -> None:
        """Say what the current stage waits for now (reported if the bound is reached)."""
        self.waiting = what

    @contextlib.contextmanager
    def stage(self, name: str, seconds: float) -> Iterator[None]:
        """Run the block as stage `name`, bounded by `seconds`. Stages do not nest."""
        if self._timer is not None:
            raise RuntimeError(f"stage {name!r} started inside stage {self.stage_name!r}")
        self.stage_name, self.waiting = name, "its first step"
        self._timer = threading.Timer(seconds, self._expire, args=(name, seconds))
        self._timer.daemon = True
        self._timer.start()
        try:
            yield
        finally:
            self._timer.cancel()
            self._timer = None
            self.stage_name, self.waiting = "between stages", "nothing"

    def _expire(self, name: str, seconds: float) -> None:
        if name != self.stage_name:  # a stage that just ended
            return
        print(f"bench: TIMEOUT: stage {name!r} did not finish within {seconds:.0f} s; "
              f"it was waiting for {self.waiting}", file=sys.stderr, flush=True)
        os._exit(EXIT_TIMEOUT)
