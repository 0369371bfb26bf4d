// The mounts a page made, kept across reloads: {path, handle, readOnly} records in the IndexedDB
// database `pyvfs-mounts:<vfs name>` (a database of its own, so the disk's database can change
// its version without touching these). A FileSystemDirectoryHandle survives structured clone,
// so the handle itself is stored; whether the browser still lets us use it is asked again at
// every boot (docs/mounts.md, "Persistence").

const STORE = "mounts";

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export class MountStore {
  static async open(name) {
    const req = indexedDB.open(`pyvfs-mounts:${name}`, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "path" });
    return new MountStore(await request(req));
  }

  constructor(db) {
    this.db = db;
    db.onversionchange = () => db.close();
  }

  #store(mode) {
    return this.db.transaction(STORE, mode).objectStore(STORE);
  }

  all() {
    return request(this.#store("readonly").getAll());
  }

  get(path) {
    return request(this.#store("readonly").get(path));
  }

  put(record) {
    return request(this.#store("readwrite").put(record));
  }

  delete(path) {
    return request(this.#store("readwrite").delete(path));
  }
}

// "granted" when the page may use the handle now, without asking the user.
export async function permissionOf(handle, readOnly) {
  try {
    return await handle.queryPermission({ mode: readOnly ? "read" : "readwrite" });
  } catch {
    return "denied";
  }
}

// The kept mounts with whether each may be used at once: what the worker restores at boot.
export async function keptMounts(store) {
  const records = store ? await store.all() : [];
  return Promise.all(records.map(async ({ path, handle, readOnly }) => ({
    path, handle, readOnly, granted: (await permissionOf(handle, readOnly)) === "granted",
  })));
}
