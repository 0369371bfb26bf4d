// The JS half of the IndexedDB store (see py_vfs/storage/indexeddb.py).
// JS owns every IndexedDB transaction: Python cannot await inside one without it auto-committing.
// Several tabs share one database: commitLogged checks the revision inside its own readwrite
// transaction (docs/architecture.md, "Several tabs"), and announces each commit on a
// BroadcastChannel; it resolves once every other live worker of the disk has applied it
// (web/shared/peers.mjs), so reads anywhere that start after it see it.

import { failure } from "../shared/errors.mjs";
import { noticed, openDatabase, request } from "../shared/idb.mjs";
import { LockLease } from "../shared/lock_lease.mjs";
import { LogCheckpoint, loggedBytes, opsBytes } from "./log_checkpoint.mjs";
import { Peers } from "../shared/peers.mjs";
import {
  DATABASE_VERSION, DEFERRED, PENDING, readPending, settleIn, splitOps,
} from "../shared/pending_writes.mjs";
// The IndexedDB database version was the storage format's version (FORMAT_VERSION in
// py_vfs/vfs.py) up to 4. 2: the change log. 3: small files inline in their node records (no
// new object store; older code refuses it). 4: the `names` store, directory entries (`parent
// id/name` -> node id, py_vfs/core/node.py name_key), filled from the nodes by the upgrade.
// 5 (format 4 still): the `pending` store (web/shared/pending_writes.mjs).
import { FORMAT_VERSION as FORMAT, LOG_KEEP } from "../shared/protocol.mjs";

const SPACES = ["nodes", "chunks", "meta", "log", "names", PENDING];
// How long the disk stays idle (no commit of this worker) before the pending writes are moved
// into `nodes` and `names`; how many commits, or how long, they may wait at most while it is
// not; and how much one settling transaction moves: the writes of at most SETTLE_COMMITS
// commits, at most SETTLE_OPS of them (issuing them holds the worker's thread: about 55 ms for
// 2,000 in Chromium on a 2-core machine, docs/benchmarks.md "Pending writes"). A commit with
// more deferred writes than that makes them itself, as before pending writes existed: its
// slice would hold the thread for long, at a moment nobody chose (a page's first clicks).
const SETTLE_IDLE_MS = 100;
const SETTLE_MAX_PENDING = 4096;
const SETTLE_MAX_MS = 5000;
const SETTLE_COMMITS = 64;
const SETTLE_OPS = 4096;
const SETTLE_RETRY_MS = 1000; // after a settling that failed (a full quota, say)
// The first format with the `names` store.
const NAMES_FORMAT = 4;

// A failed transaction as the protocol's error envelope (py_vfs/storage/indexeddb.py reads it).
function failureOf(error) {
  const name = error?.name ?? "";
  const code = name === "QuotaExceededError" ? "ENOSPC" : "EIO";
  return failure(code, `${name || "Error"}: ${error?.message ?? "transaction failed"}`, { syscall: "write" });
}

// Writes `ops` of `nodes` and `names` in `tx` after every pending write, which it applies first
// (`wrote` is told the bytes of those).
function afterPending(tx, ops, wrote) {
  settleIn(tx, (applied) => {
    wrote(opsBytes(applied));
    applyOps(tx, ops);
  });
}

function applyOps(tx, ops) {
  const stores = {}; // each object store asked of the transaction once, not once an op
  for (const [action, space, key, value] of ops) {
    const store = (stores[space] ??= tx.objectStore(space));
    if (action === "put") store.put(value, key);
    else if (action === "delete_to") store.delete(IDBKeyRange.upperBound(key));
    else store.delete(key);
  }
}

// Format 4's directory entries, from the node records, in the upgrade's own transaction: no
// other connection can commit between the read and the writes (the upgrade holds the database
// alone), so the entries are exactly the nodes'. A record that does not parse gets none (fsck
// reports the record).
function fillNames(tx) {
  const nodes = tx.objectStore("nodes");
  const names = tx.objectStore("names");
  const keys = nodes.getAllKeys();
  const values = nodes.getAll();
  values.onsuccess = () => {
    values.result.forEach((value, i) => {
      let record;
      try {
        record = JSON.parse(String(value));
      } catch {
        return;
      }
      if (record?.parent != null) names.put(keys.result[i], `${record.parent}/${record.name}`);
    });
  };
}

export class IDBStore {
  // `durability` is given to every commit's readwrite transaction (docs/storage.md, "Durability");
  // `settleAfterMs`: how long this worker's commits leave their node records and directory
  // entries pending once it is idle (a test holds them there); `settleMaxMs`: how long they
  // wait at most while it is not; `settleOps`: how many of them one settling transaction moves
  // at most, and a commit leaves pending at most.
  static async open(name, { durability = "default", ...settling } = {}) {
    const db = await openDatabase(`pyvfs:${name}`, DATABASE_VERSION, (created, event, tx) => {
      for (const space of SPACES) {
        if (!created.objectStoreNames.contains(space)) created.createObjectStore(space);
      }
      // An existing disk keeps its data; it is now at revision 0 with an empty change log.
      if (event.oldVersion > 0) tx.objectStore("meta").put(String(FORMAT), "format");
      if (event.oldVersion > 0 && event.oldVersion < NAMES_FORMAT) fillNames(tx);
    });
    await noticed(); // the browser's report of a discarded disk, if this open got it, is kept
    const store = new IDBStore(db, name, durability, settling);
    await store.#join();
    return store;
  }

  constructor(db, name, durability = "default", {
    settleAfterMs = SETTLE_IDLE_MS, settleMaxMs = SETTLE_MAX_MS, settleOps = SETTLE_OPS,
  } = {}) {
    // Another tab upgrading the format must not be blocked by us (openDatabase closes it).
    this.db = db;
    this.durability = durability;
    // The durability the browser reports for the last commit's transaction (tx.durability):
    // what diagnostics() shows, so a test sees the option reach the transactions.
    this.lastDurability = null;
    this.lockName = `pyvfs:${name}`;
    // Records read per keyspace since open: a diagnostic (tests assert that boot reads no chunk).
    this.reads = Object.fromEntries(SPACES.map((space) => [space, 0]));
    // Set once load() began: from then on another worker's commit must be caught up with
    // (before, the load itself will include it).
    this.loading = false;
    this.channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(`pyvfs:${name}`) : null;
    // The other workers of this disk. Its onCommit is set by the owner (web/worker/worker.mjs):
    // called with the revision another worker just committed, it resolves once this one has
    // applied it.
    this.peers = new Peers(name, globalThis.navigator?.locks, this.channel);
    if (this.channel) {
      this.channel.onmessage = ({ data }) => this.peers.receive(data);
      this.channel.unref?.(); // Node: an open channel must not keep the test process alive
    }
    // Empties the origin's IndexedDB log once a burst of commits is over, so the browser's
    // next start has little to replay before its first open.
    this.checkpoint = new LogCheckpoint();
    this.settleAfterMs = settleAfterMs;
    this.settleOps = settleOps;
    this.settleMaxMs = settleMaxMs;
    // This worker's commits whose writes are pending, oldest first: {rev, at} (when it
    // completed); and when its last commit completed (the disk is idle SETTLE_IDLE_MS after).
    this.unsettled = [];
    this.lastCommitAt = 0;
    this.settleTimer = null;
    this.settling = null; // the settling under way, if any
    this.passing = false; // a settling the timer started is under way
    this.closed = false;
  }

  // Becomes a peer of the disk's other workers, then takes the disk's lock once, before the
  // index is loaded: a writer holding it as a lease since before this peer existed lets go, so
  // its commits are in the load, and its next turn finds this peer (web/shared/peers.mjs).
  async #join() {
    if (!globalThis.navigator?.locks) return;
    await this.peers.join();
    (await this.lock())();
  }

  // Takes the Web Lock of this disk (exclusive, FIFO across tabs and workers); resolves with the
  // function that releases it. Without Web Locks (Node) it resolves at once: the revision check
  // of commitLogged alone keeps commits correct, Web Locks add fairness (no tab starves). The
  // lock is kept as a lease between this tab's commits while no other tab asks for it
  // (web/shared/lock_lease.mjs).
  lock() {
    const locks = globalThis.navigator?.locks;
    if (!locks) return Promise.resolve(() => {});
    this.lease ??= new LockLease(this.lockName, locks, () => this.peers.refresh());
    return this.lease.acquire();
  }

  // lock()'s release function when the turn can start at once (the lease is held and idle),
  // else undefined (None in Python; null would be Pyodide's jsnull): no promise to wait for in
  // the common case of a tab writing alone.
  lockNow() {
    return this.lease?.tryAcquire() ?? undefined;
  }

  // Boot: the revision and every node record, from one snapshot. -> {rev, keys, values}
  async load() {
    this.loading = true;
    const tx = this.db.transaction(["nodes", "meta", PENDING], "readonly");
    const nodes = tx.objectStore("nodes");
    const [rev, stored, storedValues, pending] = await Promise.all([
      request(tx.objectStore("meta").get("rev")), request(nodes.getAllKeys()), request(nodes.getAll()),
      readPending(tx),
    ]);
    const [keys, values] = pending.over("nodes", stored, storedValues);
    this.reads.meta += 1;
    this.reads.nodes += values.length;
    if (!pending.empty) { // left by a worker that closed before it settled
      this.unsettled.push({ rev: Number(rev ?? 0), at: Date.now() });
      this.#settleSoon();
    }
    return { rev: Number(rev ?? 0), keys, values };
  }

  // The revision and the change-log entries after `rev` (at most LOG_KEEP of them: a tab further
  // behind reloads), from one snapshot. -> {rev, keys, values}
  async logSince(rev) {
    const tx = this.db.transaction(["log", "meta"], "readonly");
    const log = tx.objectStore("log");
    const range = IDBKeyRange.bound(rev, rev + LOG_KEEP, true, false);
    const [current, keys, values] = await Promise.all([
      request(tx.objectStore("meta").get("rev")), request(log.getAllKeys(range)), request(log.getAll(range)),
    ]);
    return { rev: Number(current ?? 0), keys, values };
  }

  // The journal's entries with revisions from `low` to `high`. -> {keys, values}
  async logEntries(low, high) {
    const tx = this.db.transaction(["log"], "readonly");
    const log = tx.objectStore("log");
    const range = IDBKeyRange.bound(low, high);
    const [keys, values] = await Promise.all([request(log.getAllKeys(range)), request(log.getAll(range))]);
    return { keys, values };
  }

  // The revision of the oldest journal entry kept, if any.
  async logOldest() {
    const tx = this.db.transaction(["log"], "readonly");
    const keys = await request(tx.objectStore("log").getAllKeys(null, 1));
    return keys.length ? Number(keys[0]) : undefined; // undefined: Python's None
  }

  // commit(ops), but only if the disk is still at revision `base`: the check, the ops, the log
  // entry (key base + 1) and the new revision are one readwrite transaction, so two tabs can
  // never both commit on top of the same revision. Every request is issued at once and the
  // transaction aborts if the check finds another revision: waiting for the check's answer
  // before writing cost one more renderer/browser round trip per commit. Resolves {rev} once
  // durable, {stale: rev} when another tab committed first (nothing applied; the caller reads
  // the log), or {code, message} on failure.
  commitLogged(base, allOps, entry) {
    const [ops, deferred] = splitOps(allOps);
    const later = deferred.length <= this.settleOps ? deferred : [];
    const spaces = [...new Set(["meta", "log", ...ops.map((op) => op[1])])];
    if (deferred.length) spaces.push(PENDING);
    if (deferred.length && !later.length) spaces.push("nodes", "names");
    return new Promise((resolve) => {
      let tx;
      let stale = null;
      let bytes = 0;
      try {
        tx = this.#writing(spaces);
        const meta = tx.objectStore("meta");
        const check = meta.get("rev");
        check.onsuccess = () => {
          const current = Number(check.result ?? 0);
          if (current === base) return;
          stale = { stale: current };
          tx.abort();
        };
        applyOps(tx, ops);
        bytes = opsBytes(allOps) + loggedBytes(entry);
        if (later.length) tx.objectStore(PENDING).put(later, base + 1);
        else if (deferred.length) afterPending(tx, deferred, (more) => { bytes += more; });
        const log = tx.objectStore("log");
        log.put(entry, base + 1);
        meta.put(String(base + 1), "rev");
      } catch (error) {
        tx?.abort();
        resolve(failureOf(error));
        return;
      }
      // Durable now; resolved once the disk's other workers have applied it (at once when
      // there are none to tell).
      tx.oncomplete = () => {
        this.checkpoint.wrote(bytes);
        this.lastCommitAt = Date.now();
        if (later.length) {
          this.unsettled.push({ rev: base + 1, at: this.lastCommitAt });
          this.#settleSoon();
        } else if (deferred.length) {
          this.unsettled = []; // it applied every pending write
        }
        const done = { rev: base + 1 };
        const applied = this.peers.announce(base + 1);
        if (applied) applied.then(() => resolve(done));
        else resolve(done);
      };
      tx.onabort = () => resolve(stale ?? failureOf(tx.error));
    });
  }

  // A readwrite transaction with this store's durability.
  #writing(spaces) {
    const tx = this.db.transaction(spaces, "readwrite", { durability: this.durability });
    this.lastDurability = tx.durability ?? null;
    return tx;
  }

  // Moves the pending writes into `nodes` and `names` once this worker has not committed for
  // SETTLE_IDLE_MS; and while it commits on, a slice of the oldest at a time as they reach
  // SETTLE_MAX_MS (so a steady writer pays a slice per 64 of its commits, not every pending
  // write at once in front of its next commit), or all at once when SETTLE_MAX_PENDING of its
  // commits wait. Any worker may settle every commit's writes: the transaction reads what is
  // pending and applies it in order, and IndexedDB runs it alone against the commits (they
  // write `pending` too).
  #settleSoon() {
    clearTimeout(this.settleTimer);
    const oldest = this.unsettled[0];
    const overdue = oldest !== undefined && (this.unsettled.length >= SETTLE_MAX_PENDING
      || Date.now() - oldest.at >= this.settleMaxMs);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      if (this.passing) return; // the pass under way looks again when it ends
      this.passing = true;
      this.#settling(async () => {
        // Slices while the disk is idle or too many commits wait; one when it is busy.
        let more = true;
        while (more && !this.closed) {
          const idle = Date.now() - this.lastCommitAt >= this.settleAfterMs;
          more = await this.#settleSlice();
          if (!idle && this.unsettled.length < SETTLE_MAX_PENDING) break;
        }
      }).then(() => {
        this.passing = false;
        if (this.unsettled.length && !this.closed) this.#settleSoon();
      }, () => {
        this.passing = false;
        if (!this.closed) this.settleTimer = setTimeout(() => this.#settleSoon(), SETTLE_RETRY_MS);
      });
    }, overdue ? 0 : this.settleAfterMs);
    this.settleTimer.unref?.(); // Node: a wait must not keep the test process alive
  }

  // Applies the pending writes now, one slice a transaction (after the settling under way, if
  // any): every one, or those of at most `slices` transactions. Resolves once they are in
  // `nodes` and `names`.
  settle(slices = Infinity) {
    return this.#settling(async () => {
      for (let done = 0; done < slices && await this.#settleSlice(); done += 1);
    });
  }

  // `pass` once the settling under way is over.
  #settling(pass) {
    this.settling = (this.settling ?? Promise.resolve()).catch(() => {}).then(pass);
    return this.settling;
  }

  // One slice of the pending writes applied (settleIn): a promise of whether any are left.
  #settleSlice() {
    return new Promise((resolve, reject) => {
      const tx = this.#writing(["nodes", "names", PENDING]);
      let bytes = 0;
      let upTo = Infinity; // the revision of the last commit applied, when some are left
      settleIn(tx, (applied, more, last) => {
        bytes = opsBytes(applied);
        upTo = more ? last : Infinity;
      }, { commits: SETTLE_COMMITS, ops: this.settleOps });
      tx.oncomplete = () => {
        this.checkpoint.wrote(bytes); // the browser's next start replays these writes too
        while (this.unsettled.length && this.unsettled[0].rev <= upTo) this.unsettled.shift();
        resolve(upTo !== Infinity);
      };
      tx.onabort = () => reject(tx.error ?? new Error("the pending writes were not applied"));
    });
  }

  async getAll(space) {
    if (DEFERRED.has(space)) return this.#overlaid(space, null, null);
    const store = this.db.transaction(space, "readonly").objectStore(space);
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    this.reads[space] += values.length;
    return keys.map((key, i) => [key, values[i]]);
  }

  // getAll or getPrefix of `nodes` or `names`, the pending writes laid over it.
  async #overlaid(space, low, high) {
    const tx = this.db.transaction([space, PENDING], "readonly");
    const store = tx.objectStore(space);
    const range = low === null ? null : IDBKeyRange.bound(low, high, false, true);
    const [stored, storedValues, pending] = await Promise.all([
      request(store.getAllKeys(range)), request(store.getAll(range)), readPending(tx),
    ]);
    const [keys, values] = pending.over(space, stored, storedValues, low, high);
    this.reads[space] += values.length;
    return keys.map((key, i) => [key, values[i]]);
  }

  // The records whose keys start with a prefix: the key range [prefix, end) (`end` is the
  // first key after them, py_vfs/storage/__init__.py prefix_end).
  async getPrefix(space, prefix, end) {
    if (DEFERRED.has(space)) return this.#overlaid(space, prefix, end);
    const store = this.db.transaction(space, "readonly").objectStore(space);
    const range = IDBKeyRange.bound(prefix, end, false, true);
    const [keys, values] = await Promise.all([request(store.getAllKeys(range)), request(store.getAll(range))]);
    this.reads[space] += values.length;
    return keys.map((key, i) => [key, values[i]]);
  }

  async get(space, key) {
    this.reads[space] += 1;
    if (!DEFERRED.has(space)) return request(this.db.transaction(space, "readonly").objectStore(space).get(key));
    const tx = this.db.transaction([space, PENDING], "readonly");
    const [stored, pending] = await Promise.all([request(tx.objectStore(space).get(key)), readPending(tx)]);
    return pending.has(space, key) ? pending.value(space, key) ?? undefined : stored;
  }

  // Keys only (no value is read): the integrity check walks the chunks one by one with them.
  async keys(space) {
    return request(this.db.transaction(space, "readonly").objectStore(space).getAllKeys());
  }

  // The origin's usage and quota, and whether the browser promised not to evict it. Works in a
  // worker (persisted() does; persist() is for pages, see web/app/app.mjs). Undefined where
  // unknown (Python sees None; a JS null would cross as a JsNull object).
  async estimate() {
    const storage = globalThis.navigator?.storage;
    if (!storage?.estimate) return undefined;
    const { usage, quota } = await storage.estimate();
    const answer = { usage, quota };
    if (storage.persisted) answer.persisted = await storage.persisted();
    return answer;
  }

  // Applies [action, space, key, value] ops in one readwrite transaction. Resolves once the
  // transaction is complete (durable: undefined, which Python sees as None), or {code, message}
  // when it failed (nothing applied). Writes of `nodes` or `names` go after every pending one,
  // which the same transaction applies first.
  commit(allOps) {
    const [ops, later] = splitOps(allOps);
    const spaces = [...new Set(ops.map((op) => op[1]))];
    if (later.length) spaces.push("nodes", "names", PENDING);
    return new Promise((resolve) => {
      let tx;
      let bytes = 0;
      try {
        tx = this.#writing([...new Set(spaces)]);
        applyOps(tx, ops);
        bytes = opsBytes(allOps);
        if (later.length) afterPending(tx, later, (more) => { bytes += more; });
      } catch (error) {
        tx?.abort();
        resolve(failureOf(error));
        return;
      }
      tx.oncomplete = () => {
        this.checkpoint.wrote(bytes);
        if (later.length) this.unsettled = []; // it applied every pending write
        resolve(undefined);
      };
      tx.onabort = () => resolve(failureOf(tx.error));
    });
  }

  close() {
    this.closed = true;
    clearTimeout(this.settleTimer);
    this.checkpoint.close();
    this.peers.close();
    this.lease?.close();
    this.channel?.close();
    this.db.close();
  }
}
