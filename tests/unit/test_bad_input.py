"""Values a user, a page or an agent can send that must be refused with a POSIX code, change
nothing, and never reach a listing, the preview or the store (docs/semantics.md, "Limits")."""

from __future__ import annotations

import math
import tracemalloc

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.disk.limits import MAX_FILE_SIZE, MAX_TIME_MS, MIN_TIME_MS
from py_vfs.hosts.preview import PreviewRequest, respond
from py_vfs.shell import Shell

MIB = 1024 * 1024


@pytest.fixture
def vfs(vfs: VFS) -> VFS:
    run(vfs.write_file("/f", "hello"))
    return vfs


def refused(vfs: VFS, coro, code: str = "EINVAL") -> FsError:
    """``coro`` fails with ``code`` and leaves every node as it was."""
    before = dict(vfs.index.nodes)
    with pytest.raises(FsError) as info:
        run(coro)
    assert info.value.code == code
    assert vfs.index.nodes == before
    return info.value


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e20, MAX_TIME_MS + 1,
                                 MIN_TIME_MS - 1, "12", None, True])
def test_utimes_refuses_what_cannot_be_a_time(vfs, bad):
    error = refused(vfs, vfs.utimes("/f", bad, 0))
    assert error.hint
    refused(vfs, vfs.utimes("/f", 0, bad))


@pytest.mark.parametrize("moment", [MIN_TIME_MS, MAX_TIME_MS, 0, -1.5])
def test_the_extreme_times_accepted_still_show_everywhere(vfs, moment):
    run(vfs.utimes("/f", moment, moment))
    shell = Shell(vfs)
    for line in ("ls -l f", "stat f"):
        result = run(shell.run(line))
        assert (result.code, result.stderr) == (0, ""), result
    answer = run(respond(vfs, PreviewRequest("/f")))
    assert (answer.status, answer.body) == (200, b"hello")


@pytest.mark.parametrize("bad", [1.5, "644", -1, 2**40, math.nan])
def test_modes_must_be_integers(vfs, bad):
    refused(vfs, vfs.chmod("/f", bad))
    refused(vfs, vfs.mkdir("/d", mode=bad))
    refused(vfs, vfs.write_file("/g", "x", mode=bad))
    assert not vfs.exists("/d") and not vfs.exists("/g")


@pytest.mark.parametrize("bad", [1.5, "3", -1, math.nan, math.inf, None])
def test_truncate_lengths_must_be_integers(vfs, bad):
    refused(vfs, vfs.truncate("/f", bad))
    assert run(vfs.read_file("/f")) == b"hello"


@pytest.mark.parametrize("length", [MAX_FILE_SIZE + 1, 2**63, 10**100])
def test_truncate_past_the_largest_file_is_efbig(vfs, length):
    error = refused(vfs, vfs.truncate("/f", length), "EFBIG")
    assert "at most" in str(error)


def test_growing_a_file_allocates_no_gap(vfs):
    """The gap references the one all-zero chunk: growing a file to 64 MiB used to allocate
    the gap twice (a 128 MiB peak)."""
    tracemalloc.start()
    try:
        run(vfs.truncate("/f", 64 * MIB + 3))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MIB
    node = vfs.index.child(vfs.index.root, "f")
    assert node.size == 64 * MIB + 3 and len(node.chunks) == 129
    assert len(set(node.chunks[1:-1])) == 1  # one stored chunk of zeros for all of them
    assert len(vfs.store.spaces["chunks"]) == 3  # hello+zeros, the zeros, the last 3 bytes

    async def read(start: int, end: int) -> bytes:
        return b"".join([piece async for piece in vfs.open_read("/f", start, end)])

    assert run(read(0, 8)) == b"hello\0\0\0"
    assert run(read(64 * MIB - 2, 64 * MIB + 3)) == bytes(5)
    assert run(read(CHUNK_SIZE - 1, CHUNK_SIZE + 1)) == bytes(2)
    run(vfs.truncate("/f", 2))
    assert run(vfs.read_file("/f")) == b"he"
    assert run(vfs.check()).ok


def test_the_largest_file_can_be_made_and_streamed_but_not_read_whole(vfs):
    run(vfs.truncate("/f", MAX_FILE_SIZE))
    assert vfs.stat("/f").size == MAX_FILE_SIZE
    stream = vfs.open_read("/f", MAX_FILE_SIZE - 3)
    assert run(anext(stream)) == bytes(3)
    refused(vfs, vfs.read_file("/f"), "EFBIG")
    # cat streams it; what a line's output may hold in memory is bounded instead.
    result = run(Shell(vfs).run("cat f"))
    assert (result.code, result.stderr) == (1, "cat: f: File too large (output kept in memory "
                                               "stops at 67108864 bytes: redirect it to a file)\n")


@pytest.mark.parametrize("call", [
    lambda vfs: vfs.write_file("/bad\udc80", "x"),
    lambda vfs: vfs.mkdir("/d\ud800"),
    lambda vfs: vfs.rename("/f", "/f\udfff"),
    lambda vfs: vfs.symlink("/t\udc80", "/link"),
    lambda vfs: vfs.write_file("/text", "lone \ud800 surrogate"),
])
def test_lone_surrogates_are_einval_not_a_failed_commit(call):
    """Such a string lived in memory, then failed to encode at commit (UnicodeEncodeError)."""
    vfs = VFS.memory()
    run(vfs.write_file("/f", "x"))
    refused(vfs, call(vfs))
    assert vfs.readdir("/") == ["f"]


@pytest.mark.parametrize("call", [
    lambda vfs: run(vfs.read_file("")),
    lambda vfs: run(vfs.write_file("", "x")),
    lambda vfs: run(vfs.mkdir("")),
    lambda vfs: run(vfs.rm("", recursive=True)),
    lambda vfs: run(vfs.rename("", "/x")),
    lambda vfs: run(vfs.rename("/f", "")),
    lambda vfs: vfs.stat(""),
    lambda vfs: vfs.readdir(""),
])
def test_the_empty_path_is_enoent_not_the_root(vfs, call):
    before = dict(vfs.index.nodes)
    with pytest.raises(FileNotFoundError) as info:
        call(vfs)
    assert info.value.code == "ENOENT"
    assert vfs.index.nodes == before
    assert vfs.exists("") is False


@pytest.mark.parametrize(("header", "status", "body"), [
    ("bytes=" + "9" * 5000 + "-", 416, None),
    ("bytes=0-" + "9" * 5000, 206, b"hello"),
    ("bytes=-" + "9" * 5000, 206, b"hello"),
    ("bytes=" + "0" * 5000 + "1-", 206, b"ello"),
    ("bytes=1-" + "0" * 4999 + "2", 206, b"el"),
])
def test_a_range_of_thousands_of_digits_is_answered(vfs, header, status, body):
    answer = run(respond(vfs, PreviewRequest("/f", range=header)))
    assert answer.status == status
    if body is not None:
        assert answer.body == body
