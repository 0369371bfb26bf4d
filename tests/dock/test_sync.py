"""Replicas converge through a real dock, on SQLite and on Postgres (docs/dock.md)."""

from __future__ import annotations

import asyncio
import random

import pytest
from dock_helpers import converged, dock_log, replica, sync_until_quiet, tree

from py_vfs.dock.link import Refusal


def test_two_replicas_edit_at_once_and_converge_with_each_entry_once(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        rng = random.Random(31)

        async def edits(vfs, who: str) -> None:
            for number in range(30):
                name = rng.choice(["notes.md", "todo.txt", f"{who}-{number % 5}.txt"])
                folder = rng.choice(["/", "/src", "/docs"])
                await vfs.mkdir(folder, recursive=True)
                size = rng.choice([10, 3000, 600_000])
                await vfs.write_file(f"{folder.rstrip('/')}/{name}",
                                     bytes([number % 256]) * size)
                if number % 7 == 3:
                    await (ra if who == "alice" else rb).sync()

        await asyncio.gather(edits(a, "alice"), edits(b, "bob"))
        await converged(dock.url, token, (a, ra), (b, rb))
        writers = {e["entry"]["writer"] for e in dock_log(dock.url, token)}
        assert {"alice", "bob"} <= writers
        a.close()
        b.close()

    asyncio.run(main())


def test_offline_edits_on_both_sides_are_both_kept(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        await a.mkdir("/docs")
        await a.write_file("/docs/notes.md", "first")
        await a.write_file("/docs/gone.md", "to delete")
        await a.mkdir("/old")
        await a.write_file("/old/keep.txt", "x")
        await sync_until_quiet(ra, rb)
        dock.stop()
        await a.write_file("/docs/notes.md", "alice offline")
        await b.write_file("/docs/notes.md", "bob offline")
        await a.unlink("/docs/gone.md")  # a delete against an edit: the edit stays
        await b.write_file("/docs/gone.md", "bob kept this")
        await a.rename("/old", "/new")  # a folder renamed against a write inside it
        await b.write_file("/old/keep.txt", "bob wrote inside")
        dock.start()
        await sync_until_quiet(ra, rb)
        assert await tree(a) == await tree(b)
        names = a.readdir("/docs")
        copies = [n for n in names if n.startswith("notes (conflict from ")]
        assert len(copies) == 1, names
        versions = {await a.read_file("/docs/notes.md"),
                    await a.read_file(f"/docs/{copies[0]}")}
        assert versions == {b"alice offline", b"bob offline"}
        assert await a.read_file("/docs/gone.md") == b"bob kept this"
        assert await a.read_file("/new/keep.txt") == b"bob wrote inside"
        assert not a.exists("/old")
        conflicts = [e["entry"]["conflicts"] for e in dock_log(dock.url, token)
                     if e["entry"].get("conflicts")]
        assert conflicts and set(conflicts[0][0]["writers"]) == {"alice", "bob"}
        a.close()
        b.close()

    asyncio.run(main())


def test_history_from_other_replicas_keeps_writers_and_restores(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        await a.write_file("/plan.md", "v1")
        await sync_until_quiet(ra, rb)
        before = b.revision
        await a.write_file("/plan.md", "v2")
        await sync_until_quiet(ra, rb)
        journal = await b.journal(path="/plan.md")
        assert [j["writer"] for j in journal if j["operation"] == "writeFile"][:2] == \
            ["alice", "alice"]
        await b.restore(revision=before)
        assert await b.read_file("/plan.md") == b"v1"
        await sync_until_quiet(ra, rb)
        assert await a.read_file("/plan.md") == b"v1"
        a.close()
        b.close()

    asyncio.run(main())


def test_a_mass_deletion_is_held_until_confirmed(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        for number in range(40):
            await a.write_file(f"/f{number}.txt", str(number))
        await ra.sync()
        for number in range(40):
            await a.unlink(f"/f{number}.txt")
        with pytest.raises(Refusal, match="deletes"):
            await ra.sync()
        assert ra.status()["state"] == "held"
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        assert len(b.readdir("/")) == 40
        await ra.sync(confirm=True)
        await rb.sync()
        assert b.readdir("/") == []
        a.close()
        b.close()

    asyncio.run(main())


def test_two_docks_on_one_postgres_converge(backend, docks, tmp_path):
    if backend != "postgres":
        return  # one SQLite file is one machine's; several docks need Postgres
    first, second = docks(), docks()
    token = first.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", first.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", second.url, token, "bob")

        async def edits(vfs, one, who: str) -> None:
            for number in range(25):
                await vfs.write_file(f"/{who}-{number}.txt", who * number)
                await vfs.write_file("/shared.txt", f"{who} {number}")
                if number % 3 == 0:
                    await one.sync()

        await asyncio.gather(edits(a, ra, "alice"), edits(b, rb, "bob"))
        await converged(first.url, token, (a, ra), (b, rb))
        revs = [e["rev"] for e in dock_log(first.url, token)]
        assert revs == list(range(1, len(revs) + 1))
        a.close()
        b.close()

    asyncio.run(main())
