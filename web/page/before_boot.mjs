// Which calls of a page the early reader answers while the worker boots Python, and in what
// order everything reaches the worker (docs/boot.md, "Reads before Python").
//
// - Only the disk's own reads (readFile, stat, lstat, exists, readdir; not a step's, a view's
//   or one with a signal) are tried here, and only until the first call that may change
//   something (any operation py_vfs/web/protocol.py does not declare read-only: a write, a step, a
//   shell line...): from that call on, everything goes to the worker, so a tab reads its own
//   writes. A read-only call the reader does not answer (diagnostics, readlink, a read it
//   declines) goes to the worker without ending them: reads answered on either side before any
//   change see the same disk, so their order cannot show.
// - A call for the worker waits until every read tried before it has been answered here or
//   sent on: nothing overtakes a call made before it.
// - Once Python is ready (or failed) the reader retires: Python's answers are cheaper then, and
//   the page's stat cache works on them.

import { openEarlyReader } from "./early_reader.mjs";
import { READ_ONLY } from "../shared/protocol.mjs";

// The operations tried here, as Instance.call names them (readdir: readdirStats).
const EARLY = new Set(["readFile", "stat", "lstat", "exists", "readdirStats"]);

// The version of the default content the worker installs at boot, as it fetches it
// (web/worker/python_boot.mjs, fetchDefaults); null when it installs none.
async function shippedDefaults(defaults) {
  if (!defaults) return null;
  const response = await fetch(new URL("./defaults/manifest.json", import.meta.url), { cache: "no-cache" });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`defaults/manifest.json answered ${response.status}`);
  return (await response.json()).version;
}

export class BeforeBoot {
  #reader = null;
  #on = true;
  #undecided = new Set(); // tries not yet answered or sent on
  #queue = null; // the worker's calls waiting for them

  // Resolves to true once the reader can answer (openVFS may resolve then), false if it never
  // will (a fresh disk, another format, default content to install first, no IndexedDB).
  constructor(name, { defaults }) {
    this.answered = 0;
    this.fromMemory = 0; // of them, answered from what earlier answers read (no transaction)
    // The database opens and its first records are read while the manifest is fetched: one
    // waiting on the other put the fetch's round trip before every early answer.
    const version = shippedDefaults(defaults);
    version.catch(() => {}); // a failed fetch: the reader's start fails with it
    this.opened = openEarlyReader(name, version).catch(() => null)
      .then((reader) => {
        if (reader && this.#on) this.#reader = reader;
        else reader?.close();
        return Boolean(this.#reader);
      });
  }

  // A promise of {value} | {error} | undefined (declined) for a call the reader may answer;
  // undefined (synchronously) when the call is the worker's. `decided(reply)` must send a
  // declined call on at once (it runs before any call queued after this one is posted).
  try(op, args, direct, decided) {
    if (!(this.#reader && this.#on && direct && EARLY.has(op))) {
      if (!READ_ONLY.has(op)) this.stop();
      return false;
    }
    const decision = this.#reader.answer(op, args).then((reply) => {
      if (reply) this.answered++;
      if (reply?.memory) this.fromMemory++;
      decided(reply);
    });
    this.#undecided.add(decision);
    decision.finally(() => this.#undecided.delete(decision));
    return true;
  }

  // Posts to the worker with `send()`, after every read tried before (and in the order posted).
  post(send) {
    const before = [...this.#undecided];
    if (!before.length && !this.#queue) {
      send();
      return;
    }
    const queue = (this.#queue ?? Promise.resolve()).then(() => Promise.allSettled(before)).then(send);
    this.#queue = queue;
    queue.finally(() => {
      if (this.#queue === queue) this.#queue = null;
    });
  }

  // No more early reads; the reader closes once its last answer is given. Resolves once every
  // call tried or queued here has been answered or sent on: later calls may then go straight
  // to the worker (web/page/client.mjs).
  async stop() {
    if (this.#on) {
      this.#on = false;
      const reader = this.#reader;
      this.#reader = null;
      if (reader) Promise.allSettled([...this.#undecided]).then(() => reader.close());
    }
    while (this.#undecided.size || this.#queue) await Promise.allSettled([...this.#undecided, this.#queue]);
  }
}
