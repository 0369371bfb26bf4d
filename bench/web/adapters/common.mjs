// Helpers shared by the peer adapters.

// rm -r for a file system with only unlink/rmdir: files first, then the emptied directories.
export async function walkRemove(fs, path) {
  const stat = await fs.stat(path);
  if (!stat.isDirectory()) return fs.unlink(path);
  for (const name of await fs.readdir(path)) await walkRemove(fs, `${path}/${name}`);
  return fs.rmdir(path);
}
