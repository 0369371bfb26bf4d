// Scratch folders for Python's sqlite3 in the worker, kept in the origin private file system
// (OPFS) instead of in memory. Python's sqlite3 needs a real file to build or read a SQLite
// image (py_vfs/archives/sqlite_image.py); in Pyodide's default file system (MEMFS) that file would
// sit whole in the worker's memory. Here each scratch folder is a small Emscripten file
// system mounted into Pyodide's, whose files are OPFS files written and read through their
// synchronous access handles (dedicated workers only): the image goes to the device a page at
// a time, and memory stays what SQLite's page cache holds.
//
// A folder holds at most the files named in FILES (the image and SQLite's rollback journal),
// because a sync access handle can only be opened asynchronously while Emscripten creates
// files synchronously: the handles are opened up front, and creating a file binds one. Folders
// live under OPFS "/.pyvfs-scratch/<uuid>"; closing one removes it, and opening one sweeps away
// folders left by a worker that died (a folder still in use is locked by its handles, so its
// removal fails and it stays).

const ROOT = ".pyvfs-scratch";
const MOUNTS = "/pyvfs-scratch";
const FILES = ["image.db", "image.db-journal"];
// Emscripten's errno numbers (its own, not Linux's).
const ENOENT = 44;
const EPERM = 63;
const EINVAL = 28;
const DIRECTORY = 0o040000 | 0o777;

const open = new Set();

export function available() {
  return typeof FileSystemSyncAccessHandle !== "undefined" && !!navigator.storage?.getDirectory;
}

// Bytes held by the scratch folders open now (diagnostics: memoryUsage's scratchBytes).
export function bytes() {
  let total = 0;
  for (const folder of open) for (const handle of folder.handles.values()) total += handle.getSize();
  return total;
}

// A new scratch folder mounted in Pyodide's file system `FS`: {path, close()}.
export async function openScratch(FS) {
  const top = await (await navigator.storage.getDirectory()).getDirectoryHandle(ROOT, { create: true });
  await sweep(top);
  const id = crypto.randomUUID();
  const directory = await top.getDirectoryHandle(id, { create: true });
  const handles = new Map();
  try {
    for (const name of FILES) {
      const file = await directory.getFileHandle(name, { create: true });
      handles.set(name, await file.createSyncAccessHandle());
    }
  } catch (error) {
    for (const handle of handles.values()) handle.close();
    await top.removeEntry(id, { recursive: true }).catch(() => {});
    throw error;
  }
  const path = `${MOUNTS}/${id}`;
  if (!FS.analyzePath(MOUNTS).exists) FS.mkdir(MOUNTS);
  FS.mkdir(path);
  FS.mount(fileSystem(FS, handles), {}, path);
  const folder = { path, handles };
  open.add(folder);
  let closed = false;
  return {
    path,
    async close() {
      if (closed) return;
      closed = true;
      open.delete(folder);
      FS.unmount(path);
      FS.rmdir(path);
      for (const handle of handles.values()) handle.close();
      await top.removeEntry(id, { recursive: true });
    },
  };
}

async function sweep(top) {
  for await (const name of top.keys()) {
    await top.removeEntry(name, { recursive: true }).catch(() => {});  // in use: locked, stays
  }
}

// The Emscripten file system of one folder: a directory of the files in `handles` that exist
// (created and not unlinked since), each read and written at the positions asked.
function fileSystem(FS, handles) {
  const present = new Set();
  const handleOf = (stream) => handles.get(stream.node.name);
  const attributes = (node, size) => {
    const time = new Date(node.time);
    return {
      dev: 1, ino: node.id, mode: node.mode, nlink: 1, uid: 0, gid: 0, rdev: 0, size,
      atime: time, mtime: time, ctime: time, blksize: 4096, blocks: Math.ceil(size / 4096),
    };
  };
  const seek = (size) => (stream, offset, whence) => {
    let position = offset;
    if (whence === 1) position += stream.position;
    else if (whence === 2) position += size(stream);
    if (position < 0) throw new FS.ErrnoError(EINVAL);
    return position;
  };
  const fileNode = {
    getattr: (node) => attributes(node, handles.get(node.name).getSize()),
    setattr(node, attr) {
      if (attr.size != null) handles.get(node.name).truncate(attr.size);
      if (attr.mode != null) node.mode = attr.mode;
      node.time = Date.now();
    },
  };
  const fileStream = {
    read: (stream, buffer, offset, length, position) =>
      handleOf(stream).read(buffer.subarray(offset, offset + length), { at: position }),
    write(stream, buffer, offset, length, position) {
      stream.node.time = Date.now();
      return handleOf(stream).write(buffer.subarray(offset, offset + length), { at: position });
    },
    llseek: seek((stream) => handleOf(stream).getSize()),
    fsync: (stream) => handleOf(stream).flush(),
  };
  const makeFile = (parent, name, mode) => {
    const node = FS.createNode(parent, name, mode, 0);
    node.node_ops = fileNode;
    node.stream_ops = fileStream;
    node.time = Date.now();
    return node;
  };
  const refuse = () => { throw new FS.ErrnoError(EPERM); };
  const directoryNode = {
    getattr: (node) => attributes(node, 4096),
    setattr: (node) => { node.time = Date.now(); },
    lookup(parent, name) {
      if (!present.has(name)) throw new FS.ErrnoError(ENOENT);
      return makeFile(parent, name, 0o100000 | 0o644);
    },
    mknod(parent, name, mode) {
      if (!handles.has(name) || !FS.isFile(mode)) refuse();
      handles.get(name).truncate(0);
      present.add(name);
      return makeFile(parent, name, mode);
    },
    unlink(parent, name) {
      if (!present.has(name)) throw new FS.ErrnoError(ENOENT);
      handles.get(name).truncate(0);
      present.delete(name);
    },
    readdir: () => [".", "..", ...present],
    rename: refuse, rmdir: refuse, symlink: refuse, readlink: refuse,
  };
  return {
    mount() {
      const root = FS.createNode(null, "/", DIRECTORY, 0);
      root.node_ops = directoryNode;
      root.stream_ops = { llseek: seek(() => 4096) };
      root.time = Date.now();
      return root;
    },
  };
}
