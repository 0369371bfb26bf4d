// @isomorphic-git/lightning-fs, its UMD build (window.LightningFS, loaded by bench.html).
// Durability: file contents are put into IndexedDB before writeFile resolves, but the directory
// tree (the "superblock") is saved only by a 500 ms debounce or flush(); flush() is part of
// every timed write workload here.

import { walkRemove } from "./common.mjs";

export async function open(store) {
  const fs = new globalThis.LightningFS(store).promises;
  await fs.stat("/"); // waits for the superblock to load
  const adapter = {
    writeFile: (path, data) => fs.writeFile(path, data),
    readFile: (path) => fs.readFile(path),
    mkdir: (path) => fs.mkdir(path),
    readdir: (path) => fs.readdir(path),
    stat: async (path) => {
      const s = await fs.stat(path);
      return { size: s.size, isDirectory: s.isDirectory() };
    },
    rename: (from, to) => fs.rename(from, to),
    exists: (path) => fs.stat(path).then(() => true, () => false),
    flush: () => fs.flush(),
  };
  // lightning-fs has no recursive rm: walk the tree like a caller would.
  adapter.rmTree = (path) => walkRemove(fs, path);
  return adapter;
}
