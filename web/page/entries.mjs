// What stat and lstat (Stats) and readdir with {withFileTypes: true} (Dirent) resolve to, in
// node:fs's shape (docs/api.md).

import { OWNER_ID } from "../shared/protocol.mjs";

const TYPE_BITS = Object.assign(Object.create(null), { file: 0o100000, directory: 0o040000, symlink: 0o120000 });

// The fields are set one by one, always in the same order, so that every Stats has the same
// shape. Its Dates (mtime, ctime, atime) are made when first read, as Node's Stats makes them
// since Node 22: a getter on the prototype that turns the field into a plain own property of
// the object (so it is made once, and the caller may assign it). Most callers read only size,
// mtimeMs and the predicates, and three Dates per stat were most of what a stat answered from
// the page's cache cost.
export class Stats {
  constructor(raw) {
    this.type = raw.type;
    this.size = raw.size;
    this.mode = raw.mode | (TYPE_BITS[raw.type] ?? 0);
    this.mtimeMs = raw.mtimeMs;
    this.ctimeMs = raw.ctimeMs;
    this.atimeMs = raw.atimeMs;
    this.birthtimeMs = raw.ctimeMs;
    this.name = raw.name;
    this.path = raw.path;
    this.uid = OWNER_ID;
    this.gid = OWNER_ID;
    this.nlink = 1;
    this.dev = 1;
    this.ino = raw.ino ?? 0;
    this.rdev = 0;
    this.blksize = 4096;
    // 512-byte blocks, whole 4 KiB blocks allocated, as ext4 counts them
    this.blocks = raw.type === "file" ? Math.ceil(raw.size / 4096) * 8 : raw.type === "directory" ? 8 : 0;
  }
  isFile() { return this.type === "file"; }
  isDirectory() { return this.type === "directory"; }
  isSymbolicLink() { return this.type === "symlink"; }
  isBlockDevice() { return false; }
  isCharacterDevice() { return false; }
  isFIFO() { return false; }
  isSocket() { return false; }
}

for (const [field, ms] of [["mtime", "mtimeMs"], ["ctime", "ctimeMs"], ["atime", "atimeMs"], ["birthtime", "birthtimeMs"]]) {
  const own = (object, value) => Object.defineProperty(object, field, { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(Stats.prototype, field, {
    enumerable: true,
    configurable: true,
    get() { return own(this, new Date(this[ms]))[field]; },
    set(value) { own(this, value); },
  });
}

// `parentPath` and `path` (Node 20's name for it) are the directory the entry is in (`raw.path`
// is the entry's own path).
export class Dirent {
  constructor(raw) {
    this.name = raw.name;
    this.parentPath = raw.path.slice(0, raw.path.length - raw.name.length - 1) || "/";
    this.path = this.parentPath;
    this.type = raw.type;
  }
  isFile() { return this.type === "file"; }
  isDirectory() { return this.type === "directory"; }
  isSymbolicLink() { return this.type === "symlink"; }
  isBlockDevice() { return false; }
  isCharacterDevice() { return false; }
  isFIFO() { return false; }
  isSocket() { return false; }
}
