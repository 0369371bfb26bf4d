"""Compact JSON text, as the disk stores its records and journal entries.

``compact(value)`` is ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, byte for
byte: the same C encoder that ``json.dumps`` uses, built once instead of on every call. Every
write encodes two records and a journal entry, and that construction was much of the cost of
encoding a small record (a directory's ``Node.to_record``: 8.8 -> 5.1 µs in Pyodide, 4.9 -> 3.4
on CPython 3.11, CPU time).

The encoder looks at every character of every string it writes, and a small file's record holds
its bytes as base64 text (1,368 characters for 1 KiB) that the journal entry then holds again
inside the record's own text. ``plain_string`` and ``embedded`` give the same text for the
strings that need no such look, for less (1 KiB's record 13.9 -> 7.6 µs, its place in the entry
8.9 -> 3.9 µs, CPython 3.11).
"""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring
from typing import Any

# The characters of base64 text: none of them is escaped in JSON.
_BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="


def _unencodable(value: Any) -> Any:
    """What ``json.dumps`` raises for a value JSON has no form for."""
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


if c_make_encoder is not None:
    # The arguments ``json.JSONEncoder.iterencode`` gives it: no circular-reference markers
    # (records and entries are trees), no indent, our separators, keys unsorted and never
    # skipped, NaN and infinities written as JavaScript's.
    _encode = c_make_encoder(None, _unencodable, encode_basestring, None, ":", ",",
                             False, False, True)

    def compact(value: Any) -> str:
        """``value`` as compact JSON text (non-ASCII characters kept as they are)."""
        return "".join(_encode(value, 0))
else:  # a Python without the json accelerator
    compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def plain_string(value: Any) -> bool:
    """Whether ``value`` is a string of base64 characters only: ``compact`` writes it as it is,
    between quotes (a check in C, a third of what the encoder's own look costs)."""
    return isinstance(value, str) and value.isascii() \
        and not value.encode().translate(None, _BASE64)


def quoted(text: str) -> str:
    """``compact(text)`` for a string, without the encoder's own setup (a tenth of its cost)."""
    return encode_basestring(text)


def embedded(text: str) -> str:
    """``compact(text)`` for a ``text`` that ``compact`` made: JSON text has no raw control
    character (the encoder escaped them), so only its quotes and backslashes need one."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
