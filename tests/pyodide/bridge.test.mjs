// The Python half of the IndexedDB bridge and the JS-facing dispatch, under the real Pyodide.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { BOOT_MS, TEST_MS, bootWebAPI, requestResult } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";

let edge;
let call;

before(async () => {
  ({ edge, call } = await bootWebAPI());
}, { timeout: BOOT_MS });

test("writes survive reopening the IndexedDB store, and boot reads no chunk", { timeout: TEST_MS }, async () => {
  const first = await edge.open_api(await IDBStore.open("bridge"));
  // A recursive mkdir resolves the first directory it made, as Node's.
  assert.deepEqual(await call(first, "mkdir", "/a/b", { recursive: true }), { value: "/a" });
  await call(first, "writeFile", "/a/b/t.txt", "text");
  await call(first, "writeFile", "/a/bin", new Uint8Array([0, 1, 2, 255]));
  await call(first, "writeFile", "/a/big", new Uint8Array(3000).fill(9)); // > INLINE_MAX
  const store = await IDBStore.open("bridge");
  const gets = [];
  const get = store.get.bind(store);
  store.get = (space, key) => { gets.push(space); return get(space, key); };
  const second = await edge.open_api(store);
  const content = () => gets.filter((space) => space !== "meta"); // boot reads the format
  assert.deepEqual(content(), []);
  assert.deepEqual((await call(second, "readdir", "/a")).value, ["b", "big", "bin"]);
  assert.equal((await call(second, "readFile", "/a/b/t.txt", "utf8")).value, "text");
  const bytes = (await call(second, "readFile", "/a/bin")).value;
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual([...bytes], [0, 1, 2, 255]);
  assert.deepEqual(content(), []); // small files are inline: they came with their records
  assert.equal((await call(second, "readFile", "/a/big")).value.length, 3000);
  assert.deepEqual(content(), ["chunks"]);
});

test("errors cross as data with code, path and syscall", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("errors"));
  const { error } = await call(api, "readFile", "/nope");
  assert.equal(error.code, "ENOENT");
  assert.equal(error.path, "/nope");
  assert.equal(error.syscall, "open");
  assert.equal(error.message, "ENOENT: no such file or directory, open '/nope'");
  const sync = await call(api, "stat", "/nope");
  assert.equal(sync.error.code, "ENOENT");
});

test("a failed IndexedDB transaction is an error and changes nothing", { timeout: TEST_MS }, async () => {
  const store = await IDBStore.open("quota");
  const api = await edge.open_api(store);
  await call(api, "writeFile", "/kept", "1");
  const commitLogged = store.commitLogged.bind(store);
  store.commitLogged = async () => ({ code: "ENOSPC", message: "QuotaExceededError: full" });
  const { error } = await call(api, "writeFile", "/new", "2");
  assert.equal(error.code, "ENOSPC");
  assert.deepEqual((await call(api, "readdir", "/")).value, ["kept"]);
  store.commitLogged = commitLogged;
  const reopened = await edge.open_api(await IDBStore.open("quota"));
  assert.deepEqual((await call(reopened, "readdir", "/")).value, ["kept"]);
});

test("the shell runs through the same dispatch and keeps its cwd", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("shell"));
  await call(api, "shell", "mkdir -p /w/s && cd /w/s");
  const out = (await call(api, "shell", "echo hi > f && pwd && cat f")).value;
  assert.equal(out.code, 0);
  assert.equal(out.stdout, "/w/s\nhi\n");
});

test("two tabs on one IndexedDB database: stale commits catch up, nothing is lost", { timeout: TEST_MS }, async () => {
  const storeA = await IDBStore.open("tabs");
  const storeB = await IDBStore.open("tabs");
  const a = await edge.open_api(storeA);
  const b = await edge.open_api(storeB);
  await call(a, "mkdir", "/t"); // writeFile makes no parents, as Node's
  await call(b, "sync");
  for (let i = 0; i < 5; i++) {
    await Promise.all([call(a, "writeFile", `/t/a${i}`, "a"), call(b, "writeFile", `/t/b${i}`, "b"),
      call(a, "appendFile", "/t/shared", "a"), call(b, "appendFile", "/t/shared", "b")]);
  }
  await call(a, "sync");
  await call(b, "sync");
  const names = (await call(a, "readdir", "/t")).value;
  assert.equal(names.length, 11);
  assert.deepEqual((await call(b, "readdir", "/t")).value, names);
  const shared = (await call(b, "readFile", "/t/shared", "utf8")).value;
  assert.deepEqual([...shared].sort().join(""), "aaaaabbbbb");
  const log = await storeA.logSince(0);
  // The root, then at most one commit per write: writes in flight together in one tab may share
  // a commit (group commit), but every commit is logged.
  assert.ok(log.rev > 1 && log.rev <= 1 + 20, `rev ${log.rev}`);
  assert.deepEqual(log.keys, Array.from({ length: log.rev }, (_, i) => i + 1));
});

test("a JS step through the dispatch commits whole or not at all", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("steps"));
  const id = (await call(api, "stepBegin")).value;
  await call(api, "stepOp", id, "mkdir", "/s");
  await call(api, "stepOp", id, "writeFile", "/s/a", "1");
  const waiting = call(api, "readdir", "/"); // waits until the step ends
  assert.deepEqual((await call(api, "stepOp", id, "readdir", "/s")).value, ["a"]);
  await call(api, "stepEnd", id, false);
  assert.deepEqual((await waiting).value, []);
  const reopened = await edge.open_api(await IDBStore.open("steps"));
  assert.deepEqual((await call(reopened, "readdir", "/")).value, []);
});

test("a format-1 database (no change log) is upgraded in place and keeps its records", { timeout: TEST_MS }, async () => {
  const req = indexedDB.open("pyvfs:legacy", 1);
  req.onupgradeneeded = () => {
    for (const space of ["nodes", "chunks", "meta"]) req.result.createObjectStore(space);
    const tx = req.transaction;
    const node = (parent, name, kind, mode) =>
      JSON.stringify({ parent, name, kind, mode, mtime: 0, ctime: 0, atime: 0, size: 0 });
    tx.objectStore("nodes").put(node(null, "", "directory", 0o755), "root");
    tx.objectStore("nodes").put(node("root", "old.txt", "file", 0o644), "n1");
    tx.objectStore("meta").put("1", "format");
  };
  const old = await requestResult(req, 'indexedDB.open("pyvfs:legacy", 1)');
  old.close();
  const store = await IDBStore.open("legacy");
  const api = await edge.open_api(store);
  assert.deepEqual((await call(api, "readdir", "/")).value, ["old.txt"]);
  await call(api, "writeFile", "/new.txt", "n");
  assert.deepEqual((await call(api, "readdir", "/")).value, ["new.txt", "old.txt"]);
  assert.equal(await store.get("meta", "format"), "4");
  // Format 4's directory entries: the upgrade's from the old node, the commit's for the new one.
  const entries = await store.getAll("names");
  assert.deepEqual(entries.map(([key]) => key), ["root/new.txt", "root/old.txt"]);
  assert.equal(entries[1][1], "n1");
  assert.equal((await store.logSince(0)).rev, 1);
});

test("a format-2 database is upgraded in place and its chunked small file still reads", { timeout: TEST_MS }, async () => {
  const data = new TextEncoder().encode("written by format 2");
  const key = createHash("sha256").update(data).digest("hex");
  const req = indexedDB.open("pyvfs:legacy2", 2);
  req.onupgradeneeded = () => {
    for (const space of ["nodes", "chunks", "meta", "log"]) req.result.createObjectStore(space);
    const tx = req.transaction;
    const node = (parent, name, kind, mode, extra) => JSON.stringify(
      { parent, name, kind, mode, mtime: 0, ctime: 0, atime: 0, size: 0, ...extra });
    tx.objectStore("nodes").put(node(null, "", "directory", 0o755), "root");
    tx.objectStore("nodes").put(
      node("root", "old.txt", "file", 0o644, { size: data.length, chunks: [key] }), "n1");
    tx.objectStore("chunks").put(data, key);
    tx.objectStore("meta").put("2", "format");
  };
  const old = await requestResult(req, 'indexedDB.open("pyvfs:legacy2", 2)');
  old.close();
  const store = await IDBStore.open("legacy2");
  const api = await edge.open_api(store);
  assert.equal(await store.get("meta", "format"), "4");
  assert.deepEqual(await store.getAll("names"), [["root/old.txt", "n1"]]);
  assert.equal((await call(api, "readFile", "/old.txt", "utf8")).value, "written by format 2");
  await call(api, "appendFile", "/old.txt", "!");
  // Rewritten small: inline now. Its old chunk stays while the journal may go back to it.
  assert.deepEqual(await store.keys("chunks"), [key]);
  assert.ok(await store.get("meta", `held:${key}`));
  assert.equal((await call(api, "readFile", "/old.txt", "utf8")).value, "written by format 2!");
  const report = (await call(api, "check")).value;
  assert.deepEqual(report.problems, []);
  // Found by a key-range read of the held markers (IDBStore.getPrefix).
  assert.equal(report.historyChunks, 1);
  assert.deepEqual(await store.getPrefix("meta", "held:", "held;"), [[`held:${key}`, await store.get("meta", `held:${key}`)]]);
});

// Pyodide 314 runs Python 3.14: a call the page cannot cancel starts at once, inside dispatch
// (py_vfs/web/edge.py and webapi.py, `started`), and JS's null id and writer arrive as None.
test("a read is answered inside dispatch, and a later call never overtakes one waiting to start", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("eager"));
  await call(api, "writeFile", "/r.txt", "read me");
  const read = edge.dispatch(api, "readFile", ["/r.txt", "utf8"], null, null);
  assert.deepEqual(read, { value: "read me" }, "answered as a synchronous operation is");
  const first = edge.dispatch(api, "writeFile", ["/o.txt", "first"], null, 5); // cancellable: a task
  const second = edge.dispatch(api, "writeFile", ["/o.txt", "second"], null, null);
  for (const pending of [first, second]) {
    const envelope = typeof pending?.then === "function" ? await pending : pending;
    assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
    pending.destroy?.();
  }
  assert.equal((await call(api, "readFile", "/o.txt", "utf8")).value, "second");
});

// A read made again in one message is answered once (py_vfs/web/repeated_reads.py): each call
// still gets its answer, and the answers cross to the page as any others.
test("dispatch_many answers a repeated read once, each call with the answer", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("repeated"));
  await call(api, "mkdir", "/r");
  await call(api, "writeFile", "/r/f", "x");
  const calls = ["a", "b"].flatMap((id) => [
    [`lstat-${id}`, "lstat", ["/r/f"], null, null],
    [`list-${id}`, "readdirStats", ["/r"], null, null],
  ]);
  const now = edge.dispatch_many(api, calls, () => assert.fail("every read is answered at once"));
  assert.deepEqual(now.map(([id]) => id), ["lstat-a", "list-a", "lstat-b", "list-b"]);
  const byId = structuredClone(Object.fromEntries(now)); // as the page gets them
  assert.equal(byId["lstat-a"].value.size, 1);
  assert.deepEqual(byId["lstat-b"], byId["lstat-a"]);
  assert.equal(byId["list-a"].value.names, "f");
  assert.deepEqual(byId["list-b"], byId["list-a"]);
});

// The calls of one turn (web/worker/worker.mjs answerMany): one entry into Python, run in their
// order; answers needing no I/O come back at once, the rest through `answer` as they finish,
// each call with its own outcome.
test("dispatch_many runs calls in order and answers each with its own envelope", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("many"));
  await call(api, "mkdir", "/m");
  await call(api, "writeFile", "/file", "a file");
  const later = [];
  let allDone;
  const finished = new Promise((resolve) => { allDone = resolve; });
  const writes = 40;
  const calls = [
    ...Array.from({ length: writes }, (_, i) => [`w${i}`, "writeFile", [`/m/f${i}`, `v${i}`], null, `page:${i}`]),
    ["bad", "writeFile", ["/file/x", "x"], null, "page:bad"], // ENOTDIR: fails alone
    ["over", "writeFile", ["/m/f0", "last"], "agent:batch", "page:over"], // after w0, by its own writer
    ["stat", "stat", ["/m"], null, null], // answered at once: the writes' commit is not awaited
    ["unknown", "noSuchOp", [], null, null],
  ];
  let answers = 0;
  const now = edge.dispatch_many(api, calls, (pairs) => {
    answers++;
    later.push(...pairs);
    if (later.length === writes + 2) allDone();
  });
  assert.deepEqual(now.map(([id]) => id), ["stat", "unknown"]);
  assert.equal(now[0][1].value.type, "directory");
  assert.equal(now[1][1].error.code, "EINVAL");
  await finished;
  const byId = Object.fromEntries(later);
  assert.equal(byId.bad.error.code, "ENOTDIR");
  for (let i = 0; i < writes; i++) assert.deepEqual(byId[`w${i}`], { value: undefined });
  assert.deepEqual(byId.over, { value: undefined });
  assert.equal(later.length, new Set(later.map(([id]) => id)).size, "one answer per call");
  assert.ok(answers < writes / 4, `the writes of a group commit are answered together (${answers} answers)`);
  assert.equal((await call(api, "readFile", "/m/f0", "utf8")).value, "last");
  assert.equal((await call(api, "readFile", `/m/f${writes - 1}`, "utf8")).value, `v${writes - 1}`);
  const files = (await call(api, "query", "SELECT path, writer FROM files WHERE path IN ('/m/f0', '/m/f1') ORDER BY path")).value;
  assert.deepEqual(files.rows, [["/m/f0", "agent:batch"], ["/m/f1", "user"]], "each call keeps its own writer");
});
