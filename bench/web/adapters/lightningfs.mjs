// @isomorphic-git/lightning-fs, its UMD build (window.LightningFS, loaded by bench.html).
// Durability: file contents are put into IndexedDB before writeFile resolves, but the directory
// tree (the "superblock") is saved only by a 500 ms debounce or flush(); flush() is part of
// every timed write workload here.

import { nodeLike, walkRemove } from "./common.mjs";

export async function open(store) {
  const lfs = new globalThis.LightningFS(store);
  const fs = lfs.promises;
  await fs.stat("/"); // waits for the superblock to load
  return nodeLike(fs, {
    gitFs: lfs, // isomorphic-git's own file system takes the instance as `fs`
    // lightning-fs has no recursive rm: walk the tree like a caller would.
    rmTree: (path) => walkRemove(fs, path),
    flush: () => fs.flush(),
  });
}
