// The mounts a page made, kept across reloads: {path, handle, readOnly} records in the IndexedDB
// database `pyvfs-mounts:<vfs name>` (a database of its own, so the disk's database can change
// its version without touching these). A FileSystemDirectoryHandle survives structured clone,
// so the handle itself is stored; whether the browser still lets us use it is asked again at
// every boot (docs/mounts.md, "Persistence"). Also how the page gets a folder and its
// permission (only a page can pick a folder or ask the user).

import { fsError } from "../shared/errors.mjs";
import { openDatabase, request } from "../shared/idb.mjs";

const STORE = "mounts";

export class MountStore {
  static async open(name) {
    return new MountStore(await openDatabase(`pyvfs-mounts:${name}`, 1, (db) => db.createObjectStore(STORE, { keyPath: "path" })));
  }

  constructor(db) {
    this.db = db;
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
  // Firefox's handles have no permission methods (checked on firefox-esr 153.8.0esr): the only
  // directory handles it gives, OPFS's, need no permission.
  if (typeof handle.queryPermission !== "function") return "granted";
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

// Firefox and Safari have no showDirectoryPicker: the shell's `mount` prints this as its reason.
const NO_PICKER = "this browser has no folder picker, showDirectoryPicker of the File System Access API";

// The one way this module gets a folder from the user: window.__pickDirectory when a page (or a
// test) set it, else the File System Access picker.
export function pickDirectory({ readOnly = false } = {}) {
  const mode = readOnly ? "read" : "readwrite";
  const pick = globalThis.__pickDirectory ?? ((options) => {
    if (typeof globalThis.showDirectoryPicker !== "function") {
      throw fsError("ENOTSUP", `ENOTSUP: ${NO_PICKER}; pass a directory handle to vfs.mount(path, handle) instead, e.g. an OPFS folder from navigator.storage.getDirectory()`, { syscall: "mount", hint: NO_PICKER });
    }
    return globalThis.showDirectoryPicker(options);
  });
  return pick({ mode });
}

// A picker the user closed is a cancelled operation, not a failure of the file system.
export function codeOfPick(error) {
  return error?.name === "AbortError" ? "ECANCELED" : error?.name === "NotAllowedError" || error?.name === "SecurityError" ? "EACCES" : "EIO";
}

export async function ensurePermission(handle, readOnly, path) {
  if ((await permissionOf(handle, readOnly)) === "granted") return;
  const mode = readOnly ? "read" : "readwrite";
  const asked = await handle.requestPermission({ mode }).catch(() => "denied");
  if (asked !== "granted") {
    throw fsError("EACCES", `EACCES: permission denied, mount '${path}'`, { path, syscall: "mount" });
  }
}

