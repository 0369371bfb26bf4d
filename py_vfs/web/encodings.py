"""Node's Buffer encodings for the JS API: text to bytes for writes, bytes to text for reads.

The names are Node's (``protocol.ENCODINGS``), matched without regard to case; each behaves as
Node's ``Buffer.from(text, encoding)`` and ``buffer.toString(encoding)`` do, including where
Node is lenient: hex stops at the first pair that is not hex, base64 ignores characters outside
its alphabet and needs no padding, ascii keeps the low 7 bits of each byte when reading and the
low 8 bits of each code unit when writing (as latin1), utf16le encodes UTF-16 code units (a
lone surrogate included) and decodes an odd last byte as nothing. UTF-8 decoding replaces each
maximal invalid sequence with U+FFFD.
"""

from __future__ import annotations

import base64
import binascii
import re

_ALIASES = {"utf-8": "utf8", "binary": "latin1", "ucs2": "utf16le", "ucs-2": "utf16le",
            "utf-16le": "utf16le"}
_HEX_PAIRS = re.compile(r"(?:[0-9a-fA-F]{2})*")
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/\-_]")


def canonical(name: str) -> str:
    """Node's encoding ``name`` as one of utf8, latin1, utf16le, base64, base64url, hex, ascii."""
    lower = name.lower()
    return _ALIASES.get(lower, lower)


def encode(text: str, encoding: str | None) -> bytes:
    """``Buffer.from(text, encoding)`` (utf8 when ``encoding`` is None)."""
    name = canonical(encoding or "utf8")
    if name == "utf8":
        return text.encode("utf-8", "surrogatepass")
    if name in ("latin1", "ascii"):
        return bytes(ord(c) & 0xFF for c in text)
    if name == "utf16le":
        return text.encode("utf-16-le", "surrogatepass")
    if name == "hex":
        match = _HEX_PAIRS.match(text)
        return bytes.fromhex(match.group(0) if match else "")
    if name in ("base64", "base64url"):
        cleaned = _NOT_BASE64.sub("", text.split("=", 1)[0]).replace("-", "+").replace("_", "/")
        cleaned = cleaned[: len(cleaned) - (len(cleaned) % 4 == 1)]
        try:
            return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4))
        except binascii.Error:
            return b""
    raise ValueError(f"unknown encoding {encoding!r}")


def decode(data: bytes, encoding: str) -> str:
    """``buffer.toString(encoding)``."""
    name = canonical(encoding)
    if name == "utf8":
        return data.decode("utf-8", "replace")
    if name == "latin1":
        return data.decode("latin-1")
    if name == "ascii":
        return bytes(b & 0x7F for b in data).decode("ascii")
    if name == "utf16le":
        return data[: len(data) & ~1].decode("utf-16-le", "surrogatepass")
    if name == "hex":
        return data.hex()
    if name == "base64":
        return base64.b64encode(data).decode("ascii")
    if name == "base64url":
        return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")
    raise ValueError(f"unknown encoding {encoding!r}")
