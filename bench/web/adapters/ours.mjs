// py_vfs through its JS API (dist/pyvfs.mjs), as an application would use it.
// Durability: every write resolves after its IndexedDB transaction completed, so flush is a no-op.

import { openVFS } from "/pyvfs.mjs";
import { nodeLike } from "./common.mjs";

const SETTLE_POLL_MS = 100;
const SETTLE_TIMEOUT_MS = 120_000;

export async function open(store) {
  const vfs = await openVFS({ name: store });
  return nodeLike(vfs, {
    exists: (path) => vfs.exists(path),
    settle: () => snapshotSettled(vfs),
    wasmBytes: async () => (await vfs.memoryUsage()).wasmBytes,
  });
}

// After a setup, the store is in the state of a returning user's: the Python memory snapshot
// that the first boot makes when idle (docs/boot.md) is stored, so a reload or restart restores
// it. Setup is untimed; without this wait, whether a reopen found a snapshot would be a race.
async function snapshotSettled(vfs) {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const { snapshot } = (await vfs.diagnostics()).boot;
    if (snapshot.startsWith("failed")) throw new Error(`the runtime snapshot was not made: ${snapshot}`);
    if (snapshot !== "waiting" && snapshot !== "making") return;
    if (performance.now() > deadline) {
      throw new Error(`the runtime snapshot was not stored within ${SETTLE_TIMEOUT_MS} ms (state: ${snapshot})`);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}
