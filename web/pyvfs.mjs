// The embeddable module: `openVFS({name})` gives the JS API of the VFS of that name.
// Any page served from the same origin as this file can import it. One worker per VFS name owns
// Pyodide and the disk; this module turns its replies into Node-style values and errors, and
// answers preview requests for the VFSes this page has open: they come from the preview
// origin's service worker through a hidden relay frame (docs/preview.md). It also keeps the
// handles of mounted folders (only a page can pick a folder or ask for permission). The API
// object itself is web/api.mjs; every operation's name and arguments are declared once, in
// py_vfs/web/protocol.py (protocol.mjs is generated from it by the build, beside this module).

import { VFS } from "./api.mjs";
import { BeforeBoot } from "./page/before_boot.mjs";
import { Client } from "./page/client.mjs";
import { envelopeOf, fsError, toError } from "./shared/errors.mjs";
import { MountStore, codeOfPick, keptMounts, pickDirectory } from "./page/mount_store.mjs";
import { DEFAULT_WRITER, DURABILITIES, WIRE } from "./shared/protocol.mjs";
import { StatCache } from "./page/stat_cache.mjs";
import { checkWriter } from "./page/validate.mjs";
import { mintRoot } from "./page/preview_roots.mjs";
import { connectRelay } from "./page/preview_relay.mjs";
import { RealmFrames } from "./page/realm_frames.mjs";
import { Reconnecting } from "./page/reconnecting.mjs";
import { canShare, joinHost, shareKey, tryHost, whenFree } from "./page/share.mjs";

export { Dirent, Stats, VFS, viewOf } from "./api.mjs";
export { AbortError } from "./page/validate.mjs";
export { agentTools } from "./page/agent_tools.mjs";
export { pickDirectory } from "./page/mount_store.mjs";

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
// `runtime`: "shared" (the default) lets the pages of this origin that open the disk with the same
// durability share one Python: the first runs it in a worker, the others use it
// (docs/architecture.md, "One runtime for every tab"), and cacheBytes, snapshot, retention,
// defaults, realm and the mounted folders are then the first page's (one disk, one namespace);
// "own" runs the disk's Python in a worker of this page. Where a page has no SharedWorker or no
// Web Locks (canShare()), "shared" falls back to "own".
// `dock` ({url, token}): sync this disk with the dock at `url` (docs/dock.md) in the background,
// from the worker; without it no request goes to any dock. It applies when the VFS of that
// name is first opened in this page; vfs.sync(), syncStatus() and onSyncStatus() tell how it goes.
export function openVFS({ name = "default", onProgress, cacheBytes, snapshot = "auto", previewOrigin,
                          durability = "default", writer = DEFAULT_WRITER, retention, defaults = true,
                          realm, runtime = "shared", dock } = {}) {
  let budget, docked;
  try {
    checkWriter(writer, "writer");
    budget = realmBudget(realm);
    if (previewOrigin !== undefined && previewOrigin !== null) previewOriginOf(previewOrigin);
    docked = dockOption(dock);
  } catch (error) {
    return Promise.reject(error);
  }
  if (typeof defaults !== "boolean") {
    return Promise.reject(new TypeError(`openVFS: defaults must be true or false, not ${defaults}`));
  }
  if (!DURABILITIES.includes(durability)) {
    return Promise.reject(new TypeError(`openVFS: durability must be one of ${DURABILITIES.join(", ")}, not ${durability}`));
  }
  if (!RUNTIMES.includes(runtime)) {
    return Promise.reject(new TypeError(`openVFS: runtime must be one of ${RUNTIMES.join(", ")}, not ${runtime}`));
  }
  if (!previewRelay) {
    previewRelay = connectRelay(previewOrigin, (name) => instances.get(name));
    previewRelay.catch(() => {}); // reported by the preview calls that await it
  }
  let instance = instances.get(name);
  if (!instance) {
    instance = new Instance(name, { cacheBytes, snapshot, durability, retention, defaults, realm: budget, runtime, dock: docked });
    instances.set(name, instance);
  }
  if (onProgress) instance.listen(onProgress);
  return instance.ready.then((vfs) => (writer === vfs.writer ? vfs : vfs.as(writer)));
}

const RUNTIMES = ["own", "shared"];

// How long a guest waits for the host's welcome on its port before it elects again.
const WELCOME_MS = 10_000;

class Instance extends Client {
  #give;
  #reject;
  #key = null; // the share key (web/page/share.mjs) when the runtime is shared
  #hosting = null; // this page hosts the shared runtime: its broker registration
  #joined = null; // this page is a guest: its connection to the host
  #welcomed = null; // clears the guest's welcome timer
  #hostGoneListeners = new Set();

  constructor(name, options) {
    super(null, `VFS "${name}"`);
    this.name = name;
    this.options = options;
    this.worker = null;
    this.listeners = new Set();
    this.last = null;
    // Dropped on the worker's "invalidate", posted as its index changes (another tab's commit
    // included). Not on the disk's BroadcastChannel: that also announces this page's own
    // commits, after they resolved, and would empty the cache just filled after them.
    this.cache = new StatCache();
    this.realms = null;
    this.beforeBoot = null;
    this.mountStore = null;
    this.ready = new Promise((resolve, reject) => {
      // Not held for the preview relay (pyvfs-config.json and the relay frame): a preview's
      // URL is handed out only once the relay is ready (previewOrigin), and the disk's own
      // calls need nothing of it.
      this.#give = () => {
        this.api ??= new VFS(this);
        resolve(this.api);
      };
      this.#reject = reject;
    });
    if (options.runtime === "shared" && canShare()) {
      this.#key = shareKey(name, options.durability);
      // The early reader opens while the page elects, so that the election (two Web Locks) does
      // not delay the first page's first read; a guest stops it unused.
      this.beforeBoot = new BeforeBoot(name, { defaults: options.defaults });
      this.#elect(null, true);
    } else {
      this.#host(null, true);
    }
  }

  // Host or guest: this page runs the shared runtime if no other page does, else joins the
  // one that does (never `gone`, a host this page saw go). `first`: the disk's first open here.
  #elect(gone, first) {
    tryHost(this.#key).then((hosting) => (hosting ? this.#host(hosting, first) : this.#guest(gone, first)))
      .catch((error) => this.fail(error, this.#reject));
  }

  // This page runs the disk's Python in a worker of its own; `hosting`: and serves it to guests.
  // `first`: the first open, whose reads are answered from the disk's records while Python
  // boots (not after a failover: the guest's calls then wait for the new worker).
  #host(hosting, first) {
    const { name, options } = this;
    const { cacheBytes, snapshot, durability, retention, defaults, realm, dock } = options;
    this.worker = new Worker(new URL("./worker/worker.mjs", import.meta.url), { type: "module", name: `pyvfs:${name}` });
    this.endpoint = this.worker;
    this.realms = new RealmFrames(this.worker);
    this.#hosting = hosting;
    this.role = hosting ? "host" : "own";
    if (hosting) {
      hosting.onGuest = (port, guest) => {
        port.postMessage({ type: WIRE.welcome, host: hosting.id });
        this.worker.postMessage({ type: WIRE.guest, key: this.#key, guest, host: hosting.id }, [port]);
      };
    }
    this.attach((data) => this.#own(data));
    this.worker.onerror = (event) => this.fail(new Error(event.message || "worker failed to start"), this.#reject);
    if (first) {
      // The disk's reads are answered from its records while Python boots
      // (web/page/before_boot.mjs): the API is given as soon as they can be, or once Python is ready.
      this.beforeBoot ??= new BeforeBoot(name, { defaults });
      this.early = this.beforeBoot;
      this.beforeBoot.opened.then((early) => early && !this.bootError && this.#give());
    }
    this.worker.postMessage({ type: WIRE.open, name, cacheBytes, snapshot, durability, retention, defaults, realm, dock });
    // The worker needs the kept mounts only once Python has opened the disk. Their database is
    // opened after the early reader's: after a browser restart the first opens of an origin's
    // databases are slow, and two at once made the first read wait for both (benchmark W8).
    const opened = this.beforeBoot ? this.beforeBoot.opened : Promise.resolve();
    this.mountStore ??= opened.then(() => MountStore.open(name)).catch(() => null);
    this.mountStore.then(keptMounts).catch(() => []).then((records) => {
      this.worker.postMessage({ type: WIRE.mounts, records });
    });
    // A guest that became the host: the calls it held go to the new worker.
    if (this.early instanceof Reconnecting) this.#resume();
  }

  // This page uses the runtime another page hosts: its calls go on a port to that page's
  // worker. Ready once the worker has welcomed it; when the host goes, it elects again. `first`:
  // the disk's first open here, whose early reader (opened while electing) it needs no more.
  async #guest(gone, first) {
    if (first) {
      this.beforeBoot?.stop();
      this.beforeBoot = null;
    }
    this.#joined = await joinHost(this.#key, gone);
    this.role = "guest";
    this.endpoint = this.#joined.port;
    this.worker = this.endpoint;
    this.mountStore ??= MountStore.open(this.name).catch(() => null);
    this.attach((data) => this.#own(data));
    this.endpoint.start();
    const timer = setTimeout(() => this.#hostGone(gone, "no welcome"), WELCOME_MS);
    this.#welcomed = () => clearTimeout(timer);
  }

  // The host welcomed this guest: from now on its going is watched.
  #welcome(host) {
    this.#welcomed?.();
    this.#welcomed = null;
    if (this.early instanceof Reconnecting) this.#resume();
    whenFree(`pyvfs-host:${this.#key}:${host}`).then(() => this.#hostGone(host, "closed"));
  }

  // The host page is gone (or never answered): its port is dropped, the reads in flight are
  // asked again of the next host, the other calls in flight fail (whether the host applied
  // them cannot be known: web/page/reconnecting.mjs), and the page elects again.
  #hostGone(host, why) {
    const joined = this.#joined;
    if (!joined || this.closed) return;
    this.#joined = null;
    this.#welcomed?.();
    this.#welcomed = null;
    this.endpoint.onmessage = null;
    joined.close();
    this.failovers = (this.failovers ?? 0) + 1;
    const reconnecting = new Reconnecting(this, `the tab that ran this disk's Python ${why === "closed" ? "closed" : "did not answer"}`);
    this.early = reconnecting;
    reconnecting.takeInFlight();
    // The next host's worker numbers its views from the start again.
    this.cache = new StatCache();
    this.#elect(host, false);
    for (const listener of [...this.#hostGoneListeners]) listener();
  }

  // Calls `listener` each time this guest's host goes (web/page/preview_handoff.mjs); returns
  // the function that stops it.
  onHostGone(listener) {
    this.#hostGoneListeners.add(listener);
    return () => this.#hostGoneListeners.delete(listener);
  }

  // Between a host's going and the next host's welcome: calls wait to be sent.
  get reconnecting() { return this.early instanceof Reconnecting; }

  // Connected again (to a new host, or as the host): what waited is sent.
  #resume() {
    const reconnecting = this.early;
    this.early = null;
    reconnecting.resume();
  }

  // The worker this page's calls go to, once it is connected to one: a guest between two hosts
  // waits for the next (its round trip is held, then sent to the next host's worker).
  async liveWorker() {
    if (this.role === "guest" || this.early instanceof Reconnecting) {
      await this.call("fsaCounters", []).catch(() => {});
    }
    return this.worker;
  }

  get earlyReads() { return this.beforeBoot?.answered ?? 0; }
  get earlyReadsFromMemory() { return this.beforeBoot?.fromMemory ?? 0; }

  listen(listener) {
    this.listeners.add(listener);
    if (this.last) listener(this.last);
  }

  // The messages only the disk's worker posts (a view's port carries none of them).
  #own(data) {
    if (this.realms?.receive(data)) return;
    if (data.type === WIRE.progress) {
      this.last = { stage: data.stage, message: data.message, loaded: data.loaded, total: data.total };
      if (data.stage === "ready") {
        this.#retireEarly();
        if (this.early instanceof Reconnecting) this.#resume();
        this.#give();
      }
      for (const listener of this.listeners) listener(this.last);
    } else if (data.type === WIRE.failed) {
      this.fail(new Error(`py_vfs failed to start: ${data.message}`), this.#reject);
    } else if (data.type === WIRE.invalidate) {
      this.cache.invalidate(data.view);
      // The worker holds other pages' answers until this page has taken it (web/worker/guests.mjs).
      this.endpoint.postMessage({ type: WIRE.seen, view: data.view });
    } else if (data.type === WIRE.welcome) {
      this.#welcome(data.host);
    } else if (data.type === WIRE.request) {
      this.answer(data);
    }
  }

  // Python is ready (or failed): the early reader stops, and once what it holds has reached
  // the worker, calls go straight to the worker.
  #retireEarly() {
    const early = this.beforeBoot;
    early?.stop().then(() => { if (this.early === early) this.early = null; });
  }

  // Python did not start: openVFS rejects, or, when it resolved already (early reads), every
  // later call rejects with this error (those sent already get the worker's EIO saying it).
  fail(error, reject) {
    this.bootError = error;
    this.#retireEarly();
    reject(error);
  }

  // The shell's mount, unmount and reconnect, done by the JS API of this page, its preview
  // roots (`open`, `serve`), and "catchUp": the worker applied another context's commit and
  // posted what changed before asking, so once this page takes the request its stat cache is
  // current again (web/shared/peers.mjs); answered at once.
  async answer({ id, kind, payload }) {
    let reply;
    try {
      const api = this.api;
      const { path, readOnly } = payload;
      const value = kind === "catchUp" ? this.#caughtUp()
        : kind === "mount" ? await api.mount(path, await pickDirectory({ readOnly }), { readOnly })
        : kind === "unmount" ? await api.unmount(path)
        : kind === "preview" ? { url: await this.mintUrl(payload) }
        : await api.reconnect(path);
      reply = { value };
    } catch (error) {
      reply = { error: envelopeOf(error, codeOfPick(error)) };
    }
    this.worker.postMessage({ type: WIRE.reply, id, ...reply });
  }

  // A catch-up taken: nothing the cache holds is older than the commit the worker applied.
  #caughtUp() {
    this.cache.clear();
    return null;
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

  // stat, lstat, exists, readdir: from the stat cache when it knows the answer, or with the
  // answer of the same call already on its way when the cache allows it (StatCache.inFlight),
  // else from the worker (readdir as readdirStats, whose entries' stats fill the cache).
  // Resolves to raw data: a readdir to a Listing (web/page/listing.mjs); a shared failure
  // rejects with an Error of its own.
  cached(op, path) {
    const known = this.closed ? undefined : this.cache.answer(op, path);
    if (known) return known.error ? Promise.reject(toError(known.error)) : Promise.resolve(known.value);
    const flying = this.closed ? undefined : this.cache.inFlight(op, path);
    if (flying) return flying.catch((error) => Promise.reject(toError(error)));
    const keep = (reply, token) => this.cache.keep(op, path, reply, token);
    const answer = op === "readdir" ? this.call("readdirStats", this.cache.listingArgs(path), keep) : this.call(op, [path], keep);
    this.cache.sent(op, path, answer);
    return answer;
  }

  async close() {
    await this.settled();
    this.closed = true;
    this.beforeBoot?.stop();
    if (this.#joined) {
      this.endpoint.postMessage({ type: WIRE.close });
      this.#joined.close();
    } else {
      this.worker?.terminate();
    }
    this.#hosting?.close();
    this.realms?.closeAll();
    if (instances.get(this.name) === this) instances.delete(this.name);
  }
}

// openVFS's `dock` option, checked: {url: an http(s) URL, token: the dock's bearer token}, or
// undefined. The token is never shown in an error.
function dockOption(dock) {
  if (dock === undefined || dock === null) return undefined;
  if (typeof dock !== "object") throw new TypeError("openVFS: dock must be {url, token}");
  for (const key of Object.keys(dock)) {
    if (key !== "url" && key !== "token") throw new TypeError(`openVFS: dock has no option ${key}`);
  }
  let url;
  try {
    url = new URL(dock.url);
  } catch {
    throw new TypeError(`openVFS: dock.url must be the dock's http(s) URL, not ${dock.url}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`openVFS: dock.url must be http: or https:, not ${url.protocol}`);
  if (typeof dock.token !== "string" || !dock.token.trim()) throw new TypeError("openVFS: dock.token must be the dock's token (a non-empty string)");
  return { url: url.href, token: dock.token.trim() };
}

// openVFS's `previewOrigin` option, checked: an http(s) URL, of which the origin counts.
function previewOriginOf(option) {
  let url;
  try {
    url = new URL(option);
  } catch {
    throw new TypeError(`openVFS: previewOrigin must be an http(s) URL, not ${option}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`openVFS: previewOrigin must be http: or https:, not ${url.protocol}`);
  return url.origin;
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
