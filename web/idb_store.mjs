// The JS half of the IndexedDB store (see py_vfs/storage/indexeddb.py).
// JS owns every IndexedDB transaction: Python cannot await inside one without it auto-committing.

const SPACES = ["nodes", "chunks", "meta"];
const FORMAT = 1;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function failureOf(error) {
  const name = error?.name ?? "";
  const code = name === "QuotaExceededError" ? "ENOSPC" : "EIO";
  return { code, message: `${name || "Error"}: ${error?.message ?? "transaction failed"}` };
}

export class IDBStore {
  static async open(name) {
    const req = indexedDB.open(`pyvfs:${name}`, FORMAT);
    req.onupgradeneeded = () => {
      for (const space of SPACES) {
        if (!req.result.objectStoreNames.contains(space)) req.result.createObjectStore(space);
      }
    };
    return new IDBStore(await request(req));
  }

  constructor(db) {
    this.db = db;
    // Records read per keyspace since open: a diagnostic (tests assert that boot reads no chunk).
    this.reads = Object.fromEntries(SPACES.map((space) => [space, 0]));
    // Another tab upgrading the format must not be blocked by us.
    db.onversionchange = () => db.close();
  }

  async getAll(space) {
    const store = this.db.transaction(space, "readonly").objectStore(space);
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    this.reads[space] += values.length;
    return keys.map((key, i) => [key, values[i]]);
  }

  async get(space, key) {
    this.reads[space] += 1;
    return request(this.db.transaction(space, "readonly").objectStore(space).get(key));
  }

  // Keys only (no value is read): the integrity check walks the chunks one by one with them.
  async keys(space) {
    return request(this.db.transaction(space, "readonly").objectStore(space).getAllKeys());
  }

  // The origin's usage and quota, and whether the browser promised not to evict it. Works in a
  // worker (persisted() does; persist() is for pages, see web/app.mjs). Undefined where
  // unknown (Python sees None; a JS null would cross as a JsNull object).
  async estimate() {
    const storage = globalThis.navigator?.storage;
    if (!storage?.estimate) return undefined;
    const { usage, quota } = await storage.estimate();
    const answer = { usage, quota };
    if (storage.persisted) answer.persisted = await storage.persisted();
    return answer;
  }

  // Applies [action, space, key, value] ops in one readwrite transaction. Resolves once the
  // transaction is complete (durable: undefined, which Python sees as None), or {code, message}
  // when it failed (nothing applied).
  commit(ops) {
    const spaces = [...new Set(ops.map((op) => op[1]))];
    return new Promise((resolve) => {
      let tx;
      try {
        tx = this.db.transaction(spaces, "readwrite");
        for (const [action, space, key, value] of ops) {
          const store = tx.objectStore(space);
          if (action === "put") store.put(value, key);
          else store.delete(key);
        }
      } catch (error) {
        tx?.abort();
        resolve(failureOf(error));
        return;
      }
      tx.oncomplete = () => resolve(undefined);
      tx.onabort = () => resolve(failureOf(tx.error));
    });
  }

  close() {
    this.db.close();
  }
}
