// The early reader (web/page/early_reader.mjs) reading a chunked file in the page
// (web/page/file_chunks.mjs), in Node: the disk is written by the real Pyodide through the
// IndexedDB store (fake-indexeddb), then read by the reader as a returning page would. The
// answers must be the file's bytes of one revision, even while a commit replaces the file, and
// a file the reader cannot read whole (a missing or damaged chunk, one over PAGE_READ_MAX) goes
// to the worker, never answered with zeros. Against Python's answers in Chromium:
// tests/e2e/test_early_reads.py.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { BOOT_MS, CALL_MS, TEST_MS, bootWebAPI, within } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";
import { openEarlyReader } from "../../dist/early_reader.mjs";
import { PAGE_READ_MAX } from "../../dist/file_chunks.mjs";
import { CHUNK_SIZE } from "../../dist/protocol.mjs";

let edge;
let call;

before(async () => {
  ({ edge, call } = await bootWebAPI());
}, { timeout: BOOT_MS });

// Three chunks, the last one short; `seed` makes two versions differ in every chunk.
const bytes = (seed) => new Uint8Array(2 * CHUNK_SIZE + 77).map((_, i) => (i * 31 + seed) % 251);

// A disk `name` holding /a/big.bin (bytes(1)) written by Python, its store and API.
async function disk(name) {
  const store = await IDBStore.open(name);
  const api = await edge.open_api(store);
  await call(api, "mkdir", "/a");
  const made = await call(api, "writeFile", "/a/big.bin", bytes(1));
  assert.equal(made.error, undefined);
  return { store, api };
}

async function reader(name) {
  const opened = await within(CALL_MS, "openEarlyReader", openEarlyReader(name, null));
  assert.ok(opened, "the reader opens the disk");
  return opened;
}

const readEarly = (early, path) => within(CALL_MS, `early readFile ${path}`, early.answer("readFile", [path]));

async function bigRecord(store) {
  const folder = await store.get("names", "root/a");
  const id = await store.get("names", `${folder}/big.bin`);
  return [id, JSON.parse(String(await store.get("nodes", id)))];
}

test("a chunked file read early is its bytes, in one buffer of its size", { timeout: TEST_MS }, async () => {
  await disk("chunks-whole");
  const early = await reader("chunks-whole");
  const { value } = await readEarly(early, "/a/big.bin");
  assert.deepEqual(value, bytes(1));
  assert.equal(value.buffer.byteLength, value.byteLength);
  early.close();
});

test("a commit that replaces the file while it is read early leaves the answer whole", { timeout: TEST_MS }, async () => {
  const { api } = await disk("chunks-racing");
  const early = await reader("chunks-racing");
  // The commit drops every chunk of the first version; it waits for the read's transaction.
  const answer = readEarly(early, "/a/big.bin");
  const write = call(api, "writeFile", "/a/big.bin", bytes(2));
  assert.deepEqual((await answer).value, bytes(1));
  assert.equal((await write).error, undefined);
  assert.deepEqual((await readEarly(early, "/a/big.bin")).value, bytes(2));
  early.close();
});

test("a missing chunk is the worker's to answer (EIO), never zeros", { timeout: TEST_MS }, async () => {
  const { store } = await disk("chunks-missing");
  const [, record] = await bigRecord(store);
  await store.commit([["delete", "chunks", record.chunks[1]]]);
  const early = await reader("chunks-missing");
  assert.equal(await readEarly(early, "/a/big.bin"), undefined, "declined");
  const fresh = await edge.open_api(store); // nothing of the file in its chunk cache
  assert.equal((await call(fresh, "readFile", "/a/big.bin")).error.code, "EIO");
  early.close();
});

test("a chunk that is not the length its place says is declined", { timeout: TEST_MS }, async () => {
  const { store } = await disk("chunks-short");
  const [, record] = await bigRecord(store);
  await store.commit([["put", "chunks", record.chunks[0], new Uint8Array([1, 2, 3])]]);
  const early = await reader("chunks-short");
  assert.equal(await readEarly(early, "/a/big.bin"), undefined);
  early.close();
});

test("a file over PAGE_READ_MAX is left to the worker, even when its chunks are all there", { timeout: TEST_MS }, async () => {
  const { store } = await disk("chunks-huge");
  const [id, record] = await bigRecord(store);
  // Whole chunks sharing one stored chunk (as identical pieces do): every one is present.
  const count = PAGE_READ_MAX / CHUNK_SIZE + 1;
  const huge = { ...record, size: count * CHUNK_SIZE, chunks: Array(count).fill(record.chunks[0]) };
  await store.commit([["put", "nodes", id, JSON.stringify(huge)]]);
  const early = await reader("chunks-huge");
  assert.equal(await readEarly(early, "/a/big.bin"), undefined);
  early.close();
});
