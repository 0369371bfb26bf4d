"""The dock under load (issue 31): many CPython replicas commit at once through one dock.

Each client is a CPython disk (a SQLite file) attached to the dock (``live=False``); it makes
``--commits`` small commits (one small file each) and syncs after each one, so every commit is
one push of one entry and a pull of what the others pushed meanwhile. The latency of a commit is
its sync's: from the write to the dock having it (and this replica its head). The clients run in
``--processes`` processes (each an event loop, its requests in threads): one process would bound
them by its own work (every client applies every other client's commits, each one local
commit), not the dock. At the end every replica syncs until quiet, and the run checks that
every commit is on the dock exactly once (by its origin: replica and revision), that every
replica's journal holds each dock entry exactly once, and that all replicas hold the same tree.
It reports commits per second (all clients' commits over the wall time of the commit phase),
p50/p99 latency, the dock process's processor time and the load average.

A benchmark, not a test: `npm run bench` does not run it (it takes minutes). Against the SQLite
default and against a throwaway Postgres cluster (Debian's initdb/pg_ctl, as tests/dock does),
both on 127.0.0.1:

    .venv/bin/python bench/dock_load.py                      # 50 clients x 200 commits, both
    .venv/bin/python bench/dock_load.py --backend sqlite --clients 10 --commits 20

Bounded: ``--timeout`` seconds for the whole run of one backend (it fails, saying what it waited
for, past it).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import multiprocessing
import os
import queue
import resource
import signal
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "dock"))

from dock_helpers import dock_origins, journal_ids, tree  # noqa: E402
from dock_process import dock_on  # noqa: E402

from py_vfs import VFS  # noqa: E402
from py_vfs.dock.link import Offline  # noqa: E402
from py_vfs.dock.replica import DockReplica, attach  # noqa: E402
from py_vfs.storage.sqlite import SQLiteStore  # noqa: E402

DISK = "load"


async def client(number: int, vfs: VFS, replica: DockReplica, commits: int,
                 latencies: list[float]) -> None:
    """One replica: ``commits`` small commits, each synced at once (Offline: tried again)."""
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


async def settle(replicas: list[DockReplica], seconds: float) -> None:
    """Sync every replica until one round changes no one's head (bounded)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        heads = {(await replica.sync())["head"] for replica in replicas}
        if len(heads) == 1 and all(r.status()["state"] == "synced" for r in replicas):
            return
    raise TimeoutError(f"the replicas did not converge within {seconds:.0f} s")


def digest(value: Any) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()


async def group(numbers: list[int], folder: Path, url: str, token: str, commits: int,
                barrier: Any, timeout: float) -> dict[str, Any]:
    """One process's clients: open and attach them, wait for every process (``barrier``), run
    the commits, wait for every process to be done, then bring every replica to the dock's
    head and describe it (its tree and which entries its journal holds, as digests)."""
    # Each request waits in a thread (py_vfs/dock/transport.py): one per client, so that the
    # clients' requests are really in flight at once.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(len(numbers) + 8))
    pairs = []
    for number in numbers:
        vfs = await VFS.open(SQLiteStore(folder / f"c{number}.db"), writer=f"client{number}")
        pairs.append((vfs, await attach(vfs, url, token, live=False)))
    barrier.wait(timeout)
    latencies: list[float] = []
    began = time.time()
    await asyncio.wait_for(asyncio.gather(*(
        client(n, vfs, replica, commits, latencies)
        for n, (vfs, replica) in zip(numbers, pairs, strict=True))), timeout)
    ended = time.time()
    barrier.wait(timeout)  # every commit of every process is on the dock now
    await settle([replica for _, replica in pairs], timeout)
    out: dict[str, Any] = {"latencies": latencies, "began": began, "ended": ended,
                           "replicas": [], "heads": set(), "trees": set(), "journals": set()}
    for vfs, replica in pairs:
        found = await journal_ids(vfs, replica.state["replica"])
        assert set(found.values()) == {1}, f"{vfs.store.path}: an entry is journaled twice"
        out["replicas"].append(replica.state["replica"])
        out["heads"].add(replica.state["dock"])
        out["trees"].add(digest(sorted((await tree(vfs)).items())))
        out["journals"].add(digest(sorted(found)))
        vfs.close()
    return out


def process(numbers: list[int], folder: Path, url: str, token: str, commits: int,
            barrier: Any, timeout: float, results: Any) -> None:
    try:
        results.put(asyncio.run(group(numbers, folder, url, token, commits, barrier, timeout)))
    except BaseException as error:
        results.put({"error": f"clients {numbers[0]}-{numbers[-1]}: "
                              f"{type(error).__name__}: {error}"})
        barrier.abort()


def run(url: str, token: str, clients: int, commits: int, processes: int, folder: Path,
        timeout: float) -> dict[str, Any]:
    """The clients in ``processes`` processes (so that no one process, its event loop and
    its SQLite commits, bounds them), every commit checked on the dock and in every replica."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(processes)
    results = context.Queue()
    groups = [list(range(clients))[start::processes] for start in range(processes)]
    workers = [context.Process(target=process, args=(numbers, folder, url, token, commits,
                                                     barrier, timeout, results),
                               daemon=True)
               for numbers in groups]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + timeout
    parts = []
    try:
        for _ in workers:
            try:
                part = results.get(timeout=max(1.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"waited {timeout:.0f} s for {processes - len(parts)} of "
                                   f"{processes} client processes to commit, converge and "
                                   "check their replicas") from None
            assert "error" not in part, part["error"]
            parts.append(part)
    finally:
        for worker in workers:  # done: each has put its part; else (failed, stopped) at once
            worker.join(5 if len(parts) == len(workers) else 0)
            if worker.is_alive():
                worker.kill()
    origins = dock_origins(url, token, DISK)
    per_client = {replica: 0 for part in parts for replica in part["replicas"]}
    for replica_id, _ in origins:
        per_client[replica_id] += 1
    assert all(count >= commits for count in per_client.values()), "a commit is missing"
    for key in ("heads", "trees", "journals"):
        assert len(set().union(*(part[key] for part in parts))) == 1, f"the replicas' {key} differ"
    assert parts[0]["heads"] == {len(origins)}, "the replicas are not at the dock's head"
    assert parts[0]["journals"] == {digest(sorted(origins))}, \
        "a replica's journal does not hold exactly the dock's entries"
    latencies = sorted(x for part in parts for x in part["latencies"])
    assert len(latencies) == clients * commits
    elapsed = max(p["ended"] for p in parts) - min(p["began"] for p in parts)
    return {"clients": clients, "processes": processes, "commits": clients * commits,
            "dockEntries": len(origins), "seconds": round(elapsed, 1),
            "commitsPerSecond": round(clients * commits / elapsed, 1),
            "p50Ms": round(1000 * statistics.median(latencies), 1),
            "p99Ms": round(1000 * latencies[min(len(latencies) - 1,
                                                int(len(latencies) * 0.99))], 1)}


class LoadSampler:
    """The machine's 1-minute load average, sampled every 5 s while entered (``samples``)."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self.stop.wait(5.0):
                return

    def __enter__(self) -> LoadSampler:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop.set()
        self.thread.join()


def cpu_seconds(pid: int) -> float:
    """The processor time (user and system) process ``pid`` has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_backend(backend: str, clients: int, commits: int, processes: int,
                timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"pyvfs-dockload-{backend}-") as base, \
            dock_on(backend, Path(base) / "dock", database="dockload") as dock:
        token = dock.token(DISK)
        (Path(base) / "replicas").mkdir()
        assert dock.process is not None
        cpu_before = cpu_seconds(dock.process.pid)
        clients_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with LoadSampler() as load:
            result = run(dock.url, token, clients, commits, processes,
                         Path(base) / "replicas", timeout)
        clients_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {"backend": backend, **result,
                "dockCpuSeconds": round(cpu_seconds(dock.process.pid) - cpu_before, 1),
                "clientsCpuSeconds": round(
                    clients_after.ru_utime + clients_after.ru_stime
                    - clients_before.ru_utime - clients_before.ru_stime, 1),
                "loadAverage1mMean": round(statistics.mean(load.samples), 2),
                "loadAverage1mMax": round(max(load.samples), 2),
                "loadAverageAfter": [round(x, 2) for x in os.getloadavg()]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--commits", type=int, default=200, help="per client")
    parser.add_argument("--processes", type=int, default=10,
                        help="client processes (default 10; the clients are spread over them)")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds for one backend's run (default 3600)")
    args = parser.parse_args()
    # Stopped from outside (timeout(1), ^C): the clients and the dock are stopped, and the
    # temporary folders removed, on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    processes = max(1, min(args.processes, args.clients))
    print(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "cpus": os.cpu_count(), "python": sys.version.split()[0]}))
    for backend in backends:
        print(json.dumps(one_backend(backend, args.clients, args.commits, processes,
                                     args.timeout)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
