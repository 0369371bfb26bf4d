// Boots the real Pyodide (npm package) in Node once per test file, with fake-indexeddb standing
// in for the browser's IndexedDB and our source tree mounted as an importable package.

import "fake-indexeddb/auto";
import { loadPyodide } from "pyodide";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));

export async function bootPyodide(options = {}) {
  const pyodide = await loadPyodide(options);
  pyodide.FS.mkdirTree("/src");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, "/src");
  pyodide.runPython("import sys; sys.path.insert(0, '/src')");
  return pyodide;
}

// Pyodide with py_vfs.webapi imported, and `call(api, op, ...args)`: one JS API call through
// webapi.dispatch, as the worker makes it, resolved to its envelope ({value} or {error}).
export async function bootWebAPI(options = {}) {
  const pyodide = await bootPyodide(options);
  const webapi = pyodide.pyimport("py_vfs.webapi");
  async function call(api, op, ...args) {
    let envelope = webapi.dispatch(api, op, args);
    if (envelope instanceof pyodide.ffi.PyProxy) envelope = await envelope;
    return envelope;
  }
  return { pyodide, webapi, call };
}
