// F1, the per-call floors: what one small write costs at each layer a write of ours crosses, in
// this browser, in the same run as the workloads (docs/benchmarks.md, "Per-call floors"). Each
// probe makes `count` sequential calls after `warmup` untimed ones and reports the median time
// of one call in ms. Nothing here is a file system; ours is opened only for its own probes.

import { openVFS } from "/pyvfs.mjs";
import { KIB, idbPut, openDatabase, probe, probeTurn, settled } from "./floor_probes.mjs";

const DATABASE = "bench-floors";
// A commit of ours touches these object stores (web/worker/idb_store.mjs, commitLogged).
const COMMIT_SPACES = ["meta", "log", "nodes", "names"];
// Records shaped and sized like a 1 KiB file's commit: its node record (the bytes inline, as
// base64), its folder's, its directory entry and the journal entry.
const FILE_RECORD = JSON.stringify({ type: "file", mode: 420, size: 1024, inline: btoa("x".repeat(1024)) });
const FOLDER_RECORD = JSON.stringify({ type: "dir", mode: 493, mtime: 0, ctime: 0 });
const LOG_ENTRY = JSON.stringify({ v: 1, writer: "user", op: "writeFile", puts: { a: FILE_RECORD }, before: { a: null } });

// One transaction shaped like ours: the revision read and put, the file's and its folder's
// records, the directory entry and the journal entry, over four object stores.
function idbCommit(db) {
  let rev = 0;
  return (i) => {
    const tx = db.transaction(COMMIT_SPACES, "readwrite");
    const meta = tx.objectStore("meta");
    meta.get("rev");
    tx.objectStore("nodes").put(FILE_RECORD, `n${i}`);
    tx.objectStore("nodes").put(FOLDER_RECORD, "folder");
    tx.objectStore("names").put(`n${i}`, `folder/f${i}`);
    rev += 1;
    tx.objectStore("log").put(LOG_ENTRY, rev);
    meta.put(String(rev), "rev");
    return settled(tx);
  };
}

// A bare dedicated worker: a round trip carrying 1 KiB each way, and the OPFS probes inside it
// (a sync access handle exists only in dedicated workers).
function floorWorker() {
  const worker = new Worker(new URL("./floor_worker.mjs", import.meta.url), { type: "module" });
  let next = 0;
  const waiting = new Map();
  worker.onmessage = ({ data }) => {
    const settle = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) settle.reject(new Error(data.error));
    else settle.resolve(data.value);
  };
  const ask = (message) => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ ...message, id });
  });
  return { ask, close: () => worker.terminate() };
}

// Every probe once: {probe name: median ms of one call}. `count`, `warmup`: calls per probe;
// `calls`, `rounds`: the probes of calls made at once (W1c's shape), calls per round and rounds.
export async function runFloors({ count, warmup, calls, rounds }) {
  const sizes = { count, warmup };
  const out = {};
  const db = await openDatabase(DATABASE, ["files", ...COMMIT_SPACES]);
  try {
    out.idbPut = await probe(idbPut(db, "files"), sizes);
    out.idbCommit = await probe(idbCommit(db), sizes);
  } finally {
    db.close();
  }
  const worker = floorWorker();
  try {
    out.workerEcho = await probe(() => worker.ask({ kind: "echo", bytes: KIB }), sizes);
    Object.assign(out, await worker.ask({ kind: "opfs", ...sizes }));
    Object.assign(out, await worker.ask({ kind: "idb", ...sizes, calls, rounds }));
  } finally {
    worker.close();
  }
  const vfs = await openVFS({ name: "F1", defaults: false });
  await vfs.mkdir("/f1", { recursive: true });
  // A round trip to our worker that Python does not take part in, one Python call that
  // touches no storage (alone, and `calls` of them made at once: one message, one entry into
  // Python), and a write.
  out.oursHop = await probe(() => vfs.fsaCounters(), sizes);
  out.oursPython = await probe(() => vfs.realpath("/f1"), sizes);
  out.oursPythonTurn = await probeTurn(() => vfs.realpath("/f1"), { calls, rounds });
  out.oursWrite = await probe((i) => vfs.writeFile(`/f1/${i}`, KIB), sizes);
  return out;
}
