// Preview roots: each preview URL carries a token, 128 random bits, that names {disk, root,
// kind, node, name} ("folder": everything below root; "file": that file alone, under `name`),
// as Python pinned it (py_vfs/hosts/preview.py, pin_root: root is the real path, node the id of what
// was there; a request is served only while both still hold). Kept in the app origin's
// IndexedDB database "pyvfs-previews", written before the URL is handed out, so every app tab
// of the origin can serve it (a preview outlives the tab that opened it). The preview origin
// never sees this table: it only forwards the token (docs/preview.md).

import { done, openDatabase, request } from "../shared/idb.mjs";

const DB_NAME = "pyvfs-previews";
const STORE = "roots";
let opened = null;
const known = new Map(); // token -> record; records never change, so a hit is final

function database() {
  opened ??= openDatabase(DB_NAME, 1, (db) => {
    db.createObjectStore(STORE, { keyPath: "token" }).createIndex("key", "key", { unique: true });
  });
  return opened;
}

export function newToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// The token of {disk, root, kind, node, name}: the one already minted for it, or a new one, stored
// before this resolves. One readwrite transaction, so two tabs minting the same root agree on
// one. A root replaced since (another node at the same path) gets a token of its own.
export async function mintRoot({ disk, root, kind, node, name }) {
  const db = await database();
  const tx = db.transaction(STORE, "readwrite");
  const store = tx.objectStore(STORE);
  const key = JSON.stringify([disk, kind, root, node, name]);
  let record;
  const lookup = store.index("key").get(key);
  lookup.onsuccess = () => {
    // Within the request's own event, so the transaction is still active for the put.
    record = lookup.result ?? { token: newToken(), key, disk, root, kind, node, name };
    if (!lookup.result) store.put(record);
  };
  await done(tx);
  known.set(record.token, record);
  return record.token;
}

// {disk, root, kind, node, name} of a token, or null when no tab of this origin minted it (a token
// minted before roots were pinned has no node: Python serves nothing for it).
export async function findRoot(token) {
  if (known.has(token)) return known.get(token);
  const db = await database();
  const record = await request(db.transaction(STORE).objectStore(STORE).get(token));
  if (record) known.set(token, record);
  return record ?? null;
}
