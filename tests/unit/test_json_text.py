"""The stored text of node records and journal entries is compact JSON, byte for byte what
``json.dumps(separators=(",", ":"), ensure_ascii=False)`` makes of what it holds, whatever the
names, bytes and writers: py_vfs/core/json_text.py writes some strings without the encoder."""

from __future__ import annotations

import json

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.core.json_text import compact, embedded, plain_string
from py_vfs.core.node import FILE, Node, encode_inline

# Every kind of character a JSON string treats apart: quotes, backslashes, control characters,
# non-ASCII, a line separator JavaScript once did not allow, a lone surrogate.
ODD = ['"', "\\", "\n", "\x01", "\x1f", "é", "\u2028", "\ud800", "𝄞"]
# The ones a file name may hold (a lone surrogate is EINVAL).
NAMED = [char for char in ODD if char != "\ud800"]


def canonical(text: str) -> bool:
    return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False) == text


@pytest.mark.parametrize("inline", ["", "QUJD", "AAAA==", *ODD, 'a"}', 7, ["list"]])
@pytest.mark.parametrize("writer", [None, "agent:x", 'a"\\\u2028'])
@pytest.mark.parametrize("mount", [None, 'f"\\é'])
def test_a_record_is_the_compact_text_of_its_fields_whatever_its_inline_value(inline, writer,
                                                                              mount):
    # A record read from an untrusted disk may hold anything in ``inline``: written back, it
    # stays valid JSON.
    node = Node(id="n1", parent="root", name="a" + "".join(ODD), kind=FILE, mode=0o644,
                mtime_ms=1.5, ctime_ms=2.0, atime_ms=3.0, size=4, inline=inline, writer=writer,
                mount=mount)
    text = node.to_record()
    assert canonical(text)
    assert json.loads(text)["inline"] == inline
    assert Node.from_record("n1", text) == node
    assert embedded(text) == compact(text)


def test_only_base64_text_is_plain():
    assert plain_string(encode_inline(bytes(range(256)) * 4))
    assert plain_string("")
    for value in [*ODD, "a b", "a\x7f", 5, None]:
        assert not plain_string(value), repr(value)


def test_journal_entries_and_records_of_odd_names_and_bytes_are_compact_json():
    async def main() -> VFS:
        vfs = VFS.memory()
        agent = vfs.as_writer("agent:odd")
        await vfs.mkdir("/d")
        for i, char in enumerate(NAMED):
            await vfs.write_file(f"/d/{char}{i}", bytes(range(256)) * 4)
            await agent.write_file(f"/d/w{i}", char.encode("utf-8", "surrogatepass"))
        await vfs.rename("/d", "/e")
        return vfs

    vfs = run(main())
    spaces = vfs.store.spaces
    assert len(spaces["log"]) > 2 * len(NAMED)
    for text in [*spaces["log"].values(), *spaces["nodes"].values()]:
        assert canonical(text), text[:200]
    names = {json.loads(text)["name"] for text in spaces["nodes"].values()}
    assert {f"{char}{i}" for i, char in enumerate(NAMED)} <= names
    for text in spaces["log"].values():
        for record in json.loads(text)["puts"].values():
            assert canonical(record)
