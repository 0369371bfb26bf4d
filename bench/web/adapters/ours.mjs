// py_vfs through its JS API (dist/pyvfs.mjs), as an application would use it.
// Durability: every write resolves after its IndexedDB transaction completed, so flush is a no-op.

import { openVFS } from "/pyvfs.mjs";

export async function open(store) {
  const vfs = await openVFS({ name: store });
  return {
    writeFile: (path, data) => vfs.writeFile(path, data),
    readFile: (path) => vfs.readFile(path),
    mkdir: (path) => vfs.mkdir(path),
    readdir: (path) => vfs.readdir(path),
    stat: async (path) => {
      const s = await vfs.stat(path);
      return { size: s.size, isDirectory: s.isDirectory() };
    },
    rename: (from, to) => vfs.rename(from, to),
    rmTree: (path) => vfs.rm(path, { recursive: true }),
    exists: (path) => vfs.exists(path),
    flush: async () => {},
  };
}
