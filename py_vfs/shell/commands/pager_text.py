"""What `less` holds of its input: the lines read so far, cut into screen rows, read on demand.

The input is read only as far as the screen (or a search, or `G`) needs, plus ``LOOK_AHEAD``
rows, so `yes | less` shows its first page at once; everything is kept for paging back, up to
``HOLD_LIMIT`` bytes, past which the pager stops reading and says so (`G` on an endless input
ends there instead of filling the worker's memory). Each row is the line's text as the terminal
may show it: tabs expanded, a control character (or any character a terminal would interpret)
written as the shell writes untrusted text (``format.visible``: `\\033`), so the content never
reaches the terminal's escape sequences; wide characters count two columns.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from ..format import visible
from ..pipes import Input

LOOK_AHEAD = 256  # rows read beyond what the screen needs
HOLD_LIMIT = 64 << 20  # what the pager keeps at most: the lines' bytes plus LINE_COST each
LINE_COST = 192  # what a line costs beyond its bytes (its str and row), so `yes` stops too
TAB = 8


def _width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def shown_rows(line: str, cols: int) -> list[str]:
    """``line`` (without its newline) as screen rows of at most ``cols`` columns: tabs
    expanded, control characters escaped; an empty line is one empty row."""
    if len(line) <= cols and line.isascii() and line.isprintable():
        return [line]  # the common case, kept as it is (one string held, not two)
    rows, row, used = [], [], 0
    for char in line:
        pieces = " " * (TAB - used % TAB) if char == "\t" else visible(char)
        for piece in pieces:
            width = _width(piece)
            if used + width > cols and row:
                rows.append("".join(row))
                row, used = [], 0
            row.append(piece)
            used += width
    rows.append("".join(row))
    return rows


@dataclass
class Held:
    """The input's lines read so far (``lines``) and their screen rows (``rows``: the index
    of the line each shows, and its text)."""

    sources: list[tuple[str, Input]]  # (header or "", input), read one after another
    cols: int
    lines: list[str] = field(default_factory=list)
    rows: list[tuple[int, str]] = field(default_factory=list)
    ended: bool = False  # everything is read
    truncated: bool = False  # reading stopped at HOLD_LIMIT
    held: int = 0

    async def need(self, count: int) -> None:
        """Read until there are ``count`` rows (or the input ends)."""
        while len(self.rows) < count and not self.ended:
            await self.read_line()

    async def need_lines(self, count: int) -> None:
        """Read until there are ``count`` lines (or the input ends)."""
        while len(self.lines) < count and not self.ended:
            await self.read_line()

    async def read_line(self) -> None:
        """Read one more line (or mark the end)."""
        while self.sources:
            header, source = self.sources[0]
            if header:
                self.sources[0] = ("", source)
                for text in header.split("\n"):
                    self.add(text)
                return
            line = await source.readline()
            if line:
                self.held += len(line) + LINE_COST
                self.add(line.removesuffix(b"\n").decode("utf-8", "replace"))
                if self.held > HOLD_LIMIT:
                    self.truncated = self.ended = True
                    self.sources = []
                return
            self.sources.pop(0)
        self.ended = True

    def add(self, text: str) -> None:
        """Keep one line and its rows."""
        index = len(self.lines)
        self.lines.append(text)
        self.rows.extend((index, row) for row in shown_rows(text, self.cols))

    def first_row(self, line: int) -> int:
        """The index of the first row of line ``line`` (rows are in line order)."""
        low, high = 0, len(self.rows)
        while low < high:
            middle = (low + high) // 2
            if self.rows[middle][0] < line:
                low = middle + 1
            else:
                high = middle
        return low
