// Reads before Python has booted (docs/boot.md, "Reads before Python"): the page answers
// readFile, stat, lstat, exists and readdir on the disk's own API from the IndexedDB records
// themselves, while the worker still boots Python. The answers, errors included, are the
// core's: the walk below is py_vfs/resolver.py's (`_walk_once`, without the parts a restricted
// view or a write needs), stat is py_vfs/metadata.py's `stat_of`, a listing is
// py_vfs/page_cache.py's `listing` as the stat cache's records, and the errors are
// py_vfs/errors.py's messages (tests/e2e/test_early_reads.py compares every answer with
// Python's).
//
// Whatever this reader is not sure to answer as the core would, it declines (`undefined`) and
// the call goes to the worker: a path that reaches a mount point, a path or link target the
// core would refuse as invalid, text that is not valid UTF-8, a missing chunk, a file over
// readFile's limit. Each answer is one readonly IndexedDB transaction: it reads the disk's
// revision and, when another tab committed since the records were read, reads them again in
// that same transaction, so an answer is never made of two revisions.

import { failure } from "./errors.mjs";
import { request } from "./idb.mjs";
import { FORMAT_VERSION } from "./protocol.mjs";

const ROOT_ID = "root";
const MAX_SYMLINK_HOPS = 40; // py_vfs/resolver.py
const MAX_READ_SIZE = 2 ** 31 - 1; // py_vfs/files.py
const PATH_MAX = 4096; // py_vfs/paths.py
const NAME_MAX = 255;
const MUST_BE_DIR = "/"; // a pending trailing slash (py_vfs/resolver.py, _MUST_BE_DIR)
const DECLINE = Symbol("decline");

// py_vfs/errors.py's descriptions of the codes a read can meet.
const DESCRIPTIONS = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "illegal operation on a directory",
  ELOOP: "too many symbolic links encountered",
};

class Refusal {
  constructor(code, syscall, path) {
    Object.assign(this, { code, syscall, path });
  }
  envelope() {
    const message = `${this.code}: ${DESCRIPTIONS[this.code]}, ${this.syscall} '${this.path}'`;
    return failure(this.code, message, { syscall: this.syscall, path: this.path });
  }
}

const utf8 = new TextEncoder();
const bytesOf = (text) => utf8.encode(text).length;

// The reader of the disk `name`, or null when it may not answer: the database is not at this
// code's format, has no root yet, or its default content is not the version the worker is about
// to install (`defaultsVersion`; null: nothing to install). It never creates or upgrades the
// database: that stays the worker's.
export async function openEarlyReader(name, defaultsVersion) {
  const dbName = `pyvfs:${name}`;
  const known = await indexedDB.databases?.();
  if (!known?.some((db) => db.name === dbName && db.version === FORMAT_VERSION)) return null;
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open(dbName, FORMAT_VERSION);
    req.onupgradeneeded = () => req.transaction.abort(); // deleted meanwhile: not ours to make
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  db.onversionchange = () => db.close();
  const reader = new EarlyReader(db, defaultsVersion);
  try {
    if (await reader.start()) return reader;
  } catch {
    // an unreadable record: the worker will say what is wrong
  }
  db.close();
  return null;
}

export class EarlyReader {
  constructor(db, defaultsVersion) {
    this.db = db;
    this.defaultsVersion = defaultsVersion;
    this.rev = null;
    this.nodes = null; // id -> node
    this.children = null; // directory id -> Map(name -> node)
  }

  close() {
    this.db.close();
  }

  // Reads the records once, checking the disk is as the worker will leave it after boot.
  async start() {
    const tx = this.db.transaction(["meta", "nodes"], "readonly");
    const meta = tx.objectStore("meta");
    const [format, defaults] = await Promise.all([request(meta.get("format")), request(meta.get("defaults")),
      this.#load(tx)]);
    if (String(format) !== String(FORMAT_VERSION) || !this.nodes.has(ROOT_ID)) return false;
    if (this.defaultsVersion == null) return true;
    return defaults != null && JSON.parse(String(defaults)).version === this.defaultsVersion;
  }

  // The revision and every node record, in `tx`.
  async #load(tx) {
    const nodes = tx.objectStore("nodes");
    const [rev, keys, values] = await Promise.all([
      request(tx.objectStore("meta").get("rev")), request(nodes.getAllKeys()), request(nodes.getAll()),
    ]);
    this.#index(Number(rev ?? 0), keys, values);
  }

  #index(rev, keys, values) {
    const byId = new Map();
    const children = new Map();
    for (let i = 0; i < keys.length; i++) {
      const r = JSON.parse(String(values[i]));
      const node = { id: keys[i], ...r };
      byId.set(node.id, node);
      if (r.parent == null) continue;
      let names = children.get(r.parent);
      if (!names) children.set(r.parent, (names = new Map()));
      names.set(r.name, node);
    }
    Object.assign(this, { rev, nodes: byId, children });
  }

  // The answer to the disk API's `op` with `args`, as the worker's reply would carry it:
  // {value} or {error: envelope}; undefined when this reader declines. readdir answers with
  // the stat cache's records (web/stat_cache.mjs, recordsOf), as the page's readdir expects.
  async answer(op, args) {
    const work = ANSWERS[op];
    if (!work) return undefined;
    try {
      const tx = this.db.transaction(["meta", "nodes", "chunks"], "readonly");
      const rev = Number((await request(tx.objectStore("meta").get("rev"))) ?? 0);
      if (rev !== this.rev) await this.#load(tx);
      const value = await work(this, tx, ...args);
      return value === DECLINE ? undefined : { value };
    } catch (error) {
      if (error instanceof Refusal) return { error: error.envelope() };
      return undefined; // anything unexpected is the worker's to answer
    }
  }

  // py_vfs/resolver.py `lookup`: [node, canonical path], a Refusal thrown, or DECLINE.
  lookup(path, syscall, follow = true) {
    const names = normalized(path);
    if (names === DECLINE) return DECLINE;
    const pending = names.reverse();
    let namesLeft = pending.length;
    if (hasTrailingSlash(path)) pending.unshift(MUST_BE_DIR);
    const root = this.nodes.get(ROOT_ID);
    let stack = [[root, "/"]];
    let hops = 0;
    while (pending.length) {
      const segment = pending.pop();
      if (segment === MUST_BE_DIR) {
        if (stack.at(-1)[0].kind !== "directory") throw new Refusal("ENOTDIR", syscall, path);
        continue;
      }
      namesLeft--;
      if (segment === "..") {
        if (stack.length > 1) stack.pop();
        continue;
      }
      const [directory, dirPath] = stack.at(-1);
      if (directory.kind !== "directory") throw new Refusal("ENOTDIR", syscall, path);
      const node = this.children.get(directory.id)?.get(segment);
      if (!node) throw new Refusal("ENOENT", syscall, path);
      if (node.kind === "symlink" && (pending.length || follow)) {
        if (++hops > MAX_SYMLINK_HOPS) throw new Refusal("ELOOP", syscall, path);
        const target = node.target ?? "";
        const more = validSegments(target);
        if (more === DECLINE) return DECLINE;
        if (target.startsWith("/")) stack = [[root, "/"]];
        if (target.endsWith("/")) pending.push(MUST_BE_DIR);
        pending.push(...more.reverse());
        namesLeft += more.length;
        continue;
      }
      if (node.mount != null) return DECLINE; // a mounted folder: Python's
      stack.push([node, dirPath === "/" ? `/${segment}` : `${dirPath}/${segment}`]);
    }
    return stack.at(-1);
  }

  // A directory's entries sorted as Python sorts names (by code point), or DECLINE when one
  // of them is a mount point (its stat comes from the folder).
  entries(directory) {
    const nodes = [...(this.children.get(directory.id)?.values() ?? [])];
    if (nodes.some((node) => node.mount != null)) return DECLINE;
    return nodes.sort((a, b) => byCodePoint(a.name, b.name));
  }
}

// py_vfs/metadata.py `stat_of`, as the worker sends it.
function statOf(node, canonical) {
  const size = node.kind === "symlink" ? bytesOf(node.target ?? "") : node.kind === "directory" ? 4096 : node.size;
  return {
    type: node.kind, size, mode: node.mode, mtimeMs: node.mtime, ctimeMs: node.ctime, atimeMs: node.atime,
    name: canonical.slice(canonical.lastIndexOf("/") + 1), path: canonical, target: node.target ?? null,
  };
}

const ANSWERS = {
  async readFile(reader, tx, path, options) {
    const found = reader.lookup(path, "open");
    if (found === DECLINE) return DECLINE;
    const [node] = found;
    if (node.kind === "directory") throw new Refusal("EISDIR", "read", path);
    if (node.size > MAX_READ_SIZE) return DECLINE;
    const data = node.inline != null ? fromBase64(node.inline) : await chunksOf(tx, node.chunks ?? []);
    if (data === DECLINE) return DECLINE;
    const encoding = typeof options === "string" ? options : options?.encoding;
    if (encoding == null) return data;
    if (encoding === "utf8" || encoding === "utf-8") return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
    if (encoding === "latin1" || encoding === "binary") return latin1(data);
    return DECLINE;
  },
  stat(reader, tx, path) {
    const found = reader.lookup(path, "stat");
    return found === DECLINE ? DECLINE : statOf(...found);
  },
  lstat(reader, tx, path) {
    const found = reader.lookup(path, "lstat", false);
    return found === DECLINE ? DECLINE : statOf(...found);
  },
  // py_vfs/resolver.py `exists`: any refusal of a valid path is false.
  exists(reader, tx, path) {
    try {
      return reader.lookup(path, "access") === DECLINE ? DECLINE : true;
    } catch (error) {
      if (error instanceof Refusal) return false;
      throw error;
    }
  },
  readdirStats(reader, tx, path) {
    const found = reader.lookup(path, "scandir");
    if (found === DECLINE) return DECLINE;
    const [node, canonical] = found;
    if (node.kind !== "directory") throw new Refusal("ENOTDIR", "scandir", path);
    const entries = reader.entries(node);
    if (entries === DECLINE) return DECLINE;
    const prefix = canonical === "/" ? "/" : `${canonical}/`;
    // page_cache.py `listing`: a listing's sizes are stat_size (4096 for a directory).
    return entries.map((child) => [child.name, prefix + child.name, child.kind,
      child.kind === "directory" ? 4096 : child.size, child.mode, child.mtime, child.ctime, child.atime]);
  },
};

// The chunks of a file, in `tx`, concatenated; DECLINE when one is missing (Python's EIO).
async function chunksOf(tx, keys) {
  const store = tx.objectStore("chunks");
  const pieces = await Promise.all(keys.map((key) => request(store.get(key))));
  if (pieces.some((piece) => piece == null)) return DECLINE;
  const views = pieces.map((piece) => (piece instanceof Uint8Array ? piece : new Uint8Array(piece)));
  if (views.length === 1) return views[0];
  const out = new Uint8Array(views.reduce((total, view) => total + view.byteLength, 0));
  let at = 0;
  for (const view of views) {
    out.set(view, at);
    at += view.byteLength;
  }
  return out;
}

function fromBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

// Python's latin-1: each byte the code point of its value (TextDecoder's "latin1" is
// windows-1252, which is not).
function latin1(data) {
  let text = "";
  for (let at = 0; at < data.length; at += 8192) text += String.fromCharCode(...data.subarray(at, at + 8192));
  return text;
}

// py_vfs/paths.py `split_segments` for a path the core accepts; DECLINE for one it refuses
// (not a string, empty, NUL, a lone surrogate, too long): the core's error is the answer.
function validSegments(path) {
  if (typeof path !== "string" || path === "" || path.includes("\0") || !path.isWellFormed()) return DECLINE;
  if (bytesOf(path) >= PATH_MAX) return DECLINE;
  const segments = path.split("/").filter((s) => s && s !== ".");
  return segments.some((s) => bytesOf(s) > NAME_MAX) ? DECLINE : segments;
}

// py_vfs/paths.py `normalize`, as names: `..` folds lexically first.
function normalized(path) {
  const segments = validSegments(path);
  if (segments === DECLINE) return DECLINE;
  const names = [];
  for (const segment of segments) {
    if (segment !== "..") names.push(segment);
    else names.pop();
  }
  return names;
}

// py_vfs/paths.py `has_trailing_slash`.
function hasTrailingSlash(path) {
  const insists = path.endsWith("/") || path === "." || path.endsWith("/.");
  return insists && path.split("/").some((segment) => segment !== "" && segment !== ".");
}

function byCodePoint(a, b) {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(i);
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
