"""Memory of a bench page and of its VFS worker, over flat CDP sessions (bench/cdp.py).

Why CDP: `performance.memory` does not exist in workers, and our JS API runs Pyodide in a
dedicated worker, so the page alone would hide most of our memory. Playwright's CDP sessions
reach pages only, so the probe attaches to the page and to its worker through the browser's
DevTools endpoint, in flat mode.

What is measured
    heap   `Runtime.getHeapUsage` usedSize + backingStorageSize (the V8 heap plus ArrayBuffer
           backing stores, e.g. a 32 MiB file being written), of the page and of its VFS worker,
           sampled by the runner every POLL_SECONDS while a case runs, after a forced GC; the
           peaks are kept (page + worker together, and the worker alone). A peak includes
           garbage not yet collected; `worker_retained` is the worker's heap after a forced GC
           at the end of the case, what it keeps.
    wasm   not here: the worker reports its own Pyodide heap (`memoryUsage().wasmBytes` of our JS
           API, read by bench/web/bench.mjs). `Runtime.queryObjects` would find every
           `WebAssembly.Memory` without help from the worker, but on Chromium 156 it never
           answers when sent to a worker, and the whole renderer stops answering CDP after it
           (the page's calls too): that was why `npm run bench` hung with no output.
"""

from __future__ import annotations

import contextlib

from bench.cdp import CDPError, FlatCDP

WORKER_SUFFIX = "/worker.mjs"


def heap_bytes(usage: dict) -> int:
    return int(usage["usedSize"] + usage.get("backingStorageSize", 0))


class MemoryProbe:
    """Samples the heap of one page and of its VFS worker (once the worker exists)."""

    def __init__(self, cdp: FlatCDP, page_url: str):
        self.cdp = cdp
        pages = [t for t in cdp.targets() if t["type"] == "page" and t["url"] == page_url]
        if len(pages) != 1:
            raise CDPError(f"expected one page target at {page_url}, found {len(pages)}")
        self.context_id = pages[0].get("browserContextId")
        self.page_session = cdp.attach(pages[0]["targetId"])
        self.worker_session: str | None = None
        self.peak = 0
        self.worker_peak = 0

    def _attach_worker(self) -> str | None:
        if self.worker_session is None:
            for target in self.cdp.targets():
                if (target["type"] == "worker" and target["url"].endswith(WORKER_SUFFIX)
                        and target.get("browserContextId") == self.context_id):
                    self.worker_session = self.cdp.attach(target["targetId"])
                    break
        return self.worker_session

    def collect_garbage(self) -> None:
        """A full GC in the page and the worker before a timed part, so that its peak is not
        that of the garbage earlier cases left in the same renderer process."""
        self.cdp.call("HeapProfiler.collectGarbage", session=self.page_session)
        if worker := self._attach_worker():
            self.cdp.call("HeapProfiler.collectGarbage", session=worker)

    def sample(self) -> None:
        """One sample of the page's heap and the worker's."""
        page = heap_bytes(self.cdp.call("Runtime.getHeapUsage", session=self.page_session))
        worker = 0
        if session := self._attach_worker():
            worker = heap_bytes(self.cdp.call("Runtime.getHeapUsage", session=session))
        self.peak = max(self.peak, page + worker)
        self.worker_peak = max(self.worker_peak, worker)

    def worker_retained(self) -> int | None:
        """The worker's heap after a forced full GC: what it keeps, without the garbage a
        peak may include (None before the worker exists)."""
        if not (worker := self._attach_worker()):
            return None
        self.cdp.call("HeapProfiler.collectGarbage", session=worker)
        return heap_bytes(self.cdp.call("Runtime.getHeapUsage", session=worker))

    def close(self) -> None:
        for session in (self.page_session, self.worker_session):
            if session:
                with contextlib.suppress(CDPError):  # the target is already gone
                    self.cdp.detach(session)
