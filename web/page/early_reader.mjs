// Reads before Python has booted (docs/boot.md, "Reads before Python"): the page answers
// readFile, stat, lstat, exists and readdir on the disk's own API from the IndexedDB records
// themselves, while the worker still boots Python. The answers, errors included, are the
// core's: the walk below is py_vfs/fs/resolver.py's (`_walk_once`, without the parts a restricted
// view or a write needs), stat is py_vfs/fs/metadata.py's `stat_of`, a listing is
// py_vfs/web/page_cache.py's `listing` as a Listing (web/page/listing.mjs), and the errors are
// py_vfs/core/errors.py's messages (tests/e2e/test_early_reads.py compares every answer with
// Python's).
//
// Whatever this reader is not sure to answer as the core would, it declines (`undefined`) and
// the call goes to the worker: a path that reaches a mount point, a path or link target the
// core would refuse as invalid, text that is not valid UTF-8, a missing chunk, a file over
// 256 MiB (web/page/file_chunks.mjs, PAGE_READ_MAX). Each answer is one readonly IndexedDB
// transaction that resolves its path with keyed reads, one directory entry (the `names` store,
// py_vfs/core/node.py name_key) and one node record per segment (fewer where earlier answers
// of the same revision read them: web/page/known_records.mjs), then a file's chunks: it never
// reads every record, and it sees one state of the disk, the last commit of any tab completed
// before it began (the records and entries still pending laid over the stored ones:
// web/shared/pending_writes.mjs).

import { failure } from "../shared/errors.mjs";
import { noticeDataLoss, request } from "../shared/idb.mjs";
import { FORMAT_VERSION } from "../shared/protocol.mjs";
import { fileChunks, PAGE_READ_MAX } from "./file_chunks.mjs";
import { Found, KnownRecords } from "./known_records.mjs";
import { keepRecords, keptEntry, keptRecords } from "./kept_records.mjs";
import { EarlyPeer } from "./early_peer.mjs";
import { DATABASE_VERSION, PENDING, pendingCache, readPendingCached } from "../shared/pending_writes.mjs";
import { Listing, ROOT_ID, inoOf } from "./listing.mjs";

const MAX_SYMLINK_HOPS = 40; // py_vfs/fs/resolver.py
const PATH_MAX = 4096; // py_vfs/core/paths.py
const NAME_MAX = 255;
const MUST_BE_DIR = "/"; // a pending trailing slash (py_vfs/fs/resolver.py, _MUST_BE_DIR)
const DECLINE = Symbol("decline");
// Thrown by an answer from the known records alone that needs a record not known.
const MISS = Symbol("miss");
// A folder of at most this many entries has its entries' records read with its listing: the
// next reads in it then need no request (a node record is a few hundred bytes).
const PREFETCH_MAX = 1_000;

// py_vfs/core/errors.py's descriptions of the codes a read can meet.
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
  // A refusal without a path (Node's read of a directory) names none, as the worker's.
  envelope() {
    const where = this.path == null ? this.syscall : `${this.syscall} '${this.path}'`;
    const message = `${this.code}: ${DESCRIPTIONS[this.code]}, ${where}`;
    return failure(this.code, message, { syscall: this.syscall, path: this.path });
  }
}

const utf8 = new TextEncoder();
const bytesOf = (text) => utf8.encode(text).length;

// The reader of the disk `name`, or null when it may not answer: the database is missing or not
// at this code's format, has no root yet, or its default content is not the version the worker
// is about to install (`defaultsVersion`, or a promise of it, which may still be on its way
// while the database opens; null: nothing to install). It never creates or
// upgrades the database: that stays the worker's (an older disk gets its `names` at that
// upgrade). It opens the database at this format without asking `indexedDB.databases()` first
// (a round trip to the browser process of 25-130 ms on a returning visit): a missing or older
// database fires `upgradeneeded`, which it aborts, and the open fails; aborting the creation of
// a new database leaves none (or one at version 0, which the worker's open treats as new).
export async function openEarlyReader(name, defaultsVersion) {
  let kept = null;
  const db = await new Promise((resolve) => {
    const req = indexedDB.open(`pyvfs:${name}`, DATABASE_VERSION);
    let waiting = true;
    const give = (value) => {
      if (waiting) resolve(value);
      else value?.close(); // opened after the reader gave up: not kept
      waiting = false;
    };
    req.onupgradeneeded = (event) => {
      noticeDataLoss(event); // the browser's report that it discarded the disk, given once
      req.transaction.abort(); // missing or older: not ours to make
    };
    req.onsuccess = () => give(req.result);
    req.onerror = () => give(null); // the abort above, or a newer format (VersionError)
    req.onblocked = () => give(null); // another tab holds an older version open
    kept = keptEntry(name); // while the database opens (web/page/kept_records.mjs)
  });
  if (!db) return null;
  db.onversionchange = () => db.close();
  const reader = new EarlyReader(db, defaultsVersion, name, kept);
  try {
    if (await reader.start()) {
      reader.trust(name);
      return reader;
    }
  } catch {
    // an unreadable record: the worker will say what is wrong
  }
  db.close();
  return null;
}

export class EarlyReader {
  #keeping = false; // a keep is scheduled
  #kept = null; // false once what was read outgrew what is kept

  // `kept`: what the last visit kept for this disk (web/page/kept_records.mjs), unchecked.
  constructor(db, defaultsVersion, name, kept = null) {
    this.db = db;
    this.kept = kept;
    this.defaultsVersion = defaultsVersion;
    this.name = name;
    this.root = null; // the root's record as stored, once start() read it
    this.known = new KnownRecords();
    this.pending = pendingCache(); // the pending writes last read (web/shared/pending_writes.mjs)
    // What this reader read, for the next visit (web/page/kept_records.mjs): as `known`, but
    // not forgotten when the page joins the disk's peers or hears of a commit (the next visit
    // checks the revision anyway).
    this.read = new KnownRecords();
    this.peer = null;
    this.trusted = false; // answers found wholly in `known` need no transaction (`memory: true`)
    this.closed = false;
  }

  // Joins the disk's peers as `name` (web/page/early_peer.mjs): once joined, what is known
  // stays true until another context's commit says otherwise. What was known before the join
  // (earlier answers', or the last visit's) stays only if the disk is still at its revision once
  // joined (one request): from the join on every commit is heard of, and the join took the
  // disk's lock once, so a commit of a turn begun before it had moved the revision already.
  trust(name) {
    this.peer = new EarlyPeer(name, () => this.known.forget());
    this.peer.join().then(async (joined) => {
      if (!joined) return;
      const { rev, epoch } = this.known;
      const now = rev === null ? null : await this.#revision().catch(() => null);
      if (this.closed) return;
      if (now === null || now !== rev || epoch !== this.known.epoch) this.known.forget();
      this.trusted = true;
    }, () => {});
  }

  async #revision() {
    const tx = this.db.transaction(["meta"], "readonly");
    return Number((await request(tx.objectStore("meta").get("rev"))) ?? 0);
  }

  close() {
    this.closed = true;
    this.trusted = false;
    this.peer?.close();
    this.db.close();
    this.#keep();
  }

  #learn(rev, found, epoch) {
    this.known.learn(rev, found, epoch);
    this.read.learn(rev, found, this.read.epoch);
    this.#keepSoon();
  }

  // What was read is kept for the next visit (web/page/kept_records.mjs) once the answers of
  // this task are in: at most one write of localStorage per task.
  #keepSoon() {
    if (this.#keeping || this.#kept === false) return;
    this.#keeping = true;
    setTimeout(() => this.#keep(), 0);
  }

  // Once what was read is too much to keep, this reader keeps nothing more.
  #keep() {
    this.#keeping = false;
    if (this.root !== null && this.#kept !== false) this.#kept = keepRecords(this.name, this.root, this.read);
  }

  // Checks the disk is as the worker will leave it after boot: this format, a root, and the
  // default content of this build (three keyed reads); the revision is read beside them, to
  // take the records the last visit kept (web/page/kept_records.mjs).
  async start() {
    const tx = this.db.transaction(["meta", "nodes", PENDING], "readonly");
    const meta = tx.objectStore("meta");
    const [format, defaults, stored, pending, rev, wanted] = await Promise.all([
      request(meta.get("format")), request(meta.get("defaults")),
      request(tx.objectStore("nodes").get(ROOT_ID)), readPendingCached(tx, this.pending),
      request(meta.get("rev")),
      this.defaultsVersion]);
    const root = pending.has("nodes", ROOT_ID) ? pending.value("nodes", ROOT_ID) : stored;
    if (String(format) !== String(FORMAT_VERSION) || root == null) return false;
    // The records the last visit read, if the disk has not changed since (one revision).
    this.root = String(root);
    const kept = keptRecords(this.kept, this.name, this.root, Number(rev ?? 0));
    this.kept = null;
    if (kept) this.known.learn(Number(rev ?? 0), kept, this.known.epoch);
    if (wanted == null) return true;
    return defaults != null && JSON.parse(String(defaults)).version === wanted;
  }

  // The answer to the disk API's `op` with `args`, as the worker's reply would carry it:
  // {value} or {error: envelope}; undefined when this reader declines. readdir answers with
  // a Listing (web/page/listing.mjs), as the page's readdir expects.
  // The disk's revision is read beside the records; what earlier answers read at that same
  // revision saves requests (web/page/known_records.mjs).
  async answer(op, args) {
    const work = ANSWERS[op];
    if (!work) return undefined;
    try {
      if (this.trusted) {
        const outcome = await outcomeOf(work, new Records(null, this.known), args).catch((error) => {
          if (error === MISS) return MISS;
          throw error;
        });
        if (outcome !== MISS) return outcome && { ...outcome, memory: true };
      }
      const epoch = this.known.epoch;
      const tx = this.db.transaction(["nodes", "names", "chunks", "meta", PENDING], "readonly");
      const revision = request(tx.objectStore("meta").get("rev")).then((rev) => Number(rev ?? 0));
      let records = new Records(tx, this.known, this.pending);
      let outcome = await outcomeOf(work, records, args);
      const rev = await revision;
      if (records.hits && rev !== this.known.rev) {
        // Known records of another revision were used: again, from this transaction alone.
        records = new Records(tx, new KnownRecords(), this.pending);
        outcome = await outcomeOf(work, records, args);
      }
      this.#learn(rev, records.found, epoch);
      // Listings asked for on the way arrive later; they are kept then.
      if (records.listings.length) Promise.all(records.listings).then(() => this.#learn(rev, records.found, epoch));
      return outcome;
    } catch {
      return undefined; // anything unexpected is the worker's to answer
    }
  }
}

// `work`'s answer over `records`: {value}, {error}, or undefined (declined).
async function outcomeOf(work, records, args) {
  try {
    const value = await work(records, ...args);
    return value === DECLINE ? undefined : { value };
  } catch (error) {
    if (error instanceof Refusal) return { error: error.envelope() };
    throw error;
  }
}

// The records one answer reads, in its transaction `tx`: node records by id (each read once)
// and directory entries by (directory id, name); from `known` (counted in `hits`) when earlier
// answers read them, else requested, and then noted in `found`. The first entry looked up in a
// directory not listed yet also asks for the directory's whole listing and, for a directory of
// at most PREFETCH_MAX entries, their node records (`listings`), which later answers then find
// known. With no transaction (`tx` null) anything not known throws MISS.
class Records {
  // `cache`: the reader's last read of the pending writes (readPendingCached).
  constructor(tx, known, cache = null) {
    this.tx = tx;
    this.known = known;
    this.hits = 0;
    this.found = new Found();
    this.listings = [];
    this.nodes = new Map(); // id -> a promise of the node, or of null
    this.pending = tx && readPendingCached(tx, cache ?? pendingCache()); // not in `nodes` and `names` yet
  }

  // The value of `key` in `space` (`nodes` or `names`) as of this transaction.
  async #stored(space, key) {
    const [stored, pending] = await Promise.all([request(this.tx.objectStore(space).get(key)), this.pending]);
    return pending.has(space, key) ? pending.value(space, key) : stored;
  }

  node(id) {
    let node = this.nodes.get(id);
    if (node) return node;
    const known = this.known.nodes.get(id);
    if (known !== undefined) {
      this.hits++;
      node = Promise.resolve(known);
    } else if (!this.tx) {
      throw MISS;
    } else {
      node = this.#stored("nodes", id).then((record) => {
        const parsed = record == null ? null : { ...JSON.parse(String(record)), id };
        this.found.nodes.set(id, parsed);
        return parsed;
      });
    }
    this.nodes.set(id, node);
    return node;
  }

  // The entry `name` of the directory `directory`, or null.
  async child(directory, name) {
    let id = this.known.entry(directory.id, name);
    if (id !== undefined) {
      this.hits++;
    } else if (!this.tx) {
      throw MISS;
    } else {
      const key = `${directory.id}/${name}`;
      const asked = this.#stored("names", key);
      if (!this.listings.length) this.listings.push(this.#prefetch(directory).catch(() => null));
      id = await asked;
      id = id == null ? null : String(id);
      this.found.names.set(key, id);
    }
    return id == null ? null : this.node(id);
  }

  // Every entry of `directory`, in no particular order. An entry whose record is missing is
  // the worker's to explain (fsck's "names" problem): an Error, so the reader declines.
  async children(directory) {
    let ids = this.known.listed.get(directory.id);
    if (ids) this.hits++;
    else if (!this.tx) throw MISS;
    else ids = await this.#ids(directory);
    const nodes = await Promise.all(ids.map((id) => this.node(id)));
    if (nodes.some((node) => node == null)) throw new Error("an entry without its node");
    return nodes;
  }

  // The listing of `directory` and, when it is small enough, its entries' node records.
  async #prefetch(directory) {
    const ids = await this.#ids(directory);
    if (ids.length <= PREFETCH_MAX) await Promise.all(ids.map((id) => this.node(id)));
  }

  // A file's chunks need the transaction: MISS without one.
  chunksTx() {
    if (!this.tx) throw MISS;
    return this.tx;
  }

  // The ids of every entry of `directory` (noted in `found`, with each entry).
  async #ids(directory) {
    const prefix = `${directory.id}/`;
    // "0" is the code unit after "/": the range holds exactly the keys starting with prefix.
    const end = `${directory.id}0`;
    const range = IDBKeyRange.bound(prefix, end, false, true);
    const names = this.tx.objectStore("names");
    const [stored, storedValues, pending] = await Promise.all([
      request(names.getAllKeys(range)), request(names.getAll(range)), this.pending]);
    const [keys, values] = pending.over("names", stored, storedValues, prefix, end);
    const ids = values.map(String);
    keys.forEach((key, i) => this.found.names.set(String(key), ids[i]));
    this.found.listed.set(directory.id, ids);
    return ids;
  }

  // py_vfs/fs/resolver.py `lookup`: [node, canonical path], a Refusal thrown, or DECLINE.
  async lookup(path, syscall, follow = true) {
    const names = normalized(path);
    if (names === DECLINE) return DECLINE;
    const pending = names.reverse();
    if (hasTrailingSlash(path)) pending.unshift(MUST_BE_DIR);
    const root = await this.node(ROOT_ID);
    let stack = [[root, "/"]];
    let hops = 0;
    while (pending.length) {
      const segment = pending.pop();
      if (segment === MUST_BE_DIR) {
        if (stack.at(-1)[0].kind !== "directory") throw new Refusal("ENOTDIR", syscall, path);
        continue;
      }
      if (segment === "..") {
        if (stack.length > 1) stack.pop();
        continue;
      }
      const [directory, dirPath] = stack.at(-1);
      if (directory.kind !== "directory") throw new Refusal("ENOTDIR", syscall, path);
      const node = await this.child(directory, segment);
      if (!node) throw new Refusal("ENOENT", syscall, path);
      if (node.kind === "symlink" && (pending.length || follow)) {
        if (++hops > MAX_SYMLINK_HOPS) throw new Refusal("ELOOP", syscall, path);
        const target = node.target ?? "";
        const more = validSegments(target);
        if (more === DECLINE) return DECLINE;
        if (target.startsWith("/")) stack = [[root, "/"]];
        if (target.endsWith("/")) pending.push(MUST_BE_DIR);
        pending.push(...more.reverse());
        continue;
      }
      if (node.mount != null) return DECLINE; // a mounted folder: Python's
      stack.push([node, dirPath === "/" ? `/${segment}` : `${dirPath}/${segment}`]);
    }
    return stack.at(-1);
  }

  // A directory's entries sorted as Python sorts names (by code point), or DECLINE when one
  // of them is a mount point (its stat comes from the folder).
  async entries(directory) {
    const nodes = await this.children(directory);
    if (nodes.some((node) => node.mount != null)) return DECLINE;
    return nodes.sort((a, b) => byCodePoint(a.name, b.name));
  }
}

// py_vfs/fs/metadata.py `stat_of`, as the worker sends it.
function statOf(node, canonical) {
  const size = node.kind === "symlink" ? bytesOf(node.target ?? "") : node.kind === "directory" ? 4096 : node.size;
  return {
    type: node.kind, size, mode: node.mode, mtimeMs: node.mtime, ctimeMs: node.ctime, atimeMs: node.atime,
    name: canonical.slice(canonical.lastIndexOf("/") + 1), path: canonical, target: node.target ?? null,
    ino: inoOf(node.id),
  };
}

const ANSWERS = {
  async readFile(records, path, options) {
    const found = await records.lookup(path, "open");
    if (found === DECLINE) return DECLINE;
    const [node] = found;
    if (node.kind === "directory") throw new Refusal("EISDIR", "read", null); // as Node's read
    if (node.size > PAGE_READ_MAX) return DECLINE;
    const data = node.inline != null ? fromBase64(node.inline) : await fileChunks(records.chunksTx(), node.chunks ?? [], node.size);
    if (data === null) return DECLINE;
    const encoding = typeof options === "string" ? options : options?.encoding;
    if (encoding == null) return data;
    // Bytes that are not UTF-8 become U+FFFD, as Node and Python's WebAPI decode them.
    if (encoding === "utf8" || encoding === "utf-8") return new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
    if (encoding === "latin1" || encoding === "binary") return latin1(data);
    return DECLINE;
  },
  async stat(records, path) {
    const found = await records.lookup(path, "stat");
    return found === DECLINE ? DECLINE : statOf(...found);
  },
  async lstat(records, path) {
    const found = await records.lookup(path, "lstat", false);
    return found === DECLINE ? DECLINE : statOf(...found);
  },
  // py_vfs/fs/resolver.py `exists`: any refusal of a valid path is false.
  async exists(records, path) {
    try {
      return (await records.lookup(path, "access")) === DECLINE ? DECLINE : true;
    } catch (error) {
      if (error instanceof Refusal) return false;
      throw error;
    }
  },
  async readdirStats(records, path) {
    const found = await records.lookup(path, "scandir");
    if (found === DECLINE) return DECLINE;
    const [node, canonical] = found;
    if (node.kind !== "directory") throw new Refusal("ENOTDIR", "scandir", path);
    const entries = await records.entries(node);
    if (entries === DECLINE) return DECLINE;
    // page_cache.py `listing`: a listing's sizes are stat_size (4096 for a directory).
    return Listing.ofEntries(canonical, entries.map((child) => ({ name: child.name, type: child.kind,
      size: child.kind === "directory" ? 4096 : child.size, mode: child.mode, mtimeMs: child.mtime,
      ctimeMs: child.ctime, atimeMs: child.atime, ino: inoOf(child.id) })));
  },
};

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

// py_vfs/core/paths.py `split_segments` for a path the core accepts; DECLINE for one it refuses
// (not a string, empty, NUL, a lone surrogate, too long): the core's error is the answer.
function validSegments(path) {
  if (typeof path !== "string" || path === "" || path.includes("\0") || !path.isWellFormed()) return DECLINE;
  if (bytesOf(path) >= PATH_MAX) return DECLINE;
  const segments = path.split("/").filter((s) => s && s !== ".");
  return segments.some((s) => bytesOf(s) > NAME_MAX) ? DECLINE : segments;
}

// py_vfs/core/paths.py `normalize`, as names: `..` folds lexically first.
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

// py_vfs/core/paths.py `has_trailing_slash`.
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
