"""W4r: the 32 MiB file of W4 read back in a fresh page, with nothing of it in memory.

W4 reads its file back right after writing it: ours answers that read from the chunks it just
committed, which it keeps in a 32 MiB read cache in the worker (py_vfs/disk/content.py), while raw
IndexedDB reads its record back from the database. W4r times the read a user gets after a
reload instead: per repetition and adapter, a page and a store of their own; the setup writes
the file and flushes (untimed; ours: its runtime snapshot stored too), the page reloads, and the
"reopen" stage times opening the store (openMs) and reading + verifying the file (runMs).
"""

from __future__ import annotations

from bench.report import pick

WORKLOAD = "W4r"


def run_cold_read(bench, adapters: list[str], reps: int, ready_timeout_ms: int) -> None:
    """W4r on `bench` (a bench/run.py Bench) for `adapters`, interleaved, `reps` times; the
    bench page's load is bounded by `ready_timeout_ms`."""
    for rep in range(reps):
        for adapter in adapters:
            page = bench.context.new_page()
            store = f"cold-{rep}-{adapter}"
            try:
                with bench.watchdog.stage(f"{adapter} W4r opening the bench page",
                                          bench.stage_bound):
                    bench.open_bench_page(page, wipe=not bench.smoke)
                bench.stage(bench.context_cdp, page, bench.spec(adapter, WORKLOAD, "setup", store))
                with bench.watchdog.stage(f"{adapter} W4r reload", bench.stage_bound):
                    bench.watchdog.waiting_for("the bench page to reload (window.bench)")
                    page.reload()
                    page.wait_for_function("window.bench !== undefined", timeout=ready_timeout_ms)
                result = bench.stage(bench.context_cdp, page,
                                     bench.spec(adapter, WORKLOAD, "reopen", store))
                bench.record(WORKLOAD, adapter, pick(result))
            finally:
                with bench.watchdog.stage("closing the W4r page", bench.stage_bound):
                    page.close()
