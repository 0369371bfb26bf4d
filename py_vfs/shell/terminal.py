"""The terminal a line's output shows on, as a command sees it: its size and its keyboard.

A real program asks the tty for both (TIOCGWINSZ, and termios to read keys one at a time);
here the page's terminal says its size with the call (``vfs.shell(line, {rows, cols})``) and
a command reads keys through ``keys()``, which asks the page for input in raw mode (each key as
typed, no echo, no line editing: docs/api.md, `input`). ``Output.terminal`` (py_vfs/shell/
pipes.py) is this object when the output goes to the terminal, None otherwise; `less` uses it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

DEFAULT_ROWS = 24
DEFAULT_COLS = 80
MAX_SIZE = 1000  # rows or columns taken at most from the page (a screen is never larger)

# read(raw=False): the next bytes the user typed, None at the end; read(True) asks for keys as
# typed (py_vfs/web/shell.py's ``Reader``).
RawReader = Callable[..., Awaitable[bytes | None]]


def _size(value: object, default: int) -> int:
    """A dimension the page gave, or ``default`` when it is missing or not a small count."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return max(1, min(int(value), MAX_SIZE)) if value >= 1 else default


class Terminal:
    """The page's terminal for the duration of one call."""

    def __init__(self, read: RawReader, rows: object = None, cols: object = None) -> None:
        self.rows = _size(rows, DEFAULT_ROWS)
        self.cols = _size(cols, DEFAULT_COLS)
        self._read = read
        # One request at a time: the line's standard input and the keys share the page's input.
        self.lock = asyncio.Lock()

    async def keys(self) -> bytes | None:
        """What the user typed next, as typed (several keys at once when typed fast; a key's
        escape sequence whole); None at the end of the input."""
        async with self.lock:
            return await self._read(True)

    async def line(self) -> bytes | None:
        """The next cooked input (a line, or what Ctrl-D sent); None at the end."""
        async with self.lock:
            return await self._read()
