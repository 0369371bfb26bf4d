"""The dock under load (issue 31): many CPython replicas commit at once through one dock.

Each client is a CPython disk (a SQLite file) attached to the dock (``live=False``); it makes
``--commits`` small commits (one small file each) and syncs after each one, so every commit is
one push of one entry and a pull of what the others pushed meanwhile. The latency of a commit is
its sync's: from the write to the dock having it (and this replica its head). At the end every
replica syncs until quiet, and the run checks that every commit is on the dock exactly once (by
its origin: replica and revision) and that all replicas hold the same tree. It reports commits
per second (all clients' commits over the wall time of the commit phase) and p50/p99 latency.

A benchmark, not a test: `npm run bench` does not run it (it takes minutes). Against the SQLite
default and against a throwaway Postgres cluster (Debian's initdb/pg_ctl, as tests/dock does),
both on 127.0.0.1:

    .venv/bin/python bench/dock_load.py                      # 50 clients x 200 commits, both
    .venv/bin/python bench/dock_load.py --backend sqlite --clients 10 --commits 20

Bounded: ``--timeout`` seconds for the whole run of one backend (it fails, saying so, past it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "dock"))

from dock_helpers import dock_log, tree  # noqa: E402
from dock_process import Dock, Postgres  # noqa: E402

from py_vfs import VFS  # noqa: E402
from py_vfs.dock.link import Offline  # noqa: E402
from py_vfs.dock.replica import DockReplica, attach  # noqa: E402
from py_vfs.storage.sqlite import SQLiteStore  # noqa: E402

DISK = "load"


async def client(number: int, folder: Path, url: str, token: str, commits: int,
                 latencies: list[float]) -> tuple[VFS, DockReplica]:
    """One replica: ``commits`` small commits, each synced at once (Offline: tried again)."""
    vfs = await VFS.open(SQLiteStore(folder / f"c{number}.db"), writer=f"client{number}")
    replica = await attach(vfs, url, token, live=False)
    await vfs.mkdir(f"/c{number}")
    for index in range(commits):
        await vfs.write_file(f"/c{number}/f{index}", f"client {number} commit {index}\n")
        began = time.perf_counter()
        while True:
            try:
                await replica.sync()
                break
            except Offline:
                await asyncio.sleep(0.1)
        latencies.append(time.perf_counter() - began)
    return vfs, replica


async def settle(replicas: list[DockReplica], seconds: float) -> None:
    """Sync every replica until one round changes no one's head (bounded)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        heads = {(await replica.sync())["head"] for replica in replicas}
        if len(heads) == 1 and all(r.status()["state"] == "synced" for r in replicas):
            return
    raise TimeoutError(f"the replicas did not converge within {seconds:.0f} s")


async def run(url: str, token: str, clients: int, commits: int, folder: Path,
              timeout: float) -> dict[str, Any]:
    # Each request waits in a thread (py_vfs/dock/transport.py): one per client, so that the
    # clients' requests are really in flight at once.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(clients + 8))
    latencies: list[float] = []
    began = time.perf_counter()
    pairs = await asyncio.wait_for(asyncio.gather(*(
        client(n, folder, url, token, commits, latencies) for n in range(clients))), timeout)
    elapsed = time.perf_counter() - began
    replicas = [replica for _, replica in pairs]
    await settle(replicas, timeout)
    log = dock_log(url, token, DISK)
    origins = [(e["entry"]["origin"]["replica"], e["entry"]["origin"]["rev"]) for e in log]
    assert len(origins) == len(set(origins)), "a commit is on the dock more than once"
    per_client = {r.state["replica"]: 0 for r in replicas}
    for replica_id, _ in origins:
        per_client[replica_id] += 1
    assert all(count >= commits for count in per_client.values()), "a commit is missing"
    first = await tree(pairs[0][0])
    for vfs, _ in pairs[1:]:
        assert await tree(vfs) == first, "the replicas differ"
    assert sum(1 for path in first if "/f" in path) == clients * commits
    for vfs, _ in pairs:
        vfs.close()
    ordered = sorted(latencies)
    return {"clients": clients, "commits": clients * commits, "dockEntries": len(log),
            "seconds": round(elapsed, 1),
            "commitsPerSecond": round(clients * commits / elapsed, 1),
            "p50Ms": round(1000 * statistics.median(ordered), 1),
            "p99Ms": round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)}


def one_backend(backend: str, clients: int, commits: int, timeout: float) -> dict[str, Any]:
    base = Path(tempfile.mkdtemp(prefix=f"pyvfs-dockload-{backend}-"))
    cluster = dock = None
    try:
        database = None
        if backend == "postgres":
            cluster = Postgres(base)
            database = cluster.create("dockload")
        dock = Dock(base / "dock", database).start()
        token = dock.token(DISK)
        (base / "replicas").mkdir()
        result = asyncio.run(run(dock.url, token, clients, commits, base / "replicas", timeout))
        return {"backend": backend, **result}
    finally:
        if dock is not None:
            dock.stop()
        if cluster is not None:
            cluster.stop("immediate")
        shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--commits", type=int, default=200, help="per client")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds for one backend's run (default 1800)")
    args = parser.parse_args()
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    load = os.getloadavg()
    print(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "loadAverage": [round(x, 2) for x in load], "cpus": os.cpu_count()}))
    for backend in backends:
        print(json.dumps(one_backend(backend, args.clients, args.commits, args.timeout)),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
