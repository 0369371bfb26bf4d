"""The dock's wire: limits, and the strict checks of what a replica sends (docs/dock.md).

Both halves use it: the dock refuses anything that fails here with a 400 before it changes
anything, and a replica checks what it pulls the same way, so a damaged or hostile dock cannot
put a name with ``..`` or NUL on a disk either. Pure Python: it runs in the browser's worker too.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from ..core.node import DIRECTORY, FILE, SYMLINK
from ..disk.content import CHUNK_SIZE

API = "/v1"
MAX_JSON_BODY = 32 * 1024 * 1024  # a push, a list of hashes: bigger is 413, unread
MAX_CHUNK_BODY = CHUNK_SIZE  # a chunk's bytes: every chunk is at most 512 KiB
MAX_ENTRIES = 500  # entries in one push; a replica sends more in several pushes
MAX_HASHES = 10_000  # hashes asked about in one request
MAX_PULL = 500  # entries in one pull answer
MAX_NODES = 100_000  # nodes one entry may write

HASH = re.compile(r"^[0-9a-f]{64}$")
DISK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
NODE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PUSH_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
KINDS = (FILE, DIRECTORY, SYMLINK)
RECORD_NUMBERS = ("mode", "mtime", "ctime", "atime", "size")


class Invalid(ValueError):
    """What a request or an answer holds is not what the protocol allows (400 on the dock)."""


def check_disk(name: object) -> str:
    """A disk's name: 1 to 64 letters, digits, ``_``, ``.`` or ``-``, no ``..``."""
    if not isinstance(name, str) or not DISK.match(name) or ".." in name:
        raise Invalid(f"a disk is named by 1 to 64 letters, digits, '_', '.' or '-', "
                      f"not {name!r}")
    return name


def check_hash(text: object) -> str:
    """A chunk's sha256, 64 lowercase hex digits."""
    if not isinstance(text, str) or not HASH.match(text):
        raise Invalid(f"a chunk is named by its sha256 in 64 lowercase hex digits, not {text!r}")
    return text


def check_name(name: object) -> str:
    """A name in a directory: not empty, not ``.`` or ``..``, no ``/`` or NUL, valid UTF-8,
    at most 255 bytes."""
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\0" in name:
        raise Invalid(f"not a name a directory may hold: {name!r}")
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        raise Invalid(f"a name is not valid UTF-8: {name!r}") from None
    if size > 255:
        raise Invalid(f"a name is longer than 255 bytes: {name[:40]!r}...")
    return name


def parse_json(body: bytes) -> Any:
    """JSON text (UTF-8) -> value; strict: no NaN or infinities, no duplicate keys."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise Invalid(f"the key {key!r} appears twice")
            out[key] = value
        return out

    def constant(name: str) -> Any:
        raise Invalid(f"{name} is not JSON")

    try:
        return json.loads(body.decode("utf-8"), object_pairs_hook=pairs,
                          parse_constant=constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise Invalid(f"the body is not JSON: {error}") from None


def check_record(node_id: object, record: object) -> dict[str, Any]:
    """A node record (the JSON text of ``Node.to_record``) -> its dict, checked field by field."""
    if not isinstance(node_id, str) or not NODE_ID.match(node_id):
        raise Invalid(f"not a node id: {node_id!r}")
    if not isinstance(record, str):
        raise Invalid(f"the record of {node_id} is not JSON text")
    value = parse_json(record.encode("utf-8", "surrogatepass"))
    if not isinstance(value, dict):
        raise Invalid(f"the record of {node_id} is not an object")
    parent, kind = value.get("parent"), value.get("kind")
    if node_id == "root":
        if parent is not None or value.get("name") != "" or kind != DIRECTORY:
            raise Invalid("the root is a directory without a parent or a name")
    else:
        if not isinstance(parent, str) or not NODE_ID.match(parent):
            raise Invalid(f"the parent of {node_id} is not a node id")
        if parent == node_id:
            raise Invalid(f"{node_id} is its own parent")
        check_name(value.get("name"))
    if kind not in KINDS:
        raise Invalid(f"the kind of {node_id} is not one of {', '.join(KINDS)}")
    for key in RECORD_NUMBERS:
        number = value.get(key)
        if isinstance(number, bool) or not isinstance(number, int | float) or number < 0:
            raise Invalid(f"the {key} of {node_id} is not a number of 0 or more")
    chunks = value.get("chunks", [])
    if not isinstance(chunks, list) or len(chunks) > 1 + value["size"] // CHUNK_SIZE:
        raise Invalid(f"the chunks of {node_id} are not a list fitting its size")
    for key in chunks:
        check_hash(key)
    inline = value.get("inline")
    if inline is not None and (not isinstance(inline, str) or len(inline) > 4096 or chunks):
        raise Invalid(f"the inline bytes of {node_id} are not base64 text of 2 KiB at most")
    for key in ("target", "mount", "writer"):
        if value.get(key) is not None and (not isinstance(value[key], str)
                                           or "\0" in value[key] or len(value[key]) > 4096):
            raise Invalid(f"the {key} of {node_id} is not text")
    if kind != FILE and (chunks or inline is not None):
        raise Invalid(f"{node_id} is a {kind} with content")
    return value


def check_entry(entry: object) -> dict[str, Any]:
    """A journal entry a replica pushes (docs/data.md's format, with its ``origin``)."""
    if not isinstance(entry, dict):
        raise Invalid("an entry is an object")
    puts, deletes, before = entry.get("puts"), entry.get("deletes"), entry.get("before")
    if not isinstance(puts, dict) or not isinstance(deletes, list) or \
            not isinstance(before, dict):
        raise Invalid("an entry has puts (an object), deletes (a list) and before (an object)")
    if len(puts) + len(deletes) > MAX_NODES:
        raise Invalid(f"an entry writes at most {MAX_NODES} nodes")
    for node_id, record in puts.items():
        check_record(node_id, record)
    for node_id in deletes:
        if not isinstance(node_id, str) or not NODE_ID.match(node_id) or node_id in puts:
            raise Invalid(f"not a node id to delete: {node_id!r}")
    for node_id, record in before.items():
        if node_id not in puts and node_id not in deletes:
            raise Invalid(f"before names {node_id!r}, which the entry does not write")
        if record is not None:
            check_record(node_id, record)
    writer = entry.get("writer")
    if not isinstance(writer, str) or not 0 < len(writer) <= 64 or not writer.isprintable():
        raise Invalid(f"an entry's writer is 1 to 64 printable characters, not {writer!r}")
    moment = entry.get("time")
    if isinstance(moment, bool) or not isinstance(moment, int | float) or moment < 0:
        raise Invalid("an entry's time is ms since 1970")
    if not isinstance(entry.get("op"), str) or not isinstance(entry.get("ops", []), list):
        raise Invalid("an entry's op is text")
    origin = entry.get("origin")
    if not isinstance(origin, dict) or not isinstance(origin.get("rev"), int) or \
            not isinstance(origin.get("replica"), str) or \
            not PUSH_ID.match(origin["replica"]):
        raise Invalid("an entry's origin is {replica, rev}: who made it, at which of its "
                      "revisions")
    if not isinstance(entry.get("events", []), list):
        raise Invalid("an entry's events are a list")
    return entry


def conflict_name(name: str, writer: str | None, time_ms: float) -> str:
    """The name a version that lost its name to a later push is kept under, beside it:
    ``notes (conflict from alice 2026-06-09 120000).md``."""
    who = (writer or "unknown").replace("/", "_")
    stamp = datetime.fromtimestamp(time_ms / 1000.0, UTC).strftime("%Y-%m-%d %H%M%S")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    tail = f" (conflict from {who} {stamp})" + (f".{ext}" if ext else "")
    budget = 255 - len(tail.encode("utf-8"))
    while len(stem.encode("utf-8")) > budget:
        stem = stem[:-1]
    return stem + tail
