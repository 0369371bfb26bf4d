"""T1: what each more tab of ours on one disk costs in memory (issue 17).

With a runtime per tab (openVFS({runtime: "own"})) every page that opens our VFS starts its own
dedicated worker with its own Pyodide, so memory grows with the tabs of one origin; with the
shared runtime (the default) the first page's worker serves the others. T1 measures both, each
named, alternating. Per repetition, in a fresh browser context of its own, the
first bench page opens the store "T1" and seeds it (untimed, runtime snapshot stored, as a
returning user has it); then more pages of the same context open that store and each reads one
file, until there are TAB_COUNTS[i] pages. At each count, after a forced GC in every page and
every VFS worker, one sample holds:

    pageHeap, workerHeap   `Runtime.getHeapUsage` (usedSize + backingStorageSize) summed over
                           the pages, and over their VFS workers (a worker target's
                           `parentFrameId` names its page)
    wasm                   Pyodide's heap summed over the pages' workers (`memoryUsage()`)
    rendererPss, totalPss  the proportional set size (`Pss` of /proc/PID/smaps_rollup) of the
                           browser's renderer processes, and of every process of the browser
                           (browser, GPU, network and storage services too); the processes come
                           from CDP `SystemInfo.getProcessInfo`, which gives their ids and CPU
                           time, no memory. Linux only; absent elsewhere
    renderers              how many renderer processes there were

Chromium 156 has no CDP call that reports a process's memory (`Memory.getBrowserSamplingProfile`
answers an empty profile unless sampling was started, and samples allocations, not resident
memory), hence /proc. The whole browser is measured: its other contexts have no pages left when
T1 runs, so the totals are T1's pages plus the browser's fixed part, which the differences
between counts cancel.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from bench.cdp import CDPError, FlatCDP
from bench.memory import WORKER_SUFFIX, heap_bytes

TAB_COUNTS = (1, 2, 5)
SMOKE_TAB_COUNTS = (1, 2)
STORE = "T1"
# A runtime per tab (openVFS({runtime: "own"})), and one runtime shared by the tabs
# (openVFS({runtime: "shared"}), the default: one VFS worker, in the first tab, serves the
# others). Each is named, so that T1 compares the two whatever the default.
ADAPTERS = ("own", "shared")
TAB_QUERY = "?tab="


def tab_url(base_url: str, page: str, number: int) -> str:
    """The bench page of tab `number`: one URL per tab, so that each page target is known."""
    return f"{base_url}{page}{TAB_QUERY}{number}"


def pss_bytes(pid: int) -> int | None:
    """The proportional set size of process `pid`, or None where /proc does not tell."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return None


def process_memory(cdp: FlatCDP) -> dict[str, float]:
    """PSS of the browser's renderers and of all its processes, and the renderers' count."""
    processes = cdp.call("SystemInfo.getProcessInfo")["processInfo"]
    sizes = [(p["type"], pss_bytes(p["id"])) for p in processes]
    if any(size is None for _, size in sizes):
        return {}
    renderers = [size for kind, size in sizes if kind == "renderer"]
    return {"rendererPss": float(sum(renderers)), "totalPss": float(sum(s for _, s in sizes)),
            "renderers": float(len(renderers))}


def heap_after_gc(cdp: FlatCDP, target_id: str) -> int:
    """One target's heap after a forced full GC."""
    session = cdp.attach(target_id)
    try:
        cdp.call("HeapProfiler.collectGarbage", session=session)
        return heap_bytes(cdp.call("Runtime.getHeapUsage", session=session))
    finally:
        with contextlib.suppress(CDPError):
            cdp.detach(session)


def tabs_sample(cdp: FlatCDP, pages: list, adapter: str) -> dict[str, float]:
    """The memory of `pages` (bench pages of one context) and of their VFS workers: one per
    page, or one in all when the runtime is shared."""
    urls = {page.url for page in pages}
    targets = cdp.targets()
    page_ids = {t["targetId"] for t in targets if t["type"] == "page" and t["url"] in urls}
    if len(page_ids) != len(pages):
        raise CDPError(f"expected {len(pages)} bench page targets, found {len(page_ids)}")
    workers = [t["targetId"] for t in targets if t["type"] == "worker"
               and t["url"].endswith(WORKER_SUFFIX) and t.get("parentFrameId") in page_ids]
    shared = adapter == "shared"
    if len(workers) != (1 if shared else len(pages)):
        raise CDPError(f"expected {1 if shared else len(pages)} VFS workers for {len(pages)} "
                       f"{adapter} pages, found {len(workers)}")
    sample = {"pageHeap": float(sum(heap_after_gc(cdp, t) for t in page_ids)),
              "workerHeap": float(sum(heap_after_gc(cdp, t) for t in workers))}
    wasm = [page.evaluate("([a, s]) => window.bench.wasm(a, s)", [adapter, STORE])
            for page in pages]
    sample["wasm"] = float(max(wasm) if shared else sum(wasm))  # a guest reports its host's
    return sample | process_memory(cdp)


def run_tabs(bench, reps: int, page_path: str, ready_timeout_ms: int) -> None:
    """T1 on `bench` (a bench/run.py Bench), for each of ADAPTERS, alternating: `reps` fresh
    contexts each, each growing to the last of the tab counts; records "T1 <count>" for the
    adapter at each count. `page_path` is the bench page's path under the bench server,
    `ready_timeout_ms` the bound on its load."""
    for _ in range(reps):
        for adapter in ADAPTERS:
            tabs_once(bench, adapter, page_path, ready_timeout_ms)


def tabs_once(bench, adapter: str, page_path: str, ready_timeout_ms: int) -> None:
    """One context of T1 for `adapter`, its pages opened one by one up to the last count."""
    counts = SMOKE_TAB_COUNTS if bench.smoke else TAB_COUNTS
    wait = bench.watchdog.waiting_for
    context = bench.browser.new_context()
    pages: list = []
    try:
        for count in counts:
            while len(pages) < count:
                page = context.new_page()
                pages.append(page)
                with bench.watchdog.stage(f"{adapter} T1 opening tab {len(pages)}",
                                          bench.stage_bound):
                    wait(f"bench page {len(pages)} to load (window.bench)")
                    page.goto(tab_url(bench.base_url, page_path, len(pages)))
                    page.wait_for_function("window.bench !== undefined",
                                           timeout=ready_timeout_ms)
                if len(pages) == 1:  # seeds the store and stores the runtime snapshot
                    bench.stage(bench.cdp, page, bench.spec(adapter, "T1", "setup", STORE))
                bench.stage(bench.cdp, page, bench.spec(adapter, "T1", "run", STORE))
            with bench.watchdog.stage(f"{adapter} T1 memory of {count} tabs", bench.stage_bound):
                wait(f"the memory of {count} tabs and their workers (CDP, /proc)")
                bench.record(f"T1 {count}", adapter, tabs_sample(bench.cdp, pages, adapter))
    finally:
        with bench.watchdog.stage(f"closing the {adapter} T1 context", bench.stage_bound):
            context.close()
