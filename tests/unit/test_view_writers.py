"""Who a restricted view's changes are recorded as (docs/sandbox.md, "Writers"): always a name
of the view's (its creator's choice, ``scoop:<name>``, or ``view:<n>``), never the unrestricted
user's, whatever writer the calls through it carry (security review, issue 27, finding 10)."""

from __future__ import annotations

from typing import Any

from helpers import run

from py_vfs import VFS
from py_vfs.web.protocol import DEFAULT_WRITER
from py_vfs.web.webapi import WebAPI


def answer(api: WebAPI, op: str, args: list[Any], writer: str | None = None) -> Any:
    """The value of one call, as the worker makes it (``writer``: the call envelope's)."""
    async def settle() -> dict[str, Any]:
        result = api.call(op, args, writer)
        return result if isinstance(result, dict) else await result
    envelope = run(settle())
    assert "error" not in envelope, envelope
    return envelope["value"]


def writer_of(vfs: VFS, path: str) -> str:
    return run(vfs.journal(path=path, limit=1))[0]["writer"]


def disk() -> VFS:
    """A disk with the folders the views below may write in (a view cannot make them)."""
    vfs = VFS.memory()
    for folder in ("/a", "/b", "/c"):
        run(vfs.mkdir(folder))
    return vfs


def test_a_view_made_without_a_writer_writes_under_its_own_name():
    vfs = disk()
    one = vfs.restrict(read="/a", write="/a")
    two = vfs.restrict(read="/b", write="/b")
    run(one.write_file("/a/x", "1"))
    run(two.write_file("/b/x", "2"))
    assert one.writer.startswith("view:") and two.writer.startswith("view:")
    assert one.writer != two.writer
    assert (writer_of(vfs, "/a/x"), writer_of(vfs, "/b/x")) == (one.writer, two.writer)
    # A narrower view keeps the name; a name its creator gives is kept.
    narrower = one.restrict(write="/a")
    run(narrower.write_file("/a/y", "3"))
    assert writer_of(vfs, "/a/y") == one.writer
    assert vfs.restrict(write="/c", writer="agent:planner").writer == "agent:planner"
    assert vfs.as_writer("agent:p").restrict(write="/c").writer == "agent:p"
    assert run(vfs.scoop("s")).writer == "scoop:s"
    # Nor can a view, or whoever holds one, take the user's name for itself.
    for renamed in (one.as_writer(DEFAULT_WRITER), one.restrict(writer=DEFAULT_WRITER),
                    vfs.restrict(write="/c", writer=DEFAULT_WRITER)):
        assert renamed.writer.startswith("view:")


def test_a_view_over_the_protocol_never_writes_as_the_user():
    """The page names every call's writer (``user`` unless ``vfs.as(...)``); a view it opens
    without a writer, and every call on the view's port, still write as the view."""
    vfs = disk()
    api = WebAPI(vfs)
    children = [api.channels.child(answer(api, "restrict", [options], DEFAULT_WRITER))
                for options in ({"read": ["/a"], "write": ["/a"]}, {})]
    for number, child in enumerate(children):
        answer(child, "writeFile", [f"/a/{number}", b"x"], DEFAULT_WRITER)
        answer(child, "shell", [f"echo hi > /a/shell{number}"], DEFAULT_WRITER)
    writers = {writer_of(vfs, path) for path in ("/a/0", "/a/1", "/a/shell0", "/a/shell1")}
    assert DEFAULT_WRITER not in writers and "shell" not in writers
    assert all(name.startswith("view:") for name in writers) and len(writers) == 2
    # A view's port asking for a narrower view named "user" gets one named view:<n>.
    grandchild = children[0].channels.child(
        answer(children[0], "restrict", [{"write": ["/a"], "writer": DEFAULT_WRITER}]))
    answer(grandchild, "writeFile", ["/a/g", b"x"], DEFAULT_WRITER)
    assert writer_of(vfs, "/a/g").startswith("view:")
    # A view opened by a named caller writes under that name.
    named = api.channels.child(answer(api, "restrict", [{"write": ["/b"]}], "agent:x"))
    answer(named, "writeFile", ["/b/f", b"x"], DEFAULT_WRITER)
    assert writer_of(vfs, "/b/f") == "agent:x"
