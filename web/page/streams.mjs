// The JS API's stream sessions (web/api.mjs), one family for the eleven stream operations
// (py_vfs/web/streams.py is the worker's side): a session pulled from the worker one chunk per
// read (createReadStream, export), one pushed to it a chunk per call (writeFile with a stream,
// import), and a shell call's output and input streams.

import { CHUNK_SIZE } from "../shared/protocol.mjs";
import { abortError, throwIfAborted } from "./validate.mjs";

// A ReadableStream<Uint8Array> over a session the worker keeps: `open()` opens it (resolves to
// its id), each read asks `chunkOp` for the next piece (null: the end). cancel(), or `signal`
// aborting (the stream errors with an AbortError), closes it in the worker.
export function pulled(call, open, chunkOp, signal, strategy = undefined) {
  let id = null;
  const stop = () => {
    const opened = id;
    id = null;
    return opened === null ? undefined : call("closeStream", opened).then(() => undefined);
  };
  return new ReadableStream({
    async start(controller) {
      throwIfAborted(signal);
      id = await open();
      signal?.addEventListener("abort", () => {
        controller.error(abortError(signal));
        stop();
      }, { once: true });
    },
    async pull(controller) {
      if (id === null) return;
      const piece = await call(chunkOp, id);
      if (piece == null) {
        id = null;
        controller.close();
      } else if (id !== null) {
        controller.enqueue(piece);
      }
    },
    cancel: stop,
  }, strategy);
}

// Pushes `source` (a stream or async iterable of bytes or strings) to the session `id`, about
// one chunk per `chunkOp` call, then ends it with `finishOp`; on an error or `signal` aborting,
// the session is closed (nothing is made) and the error thrown.
export async function pushed(call, id, source, chunkOp, finishOp, signal) {
  try {
    for await (const piece of batches(source, CHUNK_SIZE)) {
      throwIfAborted(signal);
      await call(chunkOp, id, piece);
    }
    throwIfAborted(signal);
  } catch (error) {
    await call("closeStream", id).catch(() => {});
    throw error;
  }
  return call(finishOp, id);
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
async function* batches(source, size) {
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

// The bytes of `parts` as one Uint8Array (one part that spans its whole buffer is itself).
function concat(parts, length = parts.reduce((total, part) => total + part.byteLength, 0)) {
  if (parts.length === 1 && parts[0].byteLength === parts[0].buffer.byteLength) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

// The streams of a shell call (vfs.shell with onOutput or input). Output: bytes per stream,
// decoded as UTF-8 across pieces (a character split between two pieces comes out whole),
// handed to `onOutput(stream, text)`. Input: each time the command wants more, `input({raw})`
// is asked (raw: the command wants the keys as typed, not a line) and its answer posted (as
// UTF-8 bytes; null, also once the signal aborts, ends the input).
function aborted(signal) {
  return new Promise((resolve) => signal?.addEventListener("abort", () => resolve(null), { once: true }));
}

export class ShellStreams {
  constructor(onOutput, input, signal) {
    this.onOutput = onOutput;
    this.input = input;
    this.signal = signal;
    this.decoders = {};
  }
  async wanted(post, raw = false) {
    let data = null;
    try {
      if (this.input && !this.signal?.aborted) data = await Promise.race([this.input({ raw }), aborted(this.signal)]);
    } catch {
      data = null;
    }
    post(typeof data === "string" ? new TextEncoder().encode(data) : data ?? null);
  }
  output(stream, data) {
    if (!this.onOutput) return;
    const decoder = (this.decoders[stream] ??= new TextDecoder());
    const text = decoder.decode(data, { stream: true });
    if (text) this.onOutput(stream, text);
  }
  end() {
    if (!this.onOutput) return;
    for (const [stream, decoder] of Object.entries(this.decoders)) {
      const text = decoder.decode();
      if (text) this.onOutput(stream, text);
    }
  }
}
