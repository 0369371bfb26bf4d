// The page's stat cache (web/page/stat_cache.mjs) on its own, in Node: what it keeps, when it drops
// everything, and its bound. In Chromium with the worker: tests/e2e/test_stat_cache.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import { StatCache } from "../../dist/stat_cache.mjs";
import { Listing } from "../../dist/listing.mjs";

const raw = (size, type = "file") => ({ type, size, mode: 0o644, mtimeMs: 1, ctimeMs: 1, atimeMs: 1, name: "x", path: "/x" });

function listing(path, entries) {
  const numbers = new Float64Array(entries.flatMap(([, , size]) => (size < 0 ? [-1, 0, 0, 0, 0, 0] : [size, 0o644, 5, 6, 7, 9])));
  return {
    path,
    names: entries.map(([name]) => name).join("/"),
    kinds: entries.map(([, kind]) => kind).join(","),
    numbers: new Uint8Array(numbers.buffer),
  };
}

function kept(cache, op, path, reply) {
  const { token } = cache.begin(op);
  return cache.keep(op, path, reply, token);
}

test("a stamped answer is kept and answers again; an unstamped one is not", () => {
  const cache = new StatCache();
  kept(cache, "stat", "/a", { value: raw(3), view: 0 });
  kept(cache, "stat", "/b", { value: raw(4) });
  assert.equal(cache.answer("stat", "/a").value.size, 3);
  assert.equal(cache.answer("stat", "/b"), undefined);
  assert.equal(cache.answer("lstat", "/a"), undefined, "stat and lstat are different keys");
});

test("a mutation clears when sent and again when settled, and the cache is unused meanwhile", () => {
  const cache = new StatCache();
  kept(cache, "stat", "/a", { value: raw(3), view: 0 });
  const read = cache.begin("stat"); // a read sent before the mutation...
  const write = cache.begin("writeFile");
  assert.equal(write.mutating, true);
  assert.equal(cache.answer("stat", "/a"), undefined);
  cache.keep("stat", "/a", { value: raw(3), view: 0 }, read.token); // ...answered meanwhile
  assert.equal(cache.size, 0);
  const during = cache.begin("stat");
  cache.settle();
  cache.keep("stat", "/a", { value: raw(3), view: 0 }, during.token); // answered after: stale
  assert.equal(cache.size, 0);
});

test("a newer view drops everything and older answers are not kept", () => {
  const cache = new StatCache();
  kept(cache, "stat", "/a", { value: raw(3), view: 0 });
  const old = cache.begin("stat");
  cache.invalidate(1);
  assert.equal(cache.size, 0);
  cache.keep("stat", "/b", { value: raw(1), view: 0 }, cache.begin("stat").token);
  assert.equal(cache.size, 0, "stamped before the change");
  cache.keep("stat", "/b", { value: raw(1), view: 1 }, old.token);
  assert.equal(cache.size, 0, "sent before the change");
  kept(cache, "stat", "/b", { value: raw(1), view: 2 }); // ahead of any announcement: drop
  assert.equal(cache.size, 0);
  kept(cache, "stat", "/b", { value: raw(1), view: 2 });
  assert.equal(cache.answer("stat", "/b").value.size, 1);
});

test("a listing answers readdir and the lstat of its entries; stat only where no link", () => {
  const cache = new StatCache();
  const reply = { value: listing("/real", [["f", "file", 10], ["l", "symlink", 4], ["m", "directory", -1]]), view: 0 };
  const listed = kept(cache, "readdir", "/d", reply);
  assert.ok(listed instanceof Listing);
  assert.deepEqual(listed.nameList(), ["f", "l", "m"]);
  assert.deepEqual(listed.dirents().map((d) => [d.name, d.parentPath, d.isFile(), d.isSymbolicLink(), d.isDirectory()]),
    [["f", "/real", true, false, false], ["l", "/real", false, true, false], ["m", "/real", false, false, true]]);
  assert.equal(cache.answer("readdir", "/d").value, listed);
  assert.equal(cache.size, 4, "a listing counts as its entries and one more");
  const f = cache.answer("lstat", "/d/f").value;
  assert.deepEqual(f, { type: "file", size: 10, mode: 0o644, mtimeMs: 5, ctimeMs: 6, atimeMs: 7, name: "f", path: "/real/f", ino: 9 });
  assert.notEqual(cache.answer("lstat", "/d/f").value, f, "each hit is a new object");
  for (const path of ["/d/x", "/d/", "/d/.", "/d/..", "/d/f/", "/d//f", "/e/f"]) {
    assert.equal(cache.answer("lstat", path), undefined, path);
  }
  assert.equal(cache.answer("stat", "/d/f").value.size, 10);
  assert.equal(cache.answer("lstat", "/d/l").value.type, "symlink");
  assert.equal(cache.answer("stat", "/d/l"), undefined, "stat follows the link");
  assert.equal(cache.answer("lstat", "/d/m"), undefined, "a mount point's stat is its folder's");
  assert.equal(cache.answer("exists", "/d/f").value, true);
  assert.equal(cache.answer("exists", "/d/l"), undefined);
  assert.equal(cache.answer("exists", "/d/m"), undefined, "nor its exists");
  assert.equal(cache.answer("stat", "/d/m"), undefined);
});

test("a listing's inos sent as 0 are derived from its ids as Python's ino_of does", () => {
  // py_vfs/web/page_cache.py sends the ids (16 hex digits each) when it can, and 0 for each ino.
  const ids = ["0123456789abcdef", "0000000000000fff", "fedcba9876543210"];
  const numbers = new Float64Array(ids.flatMap(() => [1, 0o644, 5, 6, 7, 0]));
  const value = { path: "/d", names: "a/b/c", kinds: "file,file,file", numbers: new Uint8Array(numbers.buffer), ids: ids.join("/") };
  const listed = Listing.of(value);
  assert.deepEqual(["a", "b", "c"].map((name) => listed.lstat(name).ino), [0x0123456789abc, 1, 0xfedcba9876543]);
  assert.equal(Listing.of(listing("/d", [["f", "file", 1]])).lstat("f").ino, 9, "an ino sent is kept");
});

test("children of a path not spelled plainly are not guessed", () => {
  for (const dir of ["/d/", "d", "/d/../d", "/d/./e", "//d"]) {
    const cache = new StatCache();
    kept(cache, "readdir", dir, { value: listing("/d", [["f", "file", 1]]), view: 0 });
    assert.ok(cache.answer("readdir", dir), dir);
    assert.equal(cache.answer("lstat", `${dir}/f`), undefined, dir);
    assert.equal(cache.answer("lstat", `${dir}f`), undefined, dir);
  }
  assert.deepEqual(Listing.of(listing("/", [])).nameList(), []);
  const root = new StatCache();
  kept(root, "readdir", "/", { value: listing("/", [["f", "file", 1]]), view: 0 });
  assert.equal(root.answer("stat", "/f").value.path, "/f");
});

test("errors are kept as data and exists follows them", () => {
  const cache = new StatCache();
  const error = { code: "ENOENT", message: "ENOENT: no such file or directory, stat '/gone'", path: "/gone", syscall: "stat" };
  kept(cache, "stat", "/gone", { error, view: 0 });
  assert.deepEqual(cache.answer("stat", "/gone"), { error });
  assert.equal(cache.answer("exists", "/gone").value, false);
});

test("the size is bounded: the oldest entries go first", () => {
  const cache = new StatCache(3);
  for (const path of ["/a", "/b", "/c", "/d"]) kept(cache, "stat", path, { value: raw(1), view: 0 });
  assert.equal(cache.size, 3);
  assert.equal(cache.answer("stat", "/a"), undefined);
  assert.ok(cache.answer("stat", "/d"));
  const listed = new StatCache(4);
  kept(listed, "stat", "/a", { value: raw(1), view: 0 });
  kept(listed, "readdir", "/d", { value: listing("/d", [["f", "file", 1], ["g", "file", 2]]), view: 0 });
  assert.equal(listed.size, 4);
  kept(listed, "stat", "/b", { value: raw(1), view: 0 });
  assert.equal(listed.answer("stat", "/a"), undefined, "the oldest went first");
  assert.equal(listed.answer("stat", "/d/g").value.size, 2);
  kept(listed, "stat", "/c", { value: raw(1), view: 0 });
  assert.equal(listed.answer("stat", "/d/g"), undefined, "a listing goes as a whole");
  assert.equal(listed.size, 2);
  const big = listing("/big", ["a", "b", "c", "d"].map((name) => [name, "file", 1]));
  assert.ok(kept(listed, "readdir", "/big", { value: big, view: 0 }).length === 4, "answered all the same");
  assert.equal(listed.answer("readdir", "/big"), undefined, "larger than the bound: not kept");
  const again = new StatCache(10);
  const gone = { code: "ENOENT", message: "ENOENT: no such file or directory, scandir '/e'", path: "/e", syscall: "scandir" };
  kept(again, "readdir", "/e", { error: gone, view: 0 });
  assert.deepEqual(again.answer("readdir", "/e"), { error: gone });
  kept(again, "stat", "/e", { value: raw(1, "directory"), view: 0 });
  kept(again, "readdir", "/e", { value: listing("/e", [["f", "file", 1]]), view: 0 });
  assert.equal(again.size, 3, "an answer kept again replaces the one before");
  assert.equal(again.answer("stat", "/e").value.type, "directory");
});

test("steps and unknown calls count as mutations; reads do not", () => {
  const cache = new StatCache();
  for (const op of ["stat", "readdirStats", "readFile", "watch", "diagnostics"]) assert.equal(cache.begin(op).mutating, false, op);
  for (const op of ["shell", "stepBegin", "stepOp", "mount", "someNewOp"]) {
    assert.equal(cache.begin(op).mutating, true, op);
    cache.settle();
  }
  assert.equal(cache.usable, true);
});

test("a readdir after a sibling's asks for the siblings after it, once until one is used", () => {
  const cache = new StatCache();
  const args = (path) => cache.listingArgs(path);
  assert.deepEqual(args("/w/a"), ["/w/a"], "the first listing in a folder");
  assert.deepEqual(args("/w/b"), ["/w/b", { siblings: true }], "the second: a walk");
  assert.deepEqual(args("/w/c"), ["/w/c"], "asked already, and nothing was answered from it");
  kept(cache, "readdir", "/w/c", { value: listing("/w/c", []), view: 0 });
  assert.ok(cache.answer("readdir", "/w/c"));
  assert.deepEqual(args("/w/d"), ["/w/d", { siblings: true }], "the last answer was used");
  assert.deepEqual(args("/x/a"), ["/x/a"], "another folder starts over");
  assert.deepEqual(args("/w/e"), ["/w/e"]);
  for (const path of ["/", "/w/", "w/a", "/w/../a"]) assert.deepEqual(args(path), [path], path);
});

test("the siblings' listings come with the answer and are kept by its rules", () => {
  const cache = new StatCache();
  const reply = () => ({
    value: { ...listing("/w/b", [["f", "file", 1]]), siblings: [listing("/w/c", [["g", "file", 2], ["h", "directory", 4096]])] },
    view: 0,
  });
  const stale = cache.begin("readdirStats");
  cache.clear();
  cache.keep("readdir", "/w/b", reply(), stale.token);
  assert.equal(cache.size, 0, "cleared since it was sent: nothing of it is kept");
  const listed = kept(cache, "readdir", "/w/b", reply());
  assert.deepEqual(listed.nameList(), ["f"]);
  assert.deepEqual(cache.answer("readdir", "/w/c").value.nameList(), ["g", "h"]);
  assert.equal(cache.answer("stat", "/w/c/g").value.size, 2);
  assert.equal(cache.answer("lstat", "/w/c/h").value.type, "directory");
  cache.invalidate(1);
  assert.equal(cache.answer("readdir", "/w/c"), undefined);
});

test("a read already on its way is shared while nothing cleared the cache and no change is in flight", async () => {
  const cache = new StatCache();
  let land;
  const answer = new Promise((resolve) => { land = resolve; });
  cache.sent("lstat", "/a", answer);
  assert.equal(cache.inFlight("lstat", "/a"), answer);
  assert.equal(cache.inFlight("stat", "/a"), undefined, "another operation");
  assert.equal(cache.inFlight("lstat", "/a/"), undefined, "another spelling");
  assert.equal(cache.shared, 1);
  const write = cache.begin("mkdir"); // a change sent after it: a read from now on must see it
  assert.equal(write.mutating, true);
  assert.equal(cache.inFlight("lstat", "/a"), undefined);
  cache.settle();
  assert.equal(cache.inFlight("lstat", "/a"), undefined, "cleared since it was sent");
  cache.sent("lstat", "/a", answer);
  cache.begin("writeFile"); // in flight, sent before: a hit would not be answered either
  assert.equal(cache.inFlight("lstat", "/a"), undefined);
  cache.settle();
  cache.sent("lstat", "/a", answer);
  cache.invalidate(3); // another context's change
  assert.equal(cache.inFlight("lstat", "/a"), undefined);
  cache.sent("lstat", "/a", answer);
  land({ type: "file" });
  await answer;
  await Promise.resolve();
  assert.equal(cache.inFlight("lstat", "/a"), undefined, "answered: the cache keeps it, or not");
  const failed = Promise.reject(new Error("ENOENT"));
  cache.sent("lstat", "/b", failed);
  await failed.catch(() => {});
  await Promise.resolve();
  assert.equal(cache.inFlight("lstat", "/b"), undefined);
  assert.equal(cache.shared, 1);
});
