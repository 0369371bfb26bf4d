// The workloads, the same for every adapter. They run as a chain on one fresh store per adapter
// and repetition (bench/run.py, CHAIN): W1 writes /w1; W1c writes /t, which W2 reads, W3 lists,
// W5 renames to /t2 and W7 removes; W4 writes and removes /w4; after a page reload W6 reads /w1
// back. W8 has its own store, seeded once and read after browser restarts; Q1-Q3 (ours only: the
// other file systems have no SQL) query that store in the page W8 reopened it in. E1 (ours only:
// the JS API's vfs.export) has its own store too, seeded once: a tree of exportSize bytes.
// W4r writes W4's file in a store of its own and reads it after a reload (bench/cold_read.py).
// T1 (ours only) opens the same store in 1, 2 and 5 pages of one browser context: its first page
// seeds /t1 with `files` files, every page then reads one of them (memory per tab, bench/tabs.py).
// G1 clones a git repository served by the bench server into a fresh store with isomorphic-git
// (the adapter's `gitFs`: ours, lightning-fs and ZenFS; raw IndexedDB is no file system).
// Each workload has `run` (the timed part; its value's `split` adds named parts of its time to
// the result) and may have `before` (untimed, just before it),
// `check` (untimed: throws unless the result is right) and `seed` (W8: fills the store).
// Sizes come from the runner: {files, dirs, fileSize, bigSize, manyFiles, manyDirs, exportSize};
// for G1 also {gitRepo: the repository's URL path, gitManifest: {path: SHA-256 hex}}.

import { clone, prepareClone, verifyCheckout } from "./git.mjs";

const paths = (root, p) =>
  Array.from({ length: p.files }, (_, i) => `${root}/d${i % p.dirs}/f${i}.txt`);

// Content that differs per file, so a mix-up between two files fails verification.
export function content(i, size) {
  const data = new Uint8Array(size);
  for (let j = 0; j < size; j++) data[j] = (i * 31 + j * 7 + (j >> 8)) & 255;
  return data;
}

const EXPORT_FILE = 4 * 1024 * 1024;

// The big file of W4, made once per page in the untimed part, not in the timed one.
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

// Files [start, start + count) of the tree, all in flight; the dirs come with the first batch.
async function writeConcurrent(fs, root, p, start = 0, count = p.files) {
  if (start === 0) await makeDirs(fs, root, p);
  const all = paths(root, p).slice(start, start + count);
  await Promise.all(all.map((path, k) => fs.writeFile(path, content(start + k, p.fileSize))));
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

// The statements (issue 12), verbatim, run through the JS API's `vfs.query`. The limit
// is raised above the default 10,000 so that every row of W8's 10,101 entries comes back.
const QUERY_LIMIT = 100_000;
const query = (sql) => (fs) => fs.query(sql, [], { limit: QUERY_LIMIT });
const w8Rows = (result) => result.rows.filter(([path]) => path === "/w8" || path.startsWith("/w8/"));

async function expectGone(fs, path) {
  if (await fs.exists(path)) throw new Error(`${path} still exists`);
}

export const WORKLOADS = {
  W1: {
    run: (fs, p) => writeSequential(fs, "/w1", p),
    check: (fs, p) => readAll(fs, "/w1", p),
  },
  W1c: {
    run: async (fs, p) => {
      await writeConcurrent(fs, "/t", p);
      await fs.flush();
    },
    check: (fs, p) => readAll(fs, "/t", p),
  },
  W2: {
    run: (fs, p) => readAll(fs, "/t", p),
  },
  W3: {
    run: (fs, p) => listAndStat(fs, "/t", p),
    check: (fs, p, got) => {
      if (got.names !== p.files || got.bytes !== p.files * p.fileSize) {
        throw new Error(`readdir/stat saw ${got.names} names, ${got.bytes} bytes`);
      }
    },
  },
  W5: {
    run: async (fs) => {
      await fs.rename("/t", "/t2");
      await fs.flush();
    },
    check: async (fs, p) => {
      await expectGone(fs, "/t");
      await readAll(fs, "/t2", p);
    },
  },
  W7: {
    run: async (fs) => {
      await fs.rmTree("/t2");
      await fs.flush();
    },
    check: (fs) => expectGone(fs, "/t2"),
  },
  W4: {
    before: async (fs, p) => {
      await fs.mkdir("/w4");
      bigContent(p.bigSize);
    },
    // Timed as a whole, and split: the write + flush, and the read back + verify (`split`).
    run: async (fs, p) => {
      const data = bigContent(p.bigSize);
      const start = performance.now();
      await fs.writeFile("/w4/big.bin", data);
      await fs.flush();
      const written = performance.now();
      const back = await fs.readFile("/w4/big.bin");
      if (!same(back, data)) throw new Error("big file differs");
      return { split: { writeMs: written - start, readMs: performance.now() - written } };
    },
    // W6 reopens this store next: leave it holding only /w1, as for every adapter.
    check: async (fs) => {
      await fs.rmTree("/w4");
      await fs.flush();
    },
  },
  W6: {
    run: (fs, p) => readAll(fs, "/w1", p),
  },
  W4r: {
    // W4's file written at the setup; timed after a reload: reopening the store and reading it.
    seed: async (fs, p) => {
      await fs.mkdir("/w4");
      await fs.writeFile("/w4/big.bin", bigContent(p.bigSize));
    },
    run: async (fs, p) => {
      const back = await fs.readFile("/w4/big.bin");
      if (!same(back, bigContent(p.bigSize))) throw new Error("big file differs");
    },
  },
  E1: {
    // 4 MiB files (the last one shorter), made once per store at its setup (untimed, and
    // outside the memory samples of the runs).
    seed: async (fs, p) => {
      await fs.mkdir("/e1");
      for (let i = 0, at = 0; at < p.exportSize; i++, at += EXPORT_FILE) {
        await fs.writeFile(`/e1/f${i}.bin`, content(i, Math.min(EXPORT_FILE, p.exportSize - at)));
      }
    },
    // The zip export drained as the page pulls it: its bytes and pieces.
    run: async (fs) => {
      let bytes = 0, pieces = 0, zip = null;
      for await (const piece of fs.exportZip("/e1")) {
        zip ??= piece[0] === 0x50 && piece[1] === 0x4b;
        bytes += piece.byteLength;
        pieces++;
      }
      return { bytes, pieces, zip };
    },
    check: (fs, p, got) => {
      if (!got.zip || got.bytes === 0) throw new Error(`the export is no zip (${got.bytes} bytes)`);
    },
  },
  G1: {
    // Untimed: isomorphic-git loaded. Timed: a shallow clone of one branch into /g1, its
    // checkout included, and flush (lightning-fs saves its superblock). Checked: every file of
    // the checkout against the runner's manifest, byte for byte (SHA-256), and nothing more.
    before: (fs) => prepareClone(fs),
    run: async (fs, p) => {
      await clone(fs, "/g1", new URL(p.gitRepo, location.href).href);
      await fs.flush();
    },
    check: (fs, p) => verifyCheckout(fs, "/g1", p.gitManifest),
  },
  W8: {
    seed: async (fs, p) => {
      const many = { ...p, files: p.manyFiles, dirs: p.manyDirs };
      for (let start = 0; start < many.files; start += 1000) {
        await writeConcurrent(fs, "/w8", many, start, 1000);
      }
      await fs.flush();
    },
    run: async (fs, p) => {
      const data = await fs.readFile("/w8/d0/f0.txt");
      if (!same(data, content(0, p.fileSize))) throw new Error("first file differs");
    },
  },
  T1: {
    seed: (fs, p) => writeConcurrent(fs, "/t1", p),
    run: async (fs, p) => {
      const data = await fs.readFile("/t1/d0/f0.txt");
      if (!same(data, content(0, p.fileSize))) throw new Error("/t1/d0/f0.txt differs");
    },
  },
  Q1: {
    run: query("SELECT path FROM files WHERE mtime > '2026-06-09'"),
    check: (fs, p, got) => {  // W8's tree was written today: every entry of it
      const want = p.manyFiles + p.manyDirs + 1;
      if (got.truncated || w8Rows(got).length !== want) {
        throw new Error(`${w8Rows(got).length} rows under /w8, not ${want}`);
      }
    },
  },
  Q2: {
    run: query("SELECT dir, sum(size) FROM files GROUP BY dir ORDER BY 2 DESC"),
    check: (fs, p, got) => {
      const row = got.rows.find(([dir]) => dir === "/w8/d0");
      const want = (p.manyFiles / p.manyDirs) * p.fileSize;
      if (row?.[1] !== want) throw new Error(`/w8/d0 sums to ${row?.[1]}, not ${want}`);
    },
  },
  Q3: {
    run: query("SELECT path FROM files WHERE writer = 'agent' AND mtime > date('now', '-7 days')"),
    check: (fs, p, got) => {
      if (got.columns.join() !== "path") throw new Error(`columns ${got.columns}`);
    },
  },
};
