// B0's page (bench/python_floor.py): the least a page can do to get an answer from Python in a
// worker, as ours must. `?make` has the worker start Pyodide from its files and store a memory
// snapshot of it; without, the worker restores that snapshot and runs one line of Python. The
// result, window.__pythonFloor, is {ms} (this page's clock, so from navigation start, when the
// answer arrived, with the worker's marks: createdMs, readMs, loadedMs), {made} (the snapshot's
// bytes) or {error}.

const make = new URLSearchParams(location.search).has("make");
const createdMs = performance.now();
const worker = new Worker(new URL("./python_floor_worker.mjs", import.meta.url), { type: "module" });
worker.onmessage = ({ data }) => {
  window.__pythonFloor = data.error ? { error: data.error } : { ...data, createdMs, ms: performance.now() };
};
worker.onerror = (event) => {
  window.__pythonFloor = { error: event.message || "the worker failed to start" };
};
worker.postMessage({ make, origin: performance.timeOrigin });
