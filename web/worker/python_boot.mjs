// Python in the VFS worker: loading Pyodide from the runtime snapshot stored in IndexedDB (a kept
// copy of the build's, or one made here), the one the build shipped, or from the packages
// (docs/boot.md), the boot's progress messages to the page, the default content's files, and,
// once this worker is idle, keeping a copy of the shipped snapshot or making one in a second
// worker.

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { dropSnapshot, keepShipped, loadShipped, shippedWasUsed, snapshotKey, storedKey, storedSnapshot } from "./runtime_store.mjs";
import { scheduleInMicrotasks } from "./scheduler.mjs";
import { growingInstantiation, refreshTimeZone } from "../shared/snapshot_memory.mjs";
import { SNAPSHOT, WIRE } from "../shared/protocol.mjs";

const here = (path) => new URL(path, import.meta.url).href;

const STAGES = ["download", "compile", "python", "install", "disk", "ready"];
let stageIndex = 0;

// Stages only move forward: the downloads, wasm compilation and Python start-up overlap, and a
// late byte count must not send the page back a stage.
export function progress(stage, message, extra = {}) {
  const index = STAGES.indexOf(stage);
  if (index < stageIndex) return;
  stageIndex = index;
  self.postMessage({ type: WIRE.progress, stage, message, ...extra });
}

// Counts the bytes of Pyodide's own fetches of the big runtime files while they stream, so the
// page shows download progress without fetching anything twice. Returns the undo.
function reportDownloads(sizes) {
  const original = self.fetch;
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  const watched = Object.keys(sizes).map((name) => here(name));
  let loaded = 0;
  self.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = typeof input === "string" ? input : input.url ?? String(input);
    const href = new URL(url, import.meta.url).href;
    if (!response.body || !watched.includes(href)) return response;
    const counter = new TransformStream({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        progress("download", "Downloading Python", { loaded, total });
        controller.enqueue(chunk);
      },
      // instantiateStreaming compiles as bytes arrive and finishes only after the last one.
      flush() {
        if (href.endsWith(".wasm")) progress("compile", "Compiling WebAssembly");
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  };
  return () => { self.fetch = original; };
}

// loadPyodide has no progress hook; the end of its wasm instantiation is where compiling stops
// and Python's own start-up (the longer part) begins, so report that moment. pyodide.mjs also
// instantiates a tiny feature probe from a compiled Module, at a moment that depends on load:
// that one is not Python starting. Returns the undo (also needed when instantiation fails).
function reportPythonStart(message) {
  const originals = { instantiateStreaming: WebAssembly.instantiateStreaming, instantiate: WebAssembly.instantiate };
  const undo = () => Object.assign(WebAssembly, originals);
  const wrap = (original) => async function (...args) {
    const result = await original.apply(WebAssembly, args);
    if (args[0] instanceof WebAssembly.Module) return result;
    undo();
    progress("python", message);
    return result;
  };
  WebAssembly.instantiateStreaming = wrap(originals.instantiateStreaming);
  WebAssembly.instantiate = wrap(originals.instantiate);
  return undo;
}

// How this worker booted, for diagnostics() and the tests: `from` is "snapshot" or "packages";
// `snapshot` is where the runtime snapshot stands, `shipped` what became of the build's
// (docs/boot.md).
export const bootInfo = { from: null, snapshot: "off", shipped: "off" };
// The first idle moment after ready with no call for this long makes the snapshot.
const SNAPSHOT_IDLE_MS = 1500;
// The Mersenne Twister state is in the restored memory: every tab would draw the same "random"
// numbers (disk/replica.py's retry jitter), so it gets fresh entropy.
const RESEED = "import random; random.seed()";

// `options()`: loadPyodide's options, asked for once the downloads are watched (a snapshot's
// fetch among them); `downloads`: the files whose bytes the progress counts, by path.
async function startPython(manifest, message, options = () => ({}), downloads = manifest.downloads) {
  const stopReporting = reportDownloads(downloads);
  const stopWatching = reportPythonStart(message);
  try {
    const pyodide = await loadPyodide({ indexURL: here("pyodide/"), ...options() });
    // After the restore too: a JS function held by Python cannot be in the snapshot.
    scheduleInMicrotasks(pyodide);
    return pyodide;
  } finally {
    stopReporting();
    stopWatching();
  }
}

// Python with py_vfs imported, restored from the snapshot `read()` gives (a promise of its
// bytes). Pyodide loads its JS and fetches its wasm while the bytes are read, and awaits them
// before it compiles and instantiates. Throws when there are none or Pyodide or py_vfs refuses them.
async function restore(manifest, read, downloads) {
  let size = 0;
  // Pyodide keeps its options for its lifetime: a thenable that lets go of the 30 MiB once
  // read makes them collectable after the restore (it copies them into the wasm memory).
  const options = () => {
    let pending = read();
    const once = {
      then: (resolve, reject) => {
        const bytes = pending;
        pending = null;
        bytes.then((value) => { size = value.byteLength; resolve(value); }, reject);
      },
    };
    return { _loadSnapshot: once };
  };
  const restoreInstantiation = growingInstantiation(() => size);
  try {
    const pyodide = await startPython(manifest, "Restoring Python from its snapshot", options, downloads);
    refreshTimeZone(pyodide);
    pyodide.runPython(RESEED);
    pyodide.pyimport("py_vfs.web.edge").destroy();
    bootInfo.from = "snapshot";
    bootInfo.snapshot = "used";
    return pyodide;
  } finally {
    restoreInstantiation();
  }
}

// Python from the snapshot the build shipped (manifest.snapshot: {file, size}), fetched; null
// when the build ships none or it is refused (another build's, damaged, missing): the caller
// goes on with the packages.
async function fromShipped(manifest, key) {
  if (!manifest.snapshot) return null;
  const url = here(manifest.snapshot.file);
  const downloads = { ...manifest.downloads, [manifest.snapshot.file]: manifest.snapshot.size };
  try {
    const pyodide = await restore(manifest, () => loadShipped(url, key), downloads);
    bootInfo.shipped = "used";
    shippedWasUsed(url);
    return pyodide;
  } catch (error) {
    console.warn("py_vfs: the shipped runtime snapshot was refused, booting without it", error);
    bootInfo.shipped = `refused: ${error?.message ?? error}`;
    return null;
  }
}

// Python from the stored snapshot (a kept copy of the shipped one, or one made here); null when
// there is none or it cannot be used (damaged, refused): that one is dropped and the caller goes
// on with the shipped one. A returning visit: Pyodide's files come from the HTTP cache, so their
// bytes are not counted for the progress bar (counting them in a stream slowed the boot).
async function fromStored(manifest, key, record) {
  let stored = null;
  try {
    stored = storedSnapshot(await record, key);
  } catch (error) {
    console.warn("py_vfs: the runtime snapshot cannot be read", error);
  }
  if (!stored) return null;
  try {
    const pyodide = await restore(manifest, () => stored.read(), {});
    if (manifest.snapshot) bootInfo.shipped = stored.source === "shipped" ? "kept" : "unused";
    return pyodide;
  } catch (error) {
    console.warn("py_vfs: the runtime snapshot was rejected, booting without it", error);
    bootInfo.snapshot = "rejected";
    await dropSnapshot().catch(() => {});
    return null;
  }
}

async function fromPackages(manifest) {
  const pyodide = await startPython(manifest, "Starting Python");
  progress("install", `Installing py_vfs ${manifest.version}`);
  await pyodide.loadPackage(here(manifest.micropip));
  const micropip = pyodide.pyimport("micropip");
  await micropip.install(here(manifest.wheel));
  micropip.destroy();
  bootInfo.from = "packages";
  return pyodide;
}

// The default content the build ships (dist/defaults/, docs/defaults.md): its manifest and
// every file's bytes by disk path, from this origin; null when the build ships none. Python
// checks each file against the manifest's size and sha256 before installing anything.
export async function fetchDefaults() {
  const response = await fetch(here("defaults/manifest.json"), { cache: "no-cache" });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`default content: defaults/manifest.json answered ${response.status}`);
  const manifest = await response.json();
  const files = {};
  await Promise.all(manifest.files.map(async ({ path }) => {
    const url = here(`defaults/files${path.split("/").map(encodeURIComponent).join("/")}`);
    const reply = await fetch(url, { cache: "no-cache" });
    if (!reply.ok) throw new Error(`default content: ${path} answered ${reply.status}`);
    files[path] = new Uint8Array(await reply.arrayBuffer());
  }));
  return { manifest, files };
}

// --- making the snapshot ----------------------------------------------------------------------
// After a boot without one, in a second worker, once this one has had no call for a while (the
// user's first commands come first). One tab of the origin makes it: the others skip.

// `quietFor()`: how long the worker has had no call running, in ms.
function whenIdle(quietFor, run) {
  bootInfo.snapshot = "waiting";
  const check = () => {
    const quiet = quietFor();
    if (quiet >= SNAPSHOT_IDLE_MS) run();
    else setTimeout(check, SNAPSHOT_IDLE_MS - quiet);
  };
  setTimeout(check, SNAPSHOT_IDLE_MS);
}

// Stores this build's snapshot once (`store()` says how it ended), under the Web Lock
// `pyvfs-runtime:snapshot`, never a disk's: it only keeps two tabs from storing one at once.
// `doing` is the state meanwhile ("making", "keeping").
async function storeOnce(key, doing, store) {
  bootInfo.snapshot = doing;
  try {
    bootInfo.snapshot = await navigator.locks.request("pyvfs-runtime:snapshot", { ifAvailable: true }, async (lock) => {
      if (!lock) return "made elsewhere";
      // Not "stored": that one says this worker made it (tests count the makes by it).
      if (await storedKey() === key) return "already stored";
      return store();
    });
  } catch (error) {
    bootInfo.snapshot = `failed: ${error?.message ?? error}`;
  }
}

function runMaker(manifest, key) {
  const maker = new Worker(here("snapshot_maker.mjs"), { type: "module", name: "pyvfs:snapshot" });
  return new Promise((resolve, reject) => {
    maker.onmessage = ({ data }) => (data.type === SNAPSHOT.stored ? resolve("stored") : reject(new Error(data.message)));
    maker.onerror = (event) => reject(new Error(event.message || "the snapshot worker failed to start"));
    maker.postMessage({ type: SNAPSHOT.make, manifest, key });
  }).finally(() => maker.terminate());
}


// Python with py_vfs installed: unless `snapshot` is "off", from the snapshot stored under
// `key` (`record`: a promise of storedRecord()'s, read while the manifest was fetched), else the
// one the build shipped; when there is none or they are refused, from the packages.
export async function startRuntime(manifest, key, snapshot, record) {
  if (snapshot === "off") return fromPackages(manifest);
  if (!manifest.snapshot) bootInfo.shipped = "none";
  return (await fromStored(manifest, key, record)) || (await fromShipped(manifest, key)) || fromPackages(manifest);
}

// Once the worker is idle (`quietFor`): after a boot from the shipped snapshot's file, keeps a
// copy of it; after a boot from the packages, makes one.
export function snapshotWhenIdle(manifest, key, snapshot, quietFor) {
  if (snapshot === "off") return;
  if (bootInfo.shipped === "used") {
    const url = here(manifest.snapshot.file);
    whenIdle(quietFor, () => storeOnce(key, "keeping", async () => { await keepShipped(url, key); return "kept"; }));
  } else if (bootInfo.from !== "snapshot") {
    whenIdle(quietFor, () => storeOnce(key, "making", () => runMaker(manifest, key)));
  }
}

export { here, snapshotKey };

