// How Python's asyncio schedules its ready callbacks in the VFS worker.
//
// Pyodide's event loop (pyodide.webloop) runs every ready callback in a macrotask of its own
// (a MessageChannel message in a worker). An async Python operation takes several such hops: one
// to start the coroutine, one per JS promise it awaits (the IndexedDB transaction, the Web Lock),
// one to hand the result back. Each costs 0.05-0.3 ms, more than the work: a 1 KiB write spent
// most of its 4 ms waiting for its turns (docs/benchmarks.md). JS itself resumes async functions
// in microtasks, and so do we: a callback due now runs as a microtask, right after the code that
// made it ready.
//
// Microtasks run before any event is handled, so a long chain of them would starve the worker's
// messages (previews, other calls, progress). After SLICE_MS of back-to-back microtask callbacks
// the next one goes through the macrotask queue again, which lets the events in.

const SLICE_MS = 8;

export function microtaskScheduler(macrotask, now = () => performance.now()) {
  let sliceStart = null;
  return (callback, delay) => {
    if (delay > 0) return macrotask(callback, delay);
    if (sliceStart === null) {
      sliceStart = now();
      macrotask(() => { sliceStart = null; }, 0); // the next macrotask starts a new slice
    }
    if (now() - sliceStart > SLICE_MS) return macrotask(callback, 0);
    queueMicrotask(callback);
  };
}

// Swap the scheduler of Pyodide's event loop (the module-level name its call_later uses).
export function scheduleInMicrotasks(pyodide) {
  const webloop = pyodide.pyimport("pyodide.webloop");
  try {
    webloop.scheduleCallback = microtaskScheduler(webloop.scheduleCallback);
  } finally {
    webloop.destroy();
  }
}
