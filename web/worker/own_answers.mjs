// What the worker answers itself, without Python's dispatch (the operations whose home is
// "worker" in py_vfs/web/protocol.py): the disk's diagnostics and the runtime's memory.

import { bootInfo } from "./python_boot.mjs";
import * as scratch from "./opfs_scratch.mjs";

// The disk's diagnostics: what the store read and how it commits, how the runtime booted, what
// open streams hold in Python, and how many guest tabs share this worker.
export function diagnostics(api, store, guests) {
  const durability = { asked: store.durability, lastCommit: store.lastDurability };
  return { reads: { ...store.reads }, boot: { ...bootInfo }, durability, logCheckpoints: store.checkpoint.done, ...held(api), guests };
}

// {streams, pinnedChunks}: what open streams hold in Python (py_vfs/web/webapi.py, WebAPI.held).
function held(api) {
  const proxy = api.held();
  try {
    return proxy.toJs({ dict_converter: Object.fromEntries });
  } finally {
    proxy.destroy();
  }
}

// The runtime's memory: its wasm heap, the worker's JS heap, Pyodide's /tmp and the scratch files.
export function memoryUsage(pyodide) {
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
