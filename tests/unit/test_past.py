"""``vfs.at(state)``: the disk as it was in a past state, read only (py_vfs/data/past.py), on
the facade and through the page's ``readAt`` call (py_vfs/web/history.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import aio
import pytest
from helpers import run

from py_vfs.core.errors import FsError
from py_vfs.disk.journal import Retention
from py_vfs.vfs import VFS
from py_vfs.web.webapi import WebAPI


async def three_edits(vfs: VFS) -> list[int]:
    """Three edits of /notes/a.md by two writers, then a rename and a link; the revision after
    each edit."""
    revisions = []
    await vfs.write_file("/notes/a.md", "first")
    revisions.append(vfs.revision)
    await vfs.as_writer("agent:x").write_file("/notes/a.md", "second")
    revisions.append(vfs.revision)
    await vfs.write_file("/notes/a.md", "third")
    revisions.append(vfs.revision)
    await vfs.rename("/notes", "/kept")
    await vfs.symlink("/kept/a.md", "/link")
    return revisions


def test_each_revision_reads_as_it_was_and_the_disk_now_is_untouched():
    vfs = VFS.memory()
    revisions = run(three_edits(vfs))
    for revision, text in zip(revisions, ["first", "second", "third"], strict=True):
        past = run(vfs.at(revision))
        assert run(past.read_file("/notes/a.md", "utf-8")) == text
        assert past.readdir("/") == ["notes"]
        assert past.stat("/notes/a.md").size == len(text)
        assert not past.exists("/kept") and not past.exists("/link")
    assert run(vfs.read_file("/kept/a.md")) == b"third"
    assert vfs.readdir("/") == ["kept", "link"]


def test_states_as_diff_takes_them_name_the_same_trees():
    vfs = VFS.memory()
    revisions = run(three_edits(vfs))
    linked = vfs.revision
    run(vfs.restore(revision=revisions[0]))  # the whole disk back to the first edit
    run(vfs.snapshot("back"))
    run(vfs.write_file("/notes/a.md", "later"))
    by_dict = run(vfs.at({"revision": revisions[1]}))
    assert run(by_dict.read_file("/notes/a.md")) == b"second"
    by_name = run(vfs.at("back"))
    assert by_name.readdir("/") == ["notes"]
    assert run(by_name.read_file("/notes/a.md")) == b"first"
    with_link = run(vfs.at(linked))
    assert with_link.readlink("/link") == "/kept/a.md"
    assert run(with_link.read_file("/link")) == b"third"
    assert with_link.realpath("/link") == "/kept/a.md"
    assert with_link.lstat("/link").type == "symlink" and with_link.stat("/link").type == "file"
    now = run(vfs.at(None))
    assert run(now.read_file("/notes/a.md")) == b"later"


def test_errors_are_the_disks_own_then():
    vfs = VFS.memory()
    revisions = run(three_edits(vfs))
    past = run(vfs.at(revisions[0]))
    with pytest.raises(FsError) as missing:
        run(past.read_file("/kept/a.md"))
    assert (missing.value.code, missing.value.syscall) == ("ENOENT", "open")
    with pytest.raises(FsError) as directory:
        run(past.read_file("/notes"))
    assert directory.value.code == "EISDIR"
    with pytest.raises(FsError) as not_dir:
        past.readdir("/notes/a.md")
    assert not_dir.value.code == "ENOTDIR"
    with pytest.raises(FsError) as not_link:
        past.readlink("/notes/a.md")
    assert not_link.value.code == "EINVAL"
    for state in (vfs.revision + 5, -1, {"revision": "x"}, True):
        with pytest.raises(FsError) as bad:
            run(vfs.at(state))
        assert (bad.value.code, bad.value.syscall) == ("EINVAL", "at")
    with pytest.raises(FsError) as no_snapshot:
        run(vfs.at("never-taken"))
    assert no_snapshot.value.code == "ENOENT"


def test_a_revision_the_history_no_longer_reaches_is_refused_even_once_kept():
    vfs = VFS.memory(retention=Retention(days=0, entries=3))
    run(vfs.write_file("/f", "old"))
    early = vfs.revision
    assert run(run(vfs.at(early)).read_file("/f")) == b"old"  # its tree is kept now
    for n in range(6):
        run(vfs.write_file(f"/g{n}", "x"))
    with pytest.raises(FsError) as gone:
        run(vfs.at(early))
    assert gone.value.code == "EINVAL"


def test_a_kept_tree_answers_later_calls_after_more_commits():
    vfs = VFS.memory()
    revisions = run(three_edits(vfs))
    first = run(vfs.at(revisions[0]))
    run(vfs.write_file("/notes/a.md", "made again"))
    again = run(vfs.at(revisions[0]))
    assert again.readdir("/notes") == first.readdir("/notes") == ["a.md"]
    assert run(again.read_file("/notes/a.md")) == b"first"


def test_a_past_disk_has_no_write_and_a_view_has_no_past():
    vfs = VFS.memory()
    run(three_edits(vfs))
    past = run(vfs.at(1))
    assert not any(hasattr(past, name) for name in ("write_file", "rename", "unlink", "mkdir"))
    view = vfs.restrict(read="/kept")
    assert not hasattr(view, "at")


# --------------------------------------------------------------- through the page's readAt

RUNNER = asyncio.Runner()


def call(api: WebAPI, op: str, args: list[Any]) -> dict[str, Any]:
    """One call's envelope (its Task run on one real event loop, as the worker's)."""
    async def settle() -> dict[str, Any]:
        result = api.call(op, args)
        return result if isinstance(result, dict) else await result
    return RUNNER.run(settle())


needs_loop = pytest.mark.skipif(aio.stepping_wanted(),
                                reason="WebAPI.call's Tasks need a real event loop; "
                                       "tests/e2e/test_past.py covers the page")


@needs_loop
def test_read_at_answers_each_call_as_the_page_shapes_it():
    vfs = VFS.memory()
    revisions = run(three_edits(vfs))
    api = WebAPI(vfs)
    first = {"revision": revisions[0]}
    assert call(api, "readAt", [first, "readFile", "/notes/a.md", {"encoding": "utf8"}]) == {
        "value": "first"}
    assert call(api, "readAt", [first, "readFile", "/notes/a.md"])["value"] == b"first"
    assert call(api, "readAt", [first, "readdir", "/notes", {"withFileTypes": True}])["value"] \
        == [{"name": "a.md", "path": "/notes/a.md", "type": "file"}]
    stat = call(api, "readAt", [revisions[1], "stat", "/notes/a.md"])["value"]
    assert stat["size"] == len("second") and stat["type"] == "file"
    assert call(api, "readAt", [first, "exists", "/link"])["value"] is False
    error = call(api, "readAt", [first, "writeFile", "/notes/a.md"])["error"]
    assert error["code"] == "EINVAL" and error["syscall"] == "at"
    missing = call(api, "readAt", [first, "stat", "/kept"])["error"]
    assert (missing["code"], missing["path"]) == ("ENOENT", "/kept")


@needs_loop
def test_read_at_through_a_view_is_refused():
    vfs = VFS.memory()
    run(three_edits(vfs))
    api = WebAPI(vfs)
    view = WebAPI(vfs.restrict(read="/kept"))
    error = call(view, "readAt", [1, "readFile", "/notes/a.md"])["error"]
    assert (error["code"], error["syscall"]) == ("EACCES", "at")
    assert call(api, "readAt", [1, "readdir", "/"])["value"] == ["notes"]
