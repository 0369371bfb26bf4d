// The VFS worker: owns Pyodide and one VFS, so Python never blocks the page.
// Messages (docs/architecture.md): {type: "open", name, cacheBytes, snapshot, durability,
// retention, defaults} and {type: "mounts", records} once, then {type: "call", id, op, args, writer} (op
// and args as declared in py_vfs/protocol.py; writer: who the call's changes are made by) and {type: "preview", request} with a MessagePort; replies
// {type: "progress"|"result"|"invalidate", ...}, a result being {value} or {error: envelope}
// (web/errors.mjs; preview answers go to the port: web/preview_owner.mjs; "invalidate":
// web/stat_cache.mjs). For the shell's mount commands the worker asks the page:
// {type: "request", id, kind, payload}, answered by {type: "reply", id, value | error}.
// A streamed shell call also posts {type: "output", id, stream, data} before its result, each
// answered by {type: "outputAck", id, bytes} from the page (the flow control of withStreams);
// one reading what the user types posts {type: "inputWanted", id}, answered by {type: "input",
// id, data}.
// {type: "cancel", id} cancels a call sent with cancellable: true (py_vfs/protocol.py,
// CALL_SIGNAL): dropped if it has not reached Python yet, else stopped at its next safe point.

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { IDBStore } from "./idb_store.mjs";
import { dropSnapshot, loadSnapshot, snapshotKey, storedKey } from "./runtime_store.mjs";
import { servePreview } from "./preview_owner.mjs";
import * as fsa from "./fsa.mjs";
import * as scratch from "./opfs_scratch.mjs";
import { scheduleInMicrotasks } from "./scheduler.mjs";
import { CALL_SIGNAL, CALL_WRITER, CHUNK_SIZE, OPS } from "./protocol.mjs";
import { failure } from "./errors.mjs";
import { ScriptRun } from "./jsh_host.mjs";

const here = (path) => new URL(path, import.meta.url).href;
let booted = null;
let keptMounts;
const mountsKept = new Promise((resolve) => { keptMounts = resolve; });
const requests = new Map();
let nextRequest = 1;

// Only the page can show a folder picker and ask for permission: the shell's mount commands
// become requests to it (py_vfs/mounts/fsa.py, BrowserHost).
function askPage(kind, payload) {
  const id = nextRequest++;
  return new Promise((resolve) => {
    requests.set(id, resolve);
    self.postMessage({ type: "request", id, kind, payload });
  });
}

const STAGES = ["download", "compile", "python", "install", "disk", "ready"];
let stageIndex = 0;

// Stages only move forward: the downloads, wasm compilation and Python start-up overlap, and a
// late byte count must not send the page back a stage.
function progress(stage, message, extra = {}) {
  const index = STAGES.indexOf(stage);
  if (index < stageIndex) return;
  stageIndex = index;
  self.postMessage({ type: "progress", stage, message, ...extra });
}

// Counts the bytes of Pyodide's own fetches of the big runtime files while they stream, so the
// page shows download progress without fetching anything twice. Returns the undo.
function reportDownloads(sizes) {
  const original = self.fetch;
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  const watched = Object.keys(sizes).map((name) => here(name));
  let loaded = 0;
  self.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = typeof input === "string" ? input : input.url ?? String(input);
    const href = new URL(url, import.meta.url).href;
    if (!response.body || !watched.includes(href)) return response;
    const counter = new TransformStream({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        progress("download", "Downloading Python", { loaded, total });
        controller.enqueue(chunk);
      },
      // instantiateStreaming compiles as bytes arrive and finishes only after the last one.
      flush() {
        if (href.endsWith(".wasm")) progress("compile", "Compiling WebAssembly");
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  };
  return () => { self.fetch = original; };
}

// loadPyodide has no progress hook; the end of its wasm instantiation is where compiling stops
// and Python's own start-up (the longer part) begins, so report that moment. pyodide.mjs also
// instantiates a tiny feature probe from a compiled Module, at a moment that depends on load:
// that one is not Python starting. Returns the undo (also needed when instantiation fails).
function reportPythonStart(message) {
  const originals = { instantiateStreaming: WebAssembly.instantiateStreaming, instantiate: WebAssembly.instantiate };
  const undo = () => Object.assign(WebAssembly, originals);
  const wrap = (original) => async function (...args) {
    const result = await original.apply(WebAssembly, args);
    if (args[0] instanceof WebAssembly.Module) return result;
    undo();
    progress("python", message);
    return result;
  };
  WebAssembly.instantiateStreaming = wrap(originals.instantiateStreaming);
  WebAssembly.instantiate = wrap(originals.instantiate);
  return undo;
}

// How this worker booted, for diagnostics() and the tests: `from` is "snapshot" or "packages";
// `snapshot` is where the runtime snapshot stands (docs/boot.md).
const bootInfo = { from: null, snapshot: "off" };
// The first idle moment after ready with no call for this long makes the snapshot.
const SNAPSHOT_IDLE_MS = 1500;
// The Mersenne Twister state is in the restored memory: every tab would draw the same "random"
// numbers (sync.py's retry jitter), so it gets fresh entropy.
const RESEED = "import random; random.seed()";

async function startPython(manifest, message, options = {}) {
  const stopReporting = reportDownloads(manifest.downloads);
  const stopWatching = reportPythonStart(message);
  try {
    const pyodide = await loadPyodide({ indexURL: here("pyodide/"), ...options });
    // After the restore too: a JS function held by Python cannot be in the snapshot.
    scheduleInMicrotasks(pyodide);
    return pyodide;
  } finally {
    stopReporting();
    stopWatching();
  }
}

// Pyodide 314 copies a snapshot into the wasm memory as the module instantiates it (30 MiB) and
// does not grow that memory first, so a snapshot of a heap that grew past 30 MiB fails with
// "offset is out of bounds". While a snapshot is restored, the instance's memory is grown to
// the snapshot's size as soon as it is instantiated; returns what undoes the wrapping.
function growingInstantiation(size) {
  const { instantiate, instantiateStreaming } = WebAssembly;
  const grown = (result) => {
    const memory = result?.instance?.exports?.memory;
    const missing = memory ? size - memory.buffer.byteLength : 0;
    if (missing > 0) memory.grow(Math.ceil(missing / 65536));
    return result;
  };
  WebAssembly.instantiate = (...args) => instantiate(...args).then(grown);
  WebAssembly.instantiateStreaming = (...args) => instantiateStreaming(...args).then(grown);
  return () => Object.assign(WebAssembly, { instantiate, instantiateStreaming });
}

// Python with py_vfs imported, from the stored snapshot; null when there is none or it cannot
// be used (stale, corrupt): that one is dropped and the caller boots from the packages.
async function fromSnapshot(manifest, key) {
  let bytes;
  try {
    bytes = await loadSnapshot(key);
  } catch (error) {
    console.warn("py_vfs: the runtime snapshot cannot be read", error);
  }
  if (!bytes) return null;
  // Pyodide keeps its options for its lifetime: a thenable that lets go of the 30 MiB once
  // read makes them collectable after the restore (it copies them into the wasm memory).
  const once = { then: (resolve) => { resolve(bytes); bytes = null; } };
  const restoreInstantiation = growingInstantiation(bytes.byteLength);
  try {
    const pyodide = await startPython(manifest, "Restoring Python from its snapshot", { _loadSnapshot: once });
    pyodide.runPython(RESEED);
    pyodide.pyimport("py_vfs.webapi").destroy();
    bootInfo.from = "snapshot";
    bootInfo.snapshot = "used";
    return pyodide;
  } catch (error) {
    console.warn("py_vfs: the runtime snapshot was rejected, booting without it", error);
    bootInfo.snapshot = "rejected";
    await dropSnapshot().catch(() => {});
    return null;
  } finally {
    restoreInstantiation();
  }
}

async function fromPackages(manifest) {
  const pyodide = await startPython(manifest, "Starting Python");
  progress("install", `Installing py_vfs ${manifest.version}`);
  await pyodide.loadPackage(here(manifest.micropip));
  const micropip = pyodide.pyimport("micropip");
  await micropip.install(here(manifest.wheel));
  micropip.destroy();
  bootInfo.from = "packages";
  return pyodide;
}

// The default content the build ships (dist/defaults/, docs/defaults.md): its manifest and
// every file's bytes by disk path, from this origin; null when the build ships none. Python
// checks each file against the manifest's size and sha256 before installing anything.
async function fetchDefaults() {
  const response = await fetch(here("defaults/manifest.json"), { cache: "no-cache" });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`default content: defaults/manifest.json answered ${response.status}`);
  const manifest = await response.json();
  const files = {};
  await Promise.all(manifest.files.map(async ({ path }) => {
    const url = here(`defaults/files${path.split("/").map(encodeURIComponent).join("/")}`);
    const reply = await fetch(url, { cache: "no-cache" });
    if (!reply.ok) throw new Error(`default content: ${path} answered ${reply.status}`);
    files[path] = new Uint8Array(await reply.arrayBuffer());
  }));
  return { manifest, files };
}

async function boot({ name, cacheBytes, snapshot = "auto", durability = "default", retention, defaults = true }) {
  const manifest = await (await fetch(here("manifest.json"), { cache: "no-cache" })).json();
  // Fetched while Python starts; settled into a value, so a failure is reported once, below.
  const shippedDefaults = fetchDefaults().then((value) => ({ value }), (error) => ({ error }));
  progress("download", "Downloading Python");
  const key = snapshotKey(manifest);
  const pyodide = (snapshot !== "off" && await fromSnapshot(manifest, key)) || await fromPackages(manifest);
  progress("disk", `Opening disk "${name}"`);
  const store = await IDBStore.open(name, { durability });
  const webapi = pyodide.pyimport("py_vfs.webapi");
  const notify = (id, event) => self.postMessage({ type: "watch", id, event });
  // Posted the moment the index changes, so the page drops its stat cache before any watch
  // event or answer computed on the new state reaches it (py_vfs/page_cache.py).
  const invalidate = (view) => self.postMessage({ type: "invalidate", view });
  const shipped = await shippedDefaults;
  if (shipped.error) throw shipped.error;
  const bundle = shipped.value && { ...shipped.value, install: defaults };
  // SQLite images are built and read in scratch folders of the origin private file system, not
  // in the worker's memory (web/opfs_scratch.mjs).
  const host = { request: askPage, fsa, scratch: scratch.available() ? () => scratch.openScratch(pyodide.FS) : undefined,
    // A .jsh script's Web Worker, its fs on a port bound to the view Python made (web_scripts.py).
    jsh: (childId, init) => new ScriptRun(bindView(readyApi, childId), init) };
  const api = await webapi.open_api(store, notify, host, cacheBytes, invalidate, retention, bundle);
  // A cancellable call's safe points await this now and then, so a cancel message gets in
  // while Python works (py_vfs/cancel.py).
  const cancel = pyodide.pyimport("py_vfs.cancel");
  cancel.set_yielder(nextTask);
  cancel.destroy();
  readyApi = api;
  store.onRemoteCommit = catchUp;
  (await api.restore_mounts(await mountsKept))?.destroy?.();
  progress("ready", "Ready");
  if (snapshot !== "off" && bootInfo.from !== "snapshot") whenIdle(() => makeSnapshot(manifest, key));
  return { pyodide, api, dispatch: webapi.dispatch, store };
}

// Resolves in a macrotask of its own, after the messages already queued (a cancel among them).
function nextTask() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

// The cancellable calls received and not answered yet, one table per channel (the page's, each
// view's port: their call ids are their own): id -> "queued" until Python has it, then
// "running"; a cancel of a queued call marks it "cancelled" and it never runs. `api`: the
// channel's API (the disk's, or a view's child API), which stops a running call.
const pageCalls = new Map();
let readyApi = null;

function cancelCall(calls, api, id) {
  const state = calls.get(id);
  if (state === "queued") calls.set(id, "cancelled");
  else if (state === "running") api?.cancel(id);
}

// --- making the snapshot ----------------------------------------------------------------------
// After a boot without one, in a second worker, once this one has had no call for a while (the
// user's first commands come first). One tab of the origin makes it: the others skip.

let lastCallAt = 0;
let activeCalls = 0;

function whenIdle(run) {
  bootInfo.snapshot = "waiting";
  const check = () => {
    const quiet = activeCalls ? 0 : performance.now() - lastCallAt;
    if (quiet >= SNAPSHOT_IDLE_MS) run();
    else setTimeout(check, SNAPSHOT_IDLE_MS - quiet);
  };
  setTimeout(check, SNAPSHOT_IDLE_MS);
}

async function makeSnapshot(manifest, key) {
  bootInfo.snapshot = "making";
  try {
    // Never a disk's lock: this one only keeps two tabs from making the same snapshot at once.
    bootInfo.snapshot = await navigator.locks.request("pyvfs-runtime:snapshot", { ifAvailable: true }, async (lock) => {
      if (!lock) return "made elsewhere";
      // Not "stored": that one says this worker made it (tests count the makes by it).
      if (await storedKey() === key) return "already stored";
      return runMaker(manifest, key);
    });
  } catch (error) {
    bootInfo.snapshot = `failed: ${error?.message ?? error}`;
  }
}

function runMaker(manifest, key) {
  const maker = new Worker(here("snapshot_maker.mjs"), { type: "module", name: "pyvfs:snapshot" });
  return new Promise((resolve, reject) => {
    maker.onmessage = ({ data }) => (data.type === "stored" ? resolve("stored") : reject(new Error(data.message)));
    maker.onerror = (event) => reject(new Error(event.message || "the snapshot worker failed to start"));
    maker.postMessage({ manifest, key });
  }).finally(() => maker.terminate());
}

// Another tab committed (BroadcastChannel): catch up now, so reads here are fresh and watch
// listeners fire. Announcements that arrive during a catch-up fold into one more catch-up.
let catchingUp = null;
let catchUpAgain = false;
function catchUp() {
  if (catchingUp) {
    catchUpAgain = true;
    return;
  }
  catchingUp = (async () => {
    do {
      catchUpAgain = false;
      await call("sync", []);
    } while (catchUpAgain);
  })().finally(() => { catchingUp = null; });
}

// The operations py_vfs/protocol.py says this worker answers itself (home: "worker").
const OWN = {
  memoryUsage: ({ pyodide }) => memoryUsage(pyodide),
  diagnostics: ({ api, store }) => {
    const durability = { asked: store.durability, lastCommit: store.lastDurability };
    return { reads: { ...store.reads }, boot: { ...bootInfo }, durability, ...held(api) };
  },
  fsaCounters: () => fsa.counters(),
};

// `view`: the child API of a restricted view (its port's calls), else the disk's own API. `id`
// (a cancellable call's) and `calls`: the call's channel's table of cancellable calls.
async function call(op, args, writer, view = null, id = null, calls = null) {
  const booting = await booted;
  if (id !== null && calls.get(id) === "cancelled") {
    return { error: failure("ECANCELED", `ECANCELED: operation canceled, ${op}`, { syscall: op }) };
  }
  if (id !== null) calls.set(id, "running");
  if (OPS[op]?.home === "worker") {
    if (view) return { error: failure("EACCES", `EACCES: ${op} is not offered to a restricted view`, { syscall: op }) };
    return { value: OWN[op](booting) };
  }
  const { pyodide, dispatch } = booting;
  const api = view ?? booting.api;
  // Only real work counts against idleness: a test polling diagnostics must not keep the
  // snapshot from being made.
  activeCalls++;
  try {
    let envelope = await settled(pyodide, dispatch(api, op, args, writer, id));
    // A synchronous operation that reached a mounted folder must block on its promises (JSPI),
    // which needs a promising entry into Python: call it again that way (docs/mounts.md).
    if (envelope.promising) envelope = await settled(pyodide, await dispatch.callPromising(api, op, args, writer, id));
    return envelope;
  } finally {
    activeCalls--;
    lastCallAt = performance.now();
  }
}

async function settled(pyodide, envelope) {
  if (!(envelope instanceof pyodide.ffi.PyProxy)) return envelope;
  try {
    return await envelope;
  } finally {
    envelope.destroy();
  }
}

// {streams, pinnedChunks}: what open streams hold in Python (py_vfs/webapi.py, WebAPI.held).
function held(api) {
  const proxy = api.held();
  try {
    return proxy.toJs({ dict_converter: Object.fromEntries });
  } finally {
    proxy.destroy();
  }
}

function memoryUsage(pyodide) {
  return {
    wasmBytes: pyodide._module.HEAPU8.buffer.byteLength,
    jsHeapBytes: self.performance?.memory?.usedJSHeapSize ?? null,
    tmpBytes: folderBytes(pyodide.FS, "/tmp"),
    scratchBytes: scratch.bytes(),
  };
}

// The bytes of the files below `path` in Pyodide's file system (MEMFS keeps them in the
// worker's memory).
function folderBytes(FS, path) {
  let total = 0;
  for (const name of FS.readdir(path)) {
    if (name === "." || name === "..") continue;
    const stat = FS.lstat(`${path}/${name}`);
    total += FS.isDir(stat.mode) ? folderBytes(FS, `${path}/${name}`) : stat.size;
  }
  return total;
}

// A whole-file write of more than a chunk comes with its chunks' sha256, computed here by
// WebCrypto (native, in parallel) instead of by Python in wasm: about 7x faster, and that was
// the largest single cost of writing a big file (docs/architecture.md, "Large writes"). Where
// WebCrypto is missing (a page not in a secure context) or fails, Python hashes as before.
// The digests go in writeFile's options, as "digests" (py_vfs/webapi.py reads them there).
const OPTIONS_AT = OPS.writeFile.args.findIndex(([, kind]) => kind === "options");
async function withDigests(op, args) {
  const data = args[OPS.writeFile.content];
  const subtle = globalThis.crypto?.subtle;
  if (op !== "writeFile" || !subtle || !(data instanceof Uint8Array) || data.byteLength <= CHUNK_SIZE) return args;
  const pieces = [];
  for (let start = 0; start < data.byteLength; start += CHUNK_SIZE) {
    pieces.push(subtle.digest("SHA-256", data.subarray(start, start + CHUNK_SIZE)).then(hex));
  }
  try {
    const digests = await Promise.all(pieces);
    const sent = [...args];
    sent[OPTIONS_AT] = { ...(args[OPTIONS_AT] ?? {}), digests };
    return sent;
  } catch {
    return args;
  }
}

function hex(digest) {
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// Calls reach Python in the order they came, even when an earlier one still hashes.
let inOrder = Promise.resolve();

// One call, from the page or from a view's port (`view`: its child API), answered by `reply`.
// A call that opens a view (restrict, scoop) answers the new view's port, and nothing else.
async function answer(data, reply, view, calls) {
  const id = data[CALL_SIGNAL] ? data.id : null;
  if (id !== null) calls.set(id, "queued");
  const args = inOrder.then(() => withDigests(data.op, data.args));
  inOrder = args.catch(() => {});
  let envelope;
  try {
    envelope = await call(data.op, withStreams(data, await args, reply, calls), data[CALL_WRITER], view, id, calls);
  } finally {
    if (id !== null) calls.delete(id);
    calls.flows?.delete(data.id);
  }
  if (OPS[data.op]?.opensView && !envelope.error) {
    const { port } = bindView(view ?? (await booted).api, envelope.value);
    reply({ type: "result", id: data.id, value: port }, [port]);
    return;
  }
  reply({ type: "result", id: data.id, ...envelope }, transferables(envelope.value));
}

// A streamed shell call (options.stream: the page gave onOutput) gets a third argument: the
// function Python calls with each piece of output as it is written (py_vfs/web_shell.py), which
// posts {type: "output", id, stream, data} on the call's channel. The page answers each piece
// with {type: "outputAck", id, bytes} once it has taken it; past OUTPUT_WINDOW bytes not
// acknowledged, the function returns a promise Python awaits, so a command that writes faster
// than the page reads waits instead of filling the page's memory.
const OUTPUT_WINDOW = 1 << 20;

// With options.input (the page gave `input`), a fourth: read(), which asks the page for what
// the user types ({type: "inputWanted", id}) and resolves to its {type: "input", id, data}
// (null: the end of the input).
function withStreams(data, args, reply, calls) {
  const options = args[1];
  if (data.op !== "shell" || !(options?.stream || options?.input)) return args;
  const flow = { unacked: 0, resume: null, answer: null };
  (calls.flows ??= new Map()).set(data.id, flow);
  const emit = (stream, bytes) => {
    reply({ type: "output", id: data.id, stream, data: bytes });
    flow.unacked += bytes.byteLength;
    if (flow.unacked <= OUTPUT_WINDOW) return undefined;
    return new Promise((resolve) => { flow.resume = resolve; });
  };
  const read = () => new Promise((resolve) => {
    flow.answer = resolve;
    reply({ type: "inputWanted", id: data.id });
  });
  return [args[0], options, options.stream ? emit : null, options.input ? read : null];
}

function typed(calls, { id, data }) {
  const flow = calls.flows?.get(id);
  flow?.answer?.(data ?? undefined); // undefined reaches Python as None (null: JsNull)
  if (flow) flow.answer = null;
}

function acknowledged(calls, { id, bytes }) {
  const flow = calls.flows?.get(id);
  if (!flow) return;
  flow.unacked -= bytes;
  if (flow.unacked <= OUTPUT_WINDOW && flow.resume) {
    flow.resume();
    flow.resume = null;
  }
}

// Restricted views (py_vfs/web_views.py, docs/sandbox.md): the scope is bound here, to a port.
// Every call that comes on the port runs on the view's child API; the other end of the port
// is all the page (or a Web Worker it is posted to) gets. {port, close}: close forgets the view.
function bindView(parent, childId) {
  const child = parent.channels.child(childId);
  const calls = new Map();
  const { port1, port2 } = new MessageChannel();
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    parent.channels.release(childId);
    child.destroy();
    port1.close();
  };
  child.connect((id, event) => port1.postMessage({ type: "watch", id, event }));
  port1.onmessage = async ({ data }) => {
    if (data.type === "close") {
      close();
      return;
    }
    if (data.type === "cancel") {
      cancelCall(calls, child, data.id);
      return;
    }
    if (data.type === "outputAck") {
      acknowledged(calls, data);
      return;
    }
    if (data.type === "input") {
      typed(calls, data);
      return;
    }
    if (data.type !== "call") return;
    try {
      await answer(data, (message, transfer) => port1.postMessage(message, transfer), child, calls);
    } catch (error) {
      port1.postMessage({ type: "result", id: data.id, error: failure("EIO", String(error?.message ?? error), { syscall: data.op }) });
    }
  };
  return { port: port2, close };
}

function transferables(value) {
  if (value instanceof Uint8Array) return [value.buffer];
  if (value?.body instanceof Uint8Array) return [value.body.buffer];
  return [];
}

self.onmessage = async ({ data, ports }) => {
  if (data.type === "open") {
    booted = boot(data);
    booted.catch((error) => self.postMessage({ type: "failed", message: String(error?.message ?? error) }));
    return;
  }
  if (data.type === "mounts") {
    keptMounts(data.records);
    return;
  }
  if (data.type === "cancel") {
    cancelCall(pageCalls, readyApi, data.id);
    return;
  }
  if (data.type === "outputAck") {
    acknowledged(pageCalls, data);
    return;
  }
  if (data.type === "input") {
    typed(pageCalls, data);
    return;
  }
  if (data.type === "reply") {
    const resolve = requests.get(data.id);
    requests.delete(data.id);
    resolve?.(data.error ? { error: data.error } : { value: data.value });
    return;
  }
  try {
    if (data.type === "call") {
      await answer(data, (message, transfer) => self.postMessage(message, transfer), null, pageCalls);
    } else if (data.type === "preview") {
      await servePreview(ports[0], data.request, call);
    }
  } catch (error) {
    const envelope = failure("EIO", String(error?.message ?? error), { syscall: data.op });
    if (data.type === "call") self.postMessage({ type: "result", id: data.id, error: envelope });
    else ports[0]?.postMessage({ type: "start", status: 500, headers: {}, body: new TextEncoder().encode(envelope.message), more: false });
  }
};
