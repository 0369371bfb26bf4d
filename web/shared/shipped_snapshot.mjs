// The runtime snapshot the build ships beside Pyodide (build/snapshot.mjs, docs/boot.md): a file
// that names the build it belongs to, so the worker never restores one of another build (a
// stale HTTP cache, a deployment that mixed two builds' files).
//
// Layout: "PYVFSRT1", the key's byte length and the snapshot's (two little-endian u32), the key
// (UTF-8, snapshot_recipe.mjs's snapshotKey), zeros up to a multiple of 16 bytes, then Pyodide's
// snapshot (which must start at a multiple of 4: Pyodide reads its header as 32-bit words).

const MAGIC = "PYVFSRT1";
const FIXED = MAGIC.length + 8;
const MAX_KEY = 4096;

// The file's bytes: `snapshot` (Pyodide's makeMemorySnapshot) under `key`.
export function wrapSnapshot(key, snapshot) {
  const keyBytes = new TextEncoder().encode(key);
  const start = Math.ceil((FIXED + keyBytes.length) / 16) * 16;
  const file = new Uint8Array(start + snapshot.byteLength);
  file.set(new TextEncoder().encode(MAGIC));
  const view = new DataView(file.buffer);
  view.setUint32(MAGIC.length, keyBytes.length, true);
  view.setUint32(MAGIC.length + 4, snapshot.byteLength, true);
  file.set(keyBytes, FIXED);
  file.set(snapshot, start);
  return file;
}

// Pyodide's snapshot inside `file` (a view, no copy) when the file is whole and made for `key`;
// throws saying why not otherwise.
export function unwrapSnapshot(file, key) {
  const text = (bytes) => new TextDecoder().decode(bytes);
  if (file.byteLength < FIXED || text(file.subarray(0, MAGIC.length)) !== MAGIC) {
    throw new Error("not a py_vfs runtime snapshot");
  }
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const keyLength = view.getUint32(MAGIC.length, true);
  const size = view.getUint32(MAGIC.length + 4, true);
  if (keyLength > MAX_KEY || FIXED + keyLength > file.byteLength) throw new Error("its header is damaged");
  const made = text(file.subarray(FIXED, FIXED + keyLength));
  if (made !== key) throw new Error(`made for another build (${made})`);
  const start = Math.ceil((FIXED + keyLength) / 16) * 16;
  if (file.byteLength - start !== size) throw new Error(`${file.byteLength - start} bytes of ${size}`);
  return file.subarray(start);
}
