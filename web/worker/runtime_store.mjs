// The Pyodide memory snapshot of this origin (docs/boot.md), in its own IndexedDB database so that
// no disk's check() or usage() counts it and deleting a disk never touches it. One record: the
// snapshot of the current build, replaced when the build changes. Every call opens, uses and
// closes its connection, so nothing here ever blocks a deleteDatabase (the bench's wipe, a user's).

import { done, openDatabase } from "../shared/idb.mjs";

const DATABASE = "pyvfs-runtime";
const STORE = "snapshots";
const RECORD = "python";

// What makes a snapshot valid: the Pyodide build it was taken with and the exact wheel imported
// into it (the hash changes with any source change, the version only with a release).
export function snapshotKey(manifest) {
  return `pyodide ${manifest.pyodide}; ${manifest.wheel} sha256 ${manifest.wheelSha256}`;
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
export async function loadSnapshot(key) {
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
