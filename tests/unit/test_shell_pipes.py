"""Pipelines stream: each stage reads the previous one's output through a bounded pipe."""

from __future__ import annotations

import asyncio
import functools
import tracemalloc

import helpers
import pytest

from py_vfs.shell import Shell
from py_vfs.shell.pipes import PIPE_LIMIT, BytesInput, Collect, Discard, Pipe

BIG = 24 << 20
run = functools.partial(helpers.run, bound=60)


@pytest.fixture
def vfs(vfs):
    run(vfs.write_file("/big", bytes(range(256)) * (BIG // 256)))
    return vfs


def test_a_pipeline_passes_the_bytes_unchanged(vfs):
    out = Collect(limit=BIG)
    result = run(Shell(vfs).run("cat /big | cat | cat -", stdout=out))
    assert (result.code, result.stderr) == (0, "")
    assert out.take() == bytes(range(256)) * (BIG // 256)


def test_a_pipeline_holds_about_a_chunk_not_the_file(vfs):
    """`cat big | cat` of 24 MiB: what is allocated at once stays a few chunks."""
    shell = Shell(vfs)
    tracemalloc.start()
    try:
        result = run(shell.run("cat /big | cat | cat", stdout=Discard()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.code == 0
    assert peak < 8 << 20, f"peak {peak} bytes while streaming {BIG}"


def test_a_reader_that_stops_early_ends_the_writer(vfs):
    """`cat big | true`: the writer gets a broken pipe, the line ends, the status is true's."""
    result = run(Shell(vfs).run("cat /big | true"))
    assert (result.stdout, result.stderr, result.code) == ("", "", 0)


def test_a_pipe_makes_its_writer_wait_for_the_reader():
    async def scenario():
        pipe = Pipe()
        writing = asyncio.ensure_future(pipe.writer.write(bytes(PIPE_LIMIT + 1)))
        await asyncio.sleep(0)
        assert not writing.done()  # full: waits for the reader
        assert len(await pipe.reader.read(PIPE_LIMIT)) == PIPE_LIMIT
        await writing
        await pipe.writer.close()
        assert await pipe.reader.read() == b"\0"
        assert await pipe.reader.read() == b""
    run(scenario())


def test_lines_are_read_across_pieces_and_bounded():
    async def scenario():
        source = BytesInput(b"a\nbc\n\nlast")
        return [line async for line in source.lines()]
    assert run(scenario()) == [b"a\n", b"bc\n", b"\n", b"last"]


def test_output_collected_in_memory_is_bounded(vfs):
    result = run(Shell(vfs).run("cat /big", stdout=Collect(limit=1 << 20)))
    assert result.code == 1
    assert result.stderr.startswith("cat: /big: File too large (output kept in memory stops")
