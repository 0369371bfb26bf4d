// The protocol against the reference, real node:fs/promises on a temporary folder: the page's
// argument checks (web/page/validate.mjs) refuse what Node refuses, with Node's error class and code,
// and refuse (instead of ignoring) what Node honours but py_vfs cannot; copyFile's mode flags
// through the real edge dispatch under Pyodide fail as Node's do; and every error crosses in
// the one envelope of py_vfs/web/protocol.py (web/shared/errors.mjs).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { constants } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOT_MS, TEST_MS, bootWebAPI } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";
import { checkCall } from "../../dist/validate.mjs";
import { failure, toError } from "../../dist/errors.mjs";
import { ERROR_FIELDS } from "../../dist/protocol.mjs";

let dir;
let edge;
let call;

before(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), "pyvfs-protocol-"));
  await fs.writeFile(join(dir, "a"), "A");
  await fs.writeFile(join(dir, "b"), "B");
  ({ edge, call } = await bootWebAPI());
}, { timeout: BOOT_MS });

after(() => fs.rm(dir, { recursive: true, force: true }));

// Node's fs/promises `op` with every string starting with "/" taken inside the temp folder.
function node(op, args) {
  return fs[op](...args.map((arg) => (typeof arg === "string" && arg.startsWith("/") ? join(dir, arg) : arg)));
}

async function nodeOutcome(op, args) {
  try {
    await node(op, args);
    return "ok";
  } catch (error) {
    return { name: error.name, code: error.code };
  }
}

function ourOutcome(op, args) {
  try {
    checkCall(op, args);
    return "ok";
  } catch (error) {
    return { name: error.name, code: error.code };
  }
}

// Calls Node refuses before touching the disk, spelled as a user would.
const REFUSED = [
  ["readFile", []], ["readFile", [{}]], ["readFile", [5]], ["stat", []], ["lstat", [null]],
  ["readdir", [null]], ["rename", ["/a"]], ["writeFile", [undefined, "x"]], ["writeFile", ["/w", 5]],
  ["writeFile", ["/w", new ArrayBuffer(2)]], ["appendFile", ["/w"]], ["unlink", [7]],
  ["mkdir", ["/m", { mode: {} }]], ["mkdir", ["/m", { mode: "abc" }]], ["mkdir", ["/m", { recursive: "yes" }]],
  ["rm", ["/z", { force: "x" }]], ["rm", ["/z", { recursive: 1 }]], ["truncate", ["/a", "3"]],
  ["chmod", ["/a", "zz"]], ["chmod", ["/a"]], ["utimes", ["/a", "x", 1]], ["symlink", ["a", "/sl", "bogus"]],
  ["readFile", ["/a\0b"]], ["copyFile", ["/a", "/g", 8]], ["copyFile", ["/a", "/g", "x"]],
  ["copyFile", ["/a"]], ["readFile", ["/a", "bogus"]], ["readFile", ["/a", { encoding: "bogus" }]],
  ["realpath", []], ["readlink", [{}]],
];

test("a call Node refuses is refused in the page with Node's error class and code", { timeout: TEST_MS }, async () => {
  for (const [op, args] of REFUSED) {
    const theirs = await nodeOutcome(op, args);
    assert.notEqual(theirs, "ok", `node accepted ${op}(${args.map(String)}): the case is wrong`);
    assert.deepEqual(ourOutcome(op, args), theirs, `${op}(${args.map(String)})`);
  }
});

// Options Node honours that py_vfs cannot: refused, never silently ignored (docs/api.md).
const NOT_HONOURED = [
  ["writeFile", ["/w", "x", { signal: new AbortController().signal }]],
  ["stat", ["/a", { bigint: true }]], ["rmdir", ["/m", { recursive: true }]], ["cp", ["/a", "/c", { force: false }]],
];

test("an option Node honours and py_vfs cannot is refused, not ignored", { timeout: TEST_MS }, async () => {
  for (const [op, args] of NOT_HONOURED) {
    await fs.mkdir(join(dir, "m"), { recursive: true });
    assert.equal(await nodeOutcome(op, args), "ok", `node refused ${op}: the case is wrong`);
    assert.deepEqual(ourOutcome(op, args), { name: "TypeError", code: "ERR_INVALID_ARG_VALUE" }, `${op}(${args.map(String)})`);
  }
});

test("what Node accepts the page accepts, in the form Python takes", { timeout: TEST_MS }, () => {
  assert.deepEqual(checkCall("mkdir", ["/m", "755"]), ["/m", { mode: 0o755 }]);
  assert.deepEqual(checkCall("mkdir", ["/m", 0o700]), ["/m", { mode: 0o700 }]);
  assert.deepEqual(checkCall("chmod", ["/a", "644"]), ["/a", 0o644]);
  assert.deepEqual(checkCall("utimes", ["/a", new Date(5000), 7]), ["/a", 5000, 7000]);
  assert.deepEqual(checkCall("readFile", ["/a", "UTF-8"]), ["/a", { encoding: "utf-8" }]);
  assert.deepEqual(checkCall("readFile", ["/a", { encoding: null, flag: "r" }]), ["/a", { encoding: null, flag: "r" }]);
  assert.deepEqual(checkCall("copyFile", ["/a", "/b", constants.COPYFILE_FICLONE]), ["/a", "/b", 2]);
  const view = new DataView(new Uint8Array([1, 2, 3]).buffer, 1);
  assert.deepEqual([...checkCall("writeFile", ["/w", view])[1]], [2, 3]);
  assert.deepEqual(checkCall("stat", ["/a", { bigint: false }]), ["/a", { bigint: false }]);
  assert.deepEqual(checkCall("readdir", ["/", { withFileTypes: 1 }]), ["/", { withFileTypes: true }]);
});

async function ours(api, ...args) {
  const { error } = await call(api, ...args);
  return error && { code: error.code, errno: error.errno, syscall: error.syscall };
}

async function theirs(op, args) {
  try {
    await node(op, args);
    return undefined;
  } catch (error) {
    return { code: error.code, errno: error.errno, syscall: error.syscall };
  }
}

test("copyFile's COPYFILE_EXCL and COPYFILE_FICLONE_FORCE fail as Node's do", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("protocol-copy"));
  await call(api, "writeFile", "/a", "A");
  await call(api, "writeFile", "/b", "B");
  const excl = ["/a", "/b", constants.COPYFILE_EXCL];
  assert.deepEqual(await ours(api, "copyFile", ...excl), await theirs("copyFile", excl));
  assert.deepEqual(await ours(api, "copyFile", ...excl), { code: "EEXIST", errno: -17, syscall: "copyfile" });
  assert.equal((await call(api, "readFile", "/b", "utf8")).value, "B");
  const fresh = ["/a", "/fresh", constants.COPYFILE_EXCL];
  assert.equal(await ours(api, "copyFile", ...fresh), await theirs("copyFile", fresh));
  // Node answers ENOTSUP on a file system without reflinks (checked on this machine's ext4/
  // overlayfs, Node 20); py_vfs has none.
  const force = ["/a", "/e", constants.COPYFILE_FICLONE_FORCE];
  const nodeForce = await theirs("copyFile", force);
  assert.deepEqual(await ours(api, "copyFile", ...force), { code: "ENOTSUP", errno: -95, syscall: "copyfile" });
  if (nodeForce) assert.deepEqual(await ours(api, "copyFile", ...force), nodeForce);
});

test("every error crosses in one envelope, built alike in both languages", { timeout: TEST_MS }, async () => {
  const api = await edge.open_api(await IDBStore.open("protocol-envelope"));
  const { error } = await call(api, "rename", "/missing", "/x");
  assert.deepEqual(Object.keys(error), [...ERROR_FIELDS]);
  assert.deepEqual(Object.keys(failure("EIO", "EIO: x")).sort(), [...ERROR_FIELDS].sort());
  const nodeError = await theirs("rename", ["/missing", "/x"]);
  assert.deepEqual({ code: error.code, errno: error.errno, syscall: error.syscall }, nodeError);
  const rebuilt = toError(error);
  assert.equal(rebuilt.dest, "/x");
  assert.equal(rebuilt.message, "ENOENT: no such file or directory, rename '/missing' -> '/x'");
});

test("the page's modules link: every name they import is exported", { timeout: TEST_MS }, async () => {
  const module = await import("../../dist/pyvfs.mjs");
  assert.deepEqual(Object.keys(module).sort(), ["AbortError", "Dirent", "Stats", "VFS", "agentTools", "openVFS", "pickDirectory", "viewOf"]);
});
