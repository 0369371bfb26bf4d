// The JS half of a mounted browser folder (py_vfs/mounts/fsa.py calls these from Python).
// Every function takes the folder's root FileSystemDirectoryHandle and a path inside it as an
// array of names, does the whole handle walk in one go (one Python->JS crossing per operation),
// and never rejects: it resolves to {value} or the protocol's error envelope (web/shared/errors.mjs,
// {code, errno, message, ...}), with the DOMException mapped to a POSIX code (docs/mounts.md, "Error mapping"). No entry, listing or content is cached: every
// call asks the folder again, so changes made outside the VFS show at once. Only the directory
// handles met on the way are kept (see dirAt): a handle is a path, not an inode.

import { failure } from "../shared/errors.mjs";

// Handle operations done so far, by kind: tests read them to prove what an operation touched
// (mounting a folder of 5,000 files must not list it).
const counts = { lookups: 0, listings: 0, listed: 0, files: 0, writes: 0, removes: 0, moves: 0 };

export function counters() {
  return { ...counts };
}

class Coded extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

// `expect` says what the caller asked for, which decides the code of a TypeMismatchError (a
// file where a directory was needed: ENOTDIR; the reverse: EISDIR) and of a
// NoModificationAllowedError (an entry in use: EBUSY; a folder that refuses changes: EROFS).
function codeOf(error, expect) {
  if (error instanceof Coded) return error.code;
  switch (error?.name) {
    case "NotFoundError": return "ENOENT";
    case "TypeMismatchError": return expect === "file" ? "EISDIR" : "ENOTDIR";
    case "NotAllowedError":
    case "SecurityError": return "EACCES";
    case "InvalidModificationError": return "ENOTEMPTY";
    case "NoModificationAllowedError": return expect === "entry" ? "EBUSY" : "EROFS";
    case "QuotaExceededError": return "ENOSPC";
    case "TypeError": return "EINVAL"; // "Name is not allowed."
    default: return "EIO";
  }
}

// Directory handles by root and path ("a/b"), to save the walk from the root on every call.
// In Chromium a handle locates its entry by path at each use (a directory removed and made
// again is seen through the old handle; measured), so a kept handle answers as a new walk
// would, except that a name that is no longer a directory fails differently: any ENOENT,
// ENOTDIR or EISDIR met with kept handles is asked again after forgetting them.
const dirs = new WeakMap();
const MAX_KEPT = 10000;
const WALK_ERRORS = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

function keptDirs(root) {
  let kept = dirs.get(root);
  if (!kept || kept.size > MAX_KEPT) dirs.set(root, kept = new Map());
  return kept;
}

async function answer(work, expect, root) {
  for (let attempt = 0; ; attempt++) {
    const walked = root !== undefined && keptDirs(root).size > 0;
    try {
      return { value: await work() };
    } catch (error) {
      const code = codeOf(error, expect);
      if (attempt === 0 && walked && WALK_ERRORS.has(code)) {
        dirs.delete(root);
        continue;
      }
      return failure(code, String(error?.message ?? error));
    }
  }
}

async function child(dir, name, kind, create = false) {
  counts.lookups++;
  return kind === "file" ? dir.getFileHandle(name, { create }) : dir.getDirectoryHandle(name, { create });
}

// The directory at `rel`, from the deepest kept handle on the way: a file on the way is ENOTDIR.
async function dirAt(root, rel) {
  const kept = keptDirs(root);
  let depth = rel.length;
  let dir;
  while (depth > 0 && !(dir = kept.get(rel.slice(0, depth).join("/")))) depth--;
  dir ??= root;
  for (let i = depth; i < rel.length; i++) {
    try {
      dir = await child(dir, rel[i], "directory");
    } catch (error) {
      throw error?.name === "TypeMismatchError" ? new Coded("ENOTDIR") : error;
    }
    kept.set(rel.slice(0, i + 1).join("/"), dir);
  }
  return dir;
}

// The entry at `rel` (not the root): {parent, name, handle} with handle.kind.
async function entryAt(root, rel) {
  const parent = await dirAt(root, rel.slice(0, -1));
  const name = rel[rel.length - 1];
  try {
    return { parent, name, handle: await child(parent, name, "file") };
  } catch (error) {
    if (error?.name !== "TypeMismatchError") throw error;
    return { parent, name, handle: await child(parent, name, "directory") };
  }
}

async function fileAt(root, rel) {
  if (!rel.length) throw new Coded("EISDIR");
  const parent = await dirAt(root, rel.slice(0, -1));
  return child(parent, rel[rel.length - 1], "file");
}

async function fileInfo(handle) {
  counts.files++;
  const file = await handle.getFile();
  return { file, size: file.size, mtime: file.lastModified };
}

async function describe(name, handle, detail) {
  if (handle.kind !== "file") return { name, kind: "directory", size: 0, mtime: undefined };
  if (!detail) return { name, kind: "file", size: 0, mtime: undefined };
  const { size, mtime } = await fileInfo(handle);
  return { name, kind: "file", size, mtime };
}

export function stat(root, rel) {
  return answer(async () => {
    if (!rel.length) return { kind: "directory", size: 0, mtime: undefined };
    const { handle } = await entryAt(root, rel);
    return describe(rel[rel.length - 1], handle, true);
  }, "directory", root);
}

// The entries of a directory; with `detail`, sizes and mtimes too (one getFile per file, all
// in flight at once).
export function list(root, rel, detail) {
  return answer(async () => {
    const dir = await dirAt(root, rel);
    counts.listings++;
    const found = [];
    for await (const [name, handle] of dir.entries()) {
      counts.listed++;
      found.push(describe(name, handle, detail));
    }
    return Promise.all(found);
  }, "directory", root);
}

export function read(root, rel, start, end) {
  return answer(async () => {
    const { file } = await fileInfo(await fileAt(root, rel));
    const slice = file.slice(start ?? 0, end ?? file.size);
    return new Uint8Array(await slice.arrayBuffer());
  }, "file", root);
}

// Chromium keeps a file's lastModified when a writable opened with keepExistingData changes
// it, so appends, truncations and touches open a fresh writable and write the current content
// into it first, as a Blob (copied by the browser, never through JS memory): the mtime then
// moves as on any other write. A File taken after createWritable() is still readable.
async function rewritable(handle, keep, upTo) {
  counts.writes++;
  const writable = await handle.createWritable();
  if (keep) {
    const { file } = await fileInfo(handle);
    await writable.write(upTo === undefined ? file : file.slice(0, upTo));
  }
  return writable;
}

// Writers stay here between calls, by id: Python pushes one chunk per call.
const writers = new Map();
let nextWriter = 1;

export function openWriter(root, rel, keep) {
  return answer(async () => {
    const parent = await dirAt(root, rel.slice(0, -1));
    const name = rel[rel.length - 1];
    let existed = true;
    try {
      await child(parent, name, "file");
    } catch (error) {
      if (error?.name !== "NotFoundError") throw error;
      existed = false;
    }
    const handle = await child(parent, name, "file", true);
    let writable;
    try {
      writable = await rewritable(handle, keep);
    } catch (error) {
      if (!existed) await forget(parent, name);
      throw error;
    }
    const id = nextWriter++;
    writers.set(id, { writable, parent, name, existed });
    return id;
  }, "file", root);
}

// A file this writer created goes again when the write fails, so a failed write leaves no empty
// file behind; a removal that fails too leaves the first error to report.
async function forget(parent, name) {
  await parent.removeEntry(name).catch(() => {});
}

export function writeChunk(id, data) {
  return answer(() => writers.get(id).writable.write(data), "file");
}

export function closeWriter(id) {
  return answer(async () => {
    const { writable, parent, name, existed } = writers.get(id);
    writers.delete(id);
    try {
      await writable.close(); // the content becomes the file's only here (a swap file before)
    } catch (error) {
      if (!existed) await forget(parent, name);
      throw error;
    }
  }, "file");
}

// The old content stays; a file the writer created goes again.
export function abortWriter(id) {
  return answer(async () => {
    const writer = writers.get(id);
    if (!writer) return;
    writers.delete(id);
    await writer.writable.abort().catch(() => {});
    if (!writer.existed) await forget(writer.parent, writer.name);
  }, "file");
}

export function truncate(root, rel, length) {
  return answer(async () => {
    const handle = await fileAt(root, rel);
    const writable = await rewritable(handle, true, length);
    await writable.truncate(length); // longer than the file: zeros, as truncate(2) does
    await writable.close();
  }, "file", root);
}

// A file's mtime moves only when it is written: rewrite it as it is. Directories keep no time.
export function touch(root, rel) {
  return answer(async () => {
    if (!rel.length) return;
    const { handle } = await entryAt(root, rel);
    if (handle.kind !== "file") return;
    await (await rewritable(handle, true)).close();
  }, "file", root);
}

export function mkdir(root, rel) {
  return answer(async () => {
    const parent = await dirAt(root, rel.slice(0, -1));
    await child(parent, rel[rel.length - 1], "directory", true);
  }, "directory", root);
}

export function remove(root, rel) {
  return answer(async () => {
    const parent = await dirAt(root, rel.slice(0, -1));
    counts.removes++;
    await parent.removeEntry(rel[rel.length - 1], { recursive: true });
  }, "entry", root);
}

// Files move with FileSystemFileHandle.move() (onto a file, it replaces it). Chromium has no
// move() for directories: a directory is recreated at its new place, its files moved into it
// (no content is copied), and the old one removed.
export function move(root, src, dst) {
  dirs.delete(root); // several steps: walk afresh rather than ask again half way
  return answer(async () => {
    const { parent, name, handle } = await entryAt(root, src);
    const target = await dirAt(root, dst.slice(0, -1));
    const newName = dst[dst.length - 1];
    if (handle.kind === "file") {
      counts.moves++;
      await handle.move(target, newName);
      return;
    }
    await moveDirectory(handle, target, newName);
    counts.removes++;
    await parent.removeEntry(name, { recursive: true });
  }, "entry");
}

// Whether two names lead to one entry: "a" and "A" in a folder of a case-insensitive host
// (py_vfs/mounts/ops.py then renames through a temporary name instead of replacing).
export function sameEntry(root, a, b) {
  return answer(async () => {
    const first = await entryAt(root, a);
    const second = await entryAt(root, b);
    return first.handle.isSameEntry(second.handle);
  }, "entry", root);
}

async function moveDirectory(dir, target, name) {
  const copy = await child(target, name, "directory", true);
  const entries = [];
  counts.listings++;
  for await (const entry of dir.entries()) entries.push(entry);
  for (const [childName, handle] of entries) {
    counts.listed++;
    if (handle.kind === "file") {
      counts.moves++;
      await handle.move(copy);
    } else {
      await moveDirectory(handle, copy, childName);
    }
  }
}
