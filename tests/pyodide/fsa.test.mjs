// web/worker/fsa.mjs's error mapping (docs/mounts.md, "Error mapping"), for the browser errors that a
// real OPFS folder cannot be made to throw in the e2e tier (NotAllowedError, SecurityError,
// QuotaExceededError...). Node has no File System Access API: the folder here is a handle that
// throws the DOMException the browser would, so what is tested is fsa.mjs's own answer.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as fsa from "../../dist/fsa.mjs";
import { TEST_MS } from "./harness.mjs";

const fail = (name) => async () => { throw new DOMException(`simulated ${name}`, name); };

// A folder holding "dir/" and "file"; `failing` makes every call of that method throw.
function folder(failing = {}) {
  const file = {
    kind: "file", name: "file",
    getFile: failing.getFile ?? (async () => new Blob(["abc"])),
    createWritable: failing.createWritable ?? (async () => ({
      write: async () => {}, close: async () => {}, abort: async () => {}, seek: async () => {},
      truncate: async () => {},
    })),
    move: failing.move ?? (async () => {}),
  };
  const dir = {
    kind: "directory", name: "dir",
    async *entries() { yield* []; },
  };
  return {
    kind: "directory", name: "root",
    getDirectoryHandle: failing.getDirectoryHandle ?? (async (name) => {
      if (name === "dir") return dir;
      if (name === "file") throw new DOMException("not a directory", "TypeMismatchError");
      throw new DOMException("missing", "NotFoundError");
    }),
    getFileHandle: failing.getFileHandle ?? (async (name) => {
      if (name === "file") return file;
      if (name === "dir") throw new DOMException("not a file", "TypeMismatchError");
      throw new DOMException("missing", "NotFoundError");
    }),
    removeEntry: failing.removeEntry ?? (async () => {}),
    async *entries() { yield ["dir", dir]; yield ["file", file]; },
  };
}

test("a path through a file, a missing name, a directory read as a file", { timeout: TEST_MS }, async () => {
  assert.equal((await fsa.stat(folder(), ["file", "x"])).code, "ENOTDIR");
  assert.equal((await fsa.stat(folder(), ["missing"])).code, "ENOENT");
  assert.equal((await fsa.read(folder(), ["dir"], 0)).code, "EISDIR");
  assert.equal((await fsa.list(folder(), ["file"], false)).code, "ENOTDIR");
  assert.deepEqual((await fsa.stat(folder(), ["dir"])).value, { name: "dir", kind: "directory", size: 0, mtime: undefined });
  assert.deepEqual((await fsa.list(folder(), [], true)).value.map((e) => [e.name, e.kind, e.size]),
    [["dir", "directory", 0], ["file", "file", 3]]);
});

test("permission and security errors are EACCES", { timeout: TEST_MS }, async () => {
  for (const name of ["NotAllowedError", "SecurityError"]) {
    assert.equal((await fsa.stat(folder({ getFileHandle: fail(name) }), ["file"])).code, "EACCES");
    assert.equal((await fsa.list(folder({ getDirectoryHandle: fail(name) }), ["dir"], false)).code, "EACCES");
  }
});

test("a full disk is ENOSPC, a non-empty directory ENOTEMPTY, a bad name EINVAL", { timeout: TEST_MS }, async () => {
  const full = folder({ createWritable: fail("QuotaExceededError") });
  assert.equal((await fsa.openWriter(full, ["file"], false)).code, "ENOSPC");
  assert.equal((await fsa.remove(folder({ removeEntry: fail("InvalidModificationError") }), ["dir"])).code, "ENOTEMPTY");
  const badName = folder({ getFileHandle: async () => { throw new TypeError("Name is not allowed."); } });
  assert.equal((await fsa.stat(badName, ["a\\b"])).code, "EINVAL");
});

test("NoModificationAllowedError: an entry in use is EBUSY, a folder refusing writes EROFS", { timeout: TEST_MS }, async () => {
  const locked = folder({ removeEntry: fail("NoModificationAllowedError"), move: fail("NoModificationAllowedError") });
  assert.equal((await fsa.remove(locked, ["file"])).code, "EBUSY");
  assert.equal((await fsa.move(locked, ["file"], ["other"])).code, "EBUSY");
  const readOnly = folder({ createWritable: fail("NoModificationAllowedError") });
  assert.equal((await fsa.openWriter(readOnly, ["file"], false)).code, "EROFS");
  assert.equal((await fsa.truncate(readOnly, ["file"], 0)).code, "EROFS");
});

test("anything else is EIO, with the browser's message", { timeout: TEST_MS }, async () => {
  const broken = await fsa.read(folder({ getFile: fail("NotReadableError") }), ["file"], 0);
  assert.equal(broken.code, "EIO");
  assert.match(broken.message, /simulated NotReadableError/);
});

// A folder where "new" does not exist until a writer creates it, and whose writables fail to
// close (a full disk at close: the browser moves the swap file into place only then).
function folderWithFailingClose() {
  const removed = [];
  let created = false;
  const writable = { write: async () => {}, abort: async () => {}, close: fail("QuotaExceededError") };
  const file = { kind: "file", name: "new", createWritable: async () => writable };
  const existing = { kind: "file", name: "old", createWritable: async () => writable };
  return {
    removed,
    root: {
      kind: "directory", name: "root",
      getFileHandle: async (name, { create } = {}) => {
        if (name === "old") return existing;
        if (name === "new" && (created || create)) { created = true; return file; }
        throw new DOMException("missing", "NotFoundError");
      },
      removeEntry: async (name) => { removed.push(name); created = false; },
    },
  };
}

test("a failed close removes the file the writer created, and keeps one that was there", { timeout: TEST_MS }, async () => {
  const { root, removed } = folderWithFailingClose();
  const fresh = await fsa.openWriter(root, ["new"], false);
  assert.equal((await fsa.closeWriter(fresh.value)).code, "ENOSPC");
  assert.deepEqual(removed, ["new"]);
  const old = await fsa.openWriter(root, ["old"], false);
  assert.equal((await fsa.closeWriter(old.value)).code, "ENOSPC");
  assert.deepEqual(removed, ["new"]);
});

test("a writer that cannot open removes the file it created", { timeout: TEST_MS }, async () => {
  const removed = [];
  const root = {
    kind: "directory", name: "root",
    getFileHandle: async (name, { create } = {}) => {
      if (!create) throw new DOMException("missing", "NotFoundError");
      return { kind: "file", name, createWritable: fail("QuotaExceededError") };
    },
    removeEntry: async (name) => { removed.push(name); },
  };
  assert.equal((await fsa.openWriter(root, ["new"], false)).code, "ENOSPC");
  assert.deepEqual(removed, ["new"]);
});
