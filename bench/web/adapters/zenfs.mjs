// ZenFS (@zenfs/core) on its IndexedDB backend (@zenfs/dom), through its fs.promises.
// Durability: each operation runs in an IndexedDB transaction that it awaits (StoreFS), so a
// write is in IndexedDB when it resolves; flush is a no-op.

import { configure, fs } from "@zenfs/core";
import { IndexedDB } from "@zenfs/dom";
import { nodeLike } from "./common.mjs";

export async function open(store) {
  await configure({ mounts: { "/": { backend: IndexedDB, storeName: store } } });
  return nodeLike(fs.promises, { gitFs: { promises: fs.promises } });
}
