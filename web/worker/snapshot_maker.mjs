// A short-lived worker that makes the Pyodide memory snapshot (docs/boot.md): it boots Python
// with py_vfs imported, copies its memory and stores it, then says so and is terminated. It runs
// beside the VFS worker, never inside it: the VFS keeps serving while this one works, and it
// opens no disk and takes none of a disk's locks.
// Message in: "make" {manifest, key}; out: "stored" {size} or "failed" {message}
// (py_vfs/core/messages.py, SNAPSHOT).

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { saveSnapshot } from "./runtime_store.mjs";
import { makeRuntimeSnapshot } from "../shared/snapshot_recipe.mjs";
import { SNAPSHOT } from "../shared/protocol.mjs";

const here = (path) => new URL(path, import.meta.url).href;

async function make({ manifest, key }) {
  const wheel = await fetch(here(manifest.wheel));
  if (!wheel.ok) throw new Error(`${manifest.wheel}: HTTP ${wheel.status}`);
  const bytes = new Uint8Array(await wheel.arrayBuffer());
  const snapshot = await makeRuntimeSnapshot(loadPyodide, here("pyodide/"), bytes);
  await saveSnapshot(key, snapshot);
  return snapshot.byteLength;
}

self.onmessage = ({ data }) => {
  make(data).then(
    (size) => self.postMessage({ type: SNAPSHOT.stored, size }),
    (error) => self.postMessage({ type: SNAPSHOT.failed, message: String(error?.message ?? error) }),
  );
};
