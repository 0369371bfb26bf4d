// The early reader's records kept for the next visit (web/page/kept_records.mjs) on their own,
// in Node, over a localStorage of the test's (Node has none): taken back only at the same
// revision of the same disk, merged with what was kept at that revision, dropped when too many.
// With the reader in Chromium, across reloads and another tab's commit:
// tests/e2e/test_early_reads.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import { KnownRecords, Found } from "../../dist/known_records.mjs";
import { keepRecords, keptEntry, keptRecords } from "../../dist/kept_records.mjs";

const ROOT = '{"parent":null,"name":"","kind":"directory","ctime":1}';

function withStorage(run) {
  const items = new Map();
  globalThis.localStorage = {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key),
  };
  try {
    run(items);
  } finally {
    delete globalThis.localStorage;
  }
}

function knownAt(rev, nodes, names = []) {
  const found = new Found();
  for (const [id, record] of nodes) found.nodes.set(id, record);
  for (const [key, id] of names) found.names.set(key, id);
  const known = new KnownRecords();
  known.learn(rev, found, known.epoch);
  return known;
}

test("records kept at a revision come back at that revision of the same disk only", () => {
  withStorage((items) => {
    assert.equal(keepRecords("d", ROOT, knownAt(7, [["a", { id: "a", size: 1 }]], [["root/a", "a"]])), true);
    const back = keptRecords(keptEntry("d"), "d", ROOT, 7);
    assert.deepEqual([...back.nodes], [["a", { id: "a", size: 1 }]]);
    assert.deepEqual([...back.names], [["root/a", "a"]]);
    assert.equal(keptRecords(keptEntry("d"), "d", '{"ctime":2}', 7), null); // another disk
    assert.equal(items.size, 0, "an entry of another disk is removed");
    keepRecords("d", ROOT, knownAt(7, [["a", { id: "a" }]]));
    assert.equal(keptRecords(keptEntry("d"), "d", ROOT, 8), null); // the disk moved on
    assert.equal(items.size, 0, "an entry of an older revision is removed");
  });
});

test("what is kept at one revision is merged; a later revision replaces it", () => {
  withStorage(() => {
    keepRecords("d", ROOT, knownAt(3, [["a", { id: "a" }]]));
    keepRecords("d", ROOT, knownAt(3, [["b", { id: "b" }]]));
    assert.deepEqual([...keptRecords(keptEntry("d"), "d", ROOT, 3).nodes.keys()], ["a", "b"]);
    keepRecords("d", ROOT, knownAt(4, [["c", { id: "c" }]]));
    assert.deepEqual([...keptRecords(keptEntry("d"), "d", ROOT, 4).nodes.keys()], ["c"]);
  });
});

test("too many records are not kept, and nothing older stays in their place", () => {
  withStorage((items) => {
    keepRecords("d", ROOT, knownAt(3, [["a", { id: "a" }]]));
    const many = Array.from({ length: 600 }, (_, i) => [`n${i}`, { id: `n${i}` }]);
    assert.equal(keepRecords("d", ROOT, knownAt(3, many)), false);
    assert.equal(items.size, 0);
    const big = [["big", { id: "big", inline: "x".repeat(70 * 1024) }]];
    assert.equal(keepRecords("d", ROOT, knownAt(3, big)), false);
    assert.equal(items.size, 0);
  });
});

test("an entry that does not parse, or no localStorage at all, keeps nothing", () => {
  withStorage((items) => {
    items.set("pyvfs-early:d", "{not json");
    assert.equal(keptEntry("d"), null);
    items.set("pyvfs-early:d", JSON.stringify({ v: 1, root: ROOT, rev: 3, nodes: 5, names: [], listed: [] }));
    assert.equal(keptRecords(keptEntry("d"), "d", ROOT, 3), null);
    assert.equal(items.size, 0);
  });
  assert.equal(keptEntry("d"), null);
  assert.equal(keepRecords("d", ROOT, knownAt(1, [["a", { id: "a" }]])), true);
});
