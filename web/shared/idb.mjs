// The one IndexedDB plumbing of the page and the worker (web/worker/idb_store.mjs, mount_store.mjs,
// preview_roots.mjs, runtime_store.mjs): promises of a request, of a transaction's end, and of
// an opened database. Why not the `idb` npm library: these three functions are all we need of
// it, the store's commit must keep issuing its requests synchronously inside raw transaction
// events (web/worker/idb_store.mjs, commitLogged), and the worker would load one more file at boot
// (docs/api.md, "Design choices").

// The result of an IDBRequest.
export function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

// Resolves when `tx` commits; rejects with its error when it fails or aborts.
export function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
  });
}

// Opens database `name` at `version`; `upgrade(db, event, tx)` creates what is missing. The
// connection closes itself when another one upgrades the database, so it never blocks that.
// `rejectBlocked`: fail instead of waiting when other connections hold an older version open.
export function openDatabase(name, version, upgrade, { rejectBlocked = false } = {}) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, version);
    req.onupgradeneeded = (event) => upgrade(req.result, event, req.transaction);
    req.onsuccess = () => {
      const db = req.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    req.onerror = () => reject(req.error);
    if (rejectBlocked) req.onblocked = () => reject(new Error(`${name} is blocked by another connection`));
  });
}
