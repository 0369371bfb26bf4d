// What stat and lstat (Stats) and readdir with {withFileTypes: true} (Dirent) resolve to, in
// node:fs's shape (docs/api.md).

export class Stats {
  constructor(raw) {
    Object.assign(this, {
      type: raw.type, size: raw.size, mode: raw.mode | modeType(raw.type),
      mtimeMs: raw.mtimeMs, ctimeMs: raw.ctimeMs, atimeMs: raw.atimeMs, birthtimeMs: raw.ctimeMs,
      name: raw.name, path: raw.path,
      mtime: new Date(raw.mtimeMs), ctime: new Date(raw.ctimeMs), atime: new Date(raw.atimeMs),
      uid: 1000, gid: 1000, nlink: 1, dev: 1, ino: 0,
    });
  }
  isFile() { return this.type === "file"; }
  isDirectory() { return this.type === "directory"; }
  isSymbolicLink() { return this.type === "symlink"; }
}

function modeType(type) {
  return { file: 0o100000, directory: 0o040000, symlink: 0o120000 }[type] ?? 0;
}

export class Dirent {
  constructor(raw) {
    this.name = raw.name;
    this.path = raw.path;
    this.parentPath = raw.path.slice(0, raw.path.length - raw.name.length - 1) || "/";
    this.type = raw.type;
  }
  isFile() { return this.type === "file"; }
  isDirectory() { return this.type === "directory"; }
  isSymbolicLink() { return this.type === "symlink"; }
}

