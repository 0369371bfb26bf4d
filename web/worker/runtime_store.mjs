// The Pyodide memory snapshots (docs/boot.md): the one the build ships beside Pyodide, and the
// one a page made, stored in its own IndexedDB database so that no disk's check() or usage()
// counts it and deleting a disk never touches it. One record: the snapshot of the current build,
// replaced when the build changes. Every call opens, uses and closes its connection, so nothing
// here ever blocks a deleteDatabase (the bench's wipe, a user's).

import { done, openDatabase } from "../shared/idb.mjs";
import { snapshotKey } from "../shared/snapshot_recipe.mjs";
import { unwrapSnapshot } from "../shared/shipped_snapshot.mjs";

export { snapshotKey };

const DATABASE = "pyvfs-runtime";
const STORE = "snapshots";
const RECORD = "python";

// The shipped snapshot's URL once this worker's boot restored it: a realm's Python restores it
// too (loadSnapshot).
let shippedUsed = null;

// The shipped snapshot's bytes at `url` if it was made for `key` and is whole; throws saying
// why not. HTTP caches it like Pyodide's own files (its name has its content's hash).
export async function loadShipped(url, key) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${new URL(url).pathname}: HTTP ${response.status}`);
  return unwrapSnapshot(new Uint8Array(await response.arrayBuffer()), key);
}

export function shippedWasUsed(url) {
  shippedUsed = url;
}

// The snapshot for a realm's Python: the shipped one if the boot used it, else the stored one;
// null when there is none.
export async function loadSnapshot(key) {
  if (shippedUsed) return loadShipped(shippedUsed, key).catch(() => null);
  return loadStored(key);
}

async function transact(mode, use) {
  const db = await openDatabase(DATABASE, 1, (created) => created.createObjectStore(STORE), { rejectBlocked: true });
  try {
    const tx = db.transaction(STORE, mode);
    const request = use(tx.objectStore(STORE));
    await done(tx);
    return request.result;
  } finally {
    db.close();
  }
}

// The stored snapshot's bytes if it was made for `key` and is whole, else null.
export async function loadStored(key) {
  const record = await transact("readonly", (store) => store.get(RECORD));
  if (record?.key !== key || !(record.bytes instanceof Uint8Array)) return null;
  return record.bytes.byteLength === record.size ? record.bytes : null;
}

// The stored snapshot's key: "is there already one?". IndexedDB reads the whole record (30 MiB)
// for it; that happens once per origin and build, before making a snapshot.
export async function storedKey() {
  const record = await transact("readonly", (store) => store.get(RECORD));
  return record?.key ?? null;
}

export function saveSnapshot(key, bytes) {
  const record = { key, bytes, size: bytes.byteLength, created: Date.now() };
  return transact("readwrite", (store) => store.put(record, RECORD));
}

export function dropSnapshot() {
  return transact("readwrite", (store) => store.delete(RECORD));
}
