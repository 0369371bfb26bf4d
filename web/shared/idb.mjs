// The one IndexedDB plumbing of the page and the worker (web/worker/idb_store.mjs, mount_store.mjs,
// preview_roots.mjs, runtime_store.mjs, early_reader.mjs): promises of a request, of a
// transaction's end, and of an opened database, and the browser's report that it discarded the
// origin's databases (below). Why not the `idb` npm library: the first three are all we need of
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
    req.onupgradeneeded = (event) => {
      noticeDataLoss(event);
      upgrade(req.result, event, req.transaction);
    };
    req.onsuccess = () => {
      const db = req.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    req.onerror = () => reject(req.error);
    if (rejectBlocked) req.onblocked = () => reject(new Error(`${name} is blocked by another connection`));
  });
}

// Chromium discards an origin's whole IndexedDB when it finds its files corrupt as it opens them
// (seen after the browser was killed: "IndexedDB (database was corrupt): checksum mismatch";
// docs/storage.md, "When the browser discards the disk"), and says so once: in the
// `upgradeneeded` event (`dataLoss: "total"`) of the first open of any database of the origin
// after it. Every open of ours passes that event here, which keeps the report in a database of
// its own, so that every page and worker of the origin can tell (lastDataLoss).
const LOSSES = "pyvfs-data-loss";
const LAST = "last";
let noticing = Promise.resolve();

export function noticeDataLoss(event) {
  if (event?.dataLoss !== "total") return;
  const report = { message: event.dataLossMessage || "the browser discarded this origin's IndexedDB", at: Date.now() };
  noticing = openDatabase(LOSSES, 1, (db) => db.createObjectStore("reports")).then((db) => {
    const tx = db.transaction("reports", "readwrite");
    tx.objectStore("reports").put(report, LAST);
    return done(tx).finally(() => db.close());
  }).catch((error) => console.warn("py_vfs: the browser's report of a discarded database could not be kept", error));
}

// Settles once every report this context noticed is kept (the disk's open awaits it, so a
// report its worker noticed is readable once Python is ready).
export function noticed() {
  return noticing;
}

// The browser's last report of discarding this origin's IndexedDB, {message, at} (ms since the
// epoch, when it was noticed), or null when it never did (or the browser has no such report).
export async function lastDataLoss() {
  await noticing;
  const db = await new Promise((resolve) => {
    const req = indexedDB.open(LOSSES, 1);
    req.onupgradeneeded = (event) => {
      noticeDataLoss(event);
      req.transaction.abort(); // none kept: nothing to make
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
  });
  if (!db) return null;
  try {
    return (await request(db.transaction("reports").objectStore("reports").get(LAST))) ?? null;
  } finally {
    db.close();
  }
}
