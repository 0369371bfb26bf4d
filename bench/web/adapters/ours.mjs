// py_vfs through its JS API (dist/pyvfs.mjs), as an application would use it.
// Durability: every write resolves after its IndexedDB transaction completed, so flush is a no-op.

import { openVFS } from "/pyvfs.mjs";
import { nodeLike } from "./common.mjs";

export async function open(store) {
  const vfs = await openVFS({ name: store });
  return nodeLike(vfs, { exists: (path) => vfs.exists(path) });
}
