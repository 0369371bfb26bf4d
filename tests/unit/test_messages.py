"""The messages of the wire are declared once (py_vfs/core/messages.py): no JS module writes a
message kind as a string, and every message a module builds carries only its declared fields."""

from __future__ import annotations

import re
from pathlib import Path

from py_vfs.core import messages
from py_vfs.web.protocol import render_js

ROOT = Path(__file__).resolve().parents[2]
# The modules that post messages: every module of the page, and the preview site's relay.
MODULES = [*sorted((ROOT / "web").rglob("*.mjs")), ROOT / "service_worker" / "relay.mjs"]
# Scripts that cannot import protocol.mjs (a classic service worker, the realm's bootstrap).
CLASSIC = [ROOT / "service_worker" / "sw.js", ROOT / "web" / "realm" / "frame.js"]
# `type` strings that are not message kinds: a module worker, a blob's MIME type, the clients a
# service worker matches, node and event types.
# Strings compared with a `type` that are no message kind: script and node types, a key event,
# and a watch event's type (py_vfs/disk/watch.py: create, modify, delete, rename).
NOT_MESSAGES = {"module", "text/javascript", "window", "file", "directory", "symlink", "keydown",
                "create", "modify", "delete", "rename"}
LITERAL = re.compile(r"""(?:\btype:\s*|\.type\s*[!=]==\s*)["']([^"']+)["']""")
BUILT = re.compile(r"\{\s*type:\s*([A-Z]+)\.(\w+)")
KINDS = {channel.name: channel for channel in messages.CHANNELS}


def _code(path: Path) -> str:
    """The file without its // comments (they may quote messages)."""
    return "\n".join(re.sub(r"(^|\s)//.*$", "", line) for line in path.read_text().splitlines())


def _literal_kinds(path: Path) -> set[str]:
    return set(LITERAL.findall(_code(path))) - NOT_MESSAGES


def _fields(text: str, start: int) -> list[str]:
    """The plain keys of the object literal that opens at ``text[start]`` (spreads and computed
    keys left out)."""
    depth, parts, part = 0, [], []
    for char in text[start + 1:]:
        if char in "{[(":
            depth += 1
        elif char in "}])":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(part))
            part = []
        else:
            part.append(char)
    parts.append("".join(part))
    keys = []
    for piece in parts:
        piece = piece.strip()
        if not piece or piece.startswith(("...", "[")):
            continue
        keys.append(re.match(r"\w+", piece).group(0))
    return keys


def test_no_module_writes_a_message_kind_as_a_string():
    found = {path.relative_to(ROOT).as_posix(): kinds for path in MODULES
             if (kinds := _literal_kinds(path))}
    assert found == {}, "use the channels of protocol.mjs (py_vfs/core/messages.py)"


def test_every_message_a_module_builds_is_declared_with_its_fields():
    wrong = []
    for path in MODULES:
        text = _code(path)
        for match in BUILT.finditer(text):
            channel, kind = match.groups()
            declared = KINDS.get(channel)
            if declared is None or kind not in declared.kinds:
                wrong.append(f"{path.name}: {channel}.{kind} is not declared")
                continue
            extra = set(_fields(text, match.start())) - {"type"} - set(declared.kinds[kind])
            if extra:
                wrong.append(f"{path.name}: {channel}.{kind} carries undeclared {sorted(extra)}")
    assert wrong == []


def test_the_classic_scripts_write_only_declared_kinds():
    declared = {messages.value_of(channel, kind) for channel in messages.CHANNELS
                for kind in channel.kinds}
    for path in CLASSIC:
        assert _literal_kinds(path) <= declared, path.name


def test_the_channels_render_into_the_protocol_module():
    text = render_js()
    for channel in messages.CHANNELS:
        assert f"export const {channel.name} = Object.freeze(" in text
    assert "export const MESSAGES = Object.freeze(" in text
    assert messages.kind(messages.WIRE, "call") == "call"
    assert messages.kind(messages.RELAY, "hello") == "pyvfs:relay-hello"
