// The disk's peers (web/shared/peers.mjs) in Node: a commit resolves only once every other
// peer has applied it, a peer that has gone is not waited for, and a silent one at most
// GIVE_UP_MS. The lock manager here is a small stand-in for navigator.locks (Node has none);
// the BroadcastChannel is Node's own. In Chromium, with real workers and tabs:
// tests/e2e/test_read_your_writes.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Peers } from "../../dist/peers.mjs";

// navigator.locks as far as Peers uses it: request(name, callback) grants a free name at once
// and holds it until the callback's promise settles; query() lists what is held.
class Locks {
  held = new Set();
  request(name, callback) {
    this.held.add(name);
    Promise.resolve(callback()).finally(() => this.held.delete(name));
  }
  async query() {
    return { held: [...this.held].map((name) => ({ name })) };
  }
}

let disks = 0;

// `count` peers of a fresh disk, each on its own channel, joined, with the first one's list of
// the others refreshed (as when it takes the disk's lock).
async function peersOf(count, locks = new Locks()) {
  const name = `peers-${++disks}`;
  const peers = Array.from({ length: count }, () => {
    const channel = new BroadcastChannel(`pyvfs:${name}`);
    const peer = new Peers(name, locks, channel);
    channel.onmessage = ({ data }) => peer.receive(data);
    peer.channel = channel;
    return peer;
  });
  for (const peer of peers) await peer.join();
  peers[0].refresh();
  return { peers, locks };
}

function close(peers) {
  for (const peer of peers) {
    peer.close();
    peer.channel.close();
  }
}

test("a commit resolves only after every other peer applied it", async () => {
  const { peers } = await peersOf(3);
  const applied = [];
  const gates = [];
  for (const peer of peers.slice(1)) {
    peer.onCommit = (rev) => new Promise((resolve) => gates.push(() => { applied.push([peer.id, rev]); resolve(); }));
  }
  let resolved = false;
  const commit = peers[0].announce(7).then(() => { resolved = true; });
  while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));
  gates[0]();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(resolved, false, "one peer has not applied it yet");
  gates[1]();
  await commit;
  assert.deepEqual(applied.map(([, rev]) => rev), [7, 7]);
  close(peers);
});

test("alone, a commit resolves at once", async () => {
  const { peers } = await peersOf(1);
  await peers[0].announce(1);
  close(peers);
});

test("a peer that leaves while a commit waits for it is not waited for", async () => {
  const { peers } = await peersOf(2);
  peers[1].onCommit = () => new Promise(() => {}); // never applies
  const started = Date.now();
  const commit = peers[0].announce(3);
  setTimeout(() => peers[1].close(), 20); // its context ends: its lock is let go
  await commit;
  assert.ok(Date.now() - started < 4_000, "resolved at the next check, not at the bound");
  peers[0].close();
  peers.forEach((peer) => peer.channel.close());
});

test("a peer that stays silent holds a commit back at most GIVE_UP_MS, with a warning", async () => {
  const { peers } = await peersOf(2);
  peers[1].onCommit = () => new Promise(() => {});
  const warnings = [];
  const warn = console.warn;
  console.warn = (message) => warnings.push(message);
  try {
    await peers[0].announce(4);
  } finally {
    console.warn = warn;
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /did not apply a commit within 5000 ms/);
  close(peers);
});

test("a peer that joined after the list was made is found at the next refresh", async () => {
  const { peers, locks } = await peersOf(1);
  const name = peers[0].channel.name.slice("pyvfs:".length);
  const channel = new BroadcastChannel(`pyvfs:${name}`);
  const late = new Peers(name, locks, channel);
  channel.onmessage = ({ data }) => late.receive(data);
  late.channel = channel;
  await late.join();
  let applied = 0;
  late.onCommit = async () => { applied++; };
  await new Promise((resolve) => setTimeout(resolve, 0)); // the list made before `late` is in
  // The list predates `late` and names nobody: the commit is not posted (a peer that joins
  // takes the disk's lock before it reads, so it loads this commit) and resolves at once.
  assert.equal(peers[0].announce(1), null);
  peers[0].refresh();
  await peers[0].announce(2);
  assert.equal(applied, 1, "the second commit waited for the late peer");
  close([...peers, late]);
});

test("a commit made while the peers are being listed waits for the list", async () => {
  const { peers } = await peersOf(2);
  let applied = 0;
  peers[1].onCommit = async () => { applied++; };
  peers[0].refresh();
  await peers[0].announce(5); // no list yet: posted, and waited for once the list names peers[1]
  assert.equal(applied, 1);
  close(peers);
});
