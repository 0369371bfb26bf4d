// The workloads, the same for every adapter. Each has `prepare` (untimed set-up), `run` (the
// timed part) and `check` (untimed: throws unless the result is right). Every workload works
// under its own root folder, so that a smoke run can share one store between all of them.
// Sizes come from the runner: {files, dirs, fileSize, bigSize}.

const paths = (root, p) =>
  Array.from({ length: p.files }, (_, i) => `${root}/d${i % p.dirs}/f${i}.txt`);

// Content that differs per file, so a mix-up between two files fails verification.
export function content(i, size) {
  const data = new Uint8Array(size);
  for (let j = 0; j < size; j++) data[j] = (i * 31 + j * 7 + (j >> 8)) & 255;
  return data;
}

// The big file of W4, made once per page (in the untimed set-up), not in the timed part.
let big = null;
function bigContent(size) {
  if (big?.byteLength !== size) big = content(4, size);
  return big;
}

function same(a, b) {
  if (a.byteLength !== b.byteLength) return false;
  for (let j = 0; j < a.byteLength; j++) if (a[j] !== b[j]) return false;
  return true;
}

async function makeDirs(fs, root, p) {
  await fs.mkdir(root);
  for (let k = 0; k < p.dirs; k++) await fs.mkdir(`${root}/d${k}`);
}

async function writeSequential(fs, root, p) {
  await makeDirs(fs, root, p);
  const all = paths(root, p);
  for (let i = 0; i < all.length; i++) await fs.writeFile(all[i], content(i, p.fileSize));
  await fs.flush();
}

async function writeConcurrent(fs, root, p) {
  await makeDirs(fs, root, p);
  await Promise.all(paths(root, p).map((path, i) => fs.writeFile(path, content(i, p.fileSize))));
  await fs.flush();
}

async function readAll(fs, root, p) {
  const all = paths(root, p);
  for (let i = 0; i < all.length; i++) {
    const data = await fs.readFile(all[i]);
    if (!same(data, content(i, p.fileSize))) throw new Error(`${all[i]}: content differs`);
  }
}

async function listAndStat(fs, root, p) {
  let names = 0;
  for (let k = 0; k < p.dirs; k++) names += (await fs.readdir(`${root}/d${k}`)).length;
  let bytes = 0;
  for (const path of paths(root, p)) bytes += (await fs.stat(path)).size;
  return { names, bytes };
}

async function expectGone(fs, path) {
  if (await fs.exists(path)) throw new Error(`${path} still exists`);
}

export const WORKLOADS = {
  W1: {
    title: "write N files (sequential) + flush",
    run: (fs, p) => writeSequential(fs, "/w1", p),
    check: (fs, p) => readAll(fs, "/w1", p),
  },
  W1c: {
    title: "write N files (all in flight) + flush",
    run: (fs, p) => writeConcurrent(fs, "/w1c", p),
    check: (fs, p) => readAll(fs, "/w1c", p),
  },
  W2: {
    title: "read N files back + verify",
    prepare: (fs, p) => writeConcurrent(fs, "/w2", p),
    run: (fs, p) => readAll(fs, "/w2", p),
  },
  W3: {
    title: "readdir the dirs + stat N files",
    prepare: (fs, p) => writeConcurrent(fs, "/w3", p),
    run: (fs, p) => listAndStat(fs, "/w3", p),
    check: (fs, p, got) => {
      if (got.names !== p.files || got.bytes !== p.files * p.fileSize) {
        throw new Error(`readdir/stat saw ${got.names} names, ${got.bytes} bytes`);
      }
    },
  },
  W4: {
    title: "write a big file + flush, read back + verify",
    prepare: async (fs, p) => {
      await fs.mkdir("/w4");
      bigContent(p.bigSize);
    },
    run: async (fs, p) => {
      const big = bigContent(p.bigSize);
      await fs.writeFile("/w4/big.bin", big);
      await fs.flush();
      const back = await fs.readFile("/w4/big.bin");
      if (!same(back, big)) throw new Error("big file differs");
    },
  },
  W5: {
    title: "rename a directory of N files + flush",
    prepare: (fs, p) => writeConcurrent(fs, "/w5", p),
    run: async (fs) => {
      await fs.rename("/w5", "/w5moved");
      await fs.flush();
    },
    check: async (fs, p) => {
      await expectGone(fs, "/w5");
      await readAll(fs, "/w5moved", p);
    },
  },
  W6: {
    title: "reload, reopen + read N files",
    prepare: (fs, p) => writeConcurrent(fs, "/w6", p),
    reopen: true,
    run: (fs, p) => readAll(fs, "/w6", p),
  },
  W7: {
    title: "rm -r a tree of N files + flush",
    prepare: (fs, p) => writeConcurrent(fs, "/w7", p),
    run: async (fs) => {
      await fs.rmTree("/w7");
      await fs.flush();
    },
    check: (fs) => expectGone(fs, "/w7"),
  },
  W8: {
    title: "browser restart on a disk of M files: open to first read",
    prepare: async (fs, p) => {
      const many = { ...p, files: p.manyFiles, dirs: p.manyDirs };
      for (let start = 0; start < many.files; start += 1000) await writeBatch(fs, "/w8", many, start);
      await fs.flush();
    },
    reopen: true,
    run: async (fs, p) => {
      const data = await fs.readFile(`/w8/d0/f0.txt`);
      if (!same(data, content(0, p.fileSize))) throw new Error("first file differs");
    },
  },
};

// Files [start, start + 1000) of the tree, all in flight (the dirs are made with the first batch).
async function writeBatch(fs, root, p, start) {
  if (start === 0) await makeDirs(fs, root, p);
  const all = paths(root, p).slice(start, start + 1000);
  await Promise.all(all.map((path, k) => fs.writeFile(path, content(start + k, p.fileSize))));
}
