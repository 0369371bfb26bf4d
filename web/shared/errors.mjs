// The one error envelope of the protocol, {code, errno, syscall, path, dest, message, hint}
// (ERROR_FIELDS in py_vfs/web/protocol.py, which builds the same in Python): every reply that
// carries an error across a boundary has this shape (the worker's results, web/worker/fsa.mjs's and
// web/worker/idb_store.mjs's answers to Python, the page's answers to the worker's requests). The
// page turns it into a Node-style Error with `toError`.

import { ERRNO, ERROR_FIELDS } from "./protocol.mjs";

// An envelope; `extra` may give syscall, path, dest, hint. Absent fields are null.
export function failure(code, message, extra = {}) {
  const envelope = Object.fromEntries(ERROR_FIELDS.map((name) => [name, extra[name] ?? null]));
  return Object.assign(envelope, { code, errno: ERRNO[code] ?? null, message: message || code });
}

// The envelope of anything thrown: an Error that carries a POSIX `code` keeps it and its
// fields; anything else is `fallback` (EIO unless said).
export function envelopeOf(error, fallback = "EIO") {
  const code = typeof error?.code === "string" && error.code in ERRNO ? error.code : fallback;
  return failure(code, String(error?.message ?? error), error ?? {});
}

// A Node-style Error from an envelope: `code`, and errno, syscall, path, dest, hint when known.
export function toError({ code, message, path, dest, syscall, errno, hint }) {
  const error = new Error(message);
  error.code = code;
  if (hint) error.hint = hint;
  if (errno != null) error.errno = errno;
  if (syscall) error.syscall = syscall;
  if (path != null) error.path = path;
  if (dest != null) error.dest = dest;
  return error;
}

// An Error thrown from a fresh envelope: `fsError("EINVAL", "EINVAL: ...", {syscall})`.
export function fsError(code, message, extra) {
  return toError(failure(code, message, extra));
}
