// The embeddable module: `openVFS({name})` gives the JS API of the VFS of that name.
// Any page served from the same origin as this file can import it. One worker per VFS name owns
// Pyodide and the disk; this module turns its replies into Node-style values and errors, and
// answers preview requests for the VFSes this page has open: they come from the preview
// origin's service worker through a hidden relay frame (docs/preview.md). It also keeps the
// handles of mounted folders (only a page can pick a folder or ask for permission). The API
// object itself is web/api.mjs; every operation's name and arguments are declared once, in
// py_vfs/web/protocol.py (protocol.mjs is generated from it by the build, beside this module).

import { abortError } from "./abort.mjs";
import { VFS } from "./api.mjs";
import { BeforeBoot } from "./before_boot.mjs";
import { envelopeOf, fsError, toError } from "./errors.mjs";
import { DURABILITIES } from "./idb_store.mjs";
import { MountStore, codeOfPick, keptMounts, pickDirectory } from "./mount_store.mjs";
import { CALL_SIGNAL, CALL_WRITER, DEFAULT_WRITER, OPS, TRANSFER_MIN } from "./protocol.mjs";
import { StatCache } from "./stat_cache.mjs";
import { checkWriter } from "./validate.mjs";
import { mintRoot } from "./preview_roots.mjs";
import { connectRelay } from "./preview_relay.mjs";
import { RealmFrames } from "./realm_frames.mjs";

export { Dirent, Stats, VFS, viewOf } from "./api.mjs";
export { AbortError } from "./abort.mjs";
export { agentTools } from "./agent_tools.mjs";
export { pickDirectory } from "./mount_store.mjs";

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
// `writer` names who the returned API's changes are made by (default "user"; `vfs.as(w)` gives
// the same API under another name); `retention` ({days, entries}) how long the journal keeps
// history (default 30 days or 100,000 entries), applied when the VFS is first opened.
// `defaults` (default true): install the default content the build ships (dist/defaults/) when
// this disk does not have its version yet (docs/defaults.md); false opts out. It applies when the
// VFS of that name is first opened in this page; `vfs.reset({defaults: true})` works either way.
// `realm` ({timeoutMs, memoryBytes, idleMs}) budgets the realm a scoop's code runs in
// (docs/sandbox.md, "A realm for code"): a Python run's wall time, the realm's wasm memory, how
// long an unused realm is kept; it applies when the VFS of that name is first opened.
export function openVFS({ name = "default", onProgress, cacheBytes, snapshot = "auto", previewOrigin,
                          durability = "default", writer = DEFAULT_WRITER, retention, defaults = true,
                          realm } = {}) {
  let budget;
  try {
    checkWriter(writer, "writer");
    budget = realmBudget(realm);
  } catch (error) {
    return Promise.reject(error);
  }
  if (typeof defaults !== "boolean") {
    return Promise.reject(new TypeError(`openVFS: defaults must be true or false, not ${defaults}`));
  }
  if (!DURABILITIES.includes(durability)) {
    return Promise.reject(new TypeError(`openVFS: durability must be one of ${DURABILITIES.join(", ")}, not ${durability}`));
  }
  previewRelay ??= connectRelay(previewOrigin, (name) => instances.get(name)?.worker);
  let instance = instances.get(name);
  if (!instance) {
    instance = new Instance(name, { cacheBytes, snapshot, durability, retention, defaults, realm: budget });
    instances.set(name, instance);
  }
  if (onProgress) instance.listen(onProgress);
  return instance.ready.then((vfs) => (writer === vfs.writer ? vfs : vfs.as(writer)));
}

class Instance {
  constructor(name, { cacheBytes, snapshot, durability, retention, defaults, realm }) {
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
    this.realms = new RealmFrames(this.worker);
    // The disk's reads are answered from its records while Python boots (web/before_boot.mjs):
    // the API is given as soon as they can be, or once Python is ready.
    this.early = new BeforeBoot(name, { defaults });
    this.ready = new Promise((resolve, reject) => {
      const give = () => {
        this.api ??= new VFS(this);
        previewRelay.then(() => resolve(this.api), reject);
      };
      this.worker.onmessage = ({ data }) => this.receive(data, give, reject);
      this.worker.onerror = (event) => this.fail(new Error(event.message || "worker failed to start"), reject);
      this.early.opened.then((early) => early && !this.bootError && give());
    });
    this.worker.postMessage({ type: "open", name, cacheBytes, snapshot, durability, retention, defaults, realm });
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
    if (this.realms.receive(data)) return;
    if (data.type === "progress") {
      this.last = { stage: data.stage, message: data.message, loaded: data.loaded, total: data.total };
      if (data.stage === "ready") {
        this.early.stop();
        resolve();
      }
      for (const listener of this.listeners) listener(this.last);
    } else if (data.type === "failed") {
      this.fail(new Error(`py_vfs failed to start: ${data.message}`), reject);
    } else if (data.type === "watch") {
      const listener = this.watchers.get(data.id);
      if (listener) {
        try { listener(data.event); } catch (error) { console.error("py_vfs watch listener failed", error); }
      }
    } else if (data.type === "invalidate") {
      this.cache.invalidate(data.view);
    } else if (data.type === "output") {
      // A streamed shell call's output (api.mjs, shell's onOutput); none once it is aborted.
      const pending = this.calls.get(data.id);
      if (pending && !pending.signal?.aborted) pending.streams?.output(data.stream, data.data);
      this.worker.postMessage({ type: "outputAck", id: data.id, bytes: data.data.byteLength });
    } else if (data.type === "inputWanted") {
      // The line reads what the user types (api.mjs, shell's input): the next piece, or null.
      const post = (bytes) => this.worker.postMessage({ type: "input", id: data.id, data: bytes });
      const pending = this.calls.get(data.id);
      if (pending?.streams) pending.streams.wanted(post);
      else post(null);
    } else if (data.type === "result") {
      this.settle(data);
    } else if (data.type === "request") {
      this.answer(data);
    }
  }

  // Python did not start: openVFS rejects, or, when it resolved already (early reads), every
  // later call rejects with this error (those sent already get the worker's EIO saying it).
  fail(error, reject) {
    this.bootError = error;
    this.early.stop();
    reject(error);
  }

  // A call's answer: the worker's reply, or the early reader's ({id, value | error}).
  settle(data) {
    const pending = this.calls.get(data.id);
    this.calls.delete(data.id);
    // Before the caller resumes: what it does next must not see the cache as it was.
    if (pending.mutating) this.cache.settle();
    pending.unlisten?.();
    const value = pending.keep && !data.early ? pending.keep(data, pending.token) : data.value;
    // A call stopped by its signal (py_vfs/core/cancel.py) rejects as Node's fs does.
    if (data.error?.code === "ECANCELED" && pending.signal) pending.reject(abortError(pending.signal, data.error.hint));
    // The worker answers a call it could not run because Python failed to start with that
    // failure's bare message; the page says which failure it is.
    else if (data.error && this.bootError) pending.reject(fsError("EIO", `EIO: ${this.bootError.message}`, { syscall: data.error.syscall }));
    else if (data.error) pending.reject(toError(data.error));
    else pending.resolve(value);
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
        : kind === "preview" ? { url: await this.mintUrl(payload) }
        : await api.reconnect(path);
      reply = { value };
    } catch (error) {
      reply = { error: envelopeOf(error, codeOfPick(error)) };
    }
    this.worker.postMessage({ type: "reply", id, ...reply });
  }

  // The URL of a preview root of this disk (the JS API's previewUrl): Python pins the root (its
  // real path and node, py_vfs/hosts/preview.py) and asks this page to mint it (mintUrl).
  async rootUrl(root, kind) {
    await this.previewOrigin(root);
    return this.call("previewRoot", [root, kind]);
  }

  // Mints (or finds) the token of a root Python pinned ({root, kind, node, name}); resolves
  // once it is stored.
  async mintUrl({ root, kind, node, name }) {
    const origin = await this.previewOrigin(root);
    const token = await mintRoot({ disk: this.name, root, kind, node, name });
    return `${origin}/preview/${token}/`;
  }

  async previewOrigin(root) {
    const relay = await previewRelay;
    if (!relay) {
      throw fsError("ENOTSUP", "ENOTSUP: no preview origin: set previewOrigin in pyvfs-config.json or pass openVFS({previewOrigin})", { path: root, syscall: "preview" });
    }
    return relay.origin;
  }

  async store() {
    const store = await this.mountStore;
    if (!store) throw fsError("EIO", "EIO: mounts cannot be kept: IndexedDB is not available");
    return store;
  }

  // `keep(reply, token)`, when given, sees the reply first and gives the value to resolve with
  // (the stat cache fills from it). `signal` (not aborted yet: the API checked): aborting it
  // asks the worker to cancel the call (web/abort.mjs).
  // `streams` (a shell call's, api.mjs ShellStreams): takes its output messages and answers
  // its requests for input.
  call(op, args, keep, writer = DEFAULT_WRITER, signal = undefined, streams = undefined) {
    if (this.closed) return Promise.reject(fsError("EBADF", `EBADF: VFS "${this.name}" is closed`, { syscall: op }));
    if (this.bootError) return Promise.reject(fsError("EIO", `EIO: ${this.bootError.message}`, { syscall: op }));
    const id = this.nextId++;
    const pending = { keep, signal, streams, ...this.cache.begin(op) };
    pending.promise = new Promise((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.calls.set(id, pending);
    const post = () => {
      this.sent++;
      const sent = args.map(cloneable);
      this.worker.postMessage({ type: "call", id, op, args: sent, [CALL_WRITER]: writer, [CALL_SIGNAL]: Boolean(signal) },
        transferOf(op, sent));
    };
    // An early answer is the value itself (a readdir's: its records), so `keep` is not asked.
    const direct = !signal && !streams;
    const early = (reply) => (reply ? this.settle({ id, ...reply, early: true }) : post());
    if (!this.early.try(op, args, direct, early)) this.early.post(post);
    if (signal) {
      const cancel = () => this.early.post(() => this.worker.postMessage({ type: "cancel", id }));
      signal.addEventListener("abort", cancel, { once: true });
      pending.unlisten = () => signal.removeEventListener("abort", cancel);
    }
    return pending.promise;
  }

  // stat, lstat, exists, readdir: from the stat cache when it knows the answer, else from the
  // worker (readdir as readdirStats, whose entries' stats fill the cache). Resolves to raw data:
  // a readdir to records [name, path, type, ...stat] (py_vfs/web/page_cache.py).
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
    this.early.stop();
    this.worker.terminate();
    this.realms.closeAll();
    if (instances.get(this.name) === this) instances.delete(this.name);
  }
}

// openVFS's `realm` option, checked: {timeoutMs, memoryBytes, idleMs}, each a number >= 0.
function realmBudget(realm = {}) {
  const budget = {};
  for (const [key, value] of Object.entries(realm ?? {})) {
    if (!["timeoutMs", "memoryBytes", "idleMs"].includes(key)) throw new TypeError(`openVFS: realm has no option ${key}`);
    if (typeof value !== "number" || !(value >= 0)) throw new TypeError(`openVFS: realm.${key} must be a number >= 0, not ${value}`);
    budget[key] = value;
  }
  return budget;
}

function cloneable(value) {
  return value === undefined ? null : value;
}

// The position of the argument that carries file content (py_vfs/web/protocol.py), or -1; a step's
// operation carries its own after the step id and the name.
function contentAt(op, args) {
  if (op !== "stepOp") return OPS[op]?.content ?? -1;
  const inner = OPS[args[1]]?.content ?? -1;
  return inner < 0 ? -1 : inner + 2;
}

// Large content goes to the worker as a copy whose buffer is transferred: one copy, where a
// structured clone makes two (serialize, deserialize) and took several times longer for 32 MiB.
// The caller's own buffer is never detached (as with Node's fs). Replaces the argument in `args`.
function transferOf(op, args) {
  const at = contentAt(op, args);
  const data = args[at];
  if (at < 0 || !ArrayBuffer.isView(data) || data instanceof DataView || data.byteLength < TRANSFER_MIN) return [];
  const copy = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  args[at] = copy;
  return [copy.buffer];
}
