// A directory's listing as the page keeps it: the columns the worker sends
// (py_vfs/web/page_cache.py, `listing`: the names, the kinds, six float64 per entry and, when it
// can, the ids the inos are derived from), not an object per entry. A readdir makes its names or
// Dirents of it, and the stat cache (web/page/stat_cache.mjs) makes an entry's lstat of it only
// when one is asked: a walk's listings of a thousand entries cost a few native splits when they
// arrive, not a thousand records and cache keys (docs/architecture.md, "The page's stat cache").

import { Dirent } from "./entries.mjs";

// Numbers per entry: size, mode, mtimeMs, ctimeMs, atimeMs, ino (0: derived from the id).
const NUMBERS = 6;
// The ids a listing may send: ID_LENGTH characters each, joined by "/" (page_cache.py).
const ID_LENGTH = 16;
export const ROOT_ID = "root";

// py_vfs/core/node.py `ino_of` for the ids a disk stores: the root's 2, any other's the first
// 13 hex digits (52 bits: exact in a number) of its random id.
export function inoOf(id) {
  return id === ROOT_ID ? 2 : parseInt(id.slice(0, 13), 16) || 1;
}

export class Listing {
  #index = null; // name -> position, made at the first lookup of an entry

  // `path`: the directory's canonical path; `names`, `types`: one per entry, in the listing's
  // order; `numbers`: a Float64Array of NUMBERS per entry (a size below 0: no stat known, the
  // entry's comes from a mounted folder); `ids`: when an ino is 0, the entries' ids joined by
  // "/", each ID_LENGTH long.
  constructor(path, names, types, numbers, ids = "") {
    this.path = path;
    this.names = names;
    this.types = types;
    this.numbers = numbers;
    this.ids = ids;
  }

  // The worker's `{path, names, kinds, numbers, ids?}`: the names joined by "/", the kinds by
  // ",", the numbers as float64 bytes, the ids (when sent) joined by "/".
  static of({ path, names, kinds, numbers, ids = "" }) {
    if (names === "") return new Listing(path, [], [], new Float64Array(0));
    // A view of the bytes where they are aligned (a posted Uint8Array of its own buffer is),
    // else a copy.
    const floats = numbers.byteOffset % 8 === 0
      ? new Float64Array(numbers.buffer, numbers.byteOffset, numbers.byteLength / 8)
      : new Float64Array(numbers.slice().buffer);
    return new Listing(path, names.split("/"), kinds.split(","), floats, ids);
  }

  // Entries as the early reader reads them (web/page/early_reader.mjs): {name, type, size,
  // mode, mtimeMs, ctimeMs, atimeMs, ino}.
  static ofEntries(path, entries) {
    const numbers = new Float64Array(entries.length * NUMBERS);
    entries.forEach((e, i) => numbers.set([e.size, e.mode, e.mtimeMs, e.ctimeMs, e.atimeMs, e.ino], i * NUMBERS));
    return new Listing(path, entries.map((e) => e.name), entries.map((e) => e.type), numbers);
  }

  get length() { return this.names.length; }

  // What readdir resolves to: new objects every time (callers may change what they get).
  nameList() { return this.names.slice(); }

  dirents() {
    const prefix = this.path === "/" ? "/" : `${this.path}/`;
    const types = this.types;
    return this.names.map((name, i) => new Dirent({ name, path: prefix + name, type: types[i] }));
  }

  // The lstat of the entry `name` as the worker answers one ({type, size, mode, mtimeMs,
  // ctimeMs, atimeMs, name, path, ino}), a new object; undefined when it is not listed or its
  // stat is not known. `path`: the entry's path, when the caller has it already.
  lstat(name, path = undefined) {
    const i = this.#stated(name);
    if (i < 0) return undefined;
    const v = this.numbers;
    const at = i * NUMBERS;
    return {
      type: this.types[i], size: v[at], mode: v[at + 1], mtimeMs: v[at + 2], ctimeMs: v[at + 3], atimeMs: v[at + 4],
      name, path: path ?? (this.path === "/" ? `/${name}` : `${this.path}/${name}`),
      ino: v[at + 5] || inoOf(this.ids.slice(i * (ID_LENGTH + 1), i * (ID_LENGTH + 1) + ID_LENGTH)),
    };
  }

  // The type of the entry `name` when its stat is known, else undefined.
  typeOf(name) {
    const i = this.#stated(name);
    return i < 0 ? undefined : this.types[i];
  }

  // The position of the entry `name` when its stat is known, else -1.
  #stated(name) {
    const i = (this.#index ?? this.#indexed()).get(name);
    return i === undefined || this.numbers[i * NUMBERS] < 0 ? -1 : i;
  }

  #indexed() {
    const index = new Map();
    const names = this.names;
    for (let i = 0; i < names.length; i++) index.set(names[i], i);
    this.#index = index;
    return index;
  }
}
