// The VFS worker: owns Pyodide and one VFS, so Python never blocks the page.
// Protocol (docs/architecture.md): {type: "open", name, base} once, then {type: "call", id, op,
// args} and {type: "preview", path} with a MessagePort; replies {type: "progress"|"result", ...}.

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { IDBStore } from "./idb_store.mjs";

const here = (path) => new URL(path, import.meta.url).href;
let booted = null;

function progress(stage, message, extra = {}) {
  self.postMessage({ type: "progress", stage, message, ...extra });
}

// Download the two big files ourselves, so the page can show bytes; Pyodide's own fetches then
// come from the HTTP cache (the server marks pyodide/ cacheable).
async function download(files) {
  const responses = await Promise.all(files.map((file) => fetch(file)));
  const total = responses.reduce((sum, r) => sum + (Number(r.headers.get("content-length")) || 0), 0);
  let loaded = 0;
  await Promise.all(responses.map(async (response) => {
    if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.length;
      progress("download", "Downloading Python", { loaded, total });
    }
  }));
}

// loadPyodide has no progress hook; the end of its wasm instantiation is where compiling stops
// and Python's own start-up (the longer part) begins, so report that moment.
function reportPythonStart() {
  const wrap = (original) => async function (...args) {
    const result = await original.apply(WebAssembly, args);
    WebAssembly.instantiateStreaming = originals.instantiateStreaming;
    WebAssembly.instantiate = originals.instantiate;
    progress("python", "Starting Python");
    return result;
  };
  const originals = { instantiateStreaming: WebAssembly.instantiateStreaming, instantiate: WebAssembly.instantiate };
  WebAssembly.instantiateStreaming = wrap(originals.instantiateStreaming);
  WebAssembly.instantiate = wrap(originals.instantiate);
}

async function boot({ name, base }) {
  const manifest = await (await fetch(here("manifest.json"), { cache: "no-cache" })).json();
  progress("download", "Downloading Python");
  await download([here("pyodide/pyodide.asm.wasm"), here("pyodide/python_stdlib.zip")]);
  progress("compile", "Compiling WebAssembly");
  reportPythonStart();
  const pyodide = await loadPyodide({ indexURL: here("pyodide/") });
  progress("install", `Installing py_vfs ${manifest.version}`);
  await pyodide.loadPackage(here(manifest.micropip));
  const micropip = pyodide.pyimport("micropip");
  await micropip.install(here(manifest.wheel));
  micropip.destroy();
  progress("disk", `Opening disk "${name}"`);
  const store = await IDBStore.open(name);
  const webapi = pyodide.pyimport("py_vfs.webapi");
  const api = await webapi.open_api(store, base);
  progress("ready", "Ready");
  return { pyodide, api, dispatch: webapi.dispatch };
}

async function call(op, args) {
  const { pyodide, api, dispatch } = await booted;
  let envelope = dispatch(api, op, args);
  if (envelope instanceof pyodide.ffi.PyProxy) {
    const future = envelope;
    try {
      envelope = await future;
    } finally {
      future.destroy();
    }
  }
  return envelope;
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
  try {
    if (data.type === "call") {
      const envelope = await call(data.op, data.args);
      self.postMessage({ type: "result", id: data.id, ...envelope }, transferables(envelope.value));
    } else if (data.type === "preview") {
      const envelope = await call("preview", [data.path]);
      const answer = envelope.value ?? { status: 500, headers: {}, body: new TextEncoder().encode(envelope.error.message) };
      ports[0].postMessage({ type: "response", ...answer }, transferables(answer));
    }
  } catch (error) {
    const failure = { code: "EIO", message: String(error?.message ?? error) };
    if (data.type === "call") self.postMessage({ type: "result", id: data.id, error: failure });
    else ports[0]?.postMessage({ type: "response", status: 500, headers: {}, body: new TextEncoder().encode(failure.message) });
  }
};
