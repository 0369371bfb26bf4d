// F1's bare dedicated worker (bench/web/floors.mjs): it echoes a message; times appends of
// 1 KiB to a file of the origin private file system through a sync access handle, with and
// without a flush after each: the storage a log-structured store in our worker would use; and
// times raw IndexedDB from a worker, where our commits run: one put per transaction, and a
// group of puts in one.

import { KIB, idbGroup, idbPut, openDatabase, probe } from "./floor_probes.mjs";

const FILE = "bench-floors.log";
const DATABASE = "bench-floors-worker";

async function opfs(sizes) {
  const root = await navigator.storage.getDirectory();
  const file = await root.getFileHandle(FILE, { create: true });
  const handle = await file.createSyncAccessHandle();
  try {
    handle.truncate(0);
    let at = 0;
    const append = () => { at += handle.write(KIB, { at }); };
    const opfsAppend = await probe(append, sizes);
    const opfsAppendFlush = await probe(() => { append(); handle.flush(); }, sizes);
    return { opfsAppend, opfsAppendFlush };
  } finally {
    handle.close();
    await root.removeEntry(FILE);
  }
}

async function idb({ count, warmup, calls, rounds }) {
  const db = await openDatabase(DATABASE, ["files"]);
  try {
    const idbPutWorker = await probe(idbPut(db, "files"), { count, warmup });
    const idbGroupWorker = await idbGroup(db, "files", { calls, rounds });
    return { idbPutWorker, idbGroupWorker };
  } finally {
    db.close();
  }
}

const KINDS = { echo: async (data) => data.bytes, opfs, idb };

self.onmessage = async ({ data }) => {
  try {
    const value = await KINDS[data.kind](data);
    self.postMessage({ id: data.id, value });
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error?.message ?? error) });
  }
};
