"""A disk's side of a sync (py_vfs/disk/exchange.py): its own entries, records and chunks read
for sending, and another disk's entries applied here as commits with their writers. Through a
real dock and replicas: tests/dock/."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import run

from py_vfs.core.node import Node
from py_vfs.vfs import VFS

BIG = bytes(range(256)) * 1024  # 256 KiB: stored as chunks, not inline


def conflict(name: str, writer: str, _time: float) -> str:
    return f"{name} (conflict from {writer})"


async def no_fetch(key: str) -> bytes:
    raise AssertionError(f"chunk {key} was fetched though it was given")


def changes_of(text: str) -> dict[str, Node | None]:
    entry = json.loads(text)
    changes: dict[str, Node | None] = {i: Node.from_record(i, r) for i, r in entry["puts"].items()}
    changes.update(dict.fromkeys(entry["deletes"]))
    return changes


async def last_entry(vfs: VFS) -> tuple[dict[str, Node | None], dict[str, bytes]]:
    """The other disk's last journal entry as changes, with the chunks it names."""
    [(_, text)] = await vfs.exchange.entries(vfs.revision, vfs.revision)
    changes = changes_of(text)
    chunks = {key: await vfs.exchange.chunk(key) for node in changes.values() if node
              for key in node.chunks}
    return changes, chunks  # type: ignore[return-value]


async def apply(here: VFS, changes: dict[str, Node | None], chunks: dict[str, bytes],
                keep: set[str] | None = None, **extra: Any) -> bool:
    async with here.exchange.applying():
        return await here.exchange.apply(
            "writeFile", {"writer": "alice", "time": 1_700_000_000_000, "dock": 7}, changes,
            keep=keep or set(), finals=changes, chunks=chunks, fetch=no_fetch,
            conflict_name=conflict, **extra)


def test_own_entries_records_chunks_and_meta_are_read_for_sending():
    async def go() -> None:
        vfs = VFS.memory()
        await vfs.write_file("/big.bin", BIG)
        exchange = vfs.exchange
        assert await exchange.oldest_entry() == 1
        [(rev, text)] = await exchange.entries(1, vfs.revision)
        assert int(rev) == 1 and json.loads(text)["writer"] == "user"
        assert exchange.default_writer == "user"
        records = exchange.records()
        [node_id] = [i for i, r in records.items() if json.loads(r)["name"] == "big.bin"]
        node = exchange.node(node_id)
        assert node is not None and node.chunks
        assert all(exchange.holds(key) for key in node.chunks)
        assert b"".join([await exchange.chunk(key) for key in node.chunks]) == BIG  # type: ignore[misc]
        assert await exchange.chunk("0" * 64) is None and not exchange.holds("0" * 64)
        assert await exchange.meta("sync:test") is None
        await exchange.put_meta("sync:test", "{}")
        assert await exchange.meta("sync:test") == "{}"
        assert vfs.revision == 1  # a meta record is no journal entry
    run(go())


def test_another_disks_entry_becomes_a_commit_here_with_its_writer():
    async def go() -> None:
        there, here = VFS.memory(), VFS.memory()
        await there.write_file("/big.bin", BIG)
        changes, chunks = await last_entry(there)
        assert await apply(here, changes, chunks)
        assert await here.read_file("/big.bin") == BIG
        [entry] = await here.journal()
        assert entry["writer"] == "alice" and entry["paths"][0] == "/big.bin"
        assert (await here.check()).ok
    run(go())


def test_a_kept_local_node_in_the_way_moves_to_a_conflict_name():
    async def go() -> None:
        there, here = VFS.memory(), VFS.memory()
        await there.write_file("/notes.md", "theirs")
        await here.write_file("/notes.md", "mine")
        await here.write_file("/notes.md (conflict from user)", "an older copy")
        mine = {i for i, r in here.exchange.records().items()
                if json.loads(r)["name"] == "notes.md"}
        changes, chunks = await last_entry(there)
        assert await apply(here, changes, chunks, keep=mine)
        assert await here.read_file("/notes.md", "utf-8") == "theirs"
        assert await here.read_file("/notes.md (conflict from user) 2", "utf-8") == "mine"
        assert await here.read_file("/notes.md (conflict from user)", "utf-8") == "an older copy"
    run(go())


def test_a_delete_removes_a_file_but_keeps_a_folder_that_holds_local_work():
    async def go() -> None:
        there = VFS.memory()
        await there.write_file("/dir/a.txt", "a")
        here = VFS.memory()
        [(_, text)] = await there.exchange.entries(1, 1)
        assert await apply(here, changes_of(text), {})
        await here.write_file("/dir/mine.txt", "mine")
        await there.unlink("/dir/a.txt")
        await there.rmdir("/dir")
        gone: dict[str, Node | None] = {}
        for _, text in await there.exchange.entries(2, there.revision):
            gone.update(changes_of(text))
        assert await apply(here, gone, {})
        assert here.readdir("/dir") == ["mine.txt"]
    run(go())


@pytest.mark.parametrize("with_meta", [True, False])
def test_an_entry_that_changes_nothing_here(with_meta):
    async def go() -> None:
        there, here = VFS.memory(), VFS.memory()
        await there.write_file("/same.txt", "same")
        changes, chunks = await last_entry(there)
        assert await apply(here, changes, chunks)
        before = here.revision
        extra = {"meta": ("sync:state", '{"dock":7}')} if with_meta else \
            {"marker": ("sync:applied", "7")}
        assert await apply(here, changes, chunks, **extra)
        if with_meta:  # saved alone: no journal entry
            assert here.revision == before
            assert await here.exchange.meta("sync:state") == '{"dock":7}'
        else:  # journaled once still, by its writer, with the marker as its one write
            assert here.revision == before + 1
            assert await here.exchange.meta("sync:applied") == "7"
    run(go())
