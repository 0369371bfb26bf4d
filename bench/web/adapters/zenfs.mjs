// ZenFS (@zenfs/core) on its IndexedDB backend (@zenfs/dom), through its fs.promises.
// Durability: each operation runs in an IndexedDB transaction that it awaits (StoreFS), so a
// write is in IndexedDB when it resolves; flush is a no-op.

import { configure, fs } from "@zenfs/core";
import { IndexedDB } from "@zenfs/dom";

export async function open(store) {
  await configure({ mounts: { "/": { backend: IndexedDB, storeName: store } } });
  const p = fs.promises;
  return {
    writeFile: (path, data) => p.writeFile(path, data),
    readFile: (path) => p.readFile(path),
    mkdir: (path) => p.mkdir(path),
    readdir: (path) => p.readdir(path),
    stat: async (path) => {
      const s = await p.stat(path);
      return { size: s.size, isDirectory: s.isDirectory() };
    },
    rename: (from, to) => p.rename(from, to),
    rmTree: (path) => p.rm(path, { recursive: true }),
    exists: (path) => p.stat(path).then(() => true, () => false),
    flush: async () => {},
  };
}
