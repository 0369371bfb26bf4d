// The embeddable module: `openVFS({name})` gives the JS API of the VFS of that name.
// Any page served from the same origin as this file can import it. One worker per VFS name owns
// Pyodide and the disk; this module turns its replies into Node-style values and errors, and
// answers preview requests for the VFSes this page has open: they come from the preview
// origin's service worker through a hidden relay frame (docs/preview.md). It also keeps the
// handles of mounted folders (only a page can pick a folder or ask for permission).

import { DURABILITIES } from "./idb_store.mjs";
import { MountStore, keptMounts, permissionOf } from "./mount_store.mjs";
import { StatCache } from "./stat_cache.mjs";
import { mintRoot } from "./preview_roots.mjs";
import { connectRelay } from "./preview_relay.mjs";

const instances = new Map();
let previewRelay = null;

// `cacheBytes` bounds the worker's cache of file chunks (default 32 MiB); `snapshot` is "auto"
// (boot from the origin's Python memory snapshot, and make it when missing) or "off" (always
// boot Python from its packages; docs/boot.md). Both apply when the VFS of that name is first
// opened in this page. `previewOrigin` is the origin previews are served from (another origin
// than the app's); without it, the one in ./pyvfs-config.json; it applies to the first openVFS.
// `durability` ("default", "strict" or "relaxed") is given to the IndexedDB transaction of every
// commit: "strict" makes a resolved write survive an OS crash or power loss too, at a cost per
// commit (docs/storage.md, "Durability"); it applies when the VFS of that name is first opened.
export function openVFS({ name = "default", onProgress, cacheBytes, snapshot = "auto", previewOrigin,
                          durability = "default" } = {}) {
  if (!DURABILITIES.includes(durability)) {
    return Promise.reject(new TypeError(`openVFS: durability must be one of ${DURABILITIES.join(", ")}, not ${durability}`));
  }
  previewRelay ??= connectRelay(previewOrigin, (name) => instances.get(name)?.worker);
  let instance = instances.get(name);
  if (!instance) {
    instance = new Instance(name, { cacheBytes, snapshot, durability });
    instances.set(name, instance);
  }
  if (onProgress) instance.listen(onProgress);
  return instance.ready;
}

class Instance {
  constructor(name, { cacheBytes, snapshot, durability }) {
    this.name = name;
    this.listeners = new Set();
    this.last = null;
    this.calls = new Map();
    this.nextId = 1;
    this.watchers = new Map(); // watch id -> listener
    this.openSteps = 0; // steps whose function is running: other calls wait for them
    this.sent = 0; // calls posted to the worker (diagnostics: what the stat cache saved)
    // Dropped on the worker's "invalidate", posted as its index changes (another tab's commit
    // included). Not on the disk's BroadcastChannel: that also announces this page's own
    // commits, after they resolved, and would empty the cache just filled after them.
    this.cache = new StatCache();
    this.worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module", name: `pyvfs:${name}` });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => this.receive(data, resolve, reject);
      this.worker.onerror = (event) => reject(new Error(event.message || "worker failed to start"));
    });
    this.worker.postMessage({ type: "open", name, cacheBytes, snapshot, durability });
    this.mountStore = MountStore.open(name).catch(() => null);
    this.mountStore.then(keptMounts).catch(() => []).then((records) => {
      this.worker.postMessage({ type: "mounts", records });
    });
  }

  listen(listener) {
    this.listeners.add(listener);
    if (this.last) listener(this.last);
  }

  receive(data, resolve, reject) {
    if (data.type === "progress") {
      this.last = { stage: data.stage, message: data.message, loaded: data.loaded, total: data.total };
      if (data.stage === "ready") {
        this.api = new VFS(this);
        previewRelay.then(() => resolve(this.api), reject);
      }
      for (const listener of this.listeners) listener(this.last);
    } else if (data.type === "failed") {
      reject(new Error(`py_vfs failed to start: ${data.message}`));
    } else if (data.type === "watch") {
      const listener = this.watchers.get(data.id);
      if (listener) {
        try { listener(data.event); } catch (error) { console.error("py_vfs watch listener failed", error); }
      }
    } else if (data.type === "invalidate") {
      this.cache.invalidate(data.view);
    } else if (data.type === "result") {
      const pending = this.calls.get(data.id);
      this.calls.delete(data.id);
      // Before the caller resumes: what it does next must not see the cache as it was.
      if (pending.mutating) this.cache.settle();
      const value = pending.keep ? pending.keep(data, pending.token) : data.value;
      if (data.error) pending.reject(toError(data.error));
      else pending.resolve(value);
    } else if (data.type === "request") {
      this.answer(data);
    }
  }

  // The shell's mount, unmount and reconnect, done by the JS API of this page, and its preview
  // roots (`open`, `serve`).
  async answer({ id, kind, payload }) {
    let reply;
    try {
      const api = this.api;
      const { path, readOnly } = payload;
      const value = kind === "mount" ? await api.mount(path, await pickDirectory({ readOnly }), { readOnly })
        : kind === "unmount" ? await api.unmount(path)
        : kind === "preview" ? { url: await this.rootUrl(payload.root, payload.kind) }
        : await api.reconnect(path);
      reply = { value };
    } catch (error) {
      const code = typeof error?.code === "string" ? error.code : codeOfPick(error);
      reply = { error: { code, message: String(error?.message ?? error), hint: error?.hint } };
    }
    this.worker.postMessage({ type: "reply", id, ...reply });
  }

  // Mints (or finds) the token of a preview root of this disk; resolves once it is stored.
  async rootUrl(root, kind) {
    const relay = await previewRelay;
    if (!relay) {
      throw toError({ code: "ENOTSUP", message: "ENOTSUP: no preview origin: set previewOrigin in pyvfs-config.json or pass openVFS({previewOrigin})", path: root, syscall: "preview" });
    }
    const token = await mintRoot({ disk: this.name, root, kind });
    return `${relay.origin}/preview/${token}/`;
  }

  async store() {
    const store = await this.mountStore;
    if (!store) throw toError({ code: "EIO", message: "EIO: mounts cannot be kept: IndexedDB is not available" });
    return store;
  }

  // `keep(reply, token)`, when given, sees the reply first and gives the value to resolve with
  // (the stat cache fills from it).
  call(op, args, keep) {
    if (this.closed) return Promise.reject(toError({ code: "EBADF", message: `EBADF: VFS "${this.name}" is closed`, syscall: op }));
    const id = this.nextId++;
    const pending = { keep, ...this.cache.begin(op) };
    pending.promise = new Promise((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.calls.set(id, pending);
    this.sent++;
    const sent = args.map(cloneable);
    this.worker.postMessage({ type: "call", id, op, args: sent }, transferOf(op, sent));
    return pending.promise;
  }

  // stat, lstat, exists, readdir: from the stat cache when it knows the answer, else from the
  // worker (readdir as readdirStats, whose entries' stats fill the cache). Resolves to raw data:
  // a readdir to records [name, path, type, ...stat] (py_vfs/page_cache.py).
  cached(op, path) {
    const known = this.closed ? undefined : this.cache.answer(op, path);
    if (known) return known.error ? Promise.reject(toError(known.error)) : Promise.resolve(known.value);
    const keep = (reply, token) => this.cache.keep(op, path, reply, token);
    return this.call(op === "readdir" ? "readdirStats" : op, [path], keep);
  }

  // Resolves once every call made before it has settled.
  settled() {
    return Promise.allSettled([...this.calls.values()].map((pending) => pending.promise));
  }

  async close() {
    await this.settled();
    this.closed = true;
    this.worker.terminate();
    if (instances.get(this.name) === this) instances.delete(this.name);
  }
}

function cloneable(value) {
  return value === undefined ? null : value;
}

// The bytes argument of the calls that carry file content, by position.
const CONTENT_ARG = { writeFile: 1, appendFile: 1, writeChunk: 1 };
const TRANSFER_MIN = 64 * 1024;

// Large content goes to the worker as a copy whose buffer is transferred: one copy, where a
// structured clone makes two (serialize, deserialize) and took several times longer for 32 MiB.
// The caller's own buffer is never detached (as with Node's fs). Replaces the argument in `args`.
function transferOf(op, args) {
  const at = CONTENT_ARG[op];
  const data = args[at];
  if (at === undefined || !ArrayBuffer.isView(data) || data instanceof DataView || data.byteLength < TRANSFER_MIN) return [];
  const copy = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  args[at] = copy;
  return [copy.buffer];
}

function toError({ code, message, path, dest, syscall, errno, hint }) {
  const error = new Error(message);
  error.code = code;
  if (hint) error.hint = hint;
  if (errno != null) error.errno = errno;
  if (syscall) error.syscall = syscall;
  if (path != null) error.path = path;
  if (dest != null) error.dest = dest;
  return error;
}

export class Stats {
  constructor(raw) {
    Object.assign(this, {
      type: raw.type, size: raw.size, mode: raw.mode | modeType(raw.type),
      mtimeMs: raw.mtimeMs, ctimeMs: raw.ctimeMs, atimeMs: raw.atimeMs, birthtimeMs: raw.ctimeMs,
      name: raw.name, path: raw.path,
      mtime: new Date(raw.mtimeMs), ctime: new Date(raw.ctimeMs), atime: new Date(raw.atimeMs),
      uid: 1000, gid: 1000, nlink: 1, dev: 1, ino: 0,
    });
  }
  isFile() { return this.type === "file"; }
  isDirectory() { return this.type === "directory"; }
  isSymbolicLink() { return this.type === "symlink"; }
}

function modeType(type) {
  return { file: 0o100000, directory: 0o040000, symlink: 0o120000 }[type] ?? 0;
}

export class Dirent {
  constructor(raw) {
    this.name = raw.name;
    this.path = raw.path;
    this.parentPath = raw.path.slice(0, raw.path.length - raw.name.length - 1) || "/";
    this.type = raw.type;
  }
  isFile() { return this.type === "file"; }
  isDirectory() { return this.type === "directory"; }
  isSymbolicLink() { return this.type === "symlink"; }
}

// The JS API, in node:fs/promises shape. Every method is one round trip to the worker, but
// stat, lstat, exists and readdir, which the page's stat cache may answer (web/stat_cache.mjs).
// Inside `vfs.step(fn)`, `fn` gets a VFS bound to the step (same methods), whose calls go to
// the worker as stepOp messages.
export class VFS {
  #instance;
  #stepId;
  constructor(instance, stepId = null) {
    this.#instance = instance;
    this.#stepId = stepId;
    this.name = instance.name;
  }
  #call(op, ...args) {
    if (this.#stepId !== null) return this.#instance.call("stepOp", [this.#stepId, op, ...args]);
    const pending = this.#instance.call(op, args);
    if (this.#instance.openSteps > 0) warnIfStuck(pending, op);
    return pending;
  }
  // A read the page's stat cache may answer (not a step's: those see the step's own changes).
  #read(op, path) {
    if (this.#stepId !== null) return this.#call(op, path);
    const pending = this.#instance.cached(op, path);
    if (this.#instance.openSteps > 0) warnIfStuck(pending, op);
    return pending;
  }

  // Runs `fn(tx)`: every operation on `tx` commits together when `fn` resolves (one IndexedDB
  // transaction), or none does when it throws. Other calls on this VFS in this page wait until
  // the step ends, so `fn` must use `tx`, never the outer `vfs` (that would wait for itself).
  async step(fn) {
    if (this.#stepId !== null) throw toError({ code: "EINVAL", message: "EINVAL: steps do not nest", syscall: "step" });
    // Other calls of this page wait in the worker while the step is open: no cached answer
    // may overtake them.
    const cache = this.#instance.cache;
    cache.hold();
    try {
      return await this.#run(fn);
    } finally {
      cache.settle();
    }
  }
  async #run(fn) {
    const id = await this.#instance.call("stepBegin", []);
    this.#instance.openSteps++;
    let result;
    try {
      result = await fn(new VFS(this.#instance, id));
    } catch (error) {
      this.#instance.openSteps--;
      await this.#instance.call("stepEnd", [id, false]).catch(() => {});
      throw error;
    }
    this.#instance.openSteps--;
    await this.#instance.call("stepEnd", [id, true]);
    return result;
  }

  // Calls `listener({type, path, oldPath?, kind})` for changes at `path` (a directory: also its
  // entries; `recursive`: everything below), made in this tab, in other tabs, or by steps.
  // Returns the unsubscribe function; its `ready` promise resolves once the worker listens.
  watch(path, listener, { recursive = false } = {}) {
    if (this.#stepId !== null) throw toError({ code: "EINVAL", message: "EINVAL: watch outside the step", syscall: "watch" });
    const instance = this.#instance;
    const id = instance.nextId++;
    instance.watchers.set(id, listener);
    const ready = instance.call("watch", [id, path, { recursive }]).catch((error) => {
      instance.watchers.delete(id);
      console.error("py_vfs watch failed", error);
    });
    const unsubscribe = () => {
      if (!instance.watchers.delete(id)) return Promise.resolve();
      return instance.call("unwatch", [id]).then(() => undefined);
    };
    unsubscribe.ready = ready.then(() => undefined);
    return unsubscribe;
  }

  readFile(path, options) { return this.#call("readFile", path, options); }
  // data may also be a ReadableStream (or any async iterable) of bytes or strings: it is sent
  // on in pieces of about one chunk, and the file appears whole when the stream ends.
  async writeFile(path, data, options) {
    if (isStream(data)) return this.#writeStream(path, data, options);
    await this.#call("writeFile", path, data, options);
  }
  appendFile(path, data, options) { return this.#call("appendFile", path, data, options).then(() => undefined); }
  truncate(path, length = 0) { return this.#call("truncate", path, length).then(() => undefined); }
  mkdir(path, options) { return this.#call("mkdir", path, options).then(() => undefined); }
  rm(path, options) { return this.#call("rm", path, options).then(() => undefined); }
  rmdir(path, options) { return this.#call("rmdir", path, options).then(() => undefined); }
  unlink(path) { return this.#call("unlink", path).then(() => undefined); }
  rename(oldPath, newPath) { return this.#call("rename", oldPath, newPath).then(() => undefined); }
  copyFile(src, dst) { return this.#call("copyFile", src, dst).then(() => undefined); }
  cp(src, dst, options) { return this.#call("cp", src, dst, options).then(() => undefined); }
  symlink(target, path) { return this.#call("symlink", target, path).then(() => undefined); }
  readlink(path) { return this.#call("readlink", path); }
  realpath(path) { return this.#call("realpath", path); }
  chmod(path, mode) { return this.#call("chmod", path, mode).then(() => undefined); }
  utimes(path, atime, mtime) { return this.#call("utimes", path, toMs(atime), toMs(mtime)).then(() => undefined); }
  exists(path) { return this.#read("exists", path); }
  walk(path = "/") { return this.#call("walk", path); }
  du(path = "/") { return this.#call("du", path); }
  ls(prefix = "/") { return this.#call("ls", prefix); }
  find(directory = "/", pattern = null) { return this.#call("find", directory, pattern); }
  glob(pattern) { return this.#call("glob", pattern); }
  grep(pattern, path = "/", options = {}) { return this.#call("grep", pattern, path, options); }
  async stat(path) { return new Stats(await this.#read("stat", path)); }
  async lstat(path) { return new Stats(await this.#read("lstat", path)); }
  async readdir(path, options) {
    const withTypes = options?.withFileTypes;
    if (this.#stepId !== null) {
      const entries = await this.#call("readdir", path, options);
      return withTypes ? entries.map((raw) => new Dirent(raw)) : entries;
    }
    const records = await this.#read("readdir", path);
    return withTypes ? records.map(([name, at, type]) => new Dirent({ name, path: at, type })) : records.map((r) => r[0]);
  }
  // A ReadableStream<Uint8Array> of the bytes from start to end, both inclusive as in Node's
  // fs.createReadStream. It reads the version of the file current when it opens and pulls one
  // chunk (at most 512 KiB) per read, so a file of any size passes through a few chunks at a time.
  createReadStream(path, { start = 0, end } = {}) {
    const call = (op, ...args) => this.#call(op, ...args);
    let id = null;
    return new ReadableStream({
      async start() {
        id = await call("openRead", path, start, ...(end === undefined || end === Infinity ? [] : [end + 1]));
      },
      async pull(controller) {
        const chunk = await call("readChunk", id);
        if (chunk == null) controller.close();
        else controller.enqueue(chunk);
      },
      cancel() {
        return id === null ? undefined : call("closeStream", id);
      },
    });
  }
  async #writeStream(path, source, options) {
    const id = await this.#call("openWrite", path, options);
    try {
      for await (const piece of batches(source, STREAM_BATCH)) await this.#call("writeChunk", id, piece);
    } catch (error) {
      await this.#call("closeStream", id).catch(() => {});
      throw error;
    }
    await this.#call("finishWrite", id);
  }
  // Mounts (docs/mounts.md): a FileSystemDirectoryHandle becomes live at `path`, an empty
  // directory (made when missing). The handle is kept in IndexedDB, so the mount comes back after
  // a reload: at once when the browser still grants access, else listed as waiting until
  // reconnect(path), which asks the user (call it from a click).
  async mount(path, handle, { readOnly = false } = {}) {
    if (handle?.kind !== "directory") {
      throw toError({ code: "ENOTDIR", message: `ENOTDIR: mount needs a FileSystemDirectoryHandle, mount '${path}'`, path, syscall: "mount" });
    }
    await ensurePermission(handle, readOnly, path);
    const info = await this.#call("mount", path, handle, { readOnly });
    await (await this.#instance.store()).put({ path: info.path, handle, readOnly: Boolean(readOnly) });
    return info;
  }
  async unmount(path) {
    const info = await this.#call("unmount", path);
    await (await this.#instance.store()).delete(info.path);
    return info;
  }
  mounts() { return this.#call("mounts"); }
  // Handle operations the worker made on mounted folders so far, by kind (diagnostics, tests).
  fsaCounters() { return this.#call("fsaCounters"); }
  async reconnect(path) {
    const info = await this.#call("mountInfo", path);
    const record = await (await this.#instance.store()).get(info.path);
    if (!record) throw toError({ code: "ENOENT", message: `ENOENT: no folder kept for the mount, mount '${path}'`, path, syscall: "mount" });
    await ensurePermission(record.handle, record.readOnly, path);
    return this.#call("reconnect", info.path, record.handle, { readOnly: Boolean(record.readOnly) });
  }
  // The worker's memory: wasmBytes is the size of Pyodide's WebAssembly memory, which only grows,
  // so it is the high-water mark of everything Python held; jsHeapBytes where Chromium tells.
  memoryUsage() { return this.#call("memoryUsage"); }
  // Every write is durable when it resolves, so there is nothing to flush: this only waits for
  // the calls made before it (a barrier, for code written against file systems that buffer).
  async flush() { await this.#instance.settled(); }
  // Waits for the calls in flight, then stops this VFS's worker; `openVFS` opens it again.
  async close() { await this.#instance.close(); }
  // The integrity check: {ok, problems: [{kind, where, message}], nodes, chunks, reclaimable...}.
  check() { return this.#call("check"); }
  // {files, directories, symlinks, contentBytes, storedBytes, storeBytes, quotaBytes, persisted...}
  usage() { return this.#call("usage"); }
  // Deletes stored chunks no file references (what streams cut short leave behind) once they are
  // older than `graceMs` (default 24 h, so that streams in flight in other tabs are safe);
  // resolves to how many. It also runs by itself after every boot.
  gc({ graceMs } = {}) { return this.#call("gc", graceMs === undefined ? {} : { graceMs }); }
  // Counters for tests and debugging: {reads: {nodes, chunks, meta}} records read since boot,
  // {boot: {from: "snapshot" | "packages", snapshot}} how Python started (docs/boot.md),
  // {durability: {asked, lastCommit}}: the openVFS option, and the durability the browser reports
  // for the last commit's transaction (null before the first commit; docs/storage.md),
  // {calls} posted to the worker by this page before this one, {statCache: {hits, entries}},
  // {streams, pinnedChunks}: streams open in the worker (JS streams, preview bodies) and the
  // distinct chunks they pin (kept in the store until released).
  async diagnostics() {
    const instance = this.#instance;
    const calls = instance.sent;
    const worker = await this.#call("diagnostics");
    return { ...worker, calls, statCache: { hits: instance.cache.hits, entries: instance.cache.size } };
  }
  // Runs a shell command line in this VFS's shell session (its cwd carries over between calls).
  shell(line) { return this.#call("shell", line); }
  // Resolves to a URL on the preview origin that serves `path` and nothing outside its root. By
  // default the root is `path` itself (a folder: everything below it, the URL ends in "/"; a
  // file: that file alone, under its own name), as the shell's `open`. With `{root}`, a folder
  // holding `path`, the URL serves `path` inside that root: `{root: "/"}` exposes the whole
  // disk to the previewed page, so ask for it only for content you trust.
  async previewUrl(path, { root } = {}) {
    if (this.#stepId !== null) throw toError({ code: "EINVAL", message: "EINVAL: previewUrl outside the step", syscall: "preview" });
    const target = normalize(path);
    if (root === undefined) {
      const kind = (await this.stat(target)).isDirectory() ? "folder" : "file";
      const url = await this.#instance.rootUrl(target, kind);
      return kind === "folder" ? url : url + encodeURIComponent(target.split("/").pop());
    }
    const top = normalize(root);
    if (!(await this.stat(top)).isDirectory()) {
      throw toError({ code: "ENOTDIR", message: `ENOTDIR: not a directory, preview '${root}'`, path: root, syscall: "preview" });
    }
    const inside = top === "/" ? target : target.startsWith(top + "/") ? target.slice(top.length) : target === top ? "/" : null;
    if (inside === null) {
      throw toError({ code: "EINVAL", message: `EINVAL: '${path}' is not inside the root '${root}'`, path, syscall: "preview" });
    }
    const url = await this.#instance.rootUrl(top, "folder");
    return url + inside.split("/").filter(Boolean).map(encodeURIComponent).join("/");
  }
}

const STREAM_BATCH = 512 * 1024;

// "/a/./b/../c" -> "/a/c", as the core folds paths (never above "/").
function normalize(path) {
  const parts = [];
  for (const segment of String(path).split("/")) {
    if (segment === "..") parts.pop();
    else if (segment && segment !== ".") parts.push(segment);
  }
  return "/" + parts.join("/");
}

// The one way this module gets a folder from the user: window.__pickDirectory when a page (or a
// test) set it, else the File System Access picker.
export function pickDirectory({ readOnly = false } = {}) {
  const mode = readOnly ? "read" : "readwrite";
  const pick = globalThis.__pickDirectory ?? ((options) => {
    if (typeof globalThis.showDirectoryPicker !== "function") {
      throw toError({ code: "ENOTSUP", message: "ENOTSUP: this browser cannot pick folders (no File System Access API)" });
    }
    return globalThis.showDirectoryPicker(options);
  });
  return pick({ mode });
}

// A picker the user closed is a cancelled operation, not a failure of the file system.
function codeOfPick(error) {
  return error?.name === "AbortError" ? "ECANCELED" : error?.name === "NotAllowedError" || error?.name === "SecurityError" ? "EACCES" : "EIO";
}

async function ensurePermission(handle, readOnly, path) {
  if ((await permissionOf(handle, readOnly)) === "granted") return;
  const mode = readOnly ? "read" : "readwrite";
  const asked = await handle.requestPermission({ mode }).catch(() => "denied");
  if (asked !== "granted") {
    throw toError({ code: "EACCES", message: `EACCES: permission denied, mount '${path}'`, path, syscall: "mount" });
  }
}

function isStream(data) {
  return data != null && typeof data === "object" &&
    (typeof data.getReader === "function" || typeof data[Symbol.asyncIterator] === "function");
}

function toBytes(piece) {
  if (typeof piece === "string") return new TextEncoder().encode(piece);
  if (piece instanceof Uint8Array) return piece;
  if (piece instanceof ArrayBuffer) return new Uint8Array(piece);
  if (ArrayBuffer.isView(piece)) return new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength);
  throw new TypeError(`stream chunks must be bytes or strings, not ${Object.prototype.toString.call(piece)}`);
}

async function* piecesOf(source) {
  if (typeof source.getReader !== "function") {
    yield* source;
    return;
  }
  const reader = source.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

// Joins a stream's pieces, whatever their sizes, into messages of about `size` bytes: one round
// trip to the worker per chunk, not per piece.
async function* batches(source, size) {
  let parts = [];
  let length = 0;
  for await (const piece of piecesOf(source)) {
    const bytes = toBytes(piece);
    parts.push(bytes);
    length += bytes.byteLength;
    if (length >= size) {
      yield concat(parts, length);
      parts = [];
      length = 0;
    }
  }
  if (length) yield concat(parts, length);
}

function concat(parts, length) {
  if (parts.length === 1 && parts[0].byteLength === parts[0].buffer.byteLength) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

// A call made while a step is open waits for the step to end. If it is still waiting after a
// while, the likely cause is the step's own function calling the outer vfs instead of its `tx`,
// which can never end (JS cannot tell that call from another caller's): say so on the console.
const STUCK_MS = 5000;
function warnIfStuck(pending, op) {
  let done = false;
  const timer = setTimeout(() => {
    if (!done) console.warn(`py_vfs: ${op} has waited ${STUCK_MS} ms for an open step; inside vfs.step(fn), use fn's tx, not the outer vfs (that deadlocks)`);
  }, STUCK_MS);
  const settle = () => { done = true; clearTimeout(timer); };
  pending.then(settle, settle);
}

// Node's utimes takes seconds or Dates; the core keeps milliseconds.
function toMs(time) {
  return time instanceof Date ? time.getTime() : Number(time) * 1000;
}
