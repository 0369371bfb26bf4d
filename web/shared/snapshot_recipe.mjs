// What the runtime snapshot holds (docs/boot.md), and its key: one recipe for both makers, the
// snapshot worker of a page (web/worker/snapshot_maker.mjs) and the build's, in Node
// (build/snapshot.mjs), so the two snapshots hold the same Python.

// What makes a snapshot valid: the Pyodide build it was taken with and the exact wheel imported
// into it (the hash changes with any source change, the version only with a release).
export function snapshotKey(manifest) {
  return `pyodide ${manifest.pyodide}; ${manifest.wheel} sha256 ${manifest.wheelSha256}`;
}

// Imports every module of py_vfs: restored memory has them in sys.modules, while the wheel's
// files, kept by Emscripten outside the wasm memory, are not restored. A module of an optional
// extra whose dependency is not installed (py_vfs/fsspec_fs.py without fsspec) is left out; a
// missing module of py_vfs itself is a fault.
const IMPORT_ALL = `
import importlib, pkgutil, py_vfs
for module in pkgutil.walk_packages(py_vfs.__path__, "py_vfs."):
    try:
        importlib.import_module(module.name)
    except ModuleNotFoundError as error:
        if (error.name or "py_vfs").split(".")[0] == "py_vfs":
            raise
`;

// The memory snapshot of a Python with py_vfs imported, from `loadPyodide` (pyodide.mjs), the
// runtime's folder and our wheel's bytes. Python must not hold any JS object when the snapshot
// is taken (Pyodide could not restore it), so the wheel goes in as bytes, not via micropip.
// `check(pyodide)` may refuse the runtime before anything is imported (it throws).
export async function makeRuntimeSnapshot(loadPyodide, indexURL, wheel, check = () => {}) {
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true });
  check(pyodide);
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.runPython(IMPORT_ALL);
  return pyodide.makeMemorySnapshot();
}
