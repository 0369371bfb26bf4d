"""B0, Pyodide alone: the floor under B1 (docs/benchmarks.md, "B1's floor: Pyodide alone").

B1 times our app page to a prompt that answers through Python, and issue 29 bounds it at 0.5 s
from the runtime snapshot. B0 times the least any page can do to get an answer from Python in a
worker, as ours must (Python on the page's own thread would stop the page while it starts): a
page of a few lines creates a worker, which reads a memory snapshot of a bare Pyodide (nothing of
ours imported) from IndexedDB as a Blob, restores it with Pyodide's `_loadSnapshot` and runs
`1 + 1`; the time is from navigation start to the answer's arrival in the page, in the same
browser and run as B1. Per repetition, in a fresh context: the page made the snapshot first
(`?make`, untimed), then it is loaded B0_LOADS times (the first warms the HTTP cache as B1's
reloads have it) and the last load is recorded as workload "B0", adapter "ours", with the
moments its worker was created, had read the snapshot and had Pyodide ready.
"""

from __future__ import annotations

WORKLOAD = "B0"
PAGE = "bench/python_floor.html"
B0_LOADS = 2
RESULT = "window.__pythonFloor"
# What a sample keeps, each in ms since navigation start: the answer's arrival (the time), the
# worker's creation, the snapshot's bytes read, Pyodide ready.
MARKS = ("ms", "createdMs", "readMs", "loadedMs")


class FloorFailed(Exception):
    """B0 could not measure: the page's error, or an answer that is not Python's."""


def run_python_floor(bench, reps: int, timeout_ms: int) -> None:
    """B0 on `bench` (a bench/run.py Bench), `reps` times, each in a context of its own."""
    for rep in range(reps):
        context = bench.browser.new_context()
        try:
            page = context.new_page()
            with bench.watchdog.stage(f"ours B0 making a bare snapshot {rep}", bench.stage_bound):
                made = load(bench, page, "?make", timeout_ms)
            if not made.get("made"):
                raise FloorFailed(f"B0: no snapshot made: {made}")
            for _ in range(B0_LOADS):
                with bench.watchdog.stage(f"ours B0 {rep}", bench.stage_bound):
                    result = load(bench, page, "", timeout_ms)
                if result.get("answer") != 2:
                    raise FloorFailed(f"B0: Python answered {result}")
            bench.record(WORKLOAD, "ours", {key: float(result[key]) for key in MARKS})
        finally:
            with bench.watchdog.stage("closing the B0 context", bench.stage_bound):
                context.close()


def load(bench, page, query: str, timeout_ms: int) -> dict:
    """The page's result after loading it with `query`; raises on its error."""
    bench.watchdog.waiting_for(f"the Pyodide floor page{query} to answer ({RESULT})")
    page.goto(bench.base_url + PAGE + query)
    page.wait_for_function(f"{RESULT} !== undefined", timeout=timeout_ms)
    result = page.evaluate(RESULT)
    if result.get("error"):
        raise FloorFailed(f"B0: {result['error']}")
    return result
