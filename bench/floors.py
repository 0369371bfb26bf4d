"""F1, the per-call floors: what one small write costs at each layer ours crosses, measured in the
same browser and run as the workloads (docs/benchmarks.md, "Per-call floors").

Per repetition, the bench page runs every probe of bench/web/floors.mjs twice: in a fresh
(off-the-record) context, where the chain's workloads run and where Chromium keeps IndexedDB and
the origin private file system in memory, and in a persistent profile, where a user's browser
keeps them on disk (a sync access handle's append is a write to a file there, an IPC to the
browser's memory in a fresh context). Each time `count` sequential calls after `warmup` untimed
ones, in 10 batches, the median of a batch's time per call kept (performance.now() comes in
steps of 0.1 ms here, coarser than one call). Raw
IndexedDB's one-put transaction (W1's unit for raw IndexedDB) and a transaction shaped like our
commit (four object stores); a round trip to a bare dedicated worker; appends of 1 KiB through
an origin-private-file-system sync access handle, with and without a flush; and ours: a round
trip to our worker that Python takes no part in (`fsaCounters`), a Python call that touches no
storage (`realpath`) and a `writeFile` of 1 KiB. Two more bound W1 and W1c for any design
that enters Python once per call and commits in IndexedDB (report.py, "What a write through
Python costs at the least"): from a dedicated worker, where our commits run, raw IndexedDB's
one-put transaction, and one transaction holding the bytes of `TURN_CALLS` such writes as one
value (per write: the least a group commit of them stores); and
`TURN_CALLS` `realpath` calls made at once (one message, one entry into Python), per call. Each
is recorded as workload "F1 <probe>", adapter "ours" (fresh context) or "persistent", its median
in "ms". Nothing is a target: these say what bounds one.
"""

from __future__ import annotations

import tempfile

WORKLOAD = "F1"
COUNT, WARMUP = 300, 50
SMOKE_COUNT, SMOKE_WARMUP = 10, 2
# The probes of calls made at once: W1c's count of writes, in rounds (the median kept).
TURN_CALLS, TURN_ROUNDS = 1000, 5
SMOKE_TURN_CALLS, SMOKE_TURN_ROUNDS = 10, 1
# The adapter name of the probes run in a persistent profile.
PERSISTENT = "persistent"
PROBES = ("idbPut", "idbCommit", "workerEcho", "opfsAppend", "opfsAppendFlush", "idbPutWorker",
          "idbGroupWorker", "oursHop", "oursPython", "oursPythonTurn", "oursWrite")


def run_floors(bench, reps: int) -> None:
    """F1 on `bench` (a bench/run.py Bench), `reps` times in each of the two places: a fresh
    context, as the chain's workloads run (adapter "ours"), and a persistent profile, as a
    user's browser has it (adapter "persistent")."""
    sizes = ({"count": SMOKE_COUNT, "warmup": SMOKE_WARMUP, "calls": SMOKE_TURN_CALLS,
              "rounds": SMOKE_TURN_ROUNDS} if bench.smoke
             else {"count": COUNT, "warmup": WARMUP, "calls": TURN_CALLS, "rounds": TURN_ROUNDS})
    for rep in range(reps):
        context = bench.browser.new_context()
        try:
            probe(bench, context, sizes, "ours", rep)
        finally:
            with bench.watchdog.stage("closing the F1 context", bench.stage_bound):
                context.close()
        with tempfile.TemporaryDirectory(prefix="pyvfs-f1-") as profile:
            with bench.watchdog.stage(f"F1 opening a persistent profile {rep}", bench.stage_bound):
                context, cdp = bench.launch_persistent(profile)
            try:
                probe(bench, context, sizes, PERSISTENT, rep)
            finally:
                with bench.watchdog.stage("closing the F1 profile", bench.stage_bound):
                    context.close()
                    cdp.close()


def probe(bench, context, sizes: dict, adapter: str, rep: int) -> None:
    """Every probe once in a new bench page of `context`, recorded under `adapter`."""
    page = context.new_page()
    with bench.watchdog.stage(f"{adapter} F1 {rep}", bench.stage_bound):
        bench.open_bench_page(page, wipe=True)
        bench.watchdog.waiting_for(f"the per-call floors ({sizes['count']} calls per probe)")
        floors = page.evaluate("(sizes) => window.bench.floors(sizes)", sizes)
    for name in PROBES:
        bench.record(f"{WORKLOAD} {name}", adapter, {"ms": float(floors[name])})
