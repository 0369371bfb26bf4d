// The floor: raw IndexedDB, one record per file keyed by its path, one transaction per write
// (resolved on `complete`). No metadata, no directories: readdir is a key-range scan, stat reads
// the record, a directory rename or rm -r is one transaction over a key range.

const STORE = "files";

function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function committed(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

async function openDatabase(store) {
  const request = indexedDB.open(`raw:${store}`, 1);
  request.onupgradeneeded = () => request.result.createObjectStore(STORE);
  return done(request);
}

// Every key strictly under directory `dir`.
const under = (dir) => IDBKeyRange.bound(`${dir}/`, `${dir}/\uffff`);

export async function open(store) {
  const db = await openDatabase(store);
  const tx = (mode) => db.transaction(STORE, mode);
  const fail = (path) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  return {
    async writeFile(path, data) {
      const t = tx("readwrite");
      t.objectStore(STORE).put(data, path);
      await committed(t);
    },
    async readFile(path) {
      const value = await done(tx("readonly").objectStore(STORE).get(path));
      if (value === undefined) throw fail(path);
      return value;
    },
    mkdir: async () => {},
    async readdir(dir) {
      const keys = await done(tx("readonly").objectStore(STORE).getAllKeys(under(dir)));
      const names = new Set(keys.map((key) => key.slice(dir.length + 1).split("/")[0]));
      return [...names];
    },
    async stat(path) {
      const value = await done(tx("readonly").objectStore(STORE).get(path));
      if (value === undefined) throw fail(path);
      return { size: value.byteLength, isDirectory: false };
    },
    async rename(from, to) {
      const t = tx("readwrite");
      const files = t.objectStore(STORE);
      const [keys, values] = await Promise.all([done(files.getAllKeys(under(from))), done(files.getAll(under(from)))]);
      keys.forEach((key, i) => files.put(values[i], to + key.slice(from.length)));
      files.delete(under(from));
      await committed(t);
    },
    async rmTree(dir) {
      const t = tx("readwrite");
      t.objectStore(STORE).delete(under(dir));
      await committed(t);
    },
    async exists(path) {
      const files = tx("readonly").objectStore(STORE);
      const [file, children] = await Promise.all([done(files.count(path)), done(files.count(under(path)))]);
      return file + children > 0;
    },
    flush: async () => {},
  };
}
