// node:fs/promises' FileHandle (vfs.open) and Dir (vfs.opendir) over the JS API's calls. A
// FileHandle is a descriptor the worker keeps (py_vfs/web/file_handles.py: its position, its
// pending writes, durable at sync() and close()); every method here is one or a few calls on
// it. A Dir is a directory's listing, read once when it opens and handed out one entry at a time.
// The streams are Web streams (ReadableStream, WritableStream), not Node's.

import { fsError } from "../shared/errors.mjs";
import { CHUNK_SIZE, ENCODINGS } from "../shared/protocol.mjs";
import { bytesToText, textToBytes } from "./encodings.mjs";
import { Stats } from "./entries.mjs";
import { checkEncoding, invalidArgType, invalidArgValue, KINDS } from "./validate.mjs";

const READ_SIZE = 16384; // read() without a buffer allocates this many bytes, as Node's
const asyncDispose = Symbol.asyncDispose ?? Symbol.for("nodejs.asyncDispose");

// The encoding an options argument names (a string is one), null for none: every encoding the
// path calls take (web/page/encodings.mjs converts the text in the page).
function encoding(value) {
  return checkEncoding(typeof value === "string" ? value : value?.encoding);
}

// `text` as bytes in `name` (utf8 when null).
function encoded(text, name) {
  return textToBytes(text, name ?? "utf8");
}

function bytesOf(data, name = "buffer") {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw invalidArgType(name, "an instance of Buffer, TypedArray, or DataView", data);
}

function outOfRange(name, range, value) {
  const error = new RangeError(`The value of "${name}" is out of range. It must be ${range}. Received ${value}`);
  error.code = "ERR_OUT_OF_RANGE";
  return error;
}

// [offset, length] within `bytes` (defaults: 0, the rest), or Node's ERR_OUT_OF_RANGE.
function span(bytes, offset, length) {
  const start = offset ?? 0;
  if (!Number.isInteger(start) || start < 0 || start > bytes.byteLength) {
    throw outOfRange("offset", `>= 0 && <= ${bytes.byteLength}`, start);
  }
  const count = length ?? bytes.byteLength - start;
  if (!Number.isInteger(count) || count < 0 || count > bytes.byteLength - start) {
    throw outOfRange("length", `>= 0 && <= ${bytes.byteLength - start}`, count);
  }
  return [start, count];
}

// A number position, or null for the handle's own (Node: null, undefined, -1 or a bigint -1).
function position(value) {
  if (value == null || value === -1) return null;
  if (typeof value === "bigint") return Number(value);
  if (!Number.isInteger(value)) throw invalidArgType("position", "of type number", value);
  return value;
}

// Node's FileHandle: `call(op, ...args)` is the JS API's call, `fd` the worker's descriptor.
export class FileHandle {
  #call;
  #fd;
  constructor(call, fd) {
    this.#call = call;
    this.#fd = fd;
  }
  get fd() { return this.#fd; }
  // Node's "file closed" EBADF for any call on a closed handle, with the call's syscall.
  #on(op, syscall, ...args) {
    if (this.#fd === -1) {
      return Promise.reject(fsError("EBADF", "file closed", { syscall }));
    }
    return this.#call(op, this.#fd, ...args);
  }
  async read(buffer, offset, length, at) {
    if (buffer != null && !ArrayBuffer.isView(buffer) && typeof buffer === "object") {
      ({ buffer, offset, length, position: at } = buffer);
    } else if (offset != null && typeof offset === "object") {
      ({ offset, length, position: at } = offset);
    }
    const target = buffer == null ? new Uint8Array(READ_SIZE) : bytesOf(buffer);
    const [start, want] = span(target, offset, length);
    const bytes = want === 0 && this.#fd !== -1 ? new Uint8Array(0) : await this.#on("fileRead", "read", want, position(at));
    target.set(bytes, start);
    return { bytesRead: bytes.byteLength, buffer: buffer ?? target };
  }
  async write(data, offset, length, at) {
    if (typeof data === "string") {
      // Node's write(string, position, encoding) writes UTF-8 for a name it does not know, and
      // refuses hex text of an odd length (its writeFile cuts the last digit).
      const lower = typeof length === "string" ? length.toLowerCase() : null;
      const name = ENCODINGS.includes(lower) ? lower : null;
      if (name === "hex" && data.length % 2 !== 0) {
        throw invalidArgValue("encoding", length, `is invalid for data of length ${data.length}`);
      }
      const bytes = encoded(data, name);
      const written = await this.#on("fileWrite", "write", bytes, position(offset));
      return { bytesWritten: written, buffer: data };
    }
    const bytes = bytesOf(data);
    if (offset != null && typeof offset === "object") ({ offset, length, position: at } = offset);
    const [start, count] = span(bytes, offset, length);
    const written = await this.#on("fileWrite", "write", bytes.slice(start, start + count), position(at));
    return { bytesWritten: written, buffer: data };
  }
  // readv/writev: each buffer in turn, from `at` (else the handle's position); a read stops
  // at the end of the file.
  async readv(buffers, at = null) {
    return { bytesRead: await this.#each(buffers, at, (b, where) => this.read(b, 0, undefined, where), "bytesRead"), buffers };
  }
  async writev(buffers, at = null) {
    return { bytesWritten: await this.#each(buffers, at, (b, where) => this.write(b, 0, undefined, where), "bytesWritten"), buffers };
  }
  async #each(buffers, at, one, field) {
    let total = 0;
    let where = position(at);
    for (const buffer of buffers) {
      const done = (await one(buffer, where))[field];
      total += done;
      if (where !== null) where += done;
      if (done < bytesOf(buffer).byteLength) break;
    }
    return total;
  }
  // The rest of the file from the handle's position.
  async readFile(options) {
    const text = encoding(options);
    if (this.#fd === -1) throw fsError("EBADF", "file closed", { syscall: "read" });
    const pieces = [];
    for (;;) {
      const piece = await this.#on("fileRead", "read", CHUNK_SIZE, null);
      if (piece.byteLength === 0) break;
      pieces.push(piece);
    }
    const whole = new Uint8Array(pieces.reduce((n, piece) => n + piece.byteLength, 0));
    let at = 0;
    for (const piece of pieces) { whole.set(piece, at); at += piece.byteLength; }
    return text ? bytesToText(whole, text) : whole;
  }
  // From the handle's position (an "a" handle: at the end), as Node's.
  async writeFile(data, options) {
    const bytes = typeof data === "string" ? encoded(data, encoding(options)) : bytesOf(data, "data");
    if (this.#fd === -1) throw fsError("EBADF", "file closed", { syscall: "write" });
    // Nothing to write is no write, as Node's (even on a handle not open to write).
    for (let at = 0; at < bytes.byteLength; at += CHUNK_SIZE) {
      await this.#on("fileWrite", "write", bytes.subarray(at, at + CHUNK_SIZE), null);
    }
  }
  appendFile(data, options) { return this.writeFile(data, options); }
  truncate(len = 0) { return this.#on("fileTruncate", "ftruncate", len).then(() => undefined); }
  async stat(options) {
    if (options?.bigint) throw invalidArgType("options.bigint", "false (no bigint stats here)", true);
    return new Stats(await this.#on("fileStat", "fstat"));
  }
  chmod(mode) { return this.#on("fileChmod", "fchmod", mode).then(() => undefined); }
  utimes(atime, mtime) { return this.#on("fileUtimes", "futime", atime, mtime).then(() => undefined); }
  // The handle's pending writes reach the disk: durable when this resolves.
  sync() { return this.#on("fileSync", "fsync").then(() => undefined); }
  datasync() { return this.#on("fileSync", "fdatasync").then(() => undefined); }
  // Commits the pending writes (durable when it resolves) and frees the descriptor; closing a
  // closed handle resolves, as Node's.
  async close() {
    if (this.#fd === -1) return;
    const fd = this.#fd;
    this.#fd = -1;
    await this.#call("fileClose", fd);
  }
  [asyncDispose]() { return this.close(); }
  // An async iterable of the lines from the handle's position (no line ends; "\r\n" is one);
  // the handle is closed at the end, as Node's (its autoClose).
  async *readLines() {
    const decoder = new TextDecoder();
    let rest = "";
    try {
      for await (const piece of this.readableWebStream()) {
        rest += decoder.decode(piece, { stream: true });
        const lines = rest.split(/\r?\n/);
        rest = lines.pop();
        yield* lines;
      }
      rest += decoder.decode();
      if (rest) yield rest;
    } finally {
      await this.close();
    }
  }
  // A ReadableStream<Uint8Array> of the bytes from the handle's position, a chunk per pull.
  readableWebStream() {
    return this.#stream(null, Infinity);
  }
  // A ReadableStream<Uint8Array> of the bytes from `start` to `end` (inclusive, as Node's), or
  // from the handle's position when no `start`.
  createReadStream({ start, end = Infinity } = {}) {
    return this.#stream(start ?? null, end === Infinity ? Infinity : end + 1);
  }
  #stream(start, end) {
    let at = start;
    return new ReadableStream({
      pull: async (controller) => {
        const want = Math.min(CHUNK_SIZE, at === null ? CHUNK_SIZE : end - at);
        const piece = want > 0 ? await this.#on("fileRead", "read", want, at) : new Uint8Array(0);
        if (piece.byteLength === 0) return controller.close();
        if (at !== null) at += piece.byteLength;
        controller.enqueue(piece);
      },
    }, { highWaterMark: 0 });
  }
  // A WritableStream of bytes or text written from `start` (else the handle's position).
  createWriteStream({ start } = {}) {
    let at = start ?? null;
    return new WritableStream({
      write: async (piece) => {
        const { bytesWritten } = typeof piece === "string" ? await this.write(piece, at) : await this.write(piece, 0, undefined, at);
        if (at !== null) at += bytesWritten;
      },
      close: () => this.sync(),
    });
  }
}

// Node's Dir: the entries of `path` as Dirents, one per read(), then null.
export class Dir {
  #entries;
  #closed = false;
  constructor(path, entries) {
    this.path = path;
    this.#entries = entries;
  }
  #open() {
    if (this.#closed) {
      const error = new Error("Directory handle was closed");
      error.code = "ERR_DIR_CLOSED";
      throw error;
    }
  }
  async read() {
    this.#open();
    return this.#entries.shift() ?? null;
  }
  async close() {
    this.#open();
    this.#closed = true;
  }
  async *[Symbol.asyncIterator]() {
    try {
      for (let entry = await this.read(); entry; entry = await this.read()) yield entry;
    } finally {
      if (!this.#closed) await this.close();
    }
  }
}

// opendir(path): `readdir(path)`'s Dirents, read now, with Node's opendir errors.
export async function openDir(readdir, path) {
  const text = KINDS.path(path, "path");
  try {
    return new Dir(text, await readdir(text));
  } catch (error) {
    if (error.syscall !== "scandir") throw error;
    throw fsError(error.code, error.message.replace(", scandir ", ", opendir "), { syscall: "opendir", path: error.path });
  }
}
