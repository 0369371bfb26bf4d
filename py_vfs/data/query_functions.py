"""Linear-time ``instr``, ``replace`` and two-argument ``trim``/``ltrim``/``rtrim`` for the
query's connection (query.py), in place of SQLite's own.

SQLite's versions cost the product of their arguments' lengths: ``instr`` and ``replace``
compare the needle at every position of the haystack, ``trim(X, Y)`` compares every character
of X with every character of Y. One call is one step, which no progress handler interrupts, so
at the 16 MiB value cap a single call could run for hours (measured on SQLite 3.40: ``instr``
of a 1 MiB haystack and a 512 KiB needle, 33 s; ``replace`` alike, 40 s; ``trim`` of 64 Ki
characters by a set of 64 Ki, 70 s). These do the same work in time linear in their arguments:
Python's ``bytes.find``, ``count`` and ``replace`` (a two-way search for long needles), and a
set of characters for ``trim``.

They answer what SQLite's answer, value for value (tests/unit/test_query_functions.py holds
them equal on a corpus): NULL in, NULL out; ``instr`` of two blobs counts bytes, else
characters; every other argument is read as text, numbers spelled by SQLite itself (a REAL's
text is SQLite's, not Python's) and a blob's bytes as UTF-8. A blob that is not UTF-8 read as
text is where they may differ: its invalid bytes come back as U+FFFD.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..core.errors import FsError

_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character
_FEW = 16  # sets of characters this small are trimmed by str.strip, in C


class Functions:
    """The replacement functions of one query's connection. ``failure``: the error one of
    them raised (SQLite reports only that a function failed)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.failure: FsError | None = None
        self._spelling: sqlite3.Connection | None = None

    def install(self, db: sqlite3.Connection) -> None:
        """Register the functions on ``db`` (they replace SQLite's for that connection)."""
        db.create_function("instr", 2, self.instr, deterministic=True)
        db.create_function("replace", 3, self.replace, deterministic=True)
        for name, left, right in (("trim", True, True), ("ltrim", True, False),
                                  ("rtrim", False, True)):
            db.create_function(name, 2, self._trimmer(left, right), deterministic=True)

    def close(self) -> None:
        """Close the connection that spells numbers, if one was opened."""
        if self._spelling is not None:
            self._spelling.close()

    def _bytes(self, value: Any) -> bytes:
        """A non-NULL value as SQLite's text reads it, in UTF-8 bytes."""
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode("utf-8", "surrogatepass")
        if isinstance(value, int):
            return str(value).encode()
        # A REAL: SQLite's own spelling (1e+20 is "1.0e+20"), asked of a connection of its own.
        if self._spelling is None:
            self._spelling = sqlite3.connect(":memory:")
        (text,) = self._spelling.execute("SELECT CAST(? AS TEXT)", (value,)).fetchone()
        return text.encode()

    def instr(self, haystack: Any, needle: Any) -> int | None:
        """SQLite's ``instr``: the 1-based position of the first ``needle`` in ``haystack``
        (bytes for two blobs, else characters), 0 when absent."""
        if haystack is None or needle is None:
            return None
        text = not (isinstance(haystack, bytes) and isinstance(needle, bytes))
        hay, pin = self._bytes(haystack), self._bytes(needle)
        if not pin:
            return 1
        if text and pin[0] & 0xC0 == 0x80:
            return 0  # SQLite tries text matches at character starts only
        found = hay.find(pin)
        if found < 0:
            return 0
        if not text:
            return found + 1
        return len(hay[:found].translate(None, _CONTINUATION)) + 1

    def replace(self, string: Any, pattern: Any, replacement: Any) -> Any:
        """SQLite's ``replace``: every ``pattern`` in ``string``, left to right and not
        overlapping, replaced; ``string`` itself when ``pattern`` is empty."""
        if string is None or pattern is None:
            return None
        source, old = self._bytes(string), self._bytes(pattern)
        if not old or old[0] == 0:  # SQLite reads a pattern starting with NUL as empty
            # ``string`` itself, as read as text: a number keeps its type, a blob is text.
            return _text(source) if isinstance(string, bytes) else string
        if replacement is None:
            return None
        new = self._bytes(replacement)
        if len(new) > len(old):
            grown = len(source) + source.count(old) * (len(new) - len(old))
            if grown > self.max_bytes:
                self.failure = FsError.of("EINVAL", "query").with_hint(
                    f"a value grew past {self.max_bytes} bytes: replace() would make "
                    f"{grown} (string or blob too big)")
                raise ValueError("string or blob too big")
        return _text(source.replace(old, new))

    def _trimmer(self, left: bool, right: bool) -> Any:
        def trim(string: Any, characters: Any) -> str | None:
            """SQLite's two-argument ``trim``: the characters of ``characters`` removed from
            ``string``'s start and/or end."""
            if string is None or characters is None:
                return None
            text = _text(self._bytes(string))
            drop = set(_text(self._bytes(characters)))
            if len(drop) <= _FEW:  # str.strip looks each character up in the set: k per char
                chars = "".join(drop)
                return (text.strip(chars) if left and right
                        else text.lstrip(chars) if left else text.rstrip(chars))
            start, end = 0, len(text)
            if left:
                while start < end and text[start] in drop:
                    start += 1
            if right:
                while end > start and text[end - 1] in drop:
                    end -= 1
            return text[start:end]
        return trim


def _text(data: bytes) -> str:
    """UTF-8 bytes as a Python string (bytes that are not UTF-8 as U+FFFD)."""
    return data.decode("utf-8", "replace")
