"""``time PIPELINE``: what it measures and how it reports it, in bash's format.

``real`` is the wall-clock time the pipeline took. ``user`` and ``sys`` are the CPU time of the
whole Python process meanwhile (``os.times()``; ``time.process_time()`` as user time and 0 as
sys where ``os.times`` is missing, as in Pyodide): there are no processes, so they include what
other tasks of the same event loop ran during the pipeline.

The report goes to the shell's standard error (not the pipeline's: ``time cmd 2>/dev/null``
still reports, ``{ time cmd; } 2>f`` does not), formatted by ``$TIMEFORMAT`` when it is set
(empty: no report) else as bash's default, ``\\nreal\\t0m0.003s\\nuser\\t...``; ``time -p``
uses POSIX's ``real 0.00`` lines whatever ``$TIMEFORMAT`` says.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field

DEFAULT_FORMAT = "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS"
POSIX_FORMAT = "real %2R\nuser %2U\nsys %2S"
_SPEC = re.compile(r"%(?:%|P|([0-9]?)(l?)([RUS]))")


def _cpu() -> tuple[float, float]:
    try:
        times = os.times()
    except (AttributeError, OSError):  # Pyodide: no os.times
        return time.process_time(), 0.0
    return times.user, times.system


@dataclass
class Stopwatch:
    """Started when made; ``report`` says how long since."""

    start: float = field(default_factory=time.monotonic)
    cpu: tuple[float, float] = field(default_factory=_cpu)

    def report(self, fmt: str | None, *, posix: bool) -> str:
        """The text ``time`` prints to standard error: ``fmt`` (``$TIMEFORMAT``, None when
        unset) filled in, and a newline; nothing for an empty ``fmt``."""
        real = max(time.monotonic() - self.start, 0.0)
        user, system = _cpu()
        user, system = max(user - self.cpu[0], 0.0), max(system - self.cpu[1], 0.0)
        if posix:
            fmt = POSIX_FORMAT
        elif fmt is None:
            fmt = DEFAULT_FORMAT
        if not fmt:
            return ""
        values = {"R": real, "U": user, "S": system}

        def fill(match: re.Match[str]) -> str:
            text = match.group(0)
            if text == "%%":
                return "%"
            if text == "%P":
                return f"{(user + system) * 100 / real if real else 0.0:.2f}"
            precision = min(int(match.group(1) or 3), 3)
            return _seconds(values[match.group(3)], precision, bool(match.group(2)))

        return _SPEC.sub(fill, fmt) + "\n"


def _seconds(value: float, precision: int, long: bool) -> str:
    """``value`` seconds with ``precision`` decimals, truncated as bash does; ``long``:
    ``MmS.FFFs``."""
    millis = int(value * 1000)
    whole, fraction = divmod(millis, 1000)
    minutes, whole = divmod(whole, 60) if long else (0, whole)
    text = str(whole)
    if precision:
        text += "." + f"{fraction:03d}"[:precision]
    return f"{minutes}m{text}s" if long else text
