// Boots the real Pyodide (npm package) in Node once per test file, with fake-indexeddb standing
// in for the browser's IndexedDB and our source tree mounted as an importable package.
//
// No wait here may hang silently: every test carries `{ timeout: TEST_MS }` (node:test fails it
// naming the test), and each await that could stall goes through `within`, whose Error names
// what was awaited. tests/run.sh also gives node --test a default --test-timeout.

import "fake-indexeddb/auto";
import { loadPyodide } from "pyodide";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));

// Generous bounds on a loaded 2-core machine: booting Pyodide takes 3-5 s, a call milliseconds.
export const BOOT_MS = 120_000;
export const CALL_MS = 60_000;
export const TEST_MS = 180_000;

/** `promise`'s outcome, or an Error naming `what` if it has not settled within `ms`. */
export async function within(ms, what, promise) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The result of an IndexedDB request (`what` names it in errors), bounded by CALL_MS. */
export function requestResult(request, what) {
  return within(CALL_MS, what, new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  }));
}

export async function bootPyodide(options = {}) {
  const pyodide = await within(BOOT_MS, "loadPyodide()", loadPyodide(options));
  pyodide.FS.mkdirTree("/src");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, "/src");
  pyodide.runPython("import sys; sys.path.insert(0, '/src')");
  return pyodide;
}

// Pyodide with py_vfs.web.edge imported, and `call(api, op, ...args)`: one JS API call through
// edge.dispatch, as the worker makes it, resolved to its envelope ({value} or {error}).
export async function bootWebAPI(options = {}) {
  const pyodide = await bootPyodide(options);
  const edge = pyodide.pyimport("py_vfs.web.edge");
  async function call(api, op, ...args) {
    let envelope = edge.dispatch(api, op, args);
    if (envelope instanceof pyodide.ffi.PyProxy) {
      const path = typeof args[0] === "string" ? ` ${args[0]}` : "";
      envelope = await within(CALL_MS, `edge.dispatch: ${op}${path}`, envelope);
    }
    return envelope;
  }
  return { pyodide, edge, call };
}
