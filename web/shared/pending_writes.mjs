// The node records and directory entries a commit wrote but that are not in the `nodes` and
// `names` object stores yet (docs/storage.md, "Pending writes"). A commit stores them as one
// value of the `pending` store, keyed by its revision, in the transaction that makes it
// durable: one request instead of one per record and entry (a commit of 1,000 small files
// issued 2,010 requests, about 40% of its time in Chromium). The worker that committed moves
// them into `nodes` and `names` once its disk has been idle a moment (web/worker/idb_store.mjs,
// settle). Until then every reader of those two stores reads `pending` in the same transaction
// and lays its writes over what it read (`Pending`): the worker's load, its fsck reads, and the
// page's early reader (web/page/early_reader.mjs). Chunks, meta and the log are written by the
// commit itself, as before.

// The object store, and the IndexedDB database version that has it: format 4's stores
// (FORMAT_VERSION, py_vfs/vfs.py, which this does not change: the keyspaces Python sees are
// the same) plus `pending`. Code that asks for version 4 refuses a disk of version 5
// (VersionError), so no older code ever reads `nodes` without what is pending.
export const PENDING = "pending";
export const DATABASE_VERSION = 5;

// The keyspaces whose writes wait in `pending`: the only ones a reader lays them over.
export const DEFERRED = new Set(["nodes", "names"]);

// A commit's ops split: [the ops it applies itself, the ops that wait in `pending`].
export function splitOps(ops) {
  const now = [];
  const later = [];
  for (const op of ops) (DEFERRED.has(op[1]) ? later : now).push(op);
  return [now, later];
}

// Applies pending writes in the readwrite transaction `tx` (which also holds `nodes` and
// `names`), in the order they were committed, and deletes them from `pending`: every one, or
// (`budget` given) those of the oldest commits, at most `budget.commits` of them and no more
// than `budget.ops` writes, though always the oldest commit's (a commit whose deferred writes
// outnumber a slice makes them itself: web/worker/idb_store.mjs, commitLogged). Calls `done`
// with the ops applied, whether any were left pending and the revision of the last commit
// applied, while `tx` is still active (the caller may add requests of its own after them).
export function settleIn(tx, done, budget = null) {
  const pending = tx.objectStore(PENDING);
  const applied = [];
  const stores = {}; // each object store asked of the transaction once
  const apply = (writes) => {
    for (const op of writes) {
      const [action, space, key, value] = op;
      const store = (stores[space] ??= tx.objectStore(space));
      if (action === "put") store.put(value, key);
      else store.delete(key);
      applied.push(op);
    }
  };
  if (budget === null) {
    const keys = pending.getAllKeys();
    const values = pending.getAll();
    values.onsuccess = () => {
      values.result.forEach(apply);
      if (keys.result.length) pending.delete(IDBKeyRange.upperBound(keys.result.at(-1)));
      done(applied, false, keys.result.at(-1) ?? 0);
    };
    return;
  }
  // The oldest `budget.commits` values in one request, not one value at a time: a cursor's step
  // is a round trip to the browser's IndexedDB, and a slice of 64 commits took that many. The
  // values past the ops budget are read and not applied (at most a slice's count of small ones:
  // a commit with more writes than a slice makes them itself).
  const keys = pending.getAllKeys(null, budget.commits);
  const values = pending.getAll(null, budget.commits);
  values.onsuccess = () => {
    let taken = 0;
    for (const value of values.result) {
      if (taken > 0 && applied.length + value.length > budget.ops) break;
      apply(value);
      taken += 1;
    }
    const last = taken ? keys.result[taken - 1] : 0;
    if (taken) pending.delete(IDBKeyRange.upperBound(last));
    done(applied, taken < values.result.length || taken === budget.commits, last);
  };
}

// What is pending, as a reader lays it over `nodes` and `names`: for each keyspace, key ->
// value, or null where the key was deleted (the last write of a key wins).
export class Pending {
  constructor(values = []) {
    this.spaces = { nodes: new Map(), names: new Map() };
    for (const ops of values) {
      for (const [action, space, key, value] of ops) {
        this.spaces[space]?.set(String(key), action === "put" ? value : null);
      }
    }
    this.empty = values.length === 0;
  }

  // Whether `key` of `space` has a pending write (then `value` is what a read finds).
  has(space, key) {
    return this.spaces[space]?.has(String(key)) ?? false;
  }

  value(space, key) {
    return this.spaces[space]?.get(String(key)) ?? null;
  }

  // The rows `keys` / `values` read from `space` (within [low, high) when given: a prefix
  // range), with the pending writes laid over them: [keys, values], in key order.
  over(space, keys, values, low = null, high = null) {
    const writes = this.spaces[space];
    if (!writes?.size) return [keys, values];
    const rows = new Map(keys.map((key, i) => [String(key), values[i]]));
    for (const [key, value] of writes) {
      if (low !== null && (key < low || key >= high)) continue;
      if (value === null) rows.delete(key);
      else rows.set(key, value);
    }
    const sorted = [...rows.keys()].sort();
    return [sorted, sorted.map((key) => rows.get(key))];
  }
}

// Reads `pending` in `tx` (which must hold it): a promise of a Pending.
export function readPending(tx) {
  return new Promise((resolve, reject) => {
    const req = tx.objectStore(PENDING).getAll();
    req.onsuccess = () => resolve(new Pending(req.result));
    req.onerror = () => reject(req.error);
  });
}

// readPending for a reader that reads often (the early reader answers each call in a
// transaction of its own): the keys first, and the values only when the keys are not the ones
// `cache` ({keys, pending}) last saw. A commit's pending value never changes (a revision is
// committed once, and settling deletes it), so the same keys are the same writes.
export function readPendingCached(tx, cache) {
  const store = tx.objectStore(PENDING);
  return new Promise((resolve, reject) => {
    const keys = store.getAllKeys();
    keys.onerror = () => reject(keys.error);
    keys.onsuccess = () => {
      const found = keys.result;
      if (found.length === cache.keys.length && found.every((key, i) => key === cache.keys[i])) {
        resolve(cache.pending);
        return;
      }
      const values = store.getAll();
      values.onerror = () => reject(values.error);
      values.onsuccess = () => {
        Object.assign(cache, { keys: found, pending: new Pending(values.result) });
        resolve(cache.pending);
      };
    };
  });
}

// An empty cache for readPendingCached.
export const pendingCache = () => ({ keys: [], pending: new Pending() });
