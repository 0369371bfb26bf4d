// The bench page's driver, called by bench/run.py through `window.bench`. A case runs in the
// background (`start`) and the runner polls for its result (`poll`), so that it can sample
// memory over CDP while the case runs. Adapters are imported lazily: a case with the raw
// IndexedDB adapter does not load ZenFS or start Pyodide.

import { WORKLOADS } from "./workloads.mjs";

const ADAPTERS = {
  ours: () => import("./adapters/ours.mjs"),
  // The same, opened with openVFS({durability: "strict"}): what surviving power loss costs.
  strict: async () => ({ open: (await import("./adapters/ours.mjs")).openStrict }),
  // The same, its runtime named: shared by the pages that open the disk (openVFS's default), or
  // one per page (T1 compares the two; "own" also times the first page's open against ours).
  shared: async () => ({ open: (await import("./adapters/ours.mjs")).openShared }),
  own: async () => ({ open: (await import("./adapters/ours.mjs")).openOwn }),
  lightningfs: () => import("./adapters/lightningfs.mjs"),
  zenfs: () => import("./adapters/zenfs.mjs"),
  rawidb: () => import("./adapters/rawidb.mjs"),
};

const opened = new Map(); // `${adapter}/${store}` -> the adapter's fs, reused within one page
let current = null;       // {result} of the case in progress, null before the first

async function openStore(adapter, store, library = null) {
  const key = `${adapter}/${store}`;
  if (!opened.has(key)) opened.set(key, await (library ?? await ADAPTERS[adapter]()).open(store));
  return opened.get(key);
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

// stage "setup": open the store (for ours: boot Pyodide), seed it if the workload says so, flush,
// and let the adapter settle (ours: its runtime snapshot is stored).
// "run": on the open store, the untimed `before`, the timed `run`, the untimed `check`.
// "reopen" (after a reload or a browser restart): time opening the store plus `run`, then check.
async function runCase({ adapter, store, workload, stage, params }) {
  const w = WORKLOADS[workload];
  const p = { ...params };
  if (stage === "reopen") {
    // The adapter's code is loaded before the clock starts, as bench.html loads lightning-fs's
    // script before any case: what is timed is opening the store, not fetching a library.
    const library = await ADAPTERS[adapter]();
    const opening = await timed(() => openStore(adapter, store, library));
    const running = await timed(() => w.run(opening.value, p));
    const firstRead = performance.now();
    await w.check?.(opening.value, p, running.value);
    return { ms: opening.ms + running.ms, openMs: opening.ms, runMs: running.ms, sinceNavigationMs: firstRead };
  }
  const fs = await openStore(adapter, store);
  if (stage === "setup") {
    await w?.seed?.(fs, p);
    await fs.flush();
    await fs.settle?.();
    return { ms: 0 };
  }
  await w.before?.(fs, p);
  const running = await timed(() => w.run(fs, p));
  await w.check?.(fs, p, running.value);
  return { ms: running.ms, ...running.value?.split };
}

// Deletes every IndexedDB database of this origin: each case starts on a fresh store.
async function wipe() {
  const names = (await indexedDB.databases()).map((db) => db.name);
  await Promise.all(names.map((name) => new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
  })));
  return names.length;
}

window.bench = {
  workloads: Object.keys(WORKLOADS),
  wipe,
  start(spec) {
    const state = { result: null };
    current = state;
    runCase(spec).then(
      (result) => { state.result = { ok: true, ...result }; },
      (error) => { state.result = { ok: false, error: String(error?.stack ?? error) }; },
    );
  },
  poll: () => current?.result ?? null,
  // F1's per-call floors (bench/web/floors.mjs), run to the end in this page.
  floors: async (sizes) => (await import("./floors.mjs")).runFloors(sizes),
  // Wasm memory of a store's runtime in bytes (ours: Pyodide's heap, reported by its worker),
  // or null for an adapter that has none.
  async wasm(adapter, store) {
    const fs = opened.get(`${adapter}/${store}`);
    return fs?.wasmBytes ? fs.wasmBytes() : null;
  },
};
document.body.dataset.state = "ready";
