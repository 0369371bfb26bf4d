// Restoring a Pyodide memory snapshot (docs/boot.md): shared by the VFS worker
// (web/worker/python_boot.mjs) and a scoop's realm (web/realm/realm_python.mjs).

// Pyodide 314 copies a snapshot into the wasm memory as the module instantiates it (30 MiB) and
// does not grow that memory first, so a snapshot of a heap that grew past 30 MiB fails with
// "offset is out of bounds". While a snapshot is restored, the instance's memory is grown to
// the snapshot's size as soon as it is instantiated; returns what undoes the wrapping.
export function growingInstantiation(size) {
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
