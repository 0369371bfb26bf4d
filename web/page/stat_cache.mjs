// The page's cache of stat, lstat, exists and readdir answers, so that metadata calls need no
// round trip to the worker when the answer is known current (docs/architecture.md, "The page's
// stat cache"). The rules, in short:
// - only answers the worker stamped with a view are kept (py_vfs/web/page_cache.py: never anything
//   that went into a mounted folder, and of errors only ENOENT and ENOTDIR);
// - every call that is not known to be read-only clears the cache when it is sent and again
//   before it resolves, and the cache is bypassed while any such call (or a step) is in flight;
// - the worker posts a new view the moment its index changes (another tab's commit caught up,
//   too), before any watch event or answer computed on the new state, so another tab's commit
//   drops the cache no later than this page's worker sees it, and another tab's commit
//   resolves only once this page has taken that (the worker's "catchUp" request,
//   web/shared/peers.mjs);
// - an answer is kept only if nothing cleared the cache between its call and its reply and its
//   view is the latest the page has heard of;
// - hits are rebuilt into new objects (callers may change what they get).
// A readdir that follows a readdir of a sibling (a walk of a folder's subdirectories) asks for
// the listings of the directories after it too (`listingArgs`): they come in its answer,
// computed in the same call, so they are kept under the same rules as the answer itself.

// Calls that change nothing the cache holds (declared in py_vfs/web/protocol.py: the operations
// that are not "mutating"); every other call counts as a mutation.
import { READ_ONLY } from "../shared/protocol.mjs";

// Entries kept at most (a stat is a few hundred bytes): the oldest go first.
const LIMIT = 4096;
// Keys made from a listing stay far below the 4,096-byte path limit even at 3 bytes a UTF-16
// unit, so a cached stat can never hide ENAMETOOLONG.
const MAX_CHILD_KEY = 1024;

export class StatCache {
  #entries = new Map();
  #generation = 0; // moves at every clear
  #view = 0; // the latest view the worker announced
  #writes = 0; // mutations (and steps) in flight
  #walk = { parent: null, askedAt: -1 }; // the last readdir sent, and when it asked for siblings
  #listingHits = 0; // readdir calls answered here
  hits = 0;

  constructor(limit = LIMIT) {
    this.limit = limit;
  }

  get size() { return this.#entries.size; }

  clear() {
    this.#entries.clear();
    this.#generation++;
  }

  // The worker's index changed: answers stamped before `view` are stale.
  invalidate(view) {
    if (view > this.#view) this.#view = view;
    this.clear();
  }

  // Called as `op` is sent; true when it is a mutation, which must then be ended by settle().
  // The token tells keep() whether the cache was cleared since.
  begin(op) {
    const mutating = !READ_ONLY.has(op);
    if (mutating) this.hold();
    return { mutating, token: this.#generation };
  }

  hold() {
    this.#writes++;
    this.clear();
  }

  settle() {
    this.#writes--;
    this.clear();
  }

  get usable() { return this.#writes === 0; }

  // A known answer to `op` ("stat", "lstat", "exists", "readdir") as {value} or {error}, or
  // undefined. Values are the raw data the worker sent (a readdir's: its records, see
  // py_vfs/web/page_cache.py): the caller builds new objects of them and never hands them out.
  answer(op, path) {
    if (!this.usable || typeof path !== "string") return undefined;
    const known = this.#get(keyOf(op, path));
    if (known) {
      this.hits++;
      if (op === "readdir") this.#listingHits++;
      return known;
    }
    const derived = op === "stat" ? this.#statFromLstat(path) : op === "exists" ? this.#exists(path) : undefined;
    if (derived) this.hits++;
    return derived;
  }

  // The arguments of the readdirStats call a readdir of `path` the cache could not answer
  // sends. When the readdir sent before it listed a sibling (same parent), the walk goes on:
  // ask for the listings of the siblings after it too. Asked again in the same parent only
  // once a readdir was answered here since the last time, so a caller that changes something
  // between its listings (every change drops what the answer brought) does not make the
  // worker list the siblings over and over for nothing.
  listingArgs(path) {
    const parent = isPlain(path) && path !== "/" ? path.slice(0, path.lastIndexOf("/")) || "/" : null;
    const walk = this.#walk;
    const siblings = parent !== null && parent === walk.parent && walk.askedAt < this.#listingHits;
    if (parent !== walk.parent) this.#walk = { parent, askedAt: -1 };
    if (!siblings) return [path];
    this.#walk.askedAt = this.#listingHits;
    return [path, { siblings: true }];
  }

  // The value of the worker's reply to `op` (a readdir's made into its records), kept
  // when it may be: `token` is what begin() gave as the call was sent. A readdir's records
  // with a stat become lstat entries of its children.
  keep(op, path, reply, token) {
    const value = op === "readdir" && !reply.error ? recordsOf(reply.value) : reply.value;
    if (this.#current(path, reply.view, token)) {
      this.#set(keyOf(op, path), reply.error ? { error: reply.error } : { value });
      if (op === "readdir" && !reply.error) {
        this.#keepChildren(path, value);
        for (const sibling of reply.value.siblings ?? []) this.#keepListing(sibling);
      }
    }
    return value;
  }

  // A sibling's listing, under its canonical path (py_vfs/web/page_cache.py, `listing`).
  #keepListing(listing) {
    const records = recordsOf(listing);
    this.#set(keyOf("readdir", listing.path), { value: records });
    this.#keepChildren(listing.path, records);
  }

  #current(path, view, token) {
    if (view == null || typeof path !== "string") return false;
    if (view !== this.#view) {
      if (view > this.#view) this.invalidate(view);
      return false;
    }
    return token === this.#generation && this.usable;
  }

  #keepChildren(dir, records) {
    if (!isPlain(dir)) return;
    const prefix = dir === "/" ? "/" : `${dir}/`;
    for (const r of records) {
      const child = prefix + r[0];
      if (r.length < 9 || child.length > MAX_CHILD_KEY) continue;
      const value = { type: r[2], size: r[3], mode: r[4], mtimeMs: r[5], ctimeMs: r[6], atimeMs: r[7], name: r[0], path: r[1], ino: r[8] };
      this.#set(keyOf("lstat", child), { value });
    }
  }

  // stat follows a final symlink; for anything else it is the lstat.
  #statFromLstat(path) {
    const known = this.#get(keyOf("lstat", path));
    return known?.value && known.value.type !== "symlink" ? known : undefined;
  }

  // exists follows links: a stat answers it; an lstat does unless it is of a symlink (an lstat
  // that failed means a missing or non-directory parent, which stat would fail on too).
  #exists(path) {
    const stat = this.#get(keyOf("stat", path));
    if (stat) return { value: !stat.error };
    const lstat = this.#get(keyOf("lstat", path));
    if (lstat?.error) return { value: false };
    return lstat && lstat.value.type !== "symlink" ? { value: true } : undefined;
  }

  #get(key) {
    return this.#entries.get(key);
  }

  #set(key, entry) {
    if (this.#entries.size >= this.limit && !this.#entries.has(key)) {
      this.#entries.delete(this.#entries.keys().next().value);
    }
    this.#entries.set(key, entry);
  }
}

// A readdirStats answer (py_vfs/web/page_cache.py, `listing`) as records by name: [name, path,
// type, size, mode, mtimeMs, ctimeMs, atimeMs, ino], or [name, path, type] where the stat is not
// known (it comes from a mounted folder).
export function recordsOf({ path, names, kinds, numbers }) {
  if (names === "") return [];
  const types = kinds.split(",");
  const v = new Float64Array(numbers.slice().buffer); // slice: aligned at 0
  const prefix = path === "/" ? "/" : `${path}/`;
  return names.split("/").map((name, i) => {
    const at = i * 6;
    return v[at] < 0 ? [name, prefix + name, types[i]]
      : [name, prefix + name, types[i], v[at], v[at + 1], v[at + 2], v[at + 3], v[at + 4], v[at + 5]];
  });
}

function keyOf(op, path) {
  return `${op}\0${path}`;
}

// An absolute path without empty, "." or ".." segments and without a trailing slash: its
// children are `${path}/${name}`, the spelling a caller that listed it would stat.
function isPlain(path) {
  if (path === "/") return true;
  if (!path.startsWith("/") || path.endsWith("/")) return false;
  return !path.slice(1).split("/").some((segment) => segment === "" || segment === "." || segment === "..");
}
