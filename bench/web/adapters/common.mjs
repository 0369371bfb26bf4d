// Helpers shared by the adapters.

// The bench's adapter interface over any node:fs/promises-shaped object (ours, lightning-fs's
// `promises`, ZenFS's `fs.promises`); `extra` replaces what a file system does differently.
export function nodeLike(fs, extra = {}) {
  return {
    writeFile: (path, data) => fs.writeFile(path, data),
    readFile: (path) => fs.readFile(path),
    mkdir: (path) => fs.mkdir(path),
    readdir: (path) => fs.readdir(path),
    stat: async (path) => {
      const s = await fs.stat(path);
      return { size: s.size, isDirectory: s.isDirectory() };
    },
    rename: (from, to) => fs.rename(from, to),
    rmTree: (path) => fs.rm(path, { recursive: true }),
    exists: (path) => fs.stat(path).then(() => true, () => false),
    flush: async () => {},
    ...extra,
  };
}

// rm -r for a file system with only unlink/rmdir: files first, then the emptied directories.
export async function walkRemove(fs, path) {
  const stat = await fs.stat(path);
  if (!stat.isDirectory()) return fs.unlink(path);
  for (const name of await fs.readdir(path)) await walkRemove(fs, `${path}/${name}`);
  return fs.rmdir(path);
}
