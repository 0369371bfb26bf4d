// Keeps the origin's IndexedDB log short for the browser's next start (docs/storage.md, "The
// log the next start replays"). Chromium keeps every IndexedDB database of an origin in one
// LevelDB, whose log holds each write made since LevelDB last moved its table in memory into a
// file (it does so every few MiB), and the first open after the browser starts replays that log
// whole: the 3.0 MiB that seeding benchmark W8's 10,000 files left made that open take 89 ms,
// 37 once the log was emptied (docs/benchmarks.md, W8). Deleting a database compacts its keys,
// and LevelDB moves the table in memory into a file first, leaving the log empty: so once this
// disk has written CHECKPOINT_BYTES and then made no commit for QUIET_MS, a scratch database
// is made and deleted. One context of the origin at a time does it (a Web Lock; another already
// doing it is enough). Elsewhere than Chromium it costs a small database made and deleted.

const SCRATCH = "pyvfs-checkpoint";
export const CHECKPOINT_BYTES = 256 * 1024;
export const QUIET_MS = 1000;
// Values larger than this are kept by Chromium in files of their own: not in the log.
const LOGGED_VALUE = 64 * 1024;

// About the bytes a commit's value adds to the log.
export function loggedBytes(value) {
  const size = typeof value === "string" ? value.length * 2 : value?.byteLength ?? 16;
  return size > LOGGED_VALUE ? 64 : size;
}

// About the bytes [action, space, key, value] ops add to the log.
export function opsBytes(ops) {
  let bytes = 0;
  for (const [action, , key, value] of ops) bytes += loggedBytes(key) + (action === "put" ? loggedBytes(value) : 0);
  return bytes;
}

export class LogCheckpoint {
  #bytes = 0;
  #timer = null;
  #last = 0;

  constructor({ bytes = CHECKPOINT_BYTES, quietMs = QUIET_MS } = {}) {
    this.limit = bytes;
    this.quietMs = quietMs;
    this.done = 0; // checkpoints made by this context (diagnostics: logCheckpoints)
  }

  // A commit of about `bytes` completed: the checkpoint waits for QUIET_MS without another.
  // One timer at a time: when it fires early (commits came since), it waits out the rest.
  wrote(bytes) {
    this.#bytes += bytes;
    this.#last = performance.now();
    if (this.#bytes < this.limit || this.#timer !== null || !globalThis.navigator?.locks) return;
    this.#wait(this.quietMs);
  }

  #wait(ms) {
    this.#timer = setTimeout(() => {
      const quiet = performance.now() - this.#last;
      if (quiet >= this.quietMs) this.#run();
      else this.#wait(this.quietMs - quiet);
    }, ms);
  }

  async #run() {
    this.#timer = null;
    this.#bytes = 0;
    try {
      await navigator.locks.request(SCRATCH, { ifAvailable: true }, async (lock) => {
        if (!lock) return;
        await madeAndDeleted(SCRATCH);
        this.done += 1;
      });
    } catch {
      // No checkpoint this time: the next start replays a longer log, nothing else.
    }
  }

  close() {
    clearTimeout(this.#timer);
    this.#timer = null;
  }
}

// Makes the database `name` (one object store) and deletes it.
async function madeAndDeleted(name) {
  await new Promise((resolve, reject) => {
    const opening = indexedDB.open(name);
    opening.onupgradeneeded = () => opening.result.createObjectStore("scratch");
    opening.onsuccess = () => {
      opening.result.close();
      resolve();
    };
    opening.onerror = () => reject(opening.error);
    opening.onblocked = () => reject(new Error(`${name} is held open`));
  });
  await new Promise((resolve, reject) => {
    const deleting = indexedDB.deleteDatabase(name);
    deleting.onsuccess = () => resolve();
    deleting.onerror = () => reject(deleting.error);
  });
}
