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
//
// `now` is the clock slices are measured with (milliseconds); the worker uses the default,
// performance.now. Tests pass their own so that where a slice ends does not depend on how fast
// the machine runs.

export const SLICE_MS = 8;

const wallClock = () => performance.now();

export function microtaskScheduler(macrotask, now = wallClock) {
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
export function scheduleInMicrotasks(pyodide, now = wallClock) {
  const webloop = pyodide.pyimport("pyodide.webloop");
  try {
    webloop.scheduleCallback = microtaskScheduler(webloop.scheduleCallback, now);
  } finally {
    webloop.destroy();
  }
}
