// py_vfs through its JS API (dist/pyvfs.mjs), as an application would use it.
// Durability: every write resolves after its IndexedDB transaction completed, so flush is a no-op.
// `openStrict` is the bench's "strict" adapter: the same with {durability: "strict"}.

import { openVFS } from "/pyvfs.mjs";
import { nodeLike } from "./common.mjs";

const SETTLE_POLL_MS = 100;
const SETTLE_TIMEOUT_MS = 120_000;

// openVFS's defaults: its runtime is shared by the pages that open the disk (docs/architecture.md).
export function open(store) {
  return openWith({ name: store });
}

// Strict durability (docs/storage.md): each commit's transaction completes only once the
// browser flushed it to disk, so an acknowledged write survives an OS crash or power loss.
export function openStrict(store) {
  return openWith({ name: store, durability: "strict" });
}

// T1 compares the two runtimes, each named: one for every tab (docs/architecture.md) and one
// per tab.
export function openShared(store) {
  return openWith({ name: store, runtime: "shared" });
}

export function openOwn(store) {
  return openWith({ name: store, runtime: "own" });
}

// Without the default content (docs/defaults.md): the other file systems start empty too, and
// installing it would add a commit to the first open that none of them makes.
// The durability check is not awaited before the store is given: on a returning visit openVFS
// resolves before Python has booted (docs/boot.md, "Reads before Python"), and diagnostics,
// the worker's, would add the boot to every open; flush and settle wait for it instead.
async function openWith(options) {
  const vfs = await openVFS({ ...options, defaults: false });
  const checked = vfs.diagnostics().then(({ durability: { asked } }) => {
    if (asked !== (options.durability ?? "default")) {
      throw new Error(`the VFS was opened with durability ${asked}, not ${options.durability}`);
    }
  });
  checked.catch(() => {}); // reported by flush or settle
  return nodeLike(vfs, {
    flush: () => checked,
    exists: (path) => vfs.exists(path),
    query: (sql, params, options) => vfs.query(sql, params, options),
    settle: () => checked.then(() => snapshotSettled(vfs)),
    wasmBytes: async () => (await vfs.memoryUsage()).wasmBytes,
    exportZip: (path) => vfs.export(path, { format: "zip" }),
    gitFs: { promises: vfs }, // what isomorphic-git takes as `fs` (tests/e2e/test_isomorphic_git.py)
  });
}

// The states of a runtime snapshot on its way to the store (docs/boot.md).
const STORING = ["waiting", "making", "keeping"];

// After a setup, the store is in the state of a returning user's: the Python memory snapshot
// that the first boot makes (or, with the build's, keeps a copy of) when idle (docs/boot.md) is
// stored, so a reload or restart restores it. Setup is untimed; without this wait, whether a
// reopen found a snapshot would be a race.
async function snapshotSettled(vfs) {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const { snapshot } = (await vfs.diagnostics()).boot;
    if (snapshot.startsWith("failed")) throw new Error(`the runtime snapshot was not made: ${snapshot}`);
    if (!STORING.includes(snapshot)) return;
    if (performance.now() > deadline) {
      throw new Error(`the runtime snapshot was not stored within ${SETTLE_TIMEOUT_MS} ms (state: ${snapshot})`);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}
