// The runtime snapshot the build ships beside Pyodide (build/snapshot.mjs, docs/boot.md): a file
// that names the build it belongs to, so the worker never restores one of another build (a
// stale HTTP cache, a deployment that mixed two builds' files), and leaves out the snapshot's
// blocks of zeros (a third of it: the wasm memory's free pages), which a boot would otherwise
// read from the HTTP cache before Python can start.
//
// Layout: "PYVFSRT2", the key's byte length and the snapshot's (two little-endian u32), the key
// (UTF-8, snapshot_recipe.mjs's snapshotKey), zeros up to a multiple of 16 bytes; then a map of
// the snapshot's BLOCK-byte blocks, a bit each (bit i % 8 of byte i / 8: set when block i is
// stored, clear when it is all zeros), zeros up to a multiple of 16 bytes; then the stored
// blocks in order (the last block of the snapshot is shorter when its size is not a multiple).

const MAGIC = "PYVFSRT2";
const FIXED = MAGIC.length + 8;
const MAX_KEY = 4096;
const BLOCK = 65536;

const padded = (length) => Math.ceil(length / 16) * 16;

// Where block `i` of a snapshot of `size` bytes starts, and its length.
const blockOf = (i, size) => [i * BLOCK, Math.min(BLOCK, size - i * BLOCK)];

const isZero = (bytes) => {
  const words = bytes.byteLength % 4 === 0 && bytes.byteOffset % 4 === 0
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) : bytes;
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
  return true;
};

// The file's bytes: `snapshot` (Pyodide's makeMemorySnapshot) under `key`.
export function wrapSnapshot(key, snapshot) {
  const keyBytes = new TextEncoder().encode(key);
  const blocks = Math.ceil(snapshot.byteLength / BLOCK);
  const map = new Uint8Array(Math.ceil(blocks / 8));
  let stored = 0;
  for (let i = 0; i < blocks; i++) {
    const [at, length] = blockOf(i, snapshot.byteLength);
    if (isZero(snapshot.subarray(at, at + length))) continue;
    map[i >> 3] |= 1 << (i & 7);
    stored += length;
  }
  const mapAt = padded(FIXED + keyBytes.length);
  const dataAt = mapAt + padded(map.byteLength);
  const file = new Uint8Array(dataAt + stored);
  file.set(new TextEncoder().encode(MAGIC));
  const view = new DataView(file.buffer);
  view.setUint32(MAGIC.length, keyBytes.length, true);
  view.setUint32(MAGIC.length + 4, snapshot.byteLength, true);
  file.set(keyBytes, FIXED);
  file.set(map, mapAt);
  let out = dataAt;
  for (let i = 0; i < blocks; i++) {
    if (!(map[i >> 3] & (1 << (i & 7)))) continue;
    const [at, length] = blockOf(i, snapshot.byteLength);
    file.set(snapshot.subarray(at, at + length), out);
    out += length;
  }
  return file;
}

// Pyodide's snapshot, made whole again from `file` when the file is whole and made for `key`;
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
  const blocks = Math.ceil(size / BLOCK);
  const mapAt = padded(FIXED + keyLength);
  const dataAt = mapAt + padded(Math.ceil(blocks / 8));
  if (dataAt > file.byteLength) throw new Error(`${file.byteLength} bytes, its map ends at ${dataAt}`);
  const map = file.subarray(mapAt, mapAt + Math.ceil(blocks / 8));
  let stored = 0;
  for (let i = 0; i < blocks; i++) if (map[i >> 3] & (1 << (i & 7))) stored += blockOf(i, size)[1];
  if (file.byteLength - dataAt !== stored) throw new Error(`${file.byteLength - dataAt} bytes of ${stored}`);
  const snapshot = new Uint8Array(size);
  let from = dataAt;
  for (let i = 0; i < blocks; i++) {
    if (!(map[i >> 3] & (1 << (i & 7)))) continue;
    const [at, length] = blockOf(i, size);
    snapshot.set(file.subarray(from, from + length), at);
    from += length;
  }
  return snapshot;
}
