// The pending writes of the IndexedDB store (web/shared/pending_writes.mjs), in Node on
// fake-indexeddb: a commit leaves its node records and directory entries in the `pending` store,
// and every reader of `nodes` and `names` (the store's own reads, a second worker's load, the
// page's early reader) sees the disk as committed, deletes and renames included, until and
// after the writes are moved into place (settled). docs/storage.md, "Pending writes".

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { BOOT_MS, CALL_MS, TEST_MS, bootWebAPI, requestResult, within } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";
import { openEarlyReader } from "../../dist/early_reader.mjs";
import { pendingCache, readPendingCached } from "../../dist/pending_writes.mjs";

let edge;
let call;

before(async () => {
  ({ edge, call } = await bootWebAPI());
}, { timeout: BOOT_MS });

const HOLD = { settleAfterMs: 3_600_000 }; // the writes stay pending until settle()

// The raw stores of disk `name`: how many commits are pending, and the keys of `space`.
async function raw(name, space) {
  const db = await requestResult(indexedDB.open(`pyvfs:${name}`), `open pyvfs:${name}`);
  try {
    const tx = db.transaction(["pending", space], "readonly");
    const [pending, keys] = await Promise.all([
      requestResult(tx.objectStore("pending").count(), "count pending"),
      requestResult(tx.objectStore(space).getAllKeys(), `keys of ${space}`),
    ]);
    return { pending, keys: keys.map(String) };
  } finally {
    db.close();
  }
}

const text = (value) => new TextDecoder().decode(value);

test("the store's reads see pending node records and entries, deleted ones gone", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("pending-store", HOLD);
  const entry = JSON.stringify({ v: 2, puts: {}, deletes: [], before: {}, events: [] });
  assert.deepEqual(await store.commitLogged(0, [
    ["put", "nodes", "a", "record a"], ["put", "names", "root/a", "a"],
    ["put", "nodes", "b", "record b"], ["put", "names", "root/b", "b"],
    ["put", "meta", "x", "1"],
  ], entry), { rev: 1 });
  assert.deepEqual(await store.commitLogged(1, [
    ["delete", "nodes", "a", null], ["delete", "names", "root/a", null],
    ["put", "nodes", "b", "record b2"],
  ], entry), { rev: 2 });
  const stored = await raw("pending-store", "nodes");
  assert.equal(stored.pending, 2, "both commits' records wait");
  assert.deepEqual(stored.keys, [], "none is in `nodes` yet");
  assert.equal(await store.get("meta", "x"), "1", "meta is written by the commit itself");

  const other = await IDBStore.open("pending-store", HOLD); // another worker, booting
  const loaded = await other.load();
  assert.equal(loaded.rev, 2);
  assert.deepEqual(loaded.keys, ["b"]);
  assert.deepEqual(loaded.values, ["record b2"]);
  for (const reader of [store, other]) {
    assert.deepEqual(await reader.getAll("names"), [["root/b", "b"]]);
    assert.deepEqual(await reader.getPrefix("names", "root/", "root0"), [["root/b", "b"]]);
    assert.deepEqual(await reader.getPrefix("names", "rooz/", "rooz0"), []);
    assert.equal(await reader.get("nodes", "a"), undefined);
    assert.equal(await reader.get("nodes", "b"), "record b2");
  }

  await store.settle();
  const settled = await raw("pending-store", "nodes");
  assert.equal(settled.pending, 0);
  assert.deepEqual(settled.keys, ["b"]);
  assert.deepEqual((await raw("pending-store", "names")).keys, ["root/b"]);
  assert.deepEqual(await other.getAll("nodes"), [["b", "record b2"]]);
  store.close();
  other.close();
});

test("a commit of more writes than a slice makes them itself, after the pending ones; settling moves whole commits a slice", { timeout: TEST_MS }, async () => {
  const name = "pending-slices";
  const store = await IDBStore.open(name, { ...HOLD, settleOps: 3 });
  const entry = JSON.stringify({ v: 2, puts: {}, deletes: [], before: {}, events: [] });
  let rev = 0;
  const commit = async (ops) => assert.deepEqual(await store.commitLogged(rev, ops, entry), { rev: ++rev });
  await commit([["put", "nodes", "a", "a1"], ["put", "names", "root/a", "a"]]);
  await commit([["put", "nodes", "b", "b1"], ["put", "names", "root/b", "b"]]);
  await commit([["put", "nodes", "a", "a2"]]);
  assert.equal((await raw(name, "nodes")).pending, 3);
  // 4 writes of nodes and names: more than a slice moves, so not left pending.
  await commit([["put", "nodes", "c", "c1"], ["put", "names", "root/c", "c"],
    ["delete", "nodes", "b", null], ["delete", "names", "root/b", null]]);
  let stored = await raw(name, "nodes");
  assert.equal(stored.pending, 0, "the large commit applied the pending ones first");
  assert.deepEqual(stored.keys, ["a", "c"], "and then its own, b's delete last");
  assert.equal(await store.get("nodes", "a"), "a2", "the newer write of a won");

  await commit([["put", "nodes", "d", "d1"], ["put", "names", "root/d", "d"]]);
  await commit([["put", "nodes", "e", "e1"], ["put", "names", "root/e", "e"]]);
  await commit([["delete", "nodes", "d", null], ["delete", "names", "root/d", null]]);
  const other = await IDBStore.open(name, HOLD);
  const cache = pendingCache(); // as the page's early reader keeps it across its answers
  const seen = async (moment) => {
    const nodes = [["a", "a2"], ["c", "c1"], ["e", "e1"]];
    assert.deepEqual(await store.getAll("nodes"), nodes, `the store's nodes ${moment}`);
    assert.deepEqual((await store.getAll("names")).map(([key]) => key), ["root/a", "root/c", "root/e"],
      `the store's names ${moment}`);
    assert.deepEqual((await other.load()).keys, ["a", "c", "e"], `a booting worker ${moment}`);
    const db = await requestResult(indexedDB.open(`pyvfs:${name}`), `open pyvfs:${name}`);
    try {
      const tx = db.transaction(["pending", "nodes"], "readonly");
      const [keys, values, pending] = await Promise.all([
        requestResult(tx.objectStore("nodes").getAllKeys(), "keys of nodes"),
        requestResult(tx.objectStore("nodes").getAll(), "nodes"), readPendingCached(tx, cache),
      ]);
      const over = pending.over("nodes", keys, values);
      assert.deepEqual(over[0].map((key, i) => [key, over[1][i]]), nodes, `a cached overlay ${moment}`);
    } finally {
      db.close();
    }
  };
  await seen("before settling");
  for (const [left, keys] of [[2, ["a", "c", "d"]], [1, ["a", "c", "d", "e"]], [0, ["a", "c", "e"]]]) {
    await store.settle(1); // one slice: one commit of 2 writes, as a second would pass 3
    stored = await raw(name, "nodes");
    assert.equal(stored.pending, left, "a slice moved one commit");
    assert.deepEqual(stored.keys, keys);
    await seen(`with ${left} commits pending`);
  }
  assert.deepEqual((await raw(name, "names")).keys, ["root/a", "root/c", "root/e"]);
  other.close();
  store.close();
});

test("a busy disk settles its oldest commits a slice at a time as their time comes, not all at once", { timeout: TEST_MS }, async () => {
  // Never idle (settleAfterMs), so only the commits older than settleMaxMs are due.
  const name = "pending-busy";
  const store = await IDBStore.open(name, { settleAfterMs: 3_600_000, settleMaxMs: 3_000 });
  const entry = JSON.stringify({ v: 2, puts: {}, deletes: [], before: {}, events: [] });
  let rev = 0;
  const burst = async (count, prefix) => {
    for (let i = 0; i < count; i += 1) {
      const key = `${prefix}${String(i).padStart(3, "0")}`;
      assert.deepEqual(await store.commitLogged(rev, [["put", "nodes", key, "r"]], entry), { rev: rev + 1 });
      rev += 1;
    }
  };
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // Times from the clock, not from the pauses, so a slow machine keeps the two bursts apart:
  // the first is due when the third write comes, the second (1.5 s younger) is not.
  await burst(70, "a");
  const firstDone = Date.now();
  await pause(1_500);
  await burst(200, "b");
  await pause(Math.max(0, firstDone + 3_100 - Date.now()));
  await burst(1, "c");
  await pause(200);
  await store.settling;
  const stored = await raw(name, "nodes");
  assert.equal(stored.keys.filter((key) => key.startsWith("a")).length, 70, "the first burst is settled");
  // Two slices of the oldest 64: the first burst and 58 of the second; the rest waits its time
  // (settling every pending write at once would have left none).
  assert.ok(stored.pending > 100, `the second burst's commits wait their time (${stored.pending} pending)`);
  await store.settle();
  assert.equal((await raw(name, "nodes")).pending, 0);
  store.close();
});

test("a write of `nodes` outside the log goes after every pending one", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("pending-unlogged", HOLD);
  const entry = JSON.stringify({ v: 2, puts: {}, deletes: [], before: {}, events: [] });
  await store.commitLogged(0, [["put", "nodes", "a", "old"]], entry);
  assert.equal(await store.commit([["put", "nodes", "a", "new"]]), undefined);
  assert.equal((await raw("pending-unlogged", "nodes")).pending, 0, "the commit applied them first");
  assert.equal(await store.get("nodes", "a"), "new");
  store.close();
});

test("the early reader and a booting worker see a disk whose writes are all pending", { timeout: TEST_MS }, async () => {
  const name = "pending-python";
  const store = await IDBStore.open(name, HOLD);
  const api = await edge.open_api(store);
  for (const [op, ...args] of [["mkdir", "/a"], ["writeFile", "/a/f.txt", "first"],
    ["writeFile", "/a/g.txt", "second"], ["rename", "/a/g.txt", "/a/h.txt"], ["unlink", "/a/f.txt"],
    ["mkdir", "/a/sub"], ["writeFile", "/a/sub/deep.txt", "third"]]) {
    assert.equal((await call(api, op, ...args)).error, undefined, `${op} ${args[0]}`);
  }
  assert.ok((await raw(name, "nodes")).pending > 0, "the writes are pending");

  const early = await within(CALL_MS, "openEarlyReader", openEarlyReader(name, null));
  assert.ok(early, "the reader opens a disk whose root is pending");
  const answer = (op, ...args) => within(CALL_MS, `early ${op}`, early.answer(op, args));
  assert.equal(text((await answer("readFile", "/a/h.txt")).value), "second");
  assert.equal(text((await answer("readFile", "/a/sub/deep.txt")).value), "third");
  assert.equal((await answer("readFile", "/a/f.txt")).error.code, "ENOENT");
  assert.equal((await answer("readFile", "/a/g.txt")).error.code, "ENOENT");
  assert.equal((await answer("exists", "/a/sub")).value, true);
  early.close();

  const booted = await edge.open_api(await IDBStore.open(name, HOLD)); // Python's load
  assert.equal(text((await call(booted, "readFile", "/a/h.txt")).value), "second");
  assert.equal((await call(booted, "exists", "/a/f.txt")).value, false);
  const checked = await call(booted, "check");
  assert.deepEqual(checked.value.problems, [], "fsck finds nodes and names agree");

  await store.settle();
  assert.equal((await raw(name, "nodes")).pending, 0);
  const after = await within(CALL_MS, "openEarlyReader", openEarlyReader(name, null));
  assert.equal(text((await after.answer("readFile", ["/a/h.txt"])).value), "second");
  assert.equal((await after.answer("readFile", ["/a/f.txt"])).error.code, "ENOENT");
  after.close();
});
