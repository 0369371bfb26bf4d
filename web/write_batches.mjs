// Feeding a stream to the worker: a ReadableStream (or any async iterable) of bytes or strings,
// joined into messages of about one chunk (web/api.mjs, writeFile with a stream).

export function isStream(data) {
  return data != null && typeof data === "object" &&
    (typeof data.getReader === "function" || typeof data[Symbol.asyncIterator] === "function");
}

function toBytes(piece) {
  if (typeof piece === "string") return new TextEncoder().encode(piece);
  if (piece instanceof Uint8Array) return piece;
  if (piece instanceof ArrayBuffer) return new Uint8Array(piece);
  if (ArrayBuffer.isView(piece)) return new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength);
  throw new TypeError(`stream chunks must be bytes or strings, not ${Object.prototype.toString.call(piece)}`);
}

async function* piecesOf(source) {
  if (typeof source.getReader !== "function") {
    yield* source;
    return;
  }
  const reader = source.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

// Joins a stream's pieces, whatever their sizes, into messages of about `size` bytes: one round
// trip to the worker per chunk, not per piece.
export async function* batches(source, size) {
  let parts = [];
  let length = 0;
  for await (const piece of piecesOf(source)) {
    const bytes = toBytes(piece);
    parts.push(bytes);
    length += bytes.byteLength;
    if (length >= size) {
      yield concat(parts, length);
      parts = [];
      length = 0;
    }
  }
  if (length) yield concat(parts, length);
}

function concat(parts, length) {
  if (parts.length === 1 && parts[0].byteLength === parts[0].buffer.byteLength) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

