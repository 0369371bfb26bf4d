// check() and usage() through the IndexedDB bridge, under the real Pyodide with fake-indexeddb.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { BOOT_MS, TEST_MS, bootWebAPI } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";

let edge;
let call;

before(async () => {
  ({ edge, call } = await bootWebAPI());
}, { timeout: BOOT_MS });

test("check reads every chunk once from IndexedDB and finds a corrupted one", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("check");
  const api = await edge.open_api(store);
  await call(api, "mkdir", "/a");
  await call(api, "writeFile", "/a/big.bin", new Uint8Array(700 * 1024).fill(7));
  await call(api, "writeFile", "/a/small.txt", "small");
  const keys = await store.keys("chunks");
  assert.equal(keys.length, 2); // small.txt is inline in its record
  const before = store.reads.chunks;
  const healthy = (await call(api, "check")).value;
  assert.deepEqual([healthy.ok, healthy.problems, healthy.chunks, healthy.inlineFiles],
    [true, [], 2, 1]);
  assert.equal(store.reads.chunks - before, 2);
  await store.commit([["put", "chunks", keys[0], new Uint8Array([1, 2, 3])]]);
  const broken = (await call(api, "check")).value;
  assert.equal(broken.ok, false);
  assert.deepEqual(broken.problems.map((p) => [p.kind, p.where]), [["bad-hash", `chunks/${keys[0]}`]]);
});

test("usage counts from the index; without navigator.storage the quota is unknown", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("usage");
  const api = await edge.open_api(store);
  await call(api, "writeFile", "/one", new Uint8Array(3000).fill(1));
  await call(api, "copyFile", "/one", "/two"); // shares the chunk
  await call(api, "writeFile", "/three", "12345"); // inline
  const usage = (await call(api, "usage")).value;
  assert.equal(usage.files, 3);
  assert.equal(usage.contentBytes, 6005);
  assert.deepEqual([usage.storedBytes, usage.chunks, usage.inlineFiles], [3005, 1, 1]);
  if (globalThis.navigator?.storage?.estimate) assert.equal(typeof usage.quotaBytes, "number");
  else assert.equal(usage.quotaBytes ?? null, null);
});
