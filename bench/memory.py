"""Memory of a bench page over CDP: JS heap of the page and of its VFS worker, and wasm memory.

Why CDP: `performance.memory` does not exist in workers, and our JS API runs Pyodide in a
dedicated worker, so the page alone would hide most of our memory. The page's own CDP session
reaches the worker through `Target.attachToTarget` (non-flat mode: messages to the worker go in
`Target.sendMessageToTarget`, its replies come back as events), and needs no hook in
web/worker.mjs.

What is measured
    heap   `Runtime.getHeapUsage` usedSize + backingStorageSize (the V8 heap plus ArrayBuffer
           backing stores, e.g. a 32 MiB file being written), page + worker, sampled by the runner
           every POLL_SECONDS while a case runs, after a forced GC; the peak is kept.
    wasm   byte length of every `WebAssembly.Memory` in the worker (Pyodide's heap), read once at
           the end of a case with `Runtime.queryObjects`. Wasm memory never shrinks, so the end
           value is the peak. queryObjects forces a GC, so it runs after the timed part only.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time

WORKER_SUFFIX = "/worker.mjs"
WASM_SIZES_JS = "function () { return this.map((m) => m.buffer.byteLength); }"


def heap_bytes(usage: dict) -> int:
    return int(usage["usedSize"] + usage.get("backingStorageSize", 0))


class MemoryProbe:
    """Samples the heap of one page and of its VFS worker (once the worker exists)."""

    def __init__(self, context, page):
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("Target.receivedMessageFromTarget", self._on_worker_message)
        self.worker_session: str | None = None
        self.worker_heap = 0
        self.replies: dict[int, dict] = {}
        self.ids = itertools.count(1)
        self.peak = 0

    def _on_worker_message(self, event: dict) -> None:
        message = json.loads(event["message"])
        if "id" not in message:
            return
        self.replies[message["id"]] = message
        usage = message.get("result", {})
        if "usedSize" in usage:
            self.worker_heap = heap_bytes(usage)

    def _attach_worker(self) -> None:
        targets = self.cdp.send("Target.getTargets")["targetInfos"]
        for target in targets:
            if target["type"] == "worker" and target["url"].endswith(WORKER_SUFFIX):
                reply = self.cdp.send(
                    "Target.attachToTarget", {"targetId": target["targetId"], "flatten": False}
                )
                self.worker_session = reply["sessionId"]
                return

    def _to_worker(self, method: str, params: dict | None = None) -> int:
        message_id = next(self.ids)
        message = {"id": message_id, "method": method, "params": params or {}}
        self.cdp.send(
            "Target.sendMessageToTarget",
            {"sessionId": self.worker_session, "message": json.dumps(message)},
        )
        return message_id

    def collect_garbage(self) -> None:
        """A full GC in the page and the worker before a timed part, so that its peak is not
        that of the garbage earlier cases left in the same renderer process."""
        self.cdp.send("HeapProfiler.collectGarbage")
        if self.worker_session is None:
            self._attach_worker()
        if self.worker_session is not None:
            self._worker_call("HeapProfiler.collectGarbage")

    def sample(self) -> None:
        """One sample: the page's heap now plus the worker's latest answer (one poll behind)."""
        if self.worker_session is None:
            self._attach_worker()
        if self.worker_session is not None:
            self._to_worker("Runtime.getHeapUsage")
        page = heap_bytes(self.cdp.send("Runtime.getHeapUsage"))
        self.peak = max(self.peak, page + self.worker_heap)

    def _worker_call(self, method: str, params: dict | None = None, timeout: float = 10.0):
        message_id = self._to_worker(method, params)
        deadline = time.monotonic() + timeout
        while message_id not in self.replies:
            if time.monotonic() > deadline:
                raise TimeoutError(f"worker did not answer {method}")
            self.cdp.send("Runtime.getHeapUsage")  # lets the event loop deliver the reply
            time.sleep(0.01)
        return self.replies.pop(message_id).get("result", {})

    def wasm_bytes(self) -> int | None:
        """Sum of the worker's wasm memories, or None when this page has no VFS worker."""
        if self.worker_session is None:
            self._attach_worker()
        if self.worker_session is None:
            return None
        proto = self._worker_call(
            "Runtime.evaluate", {"expression": "WebAssembly.Memory.prototype"}
        )
        found = self._worker_call(
            "Runtime.queryObjects", {"prototypeObjectId": proto["result"]["objectId"]}
        )
        sizes = self._worker_call(
            "Runtime.callFunctionOn",
            {
                "objectId": found["objects"]["objectId"],
                "functionDeclaration": WASM_SIZES_JS,
                "returnByValue": True,
            },
        )
        return sum(sizes["result"]["value"])

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the page or browser is already gone
            self.cdp.detach()
