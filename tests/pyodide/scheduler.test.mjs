// The worker's asyncio scheduling (web/worker/scheduler.mjs) under the real Pyodide: ready callbacks run
// as microtasks, so an operation no longer pays a macrotask per await, and a long chain of them
// still yields to events.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { bootWebAPI } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";
import { SLICE_MS, microtaskScheduler, scheduleInMicrotasks } from "../../dist/scheduler.mjs";

let pyodide;
let edge;
let call;

before(async () => {
  ({ pyodide, edge, call } = await bootWebAPI());
});

// A clock that never moves: no slice ever runs out, so every hop counted is one the code waited
// for, however slow the machine.
const frozen = () => 0;

// Runs `work` with Pyodide's event loop scheduling through `wrap(macrotask)` and counts the
// callbacks that reach the macrotask queue meanwhile.
async function macrotasksDuring(wrap, work) {
  const webloop = pyodide.pyimport("pyodide.webloop");
  const original = webloop.scheduleCallback;
  let count = 0;
  const macrotask = (callback, delay) => { if (!delay) count++; return original(callback, delay); };
  webloop.scheduleCallback = wrap(macrotask);
  try {
    await work();
  } finally {
    webloop.scheduleCallback = original;
    webloop.destroy();
  }
  return count;
}

test("a callback due now runs in a microtask, within a slice; later ones and a long slice go to the macrotask queue", async () => {
  let clock = 0;
  const queued = [];
  const schedule = microtaskScheduler((callback, delay) => queued.push([callback, delay]), () => clock);
  const ran = [];
  schedule(() => ran.push("a"), 0);
  schedule(() => ran.push("timer"), 5);
  assert.deepEqual(queued.map(([, delay]) => delay), [0, 5]); // the slice's end marker, the timer
  await null;
  assert.deepEqual(ran, ["a"]);
  clock = 9; // past the slice: the next callback waits for a macrotask
  schedule(() => ran.push("b"), 0);
  await null;
  assert.deepEqual(ran, ["a"]);
  assert.equal(queued.length, 3);
  queued.shift()[0](); // the slice ends
  schedule(() => ran.push("c"), 0);
  await null;
  assert.deepEqual(ran, ["a", "c"]);
});

test("a write and a read through the dispatch hop once per event they wait for, not once per await", async () => {
  const api = await edge.open_api(await IDBStore.open("scheduler"));
  const hops = await macrotasksDuring((macrotask) => macrotask, () => call(api, "writeFile", "/before", "x"));
  assert.ok(hops >= 3, `the default loop hops once per await (${hops})`);
  let read;
  const inMicrotasks = (macrotask) => microtaskScheduler(macrotask, frozen);
  const write = await macrotasksDuring(inMicrotasks, () => call(api, "writeFile", "/a", "bytes"));
  const reading = await macrotasksDuring(inMicrotasks, async () => {
    read = await call(api, "readFile", "/a", "utf8");
  });
  assert.deepEqual(read, { value: "bytes" });
  // What is left is one slice per event the call waits for: its start, and for the write the
  // completion of its IndexedDB transaction.
  assert.ok(write <= 2 && reading <= 1, `macrotasks: write ${write}, read ${reading}`);
});

// Python that awaits `rounds` times, moving the test's clock 1 ms before each await, and
// returns how many of the test's events ran meanwhile (globalThis.schedulerTest).
const spinning = (rounds) => `
  import asyncio, js
  async def spin(rounds):
      seen = js.schedulerTest.events()
      for _ in range(rounds):
          js.schedulerTest.advance(1)
          await asyncio.sleep(0)
      return js.schedulerTest.events() - seen
  await spin(${rounds})
`;

test("a long chain of ready Python callbacks lets the worker's events in once per slice", async () => {
  // The slices are measured on our clock, which each round of the chain moves by 1 ms: where a
  // slice ends depends on the rounds run, not on the machine's speed.
  const ROUNDS = 100;
  const webloop = pyodide.pyimport("pyodide.webloop");
  const original = webloop.scheduleCallback;
  let clock = 0;
  let events = 0;
  let stop = false;
  const tick = () => { events++; if (!stop) setImmediate(tick); };
  globalThis.schedulerTest = { advance: (ms) => { clock += ms; }, events: () => events };
  scheduleInMicrotasks(pyodide, () => clock);
  try {
    setImmediate(tick);
    const during = await pyodide.runPythonAsync(spinning(ROUNDS));
    // A slice holds the rounds of SLICE_MS ms (and the one that crosses the line), then one
    // macrotask lets the pending event run: 10 with SLICE_MS = 8; one less for a slice cut by
    // the start or the end of the chain.
    const least = Math.floor(ROUNDS / (SLICE_MS + 2)) - 1;
    const most = Math.ceil(ROUNDS / SLICE_MS);
    assert.ok(during >= least && during <= most,
      `${during} events during ${ROUNDS} rounds of 1 ms: expected ${least}-${most}`);
  } finally {
    stop = true;
    webloop.scheduleCallback = original;
    webloop.destroy();
    delete globalThis.schedulerTest;
  }
});

// Python's ready callbacks in batches (py_vfs/web/ready_batches.py, installed by the worker at
// boot): `during(work)` runs it with the batches on the loop and Pyodide's scheduleCallback
// counting the entries handed to JS, and takes both off again.
async function entriesWithBatches(work, clock = "None") {
  const webloop = pyodide.pyimport("pyodide.webloop");
  const original = webloop.scheduleCallback;
  let entries = 0;
  webloop.scheduleCallback = (callback, delay) => { if (!delay) entries++; return original(callback, delay); };
  pyodide.runPython(`
    import asyncio, js
    from py_vfs.web import ready_batches
    clock = ${clock}
    ready_batches.install(clock=clock) if clock else ready_batches.install()
  `);
  try {
    await work();
  } finally {
    pyodide.runPython(`
      loop = asyncio.get_event_loop()
      del loop.call_soon, loop.call_soon_threadsafe
    `);
    webloop.scheduleCallback = original;
    webloop.destroy();
  }
  return entries;
}

const CHAIN = `
  import asyncio
  async def chain(rounds):
      for _ in range(rounds):
          await asyncio.sleep(0)
  await chain(100)
`;

test("with ready batches, a chain of 100 awaits enters Python from JS a few times, not 100", async () => {
  const plain = await macrotasksDuring((macrotask) => macrotask, () => pyodide.runPythonAsync(CHAIN));
  assert.ok(plain >= 100, `the plain loop enters once per await (${plain})`);
  const batched = await entriesWithBatches(() => pyodide.runPythonAsync(CHAIN));
  assert.ok(batched <= 6, `entries with batches: ${batched}`);
});

test("with ready batches, a write and a read through the dispatch still answer", async () => {
  const api = await edge.open_api(await IDBStore.open("batches"));
  let read;
  await entriesWithBatches(async () => {
    await call(api, "writeFile", "/b", "batched");
    read = await call(api, "readFile", "/b", "utf8");
  });
  assert.deepEqual(read, { value: "batched" });
});

test("with ready batches, a long chain still lets the worker's events in once per slice", async () => {
  // As the test above without batches: our clock moves 1 ms a round, for the JS scheduler's
  // slices and the drains' alike.
  const ROUNDS = 100;
  let clock = 0;
  let events = 0;
  let stop = false;
  const tick = () => { events++; if (!stop) setImmediate(tick); };
  globalThis.schedulerTest = { advance: (ms) => { clock += ms; }, events: () => events, now: () => clock };
  const webloop = pyodide.pyimport("pyodide.webloop");
  const original = webloop.scheduleCallback;
  scheduleInMicrotasks(pyodide, () => clock);
  let during;
  try {
    setImmediate(tick);
    await entriesWithBatches(async () => {
      during = await pyodide.runPythonAsync(spinning(ROUNDS));
    }, "lambda: js.schedulerTest.now() / 1000");
  } finally {
    stop = true;
    webloop.scheduleCallback = original;
    webloop.destroy();
    delete globalThis.schedulerTest;
  }
  // A drain runs its callbacks for 4 ms of our clock (ready_batches.SLICE_S) and a JS slice
  // lasts 8 (SLICE_MS): events get in at least once every two slices' worth of rounds.
  const least = Math.floor(ROUNDS / (2 * SLICE_MS + 2)) - 1;
  assert.ok(during >= least && during <= ROUNDS, `${during} events during ${ROUNDS} rounds of 1 ms: expected at least ${least}`);
});
