// The VFS worker's side of scoops' realms (docs/sandbox.md, "A realm for code"). Code a
// restricted view runs (its shell's `python`, `.py` and `.jsh` scripts, `runPython`) runs in a
// realm: a frame the page embeds sandboxed (web/realm/frame.js, an opaque origin) whose workers
// hold nothing of the app but the view's port. One realm per view (by `key`: the view's scope
// and writer, py_vfs/web/scripts.py), kept while it is used and closed after `idleMs` without
// a run. Its Python (web/realm/realm_python.mjs) boots once, from the runtime snapshot when there is
// one, and runs each script as the shell would; each `.jsh` run gets a worker of its own there.
//
// py_vfs/shell/realm.py drives a run through the handle `run()` returns: next(), ack(id),
// give(data), terminate() (as web/worker/jsh_host.mjs's ScriptRun). Ctrl-C (terminate() before the
// run's exit) and the time budget end a Python run by terminating the realm's Python worker:
// the runs it had end with status 130 (124 for the budget), and the next run starts another.

import { RunEvents } from "./run_events.mjs";
import { RUN, WIRE } from "../shared/protocol.mjs";

const BOOT_TIMEOUT_MS = 120_000;
const IDLE_MS = 60_000;
const TIMED_OUT = 124; // as timeout(1)
const INTERRUPTED = 130;

// `options`: openFrame() -> Promise<{port, close}> (the page embeds a frame, web/page/realm_frames.mjs);
// bindView(childId) -> {port, close} and release(childId) (web/worker/worker.mjs); bootData() ->
// Promise<{runtime, snapshot, wheel, fsspec}>; budget {timeoutMs, memoryBytes, idleMs}.
export class RealmPool {
  #realms = new Map();

  constructor(options) {
    this.options = options;
    this.budget = { timeoutMs: 0, memoryBytes: 0, idleMs: IDLE_MS, ...options.budget };
  }

  // Starts `init` ({kind: "python"|"jsh", ...}) in the realm of `key`; `childId` is a child API
  // over the view, whose port the realm gets if it needs one (else it is released).
  run(key, childId, init) {
    let realm = this.#realms.get(key);
    if (!realm) {
      realm = new Realm(this, () => this.#realms.delete(key));
      this.#realms.set(key, realm);
    }
    return realm.run(childId, init);
  }
}

// A run as the shell's Python sees it. `post` sends to its worker, `stop` ends it before its
// exit (Ctrl-C), `cleanup` after; `finished` is told once, when the shell lets go of it.
class RunHandle {
  events = new RunEvents();
  post = () => {};
  stop = () => {};
  cleanup = () => {};

  constructor(finished) {
    this.finished = finished;
  }

  next() {
    return this.events.next();
  }

  ack(id) {
    this.post({ type: RUN.ack, id });
  }

  give(data) {
    this.post({ type: RUN.stdin, data: data ?? null });
  }

  terminate() {
    if (this.events.ended) this.cleanup();
    else {
      this.events.ended = true;
      this.stop();
    }
    this.finished();
  }
}

// `promise`, or a rejection saying `what` when it has not settled within `ms`.
function bounded(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class Realm {
  #pool;
  #forget;
  #frame = null; // Promise<{port, close}>
  #python = null; // Promise<python>
  #ids = 1;
  #active = 0;
  #idle = null;
  #jsh = new Map(); // worker id -> RunHandle
  #pythonNow = null;

  constructor(pool, forget) {
    this.#pool = pool;
    this.#forget = forget;
  }

  run(childId, init) {
    this.#active++;
    clearTimeout(this.#idle);
    let finished = false;
    const handle = new RunHandle(() => {
      if (finished) return;
      finished = true;
      if (--this.#active === 0) this.#idle = setTimeout(() => this.close(), this.#pool.budget.idleMs);
    });
    const started = init.kind === "jsh" ? this.#runJsh(handle, childId, init) : this.#runPython(handle, childId, init);
    started.catch((error) => {
      handle.events.fail(`${init.kind}: the scoop's realm did not start: ${error?.message ?? error}`, 126);
    });
    return handle;
  }

  #openFrame() {
    this.#frame ??= this.#pool.options.openFrame().then((frame) => {
      frame.port.onmessage = ({ data }) => {
        if (data?.type === RUN.died) this.#died(data.id, data.message);
      };
      return frame;
    });
    this.#frame.catch(() => { this.#frame = null; });
    return this.#frame;
  }

  async #spawn(kind) {
    const frame = await this.#openFrame();
    const id = this.#ids++;
    const { port1, port2 } = new MessageChannel();
    frame.port.postMessage({ type: RUN.spawn, id, kind }, [port2]);
    return { id, port: port1, kill: () => frame.port.postMessage({ type: RUN.kill, id }) };
  }

  // A worker of `kind` in the frame, and the port of the view `childId` it is to get.
  async #spawnFor(kind, childId) {
    const view = this.#pool.options.bindView(childId);
    try {
      return { view, worker: await this.#spawn(kind) };
    } catch (error) {
      view.close();
      throw error;
    }
  }

  async #startPython(childId) {
    const { view, worker } = await this.#spawnFor("python", childId);
    const python = { ...worker, view, runs: new Map() };
    const booted = new Promise((resolve, reject) => { python.booted = { resolve, reject }; });
    worker.port.onmessage = ({ data }) => {
      if (data?.type === RUN.booted) python.booted.resolve();
      else if (data?.type === RUN.failed) python.booted.reject(new Error(data.message));
      else python.runs.get(data?.run)?.events.push(data);
    };
    const boot = await this.#pool.options.bootData();
    const transfer = [view.port, ...(boot.snapshot ? [boot.snapshot.buffer] : [])];
    worker.port.postMessage({ type: RUN.boot, ...boot, memoryBytes: this.#pool.budget.memoryBytes }, transfer);
    try {
      await bounded(booted, BOOT_TIMEOUT_MS, "the realm's Python did not start");
    } catch (error) {
      this.#endPython(python, null);
      throw error;
    }
    this.#pythonNow = python;
    return python;
  }

  async #runPython(handle, childId, init) {
    const fresh = !this.#python;
    if (fresh) {
      this.#python = this.#startPython(childId);
      this.#python.catch(() => { this.#python = null; });
    } else {
      this.#pool.options.release(childId);
    }
    const python = await this.#python;
    const run = this.#ids++;
    python.runs.set(run, handle);
    handle.post = (message) => python.port.postMessage({ ...message, run });
    handle.stop = () => this.#endPython(python, INTERRUPTED);
    const { timeoutMs } = this.#pool.budget;
    const timer = timeoutMs > 0 && setTimeout(() => {
      handle.events.fail(`python: the realm's time budget (${timeoutMs} ms) ran out`, TIMED_OUT);
      this.#endPython(python, INTERRUPTED);
    }, timeoutMs);
    handle.cleanup = () => {
      clearTimeout(timer);
      python.runs.delete(run);
    };
    python.port.postMessage({ type: RUN.run, run, ...init });
  }

  // Terminates the realm's Python: its runs end with `code` (none given: already ended).
  #endPython(python, code) {
    python.kill();
    python.view.close();
    python.port.close();
    for (const handle of python.runs.values()) {
      if (code !== null) handle.events.push({ type: RUN.exit, code });
    }
    python.runs.clear();
    if (this.#pythonNow === python) {
      this.#pythonNow = null;
      this.#python = null;
    }
  }

  async #runJsh(handle, childId, init) {
    const { view, worker } = await this.#spawnFor("jsh", childId);
    const end = () => {
      this.#jsh.delete(worker.id);
      worker.kill();
      worker.port.close();
      view.close();
    };
    this.#jsh.set(worker.id, handle);
    worker.port.onmessage = ({ data }) => handle.events.push(data);
    handle.post = (message) => worker.port.postMessage(message);
    handle.stop = end;
    handle.cleanup = end;
    worker.port.postMessage({ type: RUN.start, ...init, fs: view.port }, [view.port]);
  }

  #died(id, message) {
    const python = this.#pythonNow;
    if (python?.id === id) {
      for (const handle of python.runs.values()) handle.events.fail(`python: the realm stopped: ${message}`, 1);
      this.#endPython(python, null);
      return;
    }
    this.#jsh.get(id)?.events.fail(`jsh: ${message}`, 1);
  }

  // Ends everything the realm runs and removes its frame (idle, or the disk closes).
  close() {
    if (this.#pythonNow) this.#endPython(this.#pythonNow, INTERRUPTED);
    const frame = this.#frame;
    this.#frame = null;
    this.#forget();
    frame?.then((opened) => opened.close(), () => {});
  }
}

const FRAME_TIMEOUT_MS = 60_000;

// How the VFS worker gets realm frames from its page: `post` sends the page a message;
// `opened(data, port)` takes the page's {type: "realmOpened", id[, error]} with the frame's
// control port. open() resolves to {port, close} once the frame answered on that port.
export function frameOpener(post) {
  const waiting = new Map();
  let next = 1;
  const open = () => {
    const id = next++;
    const answered = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    post({ type: WIRE.realmOpen, id });
    const close = () => post({ type: WIRE.realmClose, id });
    const ready = answered.then((port) => new Promise((resolve) => {
      port.onmessage = ({ data }) => data?.type === RUN.ready && resolve({ port, close });
    }));
    return bounded(ready, FRAME_TIMEOUT_MS, "the realm's frame did not answer").catch((error) => {
      waiting.delete(id);
      close();
      throw error;
    });
  };
  const opened = ({ id, error }, port) => {
    const pending = waiting.get(id);
    waiting.delete(id);
    if (!pending) return;
    if (error || !port) pending.reject(new Error(error ?? "the page gave no port"));
    else pending.resolve(port);
  };
  return { open, opened };
}
