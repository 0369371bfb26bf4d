// The journal over the IndexedDB store (web/worker/idb_store.mjs: logEntries, logOldest and the
// "delete_to" op), under the real Pyodide with fake-indexeddb: more entries than a tab replays
// (LOG_KEEP) are kept and read back after a reopen, time travel restores an old revision, and a
// short retention deletes old entries from the store.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { BOOT_MS, TEST_MS, bootWebAPI } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";
import { LOG_KEEP } from "../../dist/protocol.mjs";

let edge;
let call;

before(async () => {
  ({ edge, call } = await bootWebAPI());
}, { timeout: BOOT_MS });

function value(envelope) {
  assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
  return envelope.value;
}

test("more entries than LOG_KEEP stay in IndexedDB, are read after a reopen and restore an old revision", { timeout: TEST_MS }, async () => {
  const writes = LOG_KEEP + 100;
  const api = await edge.open_api(await IDBStore.open("journal-long"));
  for (let i = 0; i < writes; i++) value(await call(api, "writeFile", "/f", `v${i}`));
  // A second VFS on the same database reads the journal from the store, not from memory.
  const reopened = await edge.open_api(await IDBStore.open("journal-long"));
  const everything = value(await call(reopened, "journal", { limit: writes + 10 }));
  // Every write, and the disk's creation ("init").
  assert.equal(everything.length, writes + 1);
  // A write may share its commit with work in flight beside it (the garbage collection that
  // follows the open): such an entry is a "batch" whose operations include it.
  const journal = everything.filter((entry) => entry.operations.includes("writeFile"));
  assert.equal(journal.length, writes);
  assert.ok(journal.every((entry) => entry.paths[0] === "/f"));
  const fifth = journal[journal.length - 5]; // wrote "v4"
  value(await call(reopened, "restore", { revision: fifth.revision }));
  assert.equal(value(await call(reopened, "readFile", "/f", "utf8")), "v4");
  const last = value(await call(reopened, "journal", { limit: 1 }))[0];
  assert.deepEqual([last.operation, last.revision], ["restore", everything[0].revision + 1]);
});

test("a short retention deletes old entries from the store, and time travel past it is refused", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("journal-trim");
  const api = await edge.open_api(store, undefined, undefined, undefined, undefined,
    { days: 0, entries: 5 });
  for (let i = 0; i < 30; i++) value(await call(api, "writeFile", "/g", `w${i}`));
  const keys = await store.keys("log");
  // Trimming runs after commits: a few more than the 5 kept may wait for the next trim.
  assert.ok(keys.length < 15, `the log kept ${keys.length} entries`);
  assert.ok(Math.min(...keys.map(Number)) > 15, `the oldest kept entry is ${Math.min(...keys.map(Number))}`);
  const journal = value(await call(api, "journal", { limit: 100 }));
  assert.ok(journal.length < 15 && journal.length >= 5, `the journal lists ${journal.length}`);
  const refused = await call(api, "restore", { revision: 2 });
  assert.equal(refused.error?.code, "EINVAL");
  assert.equal(value(await call(api, "readFile", "/g", "utf8")), "w29");
});

test("the call envelope's writer crosses the Pyodide edge and is recorded", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("journal-writer"));
  value(await edge.dispatch(api, "writeFile", ["/w", "by p"], "agent:p"));
  const bad = await edge.dispatch(api, "writeFile", ["/x", "no"], "");
  assert.equal(bad.error?.code, "EINVAL");
  const rows = value(await call(api, "query", "SELECT path, writer FROM files WHERE kind = 'file'"));
  assert.deepEqual(rows.rows, [["/w", "agent:p"]]);
});

// py_vfs/web/retries.py: a call's request id crosses the edge, its commit's entry records it
// (in IndexedDB), and a call sent again with it (`retry`) is answered as applied, not run twice;
// one whose id no entry has runs.
test("a request id crosses the Pyodide edge, is recorded, and a retried call runs once", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("journal-requests");
  const api = await edge.open_api(store);
  const sent = Date.now();
  value(await edge.dispatch(api, "appendFile", ["/r", "once\n"], null, null, "page:1"));
  const entries = (await store.logEntries(1, 1000)).values.map((text) => JSON.parse(text));
  assert.deepEqual(entries.filter((entry) => entry.requests).map((entry) => entry.requests), [["page:1"]]);
  // The next host: another runtime on the same database.
  const next = await edge.open_api(await IDBStore.open("journal-requests"));
  const again = await edge.dispatch(next, "appendFile", ["/r", "once\n"], null, null, "page:1", sent);
  assert.deepEqual(again, { value: undefined });
  value(await edge.dispatch(next, "appendFile", ["/r", "twice\n"], null, null, "page:2", sent));
  assert.equal(value(await call(next, "readFile", "/r", "utf8")), "once\ntwice\n");
});
