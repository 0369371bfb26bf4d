"""Replicas for the dock tier: a CPython disk (a SQLite file) attached to a dock, and what
every test checks once they synced (``converged``)."""

from __future__ import annotations

import asyncio
import http.client
import json
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from py_vfs import VFS
from py_vfs.dock.link import Offline, Refusal
from py_vfs.dock.replica import DockReplica, attach
from py_vfs.storage.sqlite import SQLiteStore

SYNC_S = 60.0


async def replica(path: Path, url: str, token: str, writer: str) -> tuple[VFS, DockReplica]:
    vfs = await VFS.open(SQLiteStore(path), writer=writer)
    return vfs, await attach(vfs, url, token, live=False)


async def sync_until_quiet(*replicas: DockReplica, seconds: float = SYNC_S) -> None:
    """Sync every replica, over and over, until a whole round changes nobody's head and
    every one says synced (bounded)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    last: Any = None
    while loop.time() < deadline:
        heads = []
        try:
            for one in replicas:
                heads.append((await one.sync())["head"])
        except (Offline, Refusal) as error:
            last = error
            await asyncio.sleep(0.2)
            continue
        if len(set(heads)) == 1 and all(r.status()["state"] == "synced" for r in replicas):
            return
    raise AssertionError(f"waited {seconds:.0f} s for the replicas to converge "
                         f"(last error: {last})")


async def tree(vfs: VFS) -> dict[str, Any]:
    """Every path with its kind and, for a file, its bytes."""
    out: dict[str, Any] = {}
    for path in vfs.walk("/"):
        stat = vfs.lstat(path)
        out[path] = (stat.type, await vfs.read_file(path) if stat.is_file else
                     (vfs.readlink(path) if stat.is_symlink else None))
    return out


async def journal_ids(vfs: VFS, replica_id: str) -> Counter[tuple[str, int]]:
    """The dock entries a replica's journal holds, each by its origin (replica, revision)."""
    found: Counter[tuple[str, int]] = Counter()
    for rev, text in await vfs.store.log_entries(1, vfs.revision):
        entry = json.loads(text)
        if entry.get("fixup"):
            continue
        if "dock" in entry:
            found[(entry["origin"]["replica"], entry["origin"]["rev"])] += 1
        elif entry["puts"] or entry["deletes"]:
            found[(replica_id, int(rev))] += 1
    return found


def request(url: str, method: str, path: str, token: str | None = None, body: Any = None,
            raw: bytes | None = None, headers: dict[str, str] | None = None
            ) -> tuple[int, Any]:
    """One raw HTTP request to the dock: (status, JSON answer or bytes)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    data = raw
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(payload)
    except ValueError:
        return response.status, payload


def dock_log(url: str, token: str, disk: str = "work") -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    after = 0
    while True:
        status, answer = request(url, "GET", f"/v1/disks/{disk}/log?after={after}", token)
        assert status == 200, answer
        entries.extend(answer["entries"])
        if not answer["more"]:
            return entries
        after = answer["entries"][-1]["rev"]


def dock_origins(url: str, token: str, disk: str = "work") -> list[tuple[str, int]]:
    """The dock's journal, each entry by its origin (replica, revision); each must be there
    once (an entry pushed again is never applied twice)."""
    origins = [(e["entry"]["origin"]["replica"], e["entry"]["origin"]["rev"])
               for e in dock_log(url, token, disk)]
    assert len(origins) == len(set(origins)), "an entry is on the dock more than once"
    return origins


async def converged(url: str, token: str, *pairs: tuple[VFS, DockReplica],
                    disk: str = "work") -> list[tuple[str, int]]:
    """Sync the replicas until quiet, then check what a user of several replicas relies on:
    the same tree on each, byte for byte; every dock entry once on the dock and once in each
    replica's journal (with its origin); fsck clean. Returns the dock's entries' origins."""
    await sync_until_quiet(*(one for _, one in pairs))
    first = await tree(pairs[0][0])
    for vfs, _ in pairs[1:]:
        assert await tree(vfs) == first, f"{vfs.store.path} differs from the first replica"
    origins = dock_origins(url, token, disk)
    for vfs, one in pairs:
        ids = await journal_ids(vfs, one.state["replica"])
        assert set(ids) == set(origins), f"{vfs.store.path} lacks or adds journal entries"
        assert max(ids.values(), default=1) == 1, f"{vfs.store.path} has an entry twice"
        assert (await vfs.check()).ok
    return origins
