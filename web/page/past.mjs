// `vfs.at(state)`: the disk as it was in a state (a snapshot name, a revision, {revision} or
// {before}, as for diff and restore), read only. Each read is one "readAt" call answered by
// py_vfs/data/past.py; the worker keeps the trees of the last revisions asked for, so browsing
// one folder after another replays the journal once (docs/api.md).

import { Dirent, Stats } from "./entries.mjs";

export class PastDisk {
  #read;
  // `read(call, path, options)`: sends "readAt" for this state.
  constructor(read, state) {
    this.#read = read;
    this.state = state;
  }
  readFile(path, options) {
    return this.#read("readFile", path, typeof options === "string" ? { encoding: options } : options);
  }
  async readdir(path, options) {
    const entries = await this.#read("readdir", path, options);
    return options?.withFileTypes ? entries.map((raw) => new Dirent(raw)) : entries;
  }
  async stat(path, options) { return new Stats(await this.#read("stat", path, options)); }
  async lstat(path, options) { return new Stats(await this.#read("lstat", path, options)); }
  readlink(path, options) { return this.#read("readlink", path, options); }
  realpath(path, options) { return this.#read("realpath", path, options); }
  exists(path, options) { return this.#read("exists", path, options); }
}
