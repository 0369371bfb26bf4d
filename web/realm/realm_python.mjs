// Python in a scoop's realm (docs/sandbox.md, "A realm for code"): a worker started by the
// realm's frame (web/realm/frame.js) in an opaque origin, so `import js`, `indexedDB`, locks and
// fetch reach nothing of the app. Its one authority is the port of the scoop's view, over which
// py_vfs.web.realm_python's PortVFS calls the view (the same messages as any view's port).
//
// On its port, from the VFS worker (web/worker/realm_pool.mjs):
//   {type: "boot", name, runtime, snapshot, wheel, fsspec, memoryBytes} with the view's port:
//     Pyodide from `runtime` (the app's pyodide/ folder, served with CORS), restored from the
//     snapshot's bytes when given (else our wheel is unpacked), answered {type: "booted"} or
//     {type: "failed", message};
//   {type: "run", run, source, filename, argv, env, cwd, stdin, isatty}: one script, as the
//     shell's `python` runs it; it answers {type: "out"|"err", run, id, data} (each
//     acknowledged by {type: "ack", run, id}), {type: "read", run} (answered by {type: "stdin",
//     run, data}: null at the end) and {type: "exit", run, code}.
// Ctrl-C and the time budget are the VFS worker's: it has the frame terminate this worker.

import { growingInstantiation, refreshTimeZone } from "../shared/snapshot_memory.mjs";
import { RUN, WIRE } from "../shared/protocol.mjs";
import { takePort } from "./realm_port.mjs";

let port = null;
let host = null; // py_vfs.web.realm_python
const runs = new Map(); // run id -> {acks: Map(write id -> resolve), input: resolve | null}
let nextWrite = 1;

// A memory budget (openVFS({realm: {memoryBytes}})): the wasm memory never grows past it, so
// Python's allocations fail with MemoryError instead.
function capMemory(bytes) {
  if (!bytes) return;
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (pages) {
    if (this.buffer.byteLength + pages * 65536 > bytes) {
      throw new RangeError(`the realm's memory budget (${bytes} bytes) is spent`);
    }
    return grow.call(this, pages);
  };
}

// The view's client: {value} or {error: envelope} for a call of the protocol (py_vfs/web/protocol.py).
function viewClient(viewPort) {
  const pending = new Map();
  let next = 1;
  viewPort.onmessage = ({ data }) => {
    if (data?.type !== WIRE.result) return;
    const resolve = pending.get(data.id);
    pending.delete(data.id);
    resolve?.(data.error ? { error: data.error } : { value: data.value });
  };
  return (op, args) => new Promise((resolve) => {
    const id = next++;
    pending.set(id, resolve);
    viewPort.postMessage({ type: WIRE.call, id, op, args: [...args] });
  });
}

async function startPython({ runtime, snapshot, wheel, memoryBytes }) {
  const { loadPyodide } = await import(`${runtime}pyodide.mjs`);
  capMemory(memoryBytes);
  if (snapshot) {
    const undo = growingInstantiation(snapshot.byteLength);
    try {
      const pyodide = await loadPyodide({ indexURL: runtime, _loadSnapshot: snapshot });
      refreshTimeZone(pyodide);
      return pyodide;
    } catch (error) {
      console.warn("py_vfs realm: the snapshot was rejected, starting from the packages", error);
    } finally {
      undo();
    }
  }
  const pyodide = await loadPyodide({ indexURL: runtime });
  const reply = await fetch(wheel);
  if (!reply.ok) throw new Error(`${wheel}: HTTP ${reply.status}`);
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(new Uint8Array(await reply.arrayBuffer()), "wheel", { extractDir: sitePackages });
  return pyodide;
}

async function boot(data, viewPort) {
  const pyodide = await startPython(data);
  pyodide.runPython("import random; random.seed()");
  pyodide.pyimport("py_vfs.web.lazy_wheels").install(data.fsspec, data.wheel);
  host = pyodide.pyimport("py_vfs.web.realm_python");
  host.connect(viewClient(viewPort), data.name);
}

// The run's side of its streams, for Python: write(stream, bytes) resolves once the shell took
// the bytes; read() gives the next piece of input, or undefined at its end (None in Python).
function streamsOf(runId) {
  const state = { acks: new Map(), input: null };
  runs.set(runId, state);
  return {
    write(stream, data) {
      const id = nextWrite++;
      const bytes = data.slice();
      return new Promise((resolve) => {
        state.acks.set(id, resolve);
        port.postMessage({ type: stream, run: runId, id, data: bytes }, [bytes.buffer]);
      });
    },
    read() {
      return new Promise((resolve) => {
        state.input = resolve;
        port.postMessage({ type: RUN.read, run: runId });
      });
    },
  };
}

async function run({ run: runId, source, filename, argv, env, cwd, stdin, isatty }) {
  let code = 1;
  try {
    code = await host.run(streamsOf(runId), source, filename, argv, env, cwd, stdin, isatty);
  } catch (error) {
    const data = new TextEncoder().encode(`python: ${error?.message ?? error}\n`);
    port.postMessage({ type: RUN.err, run: runId, id: 0, data }, [data.buffer]);
  } finally {
    runs.delete(runId);
    port.postMessage({ type: RUN.exit, run: runId, code });
  }
}

function receive({ data, ports }) {
  if (data?.type === RUN.boot) {
    const started = performance.now();
    boot(data, ports[0]).then(
      () => port.postMessage({ type: RUN.booted, ms: performance.now() - started }),
      (error) => port.postMessage({ type: RUN.failed, message: String(error?.message ?? error) }),
    );
  } else if (data?.type === RUN.run) {
    run(data);
  } else if (data?.type === RUN.ack) {
    const acks = runs.get(data.run)?.acks;
    acks?.get(data.id)?.();
    acks?.delete(data.id);
  } else if (data?.type === RUN.stdin) {
    const state = runs.get(data.run);
    const give = state?.input;
    if (state) state.input = null;
    give?.(data.data ? new Uint8Array(data.data) : undefined); // undefined: Python's None
  }
}

// Code a run left behind (a timer's callback) may throw after its run: that ends nothing, and
// is not the frame's to report (a failure of the worker itself still is).
self.addEventListener("error", (event) => event.preventDefault());
self.addEventListener("unhandledrejection", (event) => event.preventDefault());

// Called by the frame's bootstrap with the messages that arrived while this module loaded.
export function serve(scope, queued) {
  takePort(scope, queued, (given) => {
    port = given;
    port.onmessage = receive;
  });
}
