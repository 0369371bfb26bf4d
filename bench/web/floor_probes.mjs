// F1's timing and raw IndexedDB probes, shared by the page (bench/web/floors.mjs) and the bare
// dedicated worker (bench/web/floor_worker.mjs): our commits run in a worker, so the floors
// that bound them are measured there too.

export const KIB = new Uint8Array(1024).fill(120);

// The median, over BATCHES batches of `count / BATCHES` calls each, of a batch's time divided by
// its calls, after `warmup` untimed calls: batches, because a page that is not cross-origin
// isolated sees performance.now() in steps of 0.1 ms, coarser than one call.
const BATCHES = 10;

export async function probe(call, { count, warmup }) {
  for (let i = 0; i < warmup; i++) await call(-1 - i);
  const size = Math.max(1, Math.floor(count / BATCHES));
  const perCall = [];
  for (let batch = 0, n = 0; batch < BATCHES; batch++) {
    const start = performance.now();
    for (let i = 0; i < size; i++) await call(n++);
    perCall.push((performance.now() - start) / size);
  }
  return median(perCall);
}

// The median time per call of `rounds` rounds of `calls` calls made at once (all in flight
// together, as W1c makes its writes), after one untimed round.
export async function probeTurn(call, { calls, rounds }) {
  const perCall = [];
  for (let round = -1; round < rounds; round++) {
    const start = performance.now();
    await Promise.all(Array.from({ length: calls }, (_, i) => call(round * calls + i)));
    if (round >= 0) perCall.push((performance.now() - start) / calls);
  }
  return median(perCall);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function settled(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

export function openDatabase(name, spaces) {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(name, 1);
    opening.onupgradeneeded = () => {
      for (const space of spaces) opening.result.createObjectStore(space);
    };
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () => reject(opening.error);
    opening.onblocked = () => reject(new Error(`${name}: blocked by another connection`));
  });
}

// One readwrite transaction per write, one put: raw IndexedDB's W1.
export function idbPut(db, space) {
  return (i) => {
    const tx = db.transaction(space, "readwrite");
    tx.objectStore(space).put(KIB, `/f${i}`);
    return settled(tx);
  };
}

// The least a group commit of `calls` writes of 1 KiB stores: their bytes as one value in one
// readwrite transaction. Its time per write: the median of `rounds` transactions, after one
// untimed.
export async function idbGroup(db, space, { calls, rounds }) {
  const group = new Uint8Array(calls * KIB.byteLength).fill(120);
  const perWrite = [];
  for (let round = -1; round < rounds; round++) {
    const start = performance.now();
    const tx = db.transaction(space, "readwrite");
    tx.objectStore(space).put(group, `/g${round}`);
    await settled(tx);
    if (round >= 0) perWrite.push((performance.now() - start) / calls);
  }
  return median(perWrite);
}
