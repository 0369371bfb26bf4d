"""Read-your-writes across contexts (real Chromium): a write that resolved in one Web Worker or
tab is seen by every read that starts after it, in any other context of the disk, however the
reader learned of the write (docs/architecture.md, "Several tabs").

The first test is lightning-fs's thread-safety spec in our API's shape (5 Web Workers, each
its own openVFS, write 5 files each with Promise.all, post "done", and the page lists and reads
at once), repeated ROUNDS times in one set of workers: before the peers' acknowledgement
(web/shared/peers.mjs) about 7 rounds in 10 saw 20 of 25 files; ROUNDS = 50 means a failure
rate of one round in ten passes with probability 0.9 ** 50, about 0.5%. The second runs a
random interleaving of writes and reads over two tabs against a sequential model.
"""

from __future__ import annotations

import random

from .conftest import booted_app, js

ROUNDS = 50
WORKERS = 5
FILES = 5
STEPS = 240
BOOT_MS = 180_000  # five Pyodides booting at once on two cores
ROUND_MS = 60_000

# The Web Workers: each opens the disk "ryw" with openVFS itself (its own VFS worker and
# Python), then writes FILES files at once per round it is told of, and says "done".
WORKERS_WRITE_THE_PAGE_READS = """
  const [rounds, count, files, bootMs, roundMs] = args;
  const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms))]);
  const api = new URL("/pyvfs.mjs", location.href).href;
  const source = `
    const opened = import("${api}").then(({openVFS}) =>
      openVFS({name: "ryw", snapshot: "off", defaults: false}));
    onmessage = async ({data: {round, tag}}) => {
      try {
        const vfs = await opened;
        if (round < 0) { postMessage({ready: true}); return; }
        await Promise.all(Array.from({length: ${files}}, (_, j) =>
          vfs.writeFile("/r" + round + "-" + tag + "-f" + j, tag + ":" + round + ":" + j)));
        postMessage({done: round});
      } catch (error) {
        postMessage({error: String(error?.message ?? error)});
      }
    };`;
  const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
  const workers = Array.from({length: count}, () => new Worker(url, {type: "module"}));
  const { openVFS } = await import(api);
  const disk = await openVFS({name: "ryw", snapshot: "off", defaults: false});
  // Each worker's next message, or its failure.
  const told = (round) => Promise.all(workers.map((worker, i) => new Promise((resolve, reject) => {
    worker.onmessage = ({data}) =>
      (data.error ? reject(new Error(`worker ${i}: ${data.error}`)) : resolve());
    worker.onerror = (event) => reject(new Error(`worker ${i} failed: ${event.message}`));
    worker.postMessage({round, tag: `w${i}`});
  })));
  const misses = [];
  try {
    await within(told(-1), bootMs, `${count} workers to open the disk`);
    for (let round = 0; round < rounds; round++) {
      // The page's caches hold the listing and stats from before the round.
      await disk.readdir("/");
      await disk.exists(`/r${round}-w0-f0`);
      await within(told(round), roundMs, `round ${round}'s writes`);
      const names = (await disk.readdir("/")).filter((name) => name.startsWith(`r${round}-`));
      const texts = await Promise.all(workers.map((_, i) =>
        disk.readFile(`/r${round}-w${i}-f${files - 1}`, "utf8").catch((error) => error.code)));
      const seen = await Promise.all(workers.map((_, i) => disk.exists(`/r${round}-w${i}-f0`)));
      const wrong = texts.filter((text, i) => text !== `w${i}:${round}:${files - 1}`);
      if (names.length !== count * files || wrong.length || seen.includes(false)) {
        misses.push({round, listed: names.length, wrong, seen});
      }
    }
  } finally {
    workers.forEach((worker) => worker.terminate());
    URL.revokeObjectURL(url);
  }
  return misses;
"""


def test_what_workers_wrote_is_listed_and_read_by_the_page_at_once(browser, browser_context_args):
    # The workers are a test's blobs: this context alone ignores the app's CSP (worker-src 'self').
    with booted_app(browser, {**browser_context_args, "bypass_csp": True}) as session:
        misses = js(session.page, WORKERS_WRITE_THE_PAGE_READS, ROUNDS, WORKERS, FILES,
                    BOOT_MS, ROUND_MS)
    assert misses == [], f"{len(misses)} of {ROUNDS} rounds missed writes: {misses[:5]}"


# Each tab runs operations of the disk API (["ok", value] or ["err", code]) as window.__ryw,
# its own or those the other tab asks of it on the BroadcastChannel "ryw-steps".
SERVE = """
  const [me] = args;
  const run = async (op, path, other) => {
    try {
      switch (op) {
        case "write": await vfs.writeFile(path, other); return ["ok", null];
        case "append": await vfs.appendFile(path, other); return ["ok", null];
        case "unlink": await vfs.unlink(path); return ["ok", null];
        case "rename": await vfs.rename(path, other); return ["ok", null];
        case "read": return ["ok", await vfs.readFile(path, "utf8")];
        case "readdir": return ["ok", (await vfs.readdir(path)).sort()];
        case "stat": return ["ok", (await vfs.stat(path)).size];
        case "exists": return ["ok", await vfs.exists(path)];
      }
      return ["err", `unknown op ${op}`];
    } catch (error) {
      return ["err", error.code];
    }
  };
  window.__ryw = run;
  const channel = new BroadcastChannel("ryw-steps");
  channel.onmessage = async ({data}) => {
    if (data.to !== me) return;
    channel.postMessage({reply: data.n, result: await run(data.op, data.path, data.other)});
  };
  return true;
"""

# Tab 0 runs the steps in order: its own at once, tab 1's by asking it on the channel. So tab 1
# learns of tab 0's last write from a BroadcastChannel message and reads at once, and the other
# way round.
DRIVE = """
  const [steps, ms] = args;
  const channel = new BroadcastChannel("ryw-steps");
  const replies = new Map();
  channel.onmessage = ({data}) => replies.get(data.reply)?.(data.result);
  const results = [];
  try {
    for (const [n, [tab, op, path, other]] of steps.entries()) {
      if (tab === 0) {
        results.push(await window.__ryw(op, path, other));
        continue;
      }
      results.push(await new Promise((resolve, reject) => {
        replies.set(n, resolve);
        channel.postMessage({to: 1, n, op, path, other});
        setTimeout(() => reject(new Error(`tab 1 did not answer step ${n} within ${ms} ms`)), ms);
      }));
    }
  } finally {
    channel.close();
  }
  return results;
"""

ROOT = "/ryw-diff"
DIRS = [f"{ROOT}/x", f"{ROOT}/y"]
FILES_OF = [f"{d}/{n}" for d in DIRS for n in "abc"]


class Model:
    """The disk as one context doing every operation in order would see it."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def run(self, op: str, path: str, other: str | None) -> list:
        files = self.files
        if op in ("write", "append"):
            files[path] = (files.get(path, "") if op == "append" else "") + other
            return ["ok", None]
        if op == "readdir":
            return ["ok", sorted(p.rsplit("/", 1)[1] for p in files if p.startswith(path + "/"))]
        if op == "exists":
            return ["ok", path in files]
        if path not in files:
            return ["err", "ENOENT"]
        if op == "unlink":
            del files[path]
            return ["ok", None]
        if op == "rename":
            files[other] = files.pop(path)
            return ["ok", None]
        if op == "read":
            return ["ok", files[path]]
        return ["ok", len(files[path].encode())]  # stat


def steps(seed: int):
    """STEPS operations, each given to one of the two tabs at random."""
    rng = random.Random(seed)
    for step in range(STEPS):
        op = rng.choice(["write", "write", "append", "unlink", "rename", "read", "read",
                         "readdir", "stat", "exists"])
        path = rng.choice(DIRS) if op == "readdir" else rng.choice(FILES_OF)
        other = rng.choice(FILES_OF) if op == "rename" else f"s{step};"
        yield [rng.randrange(2), op, path, other]


def test_two_tabs_interleaving_writes_and_reads_answer_as_one_sequence(tabs):
    for directory in DIRS:
        js(tabs[0].page, "await vfs.rm(args[0], {recursive: true, force: true}); "
                         "await vfs.mkdir(args[0], {recursive: true}); return true;", directory)
    for me, tab in enumerate(tabs):
        js(tab.page, SERVE, me)
    sequence = list(steps(29))
    found = js(tabs[0].page, DRIVE, sequence, ROUND_MS)
    model = Model()
    for number, ((tab, op, path, other), answer) in enumerate(zip(sequence, found, strict=True)):
        expected = model.run(op, path, other)
        assert answer == expected, (f"step {number}: tab {tab} {op} {path} {other!r} answered "
                                    f"{answer}, the sequence gives {expected}")
