// The sha256 of a big write's chunks, computed by the VFS worker (web/worker/worker.mjs) before
// the write reaches Python.

import { CHUNK_SIZE, OPS } from "../shared/protocol.mjs";

// A whole-file write of more than a chunk comes with its chunks' sha256, computed here by
// WebCrypto (native, in parallel) instead of by Python in wasm: about 7x faster, and that was
// the largest single cost of writing a big file (docs/architecture.md, "Large writes"). Where
// WebCrypto is missing (a page not in a secure context) or fails, Python hashes as before.
// The digests go in writeFile's options, as "digests" (py_vfs/web/webapi.py reads them there).
// Python trusts them, so digests a caller sent itself (a view's port posts raw messages) are
// dropped first: only the worker's own reach it (py_vfs/web/arguments.py refuses them in a step).
const OPTIONS_AT = OPS.writeFile.args.findIndex(([, kind]) => kind === "options");
export async function withDigests(op, given) {
  if (op !== "writeFile") return given;
  const args = withoutDigests(given);
  const data = args[OPS.writeFile.content];
  const subtle = globalThis.crypto?.subtle;
  if (!subtle || !(data instanceof Uint8Array) || data.byteLength <= CHUNK_SIZE) return args;
  const pieces = [];
  for (let start = 0; start < data.byteLength; start += CHUNK_SIZE) {
    pieces.push(subtle.digest("SHA-256", data.subarray(start, start + CHUNK_SIZE)).then(hex));
  }
  try {
    const digests = await Promise.all(pieces);
    const sent = [...args];
    sent[OPTIONS_AT] = { ...(args[OPTIONS_AT] ?? {}), digests };
    return sent;
  } catch {
    return args;
  }
}

export function withoutDigests(args) {
  const options = args[OPTIONS_AT];
  if (options === null || typeof options !== "object" || !("digests" in options)) return args;
  const { digests, ...rest } = options;
  const sent = [...args];
  sent[OPTIONS_AT] = rest;
  return sent;
}

function hex(digest) {
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
