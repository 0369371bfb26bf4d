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
