"""The metadata record of one file, directory or symlink, and its stored form.

Nodes are immutable values: a change makes a new ``Node`` (``Node.changed``), so the undo
log of a transaction can simply keep the old one.

A small file keeps its bytes in its record (``inline``, base64 text) instead of in chunks. The
node holds that text as read, and decodes it only when the file is read: boot parses every
record, and decoding thousands of files nobody reads would be wasted.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from .json_text import compact, plain_string, quoted

FILE = "file"
DIRECTORY = "directory"
SYMLINK = "symlink"

ROOT_ID = "root"
ROOT_INO = 2  # ext4's root directory is inode 2

# Stats.ino from a node id: the first 13 hex digits (52 bits, which a JS number holds exactly)
# of the id's 16 random ones (py_vfs/fs/disk_side.py ``new_id``).
INO_DIGITS = 13
# The size stat reports for a directory: ext4's one block, so listings look familiar.
DIRECTORY_SIZE = 4096
# A set's check of a string's characters runs in C: a listing computes one ino per entry, and a
# generator over the characters was most of what listing 900 entries cost.
_HEX_DIGITS = frozenset("0123456789abcdef")


def ino_of(node_id: str) -> int:
    """The inode number ``stat`` reports for the node ``node_id``: the root's 2, a stored
    node's from the first 52 bits of its random id (kept across renames, rewrites and reloads;
    web/page/early_reader.mjs derives it the same way), any other id's (a mounted folder's
    virtual nodes, whose ids are made from their paths) from a hash of it. Never 0."""
    if node_id == ROOT_ID:
        return ROOT_INO
    head = node_id[:INO_DIGITS]
    if len(head) == INO_DIGITS and _HEX_DIGITS.issuperset(head):
        return int(head, 16) or 1
    digest = hashlib.blake2b(node_id.encode("utf-8", "surrogatepass"), digest_size=7).digest()
    return (int.from_bytes(digest, "big") >> 4) or 1


@dataclass(slots=True)
class Node:
    """One file, directory or symlink, as the ``nodes`` keyspace stores it
    (docs/architecture.md, "Nodes and content").

    Never changed in place: the index, a transaction's undo, a commit's "before" records and
    the watchers share nodes, and ``changed()`` makes a new one. Not a frozen dataclass only
    because its construction costs: every write makes a node, and a frozen one's fields are set
    through ``object.__setattr__`` (13.1 against 2.8 us in Pyodide, 5.1 against 1.4 on CPython
    3.11).
    """

    id: str
    parent: str | None
    name: str
    kind: str
    mode: int
    mtime_ms: float
    ctime_ms: float
    atime_ms: float
    size: int = 0
    target: str | None = None
    chunks: tuple[str, ...] = ()
    inline: str | None = None  # a small file's bytes, base64; None when it has chunks or none
    # On a directory: the name of the folder mounted there (docs/mounts.md, "Several tabs"). It
    # is disk state, so every tab knows the mount point, even one that has not attached it.
    mount: str | None = None
    # Who made the node's last change (``user``, ``shell``, ``agent:planner``...; the journal's
    # writers, docs/data.md); None in records written before writers were recorded.
    writer: str | None = None

    @property
    def is_dir(self) -> bool:
        """True for a directory."""
        return self.kind == DIRECTORY

    @property
    def is_link(self) -> bool:
        """True for a symlink."""
        return self.kind == SYMLINK

    @property
    def ino(self) -> int:
        """The inode number ``stat`` reports (``ino_of`` the id)."""
        return ino_of(self.id)

    @property
    def stat_size(self) -> int:
        """The size stat reports: ``DIRECTORY_SIZE`` for a directory, else its size."""
        return DIRECTORY_SIZE if self.kind == DIRECTORY else self.size

    @property
    def inline_bytes(self) -> bytes:
        """The bytes of an inline file (b"" for any other node)."""
        return decode_inline(self.inline) if self.inline is not None else b""

    def changed(self, **changes: Any) -> Node:
        """This node with ``changes`` (field names and their new values) made: what
        ``dataclasses.replace`` makes, for 40% less (it looks each field up and passes them all
        by name: 9.5 against 5.7 µs in Pyodide, 4.6 against 2.8 on CPython 3.11)."""
        values = list(_field_values(self))
        for name, value in changes.items():
            values[_FIELD_POSITIONS[name]] = value
        return Node(*values)

    def to_record(self) -> str:
        """The JSON text stored under the node's id in the ``nodes`` keyspace."""
        record = {
            "parent": self.parent, "name": self.name, "kind": self.kind, "mode": self.mode,
            "mtime": self.mtime_ms, "ctime": self.ctime_ms, "atime": self.atime_ms,
            "size": self.size,
        }
        if self.target is not None:
            record["target"] = self.target
        if self.chunks:
            record["chunks"] = list(self.chunks)
        if self.inline is not None:
            if plain_string(self.inline):
                # Base64: written as it is (json_text.py), with the fields after it in their
                # order, so the text is compact's own.
                tail = "" if self.mount is None else ',"mount":' + quoted(self.mount)
                if self.writer is not None:
                    tail += ',"writer":' + quoted(self.writer)
                return compact(record)[:-1] + ',"inline":"' + self.inline + '"' + tail + "}"
            record["inline"] = self.inline
        if self.mount is not None:
            record["mount"] = self.mount
        if self.writer is not None:
            record["writer"] = self.writer
        return compact(record)

    @staticmethod
    def from_record(node_id: str, text: str) -> Node:
        """The node stored as ``record`` under ``node_id``."""
        r = json.loads(text)
        return Node(
            id=node_id, parent=r["parent"], name=r["name"], kind=r["kind"], mode=r["mode"],
            mtime_ms=r["mtime"], ctime_ms=r["ctime"], atime_ms=r["atime"], size=r["size"],
            target=r.get("target"), chunks=tuple(r.get("chunks", ())), inline=r.get("inline"),
            mount=r.get("mount"), writer=r.get("writer"),
        )


_FIELD_NAMES = tuple(field.name for field in fields(Node))
_FIELD_POSITIONS = {name: position for position, name in enumerate(_FIELD_NAMES)}
_field_values = attrgetter(*_FIELD_NAMES)


def name_key(parent: str, name: str) -> str:
    """The key of the entry ``name`` of directory ``parent`` in the ``names`` keyspace (its value
    the entry's node id): a name has no ``/`` and an id is hex or ``root``, so the entries of one
    directory are the keys that start with ``parent + "/"``, and JS resolves a path with one
    keyed read per segment (web/page/early_reader.mjs)."""
    return f"{parent}/{name}"


def encode_inline(data: bytes) -> str:
    """Base64 keeps the record JSON text (IndexedDB and SQLite store it as a string) at 4/3 of
    the bytes, whatever they are; JSON escapes of raw bytes could take six times as much."""
    return base64.b64encode(data).decode("ascii")


def decode_inline(text: str) -> bytes:
    """The bytes of ``inline`` text; a ValueError (``binascii.Error``) when it is not strict
    base64, so that ``check()`` reports a damaged record rather than reading garbage."""
    return base64.b64decode(text, validate=True)


@dataclass(frozen=True, slots=True)
class Stat:
    """What ``stat``/``lstat`` report; field names follow the Python API of the issue."""

    type: str
    size: int
    mode: int
    mtime_ms: float
    ctime_ms: float
    atime_ms: float
    name: str
    path: str
    target: str | None = None
    ino: int = 0  # ``ino_of`` the node's id; 0 where none is known

    @property
    def is_file(self) -> bool:
        """True for a regular file."""
        return self.type == FILE

    @property
    def is_dir(self) -> bool:
        """True for a directory."""
        return self.type == DIRECTORY

    @property
    def is_symlink(self) -> bool:
        """True for a symlink."""
        return self.type == SYMLINK

    def to_dict(self) -> dict:
        """The stat as the JS API returns it."""
        return {
            "type": self.type, "size": self.size, "mode": self.mode, "mtimeMs": self.mtime_ms,
            "ctimeMs": self.ctime_ms, "atimeMs": self.atime_ms, "name": self.name,
            "path": self.path, "target": self.target, "ino": self.ino,
        }


@dataclass(frozen=True, slots=True)
class DirEntry:
    """One entry of ``readdir(path, with_types=True)``: its name, path and kind."""

    name: str
    path: str
    type: str

    def to_dict(self) -> dict:
        """The entry as the JS API returns it."""
        return {"name": self.name, "path": self.path, "type": self.type}
