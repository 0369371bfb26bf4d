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
// A listing is kept as its columns (web/page/listing.mjs), and the lstat of one of its entries
// (a stat too, unless it is of a symlink; an exists) is made of them when asked, found by the
// path's parent: a listing of a thousand entries is one entry here, not a thousand.
// A readdir that follows a readdir of a sibling (a walk of a folder's subdirectories) asks for
// the listings of the directories after it too (`listingArgs`): they come in its answer,
// computed in the same call, so they are kept under the same rules as the answer itself.
// A read the cache cannot answer while the same operation on the same path, sent since the
// cache was last cleared, is on its way shares that call's answer, under a hit's conditions
// (`inFlight`): nothing can have changed between the two that a hit would not have seen either
// (git's checkout asks for the lstat of one folder hundreds of times at once).

// Calls that change nothing the cache holds (declared in py_vfs/web/protocol.py: the operations
// that are not "mutating"); every other call counts as a mutation.
import { READ_ONLY } from "../shared/protocol.mjs";
import { Listing } from "./listing.mjs";

// Entries kept at most (a stat is a few hundred bytes; a listing counts as its entries and one
// more): the oldest go first.
const LIMIT = 4096;
// Paths answered from a listing stay far below the 4,096-byte path limit even at 3 bytes a
// UTF-16 unit, so a cached stat can never hide ENAMETOOLONG.
const MAX_CHILD_KEY = 1024;

export class StatCache {
  // path -> its answers by operation ({value} or {error}; a readdir's {value: Listing, plain})
  // and `weight`, the oldest path first. One lookup by the path as spelled finds any answer,
  // with no key to build.
  #paths = new Map();
  #weight = 0; // the answers kept: 1 each, a listing its length and 1
  #generation = 0; // moves at every clear
  #view = 0; // the latest view the worker announced
  #writes = 0; // mutations (and steps) in flight
  #walk = { parent: null, askedAt: -1 }; // the last readdir sent, and when it asked for siblings
  #listingHits = 0; // readdir calls answered here
  #flying = new Map(); // `${op} ${path}` -> {promise, token}: reads sent and not answered yet
  hits = 0;
  shared = 0; // calls that shared the answer of one in flight (inFlight)

  constructor(limit = LIMIT) {
    this.limit = limit;
  }

  // The answers kept, a listing counted as its entries and one more.
  get size() { return this.#weight; }

  clear() {
    this.#paths.clear();
    this.#flying.clear();
    this.#weight = 0;
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
  // undefined. Values are the raw data the worker sent (a readdir's: a Listing,
  // web/page/listing.mjs): the caller builds new objects of them and never hands them out.
  // A stat, lstat or exists is looked up first in the listing of the path's parent (a walk
  // stats what it listed), then among the answers kept for the path itself.
  answer(op, path) {
    if (!this.usable || typeof path !== "string") return undefined;
    if (op === "readdir") {
      const known = this.#paths.get(path)?.readdir;
      if (known) {
        this.hits++;
        this.#listingHits++;
      }
      return known;
    }
    const known = this.#listed(op, path) ?? this.#kept(op, path);
    if (known) this.hits++;
    return known;
  }

  // The promise of the raw answer of a call of `op` on `path` already on its way, when this one
  // may share it: sent since the cache was last cleared (so nothing this page sent since could
  // change it, and no change announced since could make it stale), with no change in flight,
  // as answer() asks of a hit. Else undefined.
  inFlight(op, path) {
    if (!this.usable || typeof path !== "string") return undefined;
    const flying = this.#flying.get(`${op} ${path}`);
    if (!flying || flying.token !== this.#generation) return undefined;
    this.shared++;
    return flying.promise;
  }

  // `promise`, the raw answer of a call of `op` on `path` just sent, may be shared until it
  // settles (inFlight).
  sent(op, path, promise) {
    if (typeof path !== "string") return;
    const key = `${op} ${path}`;
    const flying = { promise, token: this.#generation };
    this.#flying.set(key, flying);
    const landed = () => {
      if (this.#flying.get(key) === flying) this.#flying.delete(key);
    };
    promise.then(landed, landed);
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

  // The value of the worker's reply to `op` (a readdir's made into a Listing), kept when it
  // may be: `token` is what begin() gave as the call was sent. A listing of a path spelled
  // plainly answers the lstat of its entries too (#listed).
  keep(op, path, reply, token) {
    const listed = op === "readdir" && !reply.error;
    const value = listed ? Listing.of(reply.value) : reply.value;
    if (this.#current(path, reply.view, token)) {
      if (listed) {
        this.#keepListing(path, value);
        // The siblings', under their canonical paths (py_vfs/web/page_cache.py, `listing`).
        for (const sibling of reply.value.siblings ?? []) this.#keepListing(sibling.path, Listing.of(sibling));
      } else {
        this.#set(path, op, reply.error ? { error: reply.error } : { value }, 1);
      }
    }
    return value;
  }

  // A listing larger than the whole bound is not kept.
  #keepListing(path, listing) {
    const entry = { value: listing, plain: isPlain(path) };
    const weight = weightOf("readdir", entry);
    if (weight <= this.limit) this.#set(path, "readdir", entry, weight);
  }

  #current(path, view, token) {
    if (view == null || typeof path !== "string") return false;
    if (view !== this.#view) {
      if (view > this.#view) this.invalidate(view);
      return false;
    }
    return token === this.#generation && this.usable;
  }

  // The answer to `op` ("stat", "lstat", "exists") made of the listing of the path's parent,
  // when that was asked for as spelled plainly (absolute, no ".", ".." or empty segment, no
  // trailing slash): its entries are `${parent}/${name}`, the spelling of a caller that
  // listed it. None for a symlink but its lstat (stat and exists follow it).
  #listed(op, path) {
    if (path.length > MAX_CHILD_KEY) return undefined;
    const at = path.lastIndexOf("/");
    if (at < 0) return undefined;
    const parent = at === 0 ? "/" : path.slice(0, at);
    const listed = this.#paths.get(parent)?.readdir;
    if (!listed?.plain) return undefined;
    const listing = listed.value;
    const name = path.slice(at + 1);
    if (op === "exists") {
      const type = listing.typeOf(name);
      return type === undefined || type === "symlink" ? undefined : { value: true };
    }
    // The entry's path is the caller's when the parent is spelled as it is (no symlink on it).
    const value = listing.lstat(name, listing.path === parent ? path : undefined);
    return value && (op === "lstat" || value.type !== "symlink") ? { value } : undefined;
  }

  // An answer kept for the path itself. stat follows a final symlink: for anything else an
  // lstat answers it. exists follows links: a stat answers it; an lstat does unless it is of a
  // symlink (an lstat that failed means a missing or non-directory parent, which stat would
  // fail on too).
  #kept(op, path) {
    const known = this.#paths.get(path);
    if (!known) return undefined;
    if (known[op]) return known[op];
    const lstat = known.lstat;
    if (op === "stat") return lstat?.value && lstat.value.type !== "symlink" ? lstat : undefined;
    if (op !== "exists") return undefined;
    if (known.stat) return { value: !known.stat.error };
    if (lstat?.error) return { value: false };
    return lstat && lstat.value.type !== "symlink" ? { value: true } : undefined;
  }

  // Keeps `entry` as the answer to `op` at `path`, counted as `weight`: the path becomes the
  // newest, and the oldest paths go while the bound is passed.
  #set(path, op, entry, weight) {
    const paths = this.#paths;
    const known = paths.get(path) ?? { weight: 0 };
    paths.delete(path);
    const old = known[op] ? weightOf(op, known[op]) : 0;
    this.#weight -= known.weight;
    known.weight += weight - old;
    known[op] = entry;
    while (paths.size && this.#weight + known.weight > this.limit) {
      const [oldest, dropped] = paths.entries().next().value;
      paths.delete(oldest);
      this.#weight -= dropped.weight;
    }
    paths.set(path, known);
    this.#weight += known.weight;
  }
}

// What an answer counts for against the bound: a listing its entries and one more.
function weightOf(op, entry) {
  return op === "readdir" && entry.value ? entry.value.length + 1 : 1;
}

// An absolute path without empty, "." or ".." segments and without a trailing slash: its
// children are `${path}/${name}`, the spelling a caller that listed it would stat.
function isPlain(path) {
  if (path === "/") return true;
  if (!path.startsWith("/") || path.endsWith("/")) return false;
  return !path.slice(1).split("/").some((segment) => segment === "" || segment === "." || segment === "..");
}
