// The page's argument checks: a call whose arguments Node's fs/promises would refuse rejects
// here, in the page, as Node's does (a TypeError with code ERR_INVALID_ARG_TYPE, ...), before
// anything is sent to the worker; and an option we cannot honour (an encoding, a flag, a key)
// is refused rather than ignored. The arguments and options of each operation are declared in
// py_vfs/web/protocol.py (protocol.mjs, which the build generates beside this module).

import { ENCODINGS, MAX_WRITER, OPEN_FLAGS, OPS } from "../shared/protocol.mjs";

// How Node describes a received value at the end of its argument errors.
export function received(value) {
  if (value == null) return ` Received ${value}`;
  if (typeof value === "function") return ` Received function ${value.name || "<anonymous>"}`;
  if (typeof value === "object") {
    return value.constructor?.name ? ` Received an instance of ${value.constructor.name}` : " Received [object]";
  }
  let shown = String(value).slice(0, 25);
  if (typeof value === "string") shown = `'${shown}'`;
  return ` Received type ${typeof value} (${shown})`;
}

function nodeError(Kind, code, message) {
  const error = new Kind(message);
  error.code = code;
  return error;
}

export function invalidArgType(name, expected, value) {
  const what = name.includes(".") ? `"${name}" property` : `"${name}" argument`;
  return nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The ${what} must be ${expected}.${received(value)}`);
}

export function invalidArgValue(name, value, reason = "is invalid") {
  const shown = typeof value === "string" ? `'${value.replaceAll("\0", "\\x00")}'` : JSON.stringify(value);
  return nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument '${name}' ${reason}. Received ${shown}`);
}

// A path as Node takes one: a string, the bytes of one (a Uint8Array, as Node's Buffer), or a
// URL of scheme file: (its decoded pathname). Returns the string, or throws Node's error.
function pathText(value, name) {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof URL || (value?.href && value?.protocol && value.auth === undefined && value.path === undefined)) {
    if (value.protocol !== "file:") throw nodeError(TypeError, "ERR_INVALID_URL_SCHEME", "The URL must be of scheme file");
    if (value.hostname !== "") throw nodeError(TypeError, "ERR_INVALID_FILE_URL_HOST", 'File URL host must be "localhost" or empty on linux');
    if (/%2f/i.test(value.pathname)) throw nodeError(TypeError, "ERR_INVALID_FILE_URL_PATH", "File URL path must not include encoded / characters");
    return decodeURIComponent(value.pathname);
  }
  throw invalidArgType(name, "of type string or an instance of Buffer or URL", value);
}

// An option or value Node knows that py_vfs does not honour.
function unsupported(name, value) {
  return invalidArgValue(name, value, "is not supported by py_vfs (docs/api.md)");
}

function isContent(value) {
  return typeof value === "string" || ArrayBuffer.isView(value);
}

// A writer's name, as py_vfs/disk/writers.py's check_writer takes it: 1 to MAX_WRITER printable
// characters, no space at either end.
export function checkWriter(value, name) {
  if (typeof value !== "string") throw invalidArgType(name, "of type string", value);
  if (value.length === 0 || value.length > MAX_WRITER || value !== value.trim() || /[\x00-\x1f\x7f]/.test(value)) {
    throw invalidArgValue(name, value, `must be 1 to ${MAX_WRITER} printable characters without spaces at either end`);
  }
  return value;
}

// A moment of the journal: a Date becomes ms since 1970; ms and ISO text pass as they are.
function when(value, name) {
  if (value instanceof Date) return value.getTime();
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "string") return value;
  throw invalidArgType(name, "an instance of Date, a number of ms or an ISO 8601 string", value);
}

// Each kind's check; returns the value to send (normalized) or throws.
export const KINDS = {
  path(value, name) {
    const text = pathText(value, name);
    if (text.includes("\0")) throw invalidArgValue(name, text, "must be a string, Uint8Array, or URL without null bytes");
    return text;
  },
  content(value, name) {
    if (!isContent(value)) throw invalidArgType(name, "of type string or an instance of TypedArray or DataView", value);
    // Any view becomes bytes (no copy): Python receives bytes of a Uint8Array.
    return typeof value === "string" || value instanceof Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  },
  number(value, name) {
    if (typeof value !== "number" || Number.isNaN(value)) throw invalidArgType(name, "of type number", value);
    return value;
  },
  string(value, name) {
    if (typeof value !== "string") throw invalidArgType(name, "of type string", value);
    return value;
  },
  bool(value, name) {
    if (typeof value !== "boolean") throw invalidArgType(name, "of type boolean", value);
    return value;
  },
  mode(value, name) {
    if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffffffff) return value;
    if (typeof value === "string" && /^[0-7]+$/.test(value)) return parseInt(value, 8);
    if (typeof value === "number" || typeof value === "string") {
      throw invalidArgValue(name, value, "must be a 32-bit unsigned integer or an octal string");
    }
    throw invalidArgType(name, "of type number", value);
  },
  // Node's utimes takes a Date, seconds, or a numeric string; the core keeps milliseconds.
  time(value, name) {
    if (value instanceof Date) return value.getTime();
    if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value) * 1000;
    if (typeof value === "number" && Number.isFinite(value)) return value * 1000;
    throw invalidArgType(name, "an instance of Date or a time in seconds", value);
  },
  copymode(value, name) {
    if (value == null) return 0;
    if (!Number.isInteger(value)) throw invalidArgType(name, "int32 or null/undefined", value);
    if (value < 0 || value > 7) throw nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "${name}" is out of range. It must be >= 0 && <= 7.${received(value)}`);
    return value;
  },
  linktype(value) {
    if (value != null && !["dir", "file", "junction"].includes(value)) {
      throw nodeError(Error, "ERR_FS_INVALID_SYMLINK_TYPE", `Symlink type must be one of "dir", "file", or "junction". Received "${value}"`);
    }
    return null; // the type only matters on Windows
  },
  any(value) {
    return value;
  },
  writer: checkWriter,
  // A state of the disk (diff, restore): a snapshot name, a revision, {revision} or {before}.
  state(value, name) {
    if (typeof value === "string" || (typeof value === "number" && Number.isInteger(value))) return value;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      if ("before" in value) return { before: when(value.before, `${name}.before`) };
      if (Number.isInteger(value.revision)) return { revision: value.revision };
    }
    throw invalidArgType(name, "a snapshot name, a revision, {revision} or {before}", value);
  },
};

// The calls that take every flag of Node's (py_vfs/web/open_flags.py); openWrite takes "w" only.
const ANY_FLAG = new Set(["readFile", "writeFile", "appendFile"]);

// Option kinds beyond the argument kinds: which values of a Node option we honour.
// open()'s flags, as Node checks them: one of its strings or an int32 of O_* bits.
export function checkFlags(value) {
  return OPTION_KINDS.flag(value, "flags", "readFile");
}

// An encoding of Node's Buffer (its name in lower case), or null; Node's ERR_INVALID_ARG_VALUE
// for another (a FileHandle's text: web/page/encodings.mjs).
export function checkEncoding(value) {
  return OPTION_KINDS.encoding(value ?? null);
}

const OPTION_KINDS = {
  ...KINDS,
  encoding(value) {
    if (value === null) return null;
    const lower = typeof value === "string" ? value.toLowerCase() : value;
    if (ENCODINGS.includes(lower)) return lower;
    throw invalidArgValue("encoding", value, "is invalid encoding");
  },
  utf8(value, name) {
    if (value == null) return value;
    if (typeof value === "string" && ["utf8", "utf-8"].includes(value.toLowerCase())) return "utf8";
    throw unsupported(name, value);
  },
  flag(value, name, op) {
    if (!ANY_FLAG.has(op)) {
      if (value !== "w") throw unsupported(name, value);
      return value;
    }
    if (Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) return value;
    if (typeof value === "string" && Object.hasOwn(OPEN_FLAGS, value)) return value;
    if (typeof value === "string") throw invalidArgValue("flags", value);
    throw invalidArgType("flags", "of type string or number", value);
  },
  truthy(value) {
    return Boolean(value);
  },
  when,
  strings(value, name) {
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      throw invalidArgType(name, "an array of strings", value);
    }
    return value;
  },
  false(value, name) {
    if (value) throw unsupported(name, value);
    return value;
  },
};

function checkOptions(op, value, spec) {
  if (value == null) return undefined;
  if (typeof value === "string" && "encoding" in spec) value = { encoding: value };
  else if (op === "mkdir" && (typeof value === "number" || typeof value === "string")) value = { mode: value };
  else if (typeof value !== "object" || Array.isArray(value)) throw invalidArgType("options", "of type object", value);
  const out = {};
  for (const [key, option] of Object.entries(value)) {
    if (option === undefined) continue;
    const kind = spec[key];
    if (!kind) throw unsupported(`options.${key}`, option);
    out[key] = OPTION_KINDS[kind](option, `options.${key}`, op);
  }
  return out;
}

// The arguments of `op` as they go to the worker, or throws Node's error for the first bad one.
// Trailing optional arguments left undefined are dropped (Python's defaults apply).
export function checkCall(op, args) {
  const spec = OPS[op];
  if (!spec) throw invalidArgValue("op", op, "is not an operation of py_vfs");
  const out = [];
  spec.args.forEach(([name, kind, optional], i) => {
    const value = args[i];
    if (kind === "options") out.push(checkOptions(op, value, spec.options));
    else if (value == null && optional) out.push(undefined);
    else out.push(KINDS[kind](value, name));
  });
  while (out.length && out[out.length - 1] === undefined) out.pop();
  return out;
}

// AbortSignal for every method of the JS API (docs/api.md, "Cancelling a call"). A method takes
// `{signal}` in its options object, or, when it has none, as one more last argument. An already
// aborted signal rejects at once with Node's AbortError and nothing reaches the worker. Once the
// call is sent, aborting posts {type: "cancel", id} to the worker (py_vfs/web/protocol.py,
// CALL_SIGNAL): the call stops at its next safe point, changing nothing, and rejects with the
// same AbortError; a call that finished before the cancel reached it resolves as usual.

// Node's AbortError (the one node:fs/promises rejects with): name "AbortError", code
// "ABORT_ERR", the signal's reason as its cause.
export class AbortError extends Error {
  constructor(message = "The operation was aborted", options = undefined) {
    super(message, options);
    this.name = "AbortError";
    this.code = "ABORT_ERR";
  }
}

export function abortError(signal, hint) {
  const error = new AbortError(undefined, { cause: signal?.reason });
  if (hint) error.hint = hint;
  return error;
}

// Throws the AbortError when `signal` is aborted.
export function throwIfAborted(signal) {
  if (signal?.aborted) throw abortError(signal);
}

// The signal of a call, checked as Node checks it (undefined, or an AbortSignal).
export function checkSignal(signal, name = "options.signal") {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgType(name, "an instance of AbortSignal", signal);
  }
  return signal;
}

function hasSignal(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && "signal" in value
    && !ArrayBuffer.isView(value);
}

// {args, signal}: the arguments of `op` (as the method got them) without the signal, and the
// signal: from the options argument the operation declares (py_vfs/web/protocol.py), else from one
// more argument after the declared ones.
export function takeSignal(op, args) {
  const declared = OPS[op]?.args ?? [];
  const at = declared.findIndex(([, kind]) => kind === "options");
  if (at >= 0) {
    if (!hasSignal(args[at])) return { args, signal: undefined };
    const { signal, ...rest } = args[at];
    const without = [...args];
    without[at] = rest;
    return { args: without, signal: checkSignal(signal) };
  }
  const extra = args[declared.length];
  if (!hasSignal(extra)) return { args, signal: undefined };
  return { args: args.slice(0, declared.length), signal: checkSignal(extra.signal) };
}

// A ReadableStream or any async iterable (writeFile's data, import's source): sent on in pieces
// (web/page/streams.mjs).
export function isStream(data) {
  return data != null && typeof data === "object" &&
    (typeof data.getReader === "function" || typeof data[Symbol.asyncIterator] === "function");
}
