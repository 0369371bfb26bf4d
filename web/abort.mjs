// AbortSignal for every method of the JS API (docs/api.md, "Cancelling a call"). A method takes
// `{signal}` in its options object, or, when it has none, as one more last argument. An already
// aborted signal rejects at once with Node's AbortError and nothing reaches the worker. Once the
// call is sent, aborting posts {type: "cancel", id} to the worker (py_vfs/web/protocol.py,
// CALL_SIGNAL): the call stops at its next safe point, changing nothing, and rejects with the
// same AbortError; a call that finished before the cancel reached it resolves as usual.

import { OPS } from "./protocol.mjs";
import { invalidArgType } from "./validate.mjs";

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
