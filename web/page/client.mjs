// The client end of the wire to the VFS worker, one class for the disk and its views: the
// disk's Instance (web/pyvfs.mjs) talks to the worker itself, a restricted view's client to a
// MessagePort the worker bound to the view (docs/sandbox.md). It posts calls ({type: WIRE.call},
// py_vfs/core/messages.py), matches their results, delivers watch events and a shell call's
// streams, and cancels a call whose signal aborts. The API object (web/api.mjs) holds one.

import { abortError } from "./validate.mjs";
import { fsError, toError } from "../shared/errors.mjs";
import { CALL_REQUEST, CALL_RETRY, CALL_SIGNAL, CALL_WRITER, DEFAULT_WRITER, OPS, TRANSFER_MIN, WIRE } from "../shared/protocol.mjs";
import { Listing } from "./listing.mjs";

// The operations whose calls may share a "calls" message: Python's, except those that open a
// view (answered with a port).
const BATCHED = new Set(Object.keys(OPS).filter((op) => OPS[op].home === "python" && !OPS[op].opensView));

// A view keeps no stat cache: every answer comes from the worker, within the view.
const NO_CACHE = Object.freeze({ hold() {}, settle() {}, begin() { return {}; }, hits: 0, size: 0, shared: 0 });

// A view's mounts are not kept across reloads (the page's mount store belongs to the disk).
const NO_STORE = Object.freeze({ async put() {}, async delete() {}, async get() { return null; } });

export class Client {
  #requestKey = null; // this client's random part of its request ids
  #requests = 0;

  // `endpoint`: the worker or the view's port; `label`: how a closed one is named in EBADF.
  constructor(endpoint, label) {
    this.endpoint = endpoint;
    this.label = label;
    this.name = null; // a view has none: it cannot reopen the disk through openVFS
    this.calls = new Map();
    this.nextId = 1;
    this.watchers = new Map(); // watch id -> listener
    this.watching = new Map(); // watch id -> the watch call's arguments
    this.openSteps = 0; // steps whose function is running: other calls wait for them
    this.sent = 0; // calls posted (diagnostics: what the stat cache saved)
    this.queued = []; // calls of this turn not posted yet (#queue)
    this.cache = NO_CACHE;
    this.early = null; // the disk's reader of records while Python boots (web/page/before_boot.mjs)
    this.syncState = null; // the dock's last status (a disk with a dock: web/api.mjs onSyncStatus)
    this.syncListeners = new Set();
    this.bootError = null;
  }

  // Takes the endpoint's messages: the client's own here, any other kind by `own(data)`.
  attach(own = () => {}) {
    this.endpoint.onmessage = ({ data }) => this.receive(data) || own(data);
  }

  // The messages every client takes; false for one it does not know (the Instance's own).
  receive(data) {
    if (data.type === WIRE.result) {
      this.settle(data);
    } else if (data.type === WIRE.results) {
      for (const [id, envelope] of data.results) this.settle({ id, ...envelope });
    } else if (data.type === WIRE.watch) {
      const listener = this.watchers.get(data.id);
      if (listener) {
        try { listener(data.event); } catch (error) { console.error("py_vfs watch listener failed", error); }
      }
    } else if (data.type === WIRE.syncStatus) {
      this.syncState = data.status;
      for (const listener of this.syncListeners) {
        try { listener(data.status); } catch (error) { console.error("py_vfs sync status listener failed", error); }
      }
    } else if (data.type === WIRE.output) {
      // A streamed shell call's output (api.mjs, shell's onOutput); none once it is aborted.
      const pending = this.calls.get(data.id);
      if (pending && !pending.signal?.aborted) pending.streams?.output(data.stream, data.data);
      this.#post({ type: WIRE.outputAck, id: data.id, bytes: data.data.byteLength });
    } else if (data.type === WIRE.inputWanted) {
      // The line reads what the user types (api.mjs, shell's input): the next piece, or null;
      // `raw`: the keys as typed (`less`).
      const post = (bytes) => this.#post({ type: WIRE.input, id: data.id, data: bytes });
      const pending = this.calls.get(data.id);
      if (pending?.streams) pending.streams.wanted(post, data.raw === true);
      else post(null);
    } else {
      return false;
    }
    return true;
  }

  // A call's answer: the worker's reply, or the early reader's ({id, value | error, early}).
  settle(data) {
    const pending = this.calls.get(data.id);
    this.calls.delete(data.id);
    if (!pending) return;
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

  // `keep(reply, token)`, when given, sees the reply first and gives the value to resolve with
  // (the stat cache fills from it). `signal` (not aborted yet: the API checked): aborting it
  // asks the worker to cancel the call. `streams` (a shell call's, web/page/streams.mjs
  // ShellStreams): takes its output messages and answers its requests for input.
  call(op, args, keep, writer = DEFAULT_WRITER, signal = undefined, streams = undefined) {
    if (this.closed) return Promise.reject(fsError("EBADF", `EBADF: ${this.label} is closed`, { syscall: op }));
    if (this.bootError) return Promise.reject(fsError("EIO", `EIO: ${this.bootError.message}`, { syscall: op }));
    const id = this.nextId++;
    // A call that may change the disk has a request id, which the journal entry of its commit
    // records (py_vfs/web/protocol.py CALL_REQUEST).
    const request = OPS[op]?.mutating ? this.#requestId() : null;
    const pending = { op, keep, signal, streams, ...this.cache.begin(op) };
    pending.promise = new Promise((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.calls.set(id, pending);
    // `retry`: the call is sent again after a failover, with the time it was first sent.
    const post = (retry = null) => {
      this.sent++;
      pending.sentAt ??= Date.now();
      const sent = args.map(cloneable);
      const transfer = transferOf(op, sent);
      if (retry !== null || signal || streams || transfer.length || !BATCHED.has(op)) {
        this.#post(callMessage(id, op, sent, writer, request, Boolean(signal), retry), transfer);
      } else {
        this.#queue([id, op, sent, writer, request]);
      }
    };
    // Sent again if a shared runtime's host goes (web/page/reconnecting.mjs): a read as it is,
    // a retryable write with `retry`.
    pending.send = post;
    if (op === "watch") {
      pending.watchId = args[0];
      this.watching.set(args[0], args);
    }
    else if (op === "unwatch") this.watching.delete(args[0]);
    const early = this.early;
    if (early) {
      // An early answer is the value itself (a readdir's: its records), so `keep` is not asked.
      const decided = (reply) => (reply ? this.settle({ id, ...reply, early: true }) : post());
      // Not `post` itself: an early reader may call what it is given with arguments, and
      // post's one argument marks a call sent again after a failover.
      if (!early.try(op, args, !signal && !streams, decided)) early.post(() => post());
    } else {
      post();
    }
    if (signal) {
      const cancel = () => this.#afterEarly(() => this.#post({ type: WIRE.cancel, id }));
      signal.addEventListener("abort", cancel, { once: true });
      pending.unlisten = () => signal.removeEventListener("abort", cancel);
    }
    return pending.promise;
  }

  // Calls made in one turn go as one "calls" message (the worker runs them in one entry into
  // Python, web/worker/worker.mjs answerMany), sent once the turn's microtasks have run: a
  // `Promise.all` of a thousand writes is one message, a lone call goes as it did, with no
  // wait. Anything else posted flushes them first, so the worker sees messages in order.
  #queue(entry) {
    this.queued.push(entry);
    if (this.queued.length === 1) queueMicrotask(() => this.#flush());
  }

  #flush() {
    const queued = this.queued;
    if (!queued.length) return;
    this.queued = [];
    this.endpoint.postMessage(queued.length === 1 ? callMessage(...queued[0]) : { type: WIRE.calls, calls: queued });
  }

  #post(message, transfer = []) {
    this.#flush();
    this.endpoint.postMessage(message, transfer);
  }

  // `<this client's random key>:<a counter>`: unique across pages and time.
  #requestId() {
    this.#requestKey ??= randomKey();
    return `${this.#requestKey}:${++this.#requests}`;
  }

  #afterEarly(send) {
    if (this.early) this.early.post(send);
    else send();
  }

  // stat, lstat, exists, readdir (readdir as readdirStats, resolving to a Listing,
  // web/page/listing.mjs). A view asks the worker every time.
  cached(op, path) {
    if (op !== "readdir") return this.call(op, [path]);
    return this.call("readdirStats", [path], (reply) => (reply.error ? undefined : Listing.of(reply.value)));
  }

  // The URL of a preview root (the JS API's previewUrl); a view mints through its own port.
  rootUrl(root, kind) {
    return this.call("previewRoot", [root, kind]);
  }

  async store() {
    return NO_STORE;
  }

  // Resolves once every call made before it has settled.
  settled() {
    return Promise.allSettled([...this.calls.values()].map((pending) => pending.promise));
  }

  // Closing a view closes its port (the worker forgets the view), never the disk.
  async close() {
    await this.settled();
    this.closed = true;
    this.#post({ type: WIRE.close });
    this.endpoint.close();
  }
}

// A restricted view's client: its port, which the worker bound to the view's scope.
export function viewClient(port) {
  const client = new Client(port, "this view");
  client.attach();
  port.start?.();
  return client;
}

// One call as the wire's "call" message (py_vfs/core/messages.py); `retry` only on a call sent
// again (the time it was first sent).
function callMessage(id, op, args, writer, request = null, cancellable = false, retry = null) {
  const message = { type: WIRE.call, id, op, args, [CALL_WRITER]: writer, [CALL_SIGNAL]: cancellable, [CALL_REQUEST]: request };
  if (retry !== null) message[CALL_RETRY] = retry;
  return message;
}

// 72 random bits, as 12 characters of base64url.
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
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
