// B0's worker (bench/python_floor.py): Pyodide and nothing of ours. Making: Pyodide started
// from its files, its memory snapshot kept in IndexedDB as a Blob (as our worker keeps its copy,
// web/worker/runtime_store.mjs). Restoring: the Blob read and handed to Pyodide while it loads
// its script and fetches its wasm (as ours does), then `1 + 1` run. Its marks are on the page's
// clock (ms since navigation start): when the snapshot's bytes were read, when Pyodide was ready.

import { loadPyodide } from "/pyodide/pyodide.mjs";

const DATABASE = "pyvfs-bench-python-floor";
const indexURL = new URL("/pyodide/", import.meta.url).href;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function openDatabase() {
  const req = indexedDB.open(DATABASE, 1);
  req.onupgradeneeded = () => req.result.createObjectStore("snapshots");
  return request(req);
}

async function makeSnapshot() {
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true });
  const snapshot = pyodide.makeMemorySnapshot();
  const tx = (await openDatabase()).transaction("snapshots", "readwrite");
  tx.objectStore("snapshots").put(new Blob([snapshot]), "python");
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onabort = () => reject(tx.error);
  });
  return { made: snapshot.byteLength };
}

async function restore() {
  const db = await openDatabase();
  const blob = await request(db.transaction("snapshots").objectStore("snapshots").get("python"));
  if (!(blob instanceof Blob)) throw new Error("no snapshot stored: load the page with ?make first");
  const marks = {};
  const bytes = blob.arrayBuffer().then((buffer) => {
    marks.readMs = pageClock();
    return new Uint8Array(buffer);
  });
  const pyodide = await loadPyodide({ indexURL, _loadSnapshot: bytes });
  marks.loadedMs = pageClock();
  return { answer: pyodide.runPython("1 + 1"), ...marks };
}

let pageOrigin = 0;
const pageClock = () => performance.timeOrigin + performance.now() - pageOrigin;

self.onmessage = async ({ data }) => {
  pageOrigin = data.origin;
  try {
    self.postMessage(await (data.make ? makeSnapshot() : restore()));
  } catch (error) {
    self.postMessage({ error: String(error?.stack ?? error) });
  }
};
