// The early reader's known records (web/page/known_records.mjs) on their own, in Node: kept per
// revision, dropped when a later revision is learned, never replaced by an older one. With the
// reader in Chromium, and another tab committing between two answers:
// tests/e2e/test_early_reads.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Found, KnownRecords } from "../../dist/known_records.mjs";

function found({ nodes = [], names = [], listed = [] } = {}) {
  const out = new Found();
  for (const [id, record] of nodes) out.nodes.set(id, record);
  for (const [key, id] of names) out.names.set(key, id);
  for (const [directory, ids] of listed) out.listed.set(directory, ids);
  return out;
}

test("what one revision read is kept and merged with more of the same revision", () => {
  const known = new KnownRecords();
  known.learn(3, found({ nodes: [["a", { id: "a" }]], names: [["root/a", "a"]] }), known.epoch);
  known.learn(3, found({ nodes: [["b", { id: "b" }]] }), known.epoch);
  assert.equal(known.rev, 3);
  assert.deepEqual([...known.nodes.keys()], ["a", "b"]);
  assert.equal(known.entry("root", "a"), "a");
});

test("a later revision drops everything older; an older one changes nothing", () => {
  const known = new KnownRecords();
  known.learn(3, found({ nodes: [["a", { id: "a" }]] }), known.epoch);
  known.learn(5, found({ nodes: [["b", { id: "b" }]] }), known.epoch);
  assert.equal(known.rev, 5);
  assert.deepEqual([...known.nodes.keys()], ["b"]);
  known.learn(4, found({ nodes: [["c", { id: "c" }]] }), known.epoch);
  assert.equal(known.rev, 5);
  assert.deepEqual([...known.nodes.keys()], ["b"]);
});

test("an entry is known, known missing (its directory is listed), or unknown", () => {
  const known = new KnownRecords();
  known.learn(1, found({ names: [["d/x", "x"], ["e/y", null]], listed: [["d", ["x"]]] }), known.epoch);
  assert.equal(known.entry("d", "x"), "x");
  assert.equal(known.entry("d", "nope"), null, "d is listed whole: no such entry");
  assert.equal(known.entry("e", "y"), null, "looked up and missing");
  assert.equal(known.entry("e", "z"), undefined, "e is not listed: unknown");
});

// The page as a peer (web/page/early_peer.mjs): another context's commit makes it forget, and
// what a transaction begun before that read is not kept, whatever its revision.
test("forget drops everything, and what was read before it is never learned after", () => {
  const known = new KnownRecords();
  const before = known.epoch;
  known.learn(2, found({ nodes: [["a", { id: "a" }]] }), before);
  known.forget();
  assert.equal(known.size, 0);
  assert.equal(known.rev, null);
  known.learn(2, found({ nodes: [["b", { id: "b" }]] }), before); // begun before the forget
  assert.equal(known.size, 0);
  known.learn(3, found({ nodes: [["c", { id: "c" }]] }), known.epoch);
  assert.deepEqual([...known.nodes.keys()], ["c"]);
});
