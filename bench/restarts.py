"""W8 and Q1-Q3: reopening a disk of manyFiles files after a browser restart, and ours' SQL on it.

Per adapter, a profile of its own is seeded once (untimed); then W8_RESTARTS_PER_REP times per
repetition each adapter's browser is launched again on its profile, the adapters taking turns,
each round in another order, and the time from starting to open the store to the end of its
first read is taken. Right after each of ours' reopens, in the same page, the selected QUERIES
run on that store (`vfs.query`; the peers have no SQL). A smoke run seeded W8 in the chain's
store of its persistent profile: it closes that profile's context and restarts on it once.
"""

from __future__ import annotations

import contextlib
import tempfile

from bench.report import pick

WORKLOAD = "W8"
# SQL over W8's store, run by ours after each W8 reopen, in the same page.
QUERIES = ["Q1", "Q2", "Q3"]
QUERYING = "ours"
# W8's browser restarts per repetition (each adapter's, taking turns): see run_restart.
W8_RESTARTS_PER_REP = 2


def run_restart(bench, adapters: list[str], reps: int, record: list[str]) -> None:
    """W8 on `bench` (a bench/run.py Bench): a disk of manyFiles files per adapter of
    `adapters`, then W8_RESTARTS_PER_REP * `reps` browser restarts of each, timed to the first
    read, each followed (ours) by the queries of `record` on it; the workloads of `record` are
    recorded."""
    queries = [q for q in QUERIES if q in record]
    if bench.smoke:  # the chains seeded W8 in the smoke profile: restart on it once
        with bench.watchdog.stage("closing the smoke profile", bench.stage_bound):
            bench.context_cdp.close()
            bench.context.close()
        for adapter in adapters:
            store = f"chain-0-{adapter}"
            record_all(bench, in_persistent(bench, bench.profile.name, adapter, store, "reopen",
                                            queries), adapter, record)
        return
    # Every adapter's profile is seeded first; then the restarts take turns, each round in
    # another order, so that a machine slower for a while slows every adapter alike (W8's
    # times move by a third from run to run), and there are more of them than of the other
    # workloads' repetitions: a restart takes two seconds and W8 is a ratio of medians.
    with contextlib.ExitStack() as profiles:
        made = {adapter: profiles.enter_context(
            tempfile.TemporaryDirectory(prefix="pyvfs-bench-")) for adapter in adapters}
        for adapter, profile in made.items():
            in_persistent(bench, profile, adapter, f"W8-{adapter}", "setup")
        for turn in range(W8_RESTARTS_PER_REP * reps):
            shift = turn % len(adapters)
            for adapter in adapters[shift:] + adapters[:shift]:
                record_all(bench, in_persistent(bench, made[adapter], adapter, f"W8-{adapter}",
                                                "reopen", queries), adapter, record)


def record_all(bench, results: dict[str, dict], adapter: str, record: list[str]) -> None:
    """Record on `bench` each of `results` whose workload is in `record`."""
    for workload, result in results.items():
        if workload in record:
            bench.record(workload, adapter, pick(result))


def in_persistent(bench, profile: str, adapter: str, store: str, stage: str,
                  queries: list[str] = ()) -> dict[str, dict]:
    """Launch Chromium on `profile`, run one W8 stage in its page and then, for ours after
    a reopen, the `queries` on the same store; close it. The results by workload."""
    with bench.watchdog.stage(f"{adapter} W8 {stage} (browser restart)", bench.stage_bound):
        context, cdp = bench.launch_persistent(profile)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            bench.open_bench_page(page, wipe=stage == "setup")
            results = {WORKLOAD: bench.run_stage(cdp, page,
                                                 bench.spec(adapter, WORKLOAD, stage, store))}
            if stage == "reopen" and adapter == QUERYING:
                for query in queries:
                    results[query] = bench.run_stage(cdp, page,
                                                     bench.spec(adapter, query, "run", store))
            return results
        finally:
            cdp.close()
            context.close()
