// A short-lived worker that makes the Pyodide memory snapshot (docs/boot.md): it boots Python
// with py_vfs imported, copies its memory and stores it, then says so and is terminated. It runs
// beside the VFS worker, never inside it: the VFS keeps serving while this one works, and it
// opens no disk and takes none of a disk's locks.
// Message in: "make" {manifest, key}; out: "stored" {size} or "failed" {message}
// (py_vfs/core/messages.py, SNAPSHOT).

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { saveSnapshot } from "./runtime_store.mjs";
import { SNAPSHOT } from "../shared/protocol.mjs";

const here = (path) => new URL(path, import.meta.url).href;

// Imports every module of py_vfs: restored memory has them in sys.modules, while the wheel's
// files, kept by Emscripten outside the wasm memory, are not restored. Python must not hold any
// JS object yet (Pyodide could not restore it), so the wheel goes in as bytes, not via micropip.
// A module of an optional extra whose dependency is not installed (py_vfs/fsspec_fs.py without
// fsspec) is left out; a missing module of py_vfs itself is a fault.
const IMPORT_ALL = `
import importlib, pkgutil, py_vfs
for module in pkgutil.walk_packages(py_vfs.__path__, "py_vfs."):
    try:
        importlib.import_module(module.name)
    except ModuleNotFoundError as error:
        if (error.name or "py_vfs").split(".")[0] == "py_vfs":
            raise
`;

async function make({ manifest, key }) {
  const wheel = await fetch(here(manifest.wheel));
  if (!wheel.ok) throw new Error(`${manifest.wheel}: HTTP ${wheel.status}`);
  const bytes = new Uint8Array(await wheel.arrayBuffer());
  const pyodide = await loadPyodide({ indexURL: here("pyodide/"), _makeSnapshot: true });
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(bytes, "wheel", { extractDir: sitePackages });
  pyodide.runPython(IMPORT_ALL);
  const snapshot = pyodide.makeMemorySnapshot();
  await saveSnapshot(key, snapshot);
  return snapshot.byteLength;
}

self.onmessage = ({ data }) => {
  make(data).then(
    (size) => self.postMessage({ type: SNAPSHOT.stored, size }),
    (error) => self.postMessage({ type: SNAPSHOT.failed, message: String(error?.message ?? error) }),
  );
};
