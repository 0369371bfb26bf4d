// The read-your-writes gate of a shared runtime (web/worker/guests.mjs, Channels): after an
// index change, nothing leaves on one page's channel while another page has not confirmed that
// it dropped its stat cache ("seen"). The e2e test (tests/e2e/test_shared_runtime.py) shows the
// fan-out of invalidations between real tabs; this one holds a page's "seen" back and checks
// that the writer's answer waits for it, which no timing between real tabs can force.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Channels } from "../../dist/guests.mjs";
import { WIRE } from "../../dist/protocol.mjs";

// A page's channel as the worker sees it: what was posted to it, in order.
function page(channels) {
  const got = [];
  const channel = channels.open((message) => got.push(message));
  return { channel, got, answers: () => got.filter((message) => message.type === WIRE.result) };
}

const answer = (id) => ({ type: WIRE.result, id, value: null });

test("with one page nothing waits: its answer follows the invalidation on its own channel", () => {
  const channels = new Channels();
  const only = page(channels);
  channels.invalidate(1);
  only.channel.post(answer(1));
  assert.deepEqual(only.got.map((message) => message.type), [WIRE.invalidate, WIRE.result]);
  only.channel.close();
});

test("a writer's answer waits until every other page has seen the invalidation, then goes in order", () => {
  const channels = new Channels();
  const writer = page(channels);
  const reader = page(channels);
  const third = page(channels);
  channels.invalidate(7);
  assert.equal(reader.got.at(-1).type, WIRE.invalidate);
  writer.channel.post(answer(1));
  writer.channel.post(answer(2));
  assert.deepEqual(writer.answers(), [], "answered before the other pages dropped their caches");
  reader.channel.seen(7);
  assert.deepEqual(writer.answers(), [], "answered before the third page dropped its cache");
  third.channel.seen(6); // an older view confirms nothing new
  assert.deepEqual(writer.answers(), []);
  third.channel.seen(7);
  assert.deepEqual(writer.answers().map((message) => message.id), [1, 2]);
  // Later posts go at once while every page is up to date.
  writer.channel.post(answer(3));
  assert.deepEqual(writer.answers().map((message) => message.id), [1, 2, 3]);
  for (const each of [writer, reader, third]) each.channel.close();
});

test("a page that goes away no longer holds the others' answers", () => {
  const channels = new Channels();
  const writer = page(channels);
  const closing = page(channels);
  channels.invalidate(3);
  writer.channel.post(answer(1));
  assert.deepEqual(writer.answers(), []);
  closing.channel.close();
  assert.deepEqual(writer.answers().map((message) => message.id), [1]);
  writer.channel.close();
});

test("a page that never confirms is passed over after the bound, with a warning", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const warned = [];
  t.mock.method(console, "warn", (text) => warned.push(text));
  const channels = new Channels();
  const writer = page(channels);
  const frozen = page(channels);
  channels.invalidate(4);
  writer.channel.post(answer(1));
  t.mock.timers.tick(4_999);
  assert.deepEqual(writer.answers(), []);
  t.mock.timers.tick(1);
  assert.deepEqual(writer.answers().map((message) => message.id), [1]);
  assert.match(warned.join("\n"), /did not confirm the stat cache invalidation 4/);
  writer.channel.close();
  frozen.channel.close();
});
