// A chunked file's content, read by the early reader (web/page/early_reader.mjs) in the page,
// in the transaction that read the file's node record and the disk's revision: so the bytes
// are the ones that record names, whatever another tab commits meanwhile (a commit that drops
// the chunks waits for this read-only transaction to end).
//
// Every chunk is asked for at once; IndexedDB answers them one after another, and each is
// checked against its place in the file (CHUNK_SIZE bytes from i * CHUNK_SIZE, the last one
// shorter) and copied there as it arrives: one buffer of the file's size and one copy, the
// least an answer made of several IndexedDB values can cost.

import { request } from "../shared/idb.mjs";
import { CHUNK_SIZE } from "../shared/protocol.mjs";

// The largest file the early reader reads (it declines a larger one, which the worker then
// reads). Its transaction lasts until the last chunk is in, and meanwhile every commit to this
// disk, any tab's, waits: 256 MiB is about a second at the 220-350 MB/s IndexedDB gave 512 KiB
// chunks on a 2-core machine, about what writing as many bytes holds the disk for (W4 writes
// 32 MiB in about 110 ms). The worker reads a file one chunk per transaction, so commits go
// between. It is also below readFile's limit (2 GiB - 1, EFBIG), which the worker then reports.
export const PAGE_READ_MAX = 256 * 1024 * 1024;

// The bytes of a file of `size` bytes whose content is the chunks `keys` (docs/storage.md,
// "Chunks": CHUNK_SIZE each, the last one shorter), read in `tx`; null when the reader must
// not answer: a chunk is missing (Python's EIO), or the chunks are not what the record says
// (their number, a length, a value that is not bytes), which only a damaged disk has and Python
// then reports as it does.
export async function fileChunks(tx, keys, size) {
  if (keys.length !== Math.ceil(size / CHUNK_SIZE)) return null;
  if (keys.length === 1) {
    const piece = bytesOf(await request(tx.objectStore("chunks").get(keys[0])));
    return piece?.byteLength === size ? piece : null;
  }
  const out = new Uint8Array(size);
  const store = tx.objectStore("chunks");
  const copied = await Promise.all(keys.map((key, i) => request(store.get(key)).then((value) => {
    const piece = bytesOf(value);
    const at = i * CHUNK_SIZE;
    if (piece?.byteLength !== Math.min(CHUNK_SIZE, size - at)) return false;
    out.set(piece, at);
    return true;
  })));
  return copied.every(Boolean) ? out : null;
}

// A chunk record's bytes: a Uint8Array as the worker stores it (or an ArrayBuffer); null for
// anything else, a missing record included.
function bytesOf(value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return null;
}
