// The build's maker of the shipped runtime snapshot (build/ship_snapshot.py, docs/boot.md): a
// module worker in headless Chromium, on a server of the staging dist/ that the build runs. It
// makes the snapshot with the recipe a page's snapshot worker uses, in the browser a visitor's
// worker restores it in, and posts the file back (web/shared/shipped_snapshot.mjs's layout).
// Not shipped: the build serves it from build/.

import { loadPyodide } from "/pyodide/pyodide.mjs";
import { makeRuntimeSnapshot, snapshotKey } from "/snapshot_recipe.mjs";
import { wrapSnapshot } from "/shipped_snapshot.mjs";

// Python records at start-up whether the runtime has WebAssembly stack switching (JSPI), and a
// snapshot keeps it: one made without it refuses every blocking call after a restore.
function withStackSwitching(pyodide) {
  if (!pyodide._module.jspiSupported) throw new Error("this browser has no WebAssembly stack switching (JSPI)");
}

async function make() {
  const manifest = await (await fetch("/manifest.json")).json();
  const reply = await fetch(`/${manifest.wheel}`);
  if (!reply.ok) throw new Error(`${manifest.wheel}: HTTP ${reply.status}`);
  const wheel = new Uint8Array(await reply.arrayBuffer());
  const runtime = new URL("/pyodide/", self.location.href).href;
  const snapshot = await makeRuntimeSnapshot(loadPyodide, runtime, wheel, withStackSwitching);
  return wrapSnapshot(snapshotKey(manifest), snapshot);
}

make().then(
  (file) => fetch("/__build/snapshot", { method: "POST", body: file }),
  (error) => fetch("/__build/failed", { method: "POST", body: String(error?.stack ?? error) }),
);
