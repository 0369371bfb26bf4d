// The Pyodide memory snapshots (docs/boot.md): the one the build ships beside Pyodide, and the
// one kept in the origin's own IndexedDB database (a copy of the shipped one, or one a page
// made), so that no disk's check() or usage() counts it and deleting a disk never touches it.
// One record: the snapshot of the current build, replaced when the build changes. Every call
// opens, uses and closes its connection, so nothing here ever blocks a deleteDatabase (the
// bench's wipe, a user's).

import { done, openDatabase } from "../shared/idb.mjs";
import { snapshotKey } from "../shared/snapshot_recipe.mjs";
import { unwrapSnapshot, wrapSnapshot } from "../shared/shipped_snapshot.mjs";

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

// The record holds the snapshot in the shipped file's layout (shipped_snapshot.mjs: the key and
// a map of the blocks that are not zeros) as a Blob: IndexedDB hands back a Blob without reading
// it, and reads it whole far faster than an ArrayBuffer value or the HTTP cache (25 MB in a
// worker, alone: about 20 ms against 96 and 80; docs/boot.md). `source`: "shipped" (a copy of
// the build's file) or "made" (snapshot_maker.mjs).

// The stored record, or null when there is none. On a first visit the database does not exist
// and is not created for this (its creation would delay the shipped snapshot's fetch).
export async function storedRecord() {
  const known = await indexedDB.databases?.();
  if (known && !known.some((database) => database.name === DATABASE)) return null;
  return transact("readonly", (store) => store.get(RECORD));
}

// The snapshot in `record` (storedRecord's) if it is one for `key`: {source, read()}, where
// `read()` gives the snapshot's bytes (or throws saying why it cannot: damaged, not whole); null
// when none of this build is stored (a record of another build, or of an older layout, counts
// as none).
export function storedSnapshot(record, key) {
  if (record?.key !== key || !(record.blob instanceof Blob)) return null;
  const { blob, size, source } = record;
  return {
    source,
    async read() {
      if (blob.size !== size) throw new Error(`${blob.size} bytes stored of ${size}`);
      return unwrapSnapshot(new Uint8Array(await blob.arrayBuffer()), key);
    },
  };
}

// The stored snapshot's bytes if it was made for `key` and is whole, else null.
async function loadStored(key) {
  return storedSnapshot(await storedRecord(), key)?.read().catch(() => null) ?? null;
}

// The stored snapshot's key: "is there already one?" (the Blob is not read for it).
export async function storedKey() {
  const record = await storedRecord();
  return record?.blob instanceof Blob ? record.key : null;
}

function putRecord(key, blob, source) {
  const record = { key, blob, size: blob.size, source, created: Date.now() };
  return transact("readwrite", (snapshots) => snapshots.put(record, RECORD));
}

// Stores a snapshot this browser made (Pyodide's bytes) under `key`.
export function saveSnapshot(key, bytes) {
  return putRecord(key, new Blob([wrapSnapshot(key, bytes)]), "made");
}

// Keeps a copy of the shipped file at `url` (read again from the HTTP cache, where the boot
// just put it) once it was restored for `key`. Not checked here: every read checks it
// (storedSnapshot), and a boot drops a copy it refuses.
export async function keepShipped(url, key) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${new URL(url).pathname}: HTTP ${response.status}`);
  await putRecord(key, await response.blob(), "shipped");
}

export function dropSnapshot() {
  return transact("readwrite", (store) => store.delete(RECORD));
}
