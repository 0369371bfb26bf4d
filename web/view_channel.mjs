// A restricted view's channel to the worker (docs/sandbox.md): what a VFS made by
// `vfs.restrict(...)` or `vfs.scoop(name)` holds instead of the disk's Instance. It holds one
// MessagePort, which the worker bound to the view's scope (py_vfs/web/views.py): every call
// sent on it runs in the view, and nothing in this object leads back to the disk, its other
// views or its name. The port can be posted to a Web Worker (`await view.transferable()`, then
// `viewOf(port)` there).

import { abortError } from "./abort.mjs";
import { fsError, toError } from "./errors.mjs";
import { CALL_SIGNAL, CALL_WRITER } from "./protocol.mjs";
import { recordsOf } from "./stat_cache.mjs";

// Views keep no stat cache: every answer comes from the worker, within the view.
const NO_CACHE = Object.freeze({ hold() {}, settle() {}, begin() { return {}; }, hits: 0, size: 0 });

// A view's mounts are not kept across reloads (the page's mount store belongs to the disk).
const NO_STORE = Object.freeze({ async put() {}, async delete() {}, async get() { return null; } });

export class ViewChannel {
  #port;
  #calls = new Map();
  constructor(port) {
    this.#port = port;
    this.name = null; // no name: a view cannot reopen the disk through openVFS
    this.nextId = 1;
    this.watchers = new Map();
    this.openSteps = 0;
    this.sent = 0;
    this.cache = NO_CACHE;
    port.onmessage = ({ data }) => this.#receive(data);
    port.start?.();
  }

  #receive(data) {
    if (data.type === "watch") {
      const listener = this.watchers.get(data.id);
      if (listener) {
        try { listener(data.event); } catch (error) { console.error("py_vfs watch listener failed", error); }
      }
      return;
    }
    if (data.type === "output") {
      const pending = this.#calls.get(data.id);
      if (pending && !pending.signal?.aborted) pending.streams?.output(data.stream, data.data);
      this.#port.postMessage({ type: "outputAck", id: data.id, bytes: data.data.byteLength });
      return;
    }
    if (data.type === "inputWanted") {
      const post = (bytes) => this.#port.postMessage({ type: "input", id: data.id, data: bytes });
      const pending = this.#calls.get(data.id);
      if (pending?.streams) pending.streams.wanted(post);
      else post(null);
      return;
    }
    if (data.type !== "result") return;
    const pending = this.#calls.get(data.id);
    this.#calls.delete(data.id);
    if (!pending) return;
    pending.unlisten?.();
    // A call stopped by its signal (py_vfs/core/cancel.py) rejects as Node's fs does.
    if (data.error?.code === "ECANCELED" && pending.signal) pending.reject(abortError(pending.signal, data.error.hint));
    else if (data.error) pending.reject(toError(data.error));
    else pending.resolve(pending.keep ? pending.keep(data) : data.value);
  }

  // As the disk's Instance.call (web/pyvfs.mjs): `signal` (not aborted yet) cancels the call in
  // the worker when it aborts.
  call(op, args, keep, writer, signal = undefined, streams = undefined) {
    if (this.closed) return Promise.reject(fsError("EBADF", "EBADF: this view is closed", { syscall: op }));
    const id = this.nextId++;
    const pending = { keep, signal, streams };
    pending.promise = new Promise((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.#calls.set(id, pending);
    this.sent++;
    this.#port.postMessage({ type: "call", id, op, args: args.map((v) => (v === undefined ? null : v)),
                             [CALL_WRITER]: writer, [CALL_SIGNAL]: Boolean(signal) });
    if (signal) {
      const cancel = () => this.#port.postMessage({ type: "cancel", id });
      signal.addEventListener("abort", cancel, { once: true });
      pending.unlisten = () => signal.removeEventListener("abort", cancel);
    }
    return pending.promise;
  }

  cached(op, path) {
    if (op !== "readdir") return this.call(op, [path]);
    return this.call("readdirStats", [path], (reply) => recordsOf(reply.value));
  }

  rootUrl(root, kind) {
    return this.call("previewRoot", [root, kind]);
  }

  async store() {
    return NO_STORE;
  }

  settled() {
    return Promise.allSettled([...this.#calls.values()].map((pending) => pending.promise));
  }

  // Closing a view closes its port (the worker forgets the view), never the disk.
  async close() {
    await this.settled();
    this.closed = true;
    this.#port.postMessage({ type: "close" });
    this.#port.close();
  }
}
