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

// Applies the oldest pending writes in the readwrite transaction `tx` (which also holds `nodes`
// and `names`), in the order they were committed: those of at most `commits` commits and at
// most `ops` writes (all when not given). A commit cut by `ops` keeps the rest of its writes
// under its key; a reader that still holds the whole value lays the same disk over `nodes`
// (the part applied is there already, and the rest comes after it). Calls `done` with the ops
// applied and whether any writes were left pending, while `tx` is still active (the caller may
// add requests of its own after them).
export function settleIn(tx, done, { commits, ops = Infinity } = {}) {
  const pending = tx.objectStore(PENDING);
  const keys = pending.getAllKeys(null, commits);
  const values = pending.getAll(null, commits);
  values.onsuccess = () => {
    const applied = [];
    const stores = {};
    let whole = 0; // commits applied whole
    for (const writes of values.result) {
      const part = writes.length > ops - applied.length ? writes.slice(0, ops - applied.length) : writes;
      for (const op of part) {
        const [action, space, key, value] = op;
        const store = (stores[space] ??= tx.objectStore(space));
        if (action === "put") store.put(value, key);
        else store.delete(key);
        applied.push(op);
      }
      if (part !== writes) {
        pending.put(writes.slice(part.length), keys.result[whole]);
        break;
      }
      whole += 1;
      if (applied.length >= ops) break;
    }
    if (whole) pending.delete(IDBKeyRange.upperBound(keys.result[whole - 1]));
    const full = commits !== undefined && keys.result.length === commits;
    done(applied, whole < keys.result.length || full);
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
// `cache` ({keys, pending}) last saw. The same keys lay the same disk over `nodes`: a revision
// is committed once, and settling only deletes a commit's value or cuts its first writes off,
// once they are in `nodes` and `names` (settleIn).
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
