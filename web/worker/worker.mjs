// The VFS worker: owns Pyodide and one VFS, so Python never blocks the page.
// Its messages (kinds and fields: py_vfs/core/messages.py, WIRE): from the page "open" and
// "mounts" once, then calls ("call", op and args as py_vfs/web/protocol.py declares them),
// answered by "result" ({value} or {error: envelope}, web/shared/errors.mjs), and "preview" requests
// with their port (web/worker/preview_owner.mjs); to the page "progress", "watch" and "invalidate"
// (web/page/stat_cache.mjs); the shell's mount commands ask the page ("request", answered by
// "reply"). A view's port carries the calls of the view (bindView). A streamed shell call
// posts "output" (acknowledged by "outputAck") and "inputWanted" (answered by "input");
// "cancel" cancels a call sent with cancellable: true (CALL_SIGNAL): dropped if it has not
// reached Python yet, else stopped at its next safe point.

import { IDBStore } from "./idb_store.mjs";
import { fetchDefaults, here, progress, snapshotKey, snapshotWhenIdle, startRuntime } from "./python_boot.mjs";
import { diagnostics, memoryUsage } from "./own_answers.mjs";
import { servePreview } from "./preview_owner.mjs";
import * as fsa from "./fsa.mjs";
import * as scratch from "./opfs_scratch.mjs";
import { BODY, CALL_REQUEST, CALL_RETRY, CALL_SIGNAL, CALL_WRITER, OPS, WIRE } from "../shared/protocol.mjs";
import { failure } from "../shared/errors.mjs";
import { ScriptRun } from "./jsh_host.mjs";
import { RealmPool, frameOpener } from "./realm_pool.mjs";
import { loadSnapshot, storedRecord } from "./runtime_store.mjs";
import { withDigests, withoutDigests } from "./digests.mjs";
import { STREAMED, acknowledged, typed, withStreams } from "./call_streams.mjs";
import { Channels, guestGone } from "./guests.mjs";

let booted = null;
let keptMounts;
const mountsKept = new Promise((resolve) => { keptMounts = resolve; });
const requests = new Map();
let nextRequest = 1;
// Realms for scoops' code: frames the page embeds (web/page/realm_frames.mjs, web/worker/realm_pool.mjs).
const frames = frameOpener((message) => self.postMessage(message));

// The pages this worker serves: its own, and the guest tabs that share it (web/worker/guests.mjs).
// What it posts them goes through `channels`, which holds a page's answers until every other
// page has dropped its stat cache after a change.
const channels = new Channels();
const page = channels.open((message, transfer) => self.postMessage(message, transfer));
// The guest tabs' APIs (py_vfs/web/edge.py, open_guest): unlike a restricted view's, they may
// ask what the worker answers itself (diagnostics, memoryUsage).
const guestApis = new WeakSet();

// Only a page can show a folder picker and ask for permission: the shell's mount commands
// become requests to it (py_vfs/mounts/fsa.py, BrowserHost), on the channel of the page whose
// shell asked (`post`), answered by its "reply".
function asker(post) {
  return (kind, payload) => {
    const id = nextRequest++;
    return new Promise((resolve) => {
      requests.set(id, resolve);
      post({ type: WIRE.request, id, kind, payload });
    });
  };
}
const askPage = asker(page.post);

function replied(data) {
  const resolve = requests.get(data.id);
  requests.delete(data.id);
  resolve?.(data.error ? { error: data.error } : { value: data.value });
}

async function boot({ name, cacheBytes, snapshot = "auto", durability = "default", retention, defaults = true, realm, dock }) {
  // The stored runtime snapshot's record is read while the manifest is fetched.
  const record = snapshot === "off" ? null : storedRecord();
  record?.catch(() => {}); // a failure is reported where it is awaited
  const manifest = await (await fetch(here("manifest.json"), { cache: "no-cache" })).json();
  // Fetched while Python starts; settled into a value, so a failure is reported once, below.
  const shippedDefaults = fetchDefaults().then((value) => ({ value }), (error) => ({ error }));
  progress("download", "Downloading Python");
  const key = snapshotKey(manifest);
  const pyodide = await startRuntime(manifest, key, snapshot, record);
  // One entry from JS runs a batch of Python's ready callbacks, not one each (py_vfs/web/ready_batches.py).
  callPython(pyodide, "py_vfs.web.ready_batches", "install");
  progress("disk", `Opening disk "${name}"`);
  const store = await IDBStore.open(name, { durability });
  store.peers.onCommit = () => applyRemote(store);
  const edge = pyodide.pyimport("py_vfs.web.edge");
  const notify = (id, event) => page.post({ type: WIRE.watch, id, event });
  // Posted the moment the index changes, so every page drops its stat cache before any watch
  // event or answer computed on the new state reaches it (py_vfs/web/page_cache.py).
  const invalidate = (view) => channels.invalidate(view);
  const shipped = await shippedDefaults;
  if (shipped.error) throw shipped.error;
  const bundle = shipped.value && { ...shipped.value, install: defaults };
  // SQLite images are built and read in scratch folders of the origin private file system, not
  // in the worker's memory (web/worker/opfs_scratch.mjs).
  const host = { request: askPage, fsa, scratch: scratch.available() ? () => scratch.openScratch(pyodide.FS) : undefined,
    // A .jsh script's Web Worker, its fs on a port bound to the view Python made (web/scripts.py).
    jsh: (childId, init) => new ScriptRun(bindView(readyApi, childId), init),
    // A restricted view's code, in its realm (py_vfs/web/scripts.py, docs/sandbox.md).
    realm: realms(name, manifest, key, snapshot, realm) };
  const api = await edge.open_api(store, notify, host, cacheBytes, invalidate, retention, bundle);
  // The disk's dock (openVFS's `dock`): synced in the background from here on (py_vfs/web/dock_sync.py).
  if (dock) edge.open_dock(api, dock.url, dock.token, name, postSyncStatus, exclusive);
  // A cancellable call's safe points await this now and then, so a cancel message gets in
  // while Python works (py_vfs/core/cancel.py).
  const cancel = pyodide.pyimport("py_vfs.core.cancel");
  cancel.set_yielder(nextTask);
  cancel.destroy();
  // Python's fsspec reaches this disk by its name, and fsspec's wheel is installed on its first
  // import, not at boot (docs/python.md).
  callPython(pyodide, "py_vfs.views.page_disks", "serve", name, api);
  // The shell's `git` installs dulwich and merge3 the same way, on its first run.
  callPython(pyodide, "py_vfs.web.lazy_wheels", "install", here(manifest.fsspec), here(manifest.wheel),
    (manifest.git || []).map(here));
  readyApi = api;
  (await api.restore_mounts(await mountsKept))?.destroy?.();
  // From here another worker's commit is applied before it resolves (applyRemote). One
  // announced while this worker booted was answered at once: nothing here has answered a read
  // yet, and this sync brings the index past it before anything does.
  serving = true;
  if (missedAtBoot) await settled(pyodide, edge.dispatch(api, "sync", []));
  progress("ready", "Ready");
  snapshotWhenIdle(manifest, key, snapshot, () => (activeCalls ? 0 : performance.now() - lastCallAt));
  return { pyodide, api, dispatch: edge.dispatch, dispatchMany: edge.dispatch_many, store };
}

// The dock's status, posted to every page this worker serves (its own, its guests) on each
// change; a guest that joins later gets the last one.
let syncStatus = null;
const statusPosts = new Set([page.post]);
function postSyncStatus(status) {
  syncStatus = status;
  for (const post of statusPosts) post({ type: WIRE.syncStatus, status });
}

// Resolves once this worker holds the Web Lock `lockName`, to the function that lets it go:
// the workers of a profile's tabs take turns syncing one disk with its dock.
function exclusive(lockName) {
  return new Promise((held) => {
    navigator.locks.request(lockName, () => new Promise((release) => held(release)));
  });
}

// The realms of this disk's views: run(key, childId, init) starts code in one.
function realms(name, manifest, key, snapshot, budget) {
  const pool = new RealmPool({
    openFrame: frames.open,
    bindView: (childId) => bindView(readyApi, childId),
    release: (childId) => readyApi.channels.release(childId),
    bootData: async () => ({
      name, runtime: here("pyodide/"), wheel: here(manifest.wheel), fsspec: here(manifest.fsspec),
      snapshot: snapshot === "off" ? null : await loadSnapshot(key).catch(() => null),
    }),
    budget,
  });
  return (realmKey, childId, init) => pool.run(realmKey, childId, init);
}

// `module.fn(...args)` in Python, the module's proxy let go of afterwards.
function callPython(pyodide, module, fn, ...args) {
  const proxy = pyodide.pyimport(module);
  try {
    proxy[fn](...args);
  } finally {
    proxy.destroy();
  }
}

// Calls running in Python now, and when the last one ended: the runtime snapshot is made only
// once the worker has been idle for a while (web/worker/python_boot.mjs).
let activeCalls = 0;
// A call with no request id (a read, the worker's own "sync").
const NO_REQUEST = Object.freeze({ request: null, retry: null });
let lastCallAt = 0;

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

// Another worker of this disk committed (web/shared/peers.mjs): this one applies it before
// that commit resolves. Before the index is loaded there is nothing to do (the load will
// include it); after, catch up (which posts the page an "invalidate" if anything changed),
// then have the page confirm it took every message posted before: then its stat cache holds
// nothing older than the commit.
let serving = false;
let missedAtBoot = false;
async function applyRemote(store) {
  if (!store.loading) return;
  if (!serving) {
    // Booting: acknowledged at once, and boot syncs before it answers anything. Waiting here
    // instead would wait for the boot, which may itself wait for the writer's lock.
    missedAtBoot = true;
    return;
  }
  await catchUp();
  await pageCaughtUp();
}

// Resolves once a sync that started after this call has ended: what other workers had
// committed by then is in the index. Calls while one runs fold into one more.
let syncing = null;
let syncNext = null;
function catchUp() {
  if (!syncing) {
    syncing = call("sync", []).catch(() => {}).finally(() => { syncing = null; });
    return syncing;
  }
  syncNext ??= syncing.then(() => {
    syncNext = null;
    return catchUp();
  });
  return syncNext;
}

// The page's reply to a "catchUp" request, which it takes after every message posted to it
// before (web/pyvfs.mjs, Instance.answer).
function pageCaughtUp() {
  return askPage("catchUp", {});
}

// The operations py_vfs/web/protocol.py says this worker answers itself (home: "worker").
const OWN = {
  memoryUsage: ({ pyodide }) => memoryUsage(pyodide),
  diagnostics: ({ api, store }) => diagnostics(api, store, channels.count - 1),
  fsaCounters: () => fsa.counters(),
};

// `view`: the child API of a restricted view (its port's calls), else the disk's own API. `id`
// (a cancellable call's) and `calls`: the call's channel's table of cancellable calls.
async function call(op, args, writer, view = null, id = null, calls = null) {
  return run(await booted, op, args, writer, view, id, calls);
}

// `call` once booted: it enters Python before its first await, so calls entered one after the
// other reach Python in that order (`inTurn`).
// `request`: the call envelope's request id and, for a call sent again after a failover, the
// time it was first sent ({request, retry}: py_vfs/web/retries.py).
async function run(booting, op, args, writer, view = null, id = null, calls = null, request = NO_REQUEST) {
  if (id !== null && calls.get(id) === "cancelled") {
    return { error: failure("ECANCELED", `ECANCELED: operation canceled, ${op}`, { syscall: op }) };
  }
  if (id !== null) calls.set(id, "running");
  if (OPS[op]?.home === "worker") {
    if (view && !guestApis.has(view)) return { error: failure("EACCES", `EACCES: ${op} is not offered to a restricted view`, { syscall: op }) };
    return { value: OWN[op](booting) };
  }
  const { pyodide, dispatch } = booting;
  const api = view ?? booting.api;
  // Only real work counts against idleness: a test polling diagnostics must not keep the
  // snapshot from being made.
  activeCalls++;
  try {
    let envelope = await settled(pyodide, dispatch(api, op, args, writer, id, request.request, request.retry));
    // A synchronous operation that reached a mounted folder must block on its promises (JSPI),
    // which needs a promising entry into Python: call it again that way (docs/mounts.md).
    if (envelope.promising) envelope = await settled(pyodide, await dispatch.callPromising(api, op, args, writer, id, request.request, request.retry));
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

// Calls reach Python in the order they came, even when an earlier one still hashes: each
// enters (its digests computed, the boot awaited, Python called) after the one before it has.
let entered = Promise.resolve();
function inTurn(enter) {
  const turn = entered.then(enter);
  entered = turn.then(() => {}, () => {});
  return turn;
}

// One call, from the page or from a view's port (`view`: its child API), answered by `reply`.
// A call that opens a view (restrict, scoop) answers the new view's port, and nothing else.
async function answer(data, reply, view, calls) {
  const id = data[CALL_SIGNAL] ? data.id : null;
  if (id !== null) calls.set(id, "queued");
  let envelope;
  try {
    // Wrapped: the turn ends once the call is in Python, not once it is answered.
    const { running } = await inTurn(async () => {
      const args = await withDigests(data.op, data.args);
      const booting = await booted;
      const request = { request: data[CALL_REQUEST] ?? null, retry: data[CALL_RETRY] ?? null };
      return { running: run(booting, data.op, withStreams(data, args, reply, calls), data[CALL_WRITER], view, id, calls, request) };
    });
    envelope = await running;
  } finally {
    if (id !== null) calls.delete(id);
    calls.flows?.delete(data.id);
  }
  if (OPS[data.op]?.opensView && !envelope.error) {
    const { port } = bindView(view ?? (await booted).api, envelope.value);
    reply({ type: WIRE.result, id: data.id, value: port }, [port]);
    return;
  }
  reply({ type: WIRE.result, id: data.id, ...envelope }, transferables(envelope.value));
}

// The calls the page made in one turn (web/page/client.mjs), each [id, op, args, writer, request]: one
// entry into Python for them all (py_vfs/web/edge.py, dispatch_many), and their answers sent
// as few "results" messages as they settle: a message and a Python call per call were most of
// what a small write cost (docs/benchmarks.md, W1c). A call that does more than answer (one
// that opens a view, a streamed one, one the worker answers itself), or is not shaped as one,
// goes the way of a single call, in its place in the order.
function answerMany(list, reply, view, calls, single) {
  let batch = [];
  const enterBatch = () => {
    if (!batch.length) return;
    const taken = batch;
    batch = [];
    inTurn(async () => enterMany(await booted, taken, reply, view)).catch((error) => {
      const message = String(error?.message ?? error);
      reply({ type: WIRE.results, results: taken.map(([id, op]) => [id, { error: failure("EIO", message, { syscall: op }) }]) });
    });
  };
  for (const entry of Array.isArray(list) ? list : []) {
    if (batchable(entry)) {
      batch.push(entry);
    } else {
      enterBatch();
      const [id, op, args, writer, request] = Array.isArray(entry) ? entry : [];
      single({ type: WIRE.call, id, op, args, [CALL_WRITER]: writer, [CALL_REQUEST]: request });
    }
  }
  enterBatch();
}

function batchable(entry) {
  if (!Array.isArray(entry) || entry.length !== 5 || !Array.isArray(entry[2])) return false;
  const op = Object.hasOwn(OPS, entry[1]) ? OPS[entry[1]] : null;
  return op !== null && op.home === "python" && !op.opensView && !STREAMED.has(entry[1]);
}

function enterMany(booting, batch, reply, view) {
  const { pyodide, dispatchMany } = booting;
  const api = view ?? booting.api;
  const byId = new Map(batch.map((entry) => [entry[0], entry]));
  activeCalls += batch.length;
  const answered = (pairs) => {
    const results = [];
    const transfer = [];
    for (const [id, envelope] of pairs) {
      if (envelope.promising) { // a mounted folder's sync call: again alone, as `run` does
        const [, op, args, writer, request] = byId.get(id);
        run(booting, op, args, writer, view, null, null, { request, retry: null }).then((again) => reply({ type: WIRE.result, id, ...again }, transferables(again.value)));
      } else {
        results.push([id, envelope]);
        transfer.push(...transferables(envelope.value));
      }
    }
    activeCalls -= pairs.length;
    lastCallAt = performance.now();
    if (!results.length) return;
    try {
      reply({ type: WIRE.results, results }, transfer);
    } catch (error) { // a value that cannot be posted: its call fails, as a single one does
      const message = String(error?.message ?? error);
      reply({ type: WIRE.results, results: results.map(([id]) => [id, { error: failure("EIO", message, { syscall: byId.get(id)[1] }) }]) });
    }
  };
  // A caller's own digests never reach Python (withDigests).
  const sent = batch.map(([id, op, args, writer, request]) => [id, op, op === "writeFile" ? withoutDigests(args) : args, writer, request]);
  answered(dispatchMany(api, sent, answered));
}

// Restricted views (py_vfs/web/views.py, docs/sandbox.md): the scope is bound here, to a port.
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
  child.watches.connect((id, event) => port1.postMessage({ type: WIRE.watch, id, event }));
  port1.onmessage = serve(calls, child, (message, transfer) => port1.postMessage(message, transfer), { [WIRE.close]: close });
  return { port: port2, close };
}

function transferables(value) {
  if (value instanceof Uint8Array) return [value.buffer];
  if (value?.body instanceof Uint8Array) return [value.body.buffer];
  return [];
}

// The one message loop, of the page's channel and of each view's port: the calls and what
// belongs to them (a cancel, a streamed call's acknowledgements and input) on `calls` (the
// channel's table) and `view` (a view's child API; null: the disk's), plus the channel's `own`
// kinds.
function serve(calls, view, post, own) {
  const single = (data) => answer(data, post, view, calls).catch((error) => {
    post({ type: WIRE.result, id: data.id, error: failure("EIO", String(error?.message ?? error), { syscall: data.op }) });
  });
  const kinds = {
    [WIRE.call]: single,
    [WIRE.calls]: (data) => answerMany(data.calls, post, view, calls, single),
    [WIRE.cancel]: (data) => cancelCall(calls, view ?? readyApi, data.id),
    [WIRE.outputAck]: (data) => acknowledged(calls, data),
    [WIRE.input]: (data) => typed(calls, data),
    ...own,
  };
  // Own keys only: a view's port may be given to code that sends anything ("constructor").
  return ({ data, ports }) => (Object.hasOwn(kinds, data?.type) ? kinds[data.type](data, ports) : undefined);
}

// A preview request with its body's port (web/worker/preview_owner.mjs), from the page that
// holds the preview relay (a guest tab may).
function preview(data, ports) {
  servePreview(ports[0], data.request, call).catch((error) => {
    const body = new TextEncoder().encode(String(error?.message ?? error));
    ports[0]?.postMessage({ type: BODY.start, status: 500, headers: {}, body, more: false });
  });
}

// A guest tab's port (web/page/share.mjs), handed over by this worker's page: once Python is
// ready, its calls run on an API of its own over this disk (py_vfs/web/edge.py, open_guest),
// and it is forgotten when its page goes (its Web Lock is let go) or closes the port.
function attachGuest({ key, guest }, port) {
  if (!port || typeof key !== "string" || typeof guest !== "string") return;
  booted.then(({ pyodide }) => {
    const channel = channels.open((message, transfer) => port.postMessage(message, transfer));
    const notify = (id, event) => channel.post({ type: WIRE.watch, id, event });
    const edge = pyodide.pyimport("py_vfs.web.edge");
    let api;
    try {
      api = edge.open_guest(readyApi, notify, asker(channel.post));
    } finally {
      edge.destroy();
    }
    guestApis.add(api);
    let open = true;
    statusPosts.add(channel.post);
    if (syncStatus) channel.post({ type: WIRE.syncStatus, status: syncStatus });
    const close = () => {
      if (!open) return;
      open = false;
      statusPosts.delete(channel.post);
      channel.close();
      api.unwatch_all();
      api.destroy();
      port.close();
    };
    port.onmessage = serve(new Map(), api, channel.post, {
      [WIRE.seen]: (data) => channel.seen(data.view),
      [WIRE.reply]: replied,
      [WIRE.preview]: preview,
      [WIRE.close]: close,
    });
    channel.post({ type: WIRE.progress, stage: "ready", message: "Ready" });
    guestGone(key, guest).then(close);
  }, (error) => port.postMessage({ type: WIRE.failed, message: String(error?.message ?? error) }));
}

self.onmessage = serve(pageCalls, null, page.post, {
  [WIRE.open]: (data) => {
    booted = boot(data);
    booted.catch((error) => self.postMessage({ type: WIRE.failed, message: String(error?.message ?? error) }));
  },
  [WIRE.mounts]: (data) => keptMounts(data.records),
  [WIRE.realmOpened]: (data, ports) => frames.opened(data, ports[0]),
  [WIRE.reply]: replied,
  [WIRE.preview]: preview,
  [WIRE.seen]: (data) => page.seen(data.view),
  [WIRE.guest]: (data, ports) => attachGuest(data, ports[0]),
});
