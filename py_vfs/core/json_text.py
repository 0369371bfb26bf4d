"""Compact JSON text, as the disk stores its records and journal entries.

``compact(value)`` is ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, byte for
byte: the same C encoder that ``json.dumps`` uses, built once instead of on every call. Every
write encodes two records and a journal entry, and that construction was much of the cost of
encoding a small record (a directory's ``Node.to_record``: 8.8 -> 5.1 µs in Pyodide, 4.9 -> 3.4
on CPython 3.11, CPU time).
"""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring
from typing import Any


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
