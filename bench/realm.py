"""R1: what a scoop's realm costs (docs/sandbox.md, "A realm for code"; issue 26's targets).

    .venv/bin/python bench/realm.py [--reps N]

Serves dist/ on 127.0.0.1, opens the app in headless Chromium, waits until the runtime snapshot
is stored, then reloads (a returning user: Python restores from the snapshot). Per repetition,
in a new scoop (so a new realm):

    first     `runPython("pass")` on the scoop: the realm's frame, its Python worker restored
              from the snapshot, the run
    next      the same call again: the realm kept
    jsh       a `.jsh` hello run by the scoop's shell (a worker of its own in the realm)
    memory    the proportional set size (/proc PID smaps_rollup) of every process of the browser
              after the run, less before the scoop was made: what one realm adds

Prints one line per repetition and the medians, as JSON on the last line. A measurement, never
a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build"))
sys.path.insert(0, str(ROOT))

from chromium import CHROMIUM, CHROMIUM_ARGS, chromium_version  # noqa: E402
from serve import start_site  # noqa: E402

from bench.tabs import pss_bytes  # noqa: E402

READY_MS = 180_000
MEASURE = """async (rep) => {
  const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
  const vfs = await window.pyvfs.ready;
  const scoop = await vfs.scoop(`r1-${rep}`);
  await scoop.writeFile(`/scoops/r1-${rep}/workspace/hello.jsh`, "console.log('hello')");
  const t0 = performance.now();
  const first = await within(scoop.runPython("pass"), 180000, "the first run");
  const t1 = performance.now();
  const next = await within(scoop.runPython("pass"), 60000, "the next run");
  const t2 = performance.now();
  const jsh = await within(scoop.shell(`/scoops/r1-${rep}/workspace/hello.jsh`), 60000, "jsh");
  const t3 = performance.now();
  if (first.code || next.code || jsh.stdout !== "hello\\n") {
    throw new Error(JSON.stringify({first, next, jsh}));
  }
  return {first: t1 - t0, next: t2 - t1, jsh: t3 - t2};
}"""
BOOT = "async () => (await (await window.pyvfs.ready).diagnostics()).boot"
WAIT_STORED = """async (ms) => {
  const vfs = await window.pyvfs.ready;
  const deadline = Date.now() + ms;
  for (;;) {
    const { boot } = await vfs.diagnostics();
    if (!["waiting", "making", "keeping"].includes(boot.snapshot)) return boot.snapshot;
    if (Date.now() > deadline) throw new Error(`no snapshot after ${ms} ms: ${boot.snapshot}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}"""


def browser_pss(root_pid: int) -> int:
    """The PSS of every process below ``root_pid`` (the browser's, and the driver's)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True,
                         check=True, timeout=30).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        pid, ppid = (int(word) for word in line.split())
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, list(children.get(root_pid, []))
    while todo:
        pid = todo.pop()
        total += pss_bytes(pid) or 0
        todo.extend(children.get(pid, []))
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    reps = parser.parse_args().reps
    from playwright.sync_api import sync_playwright

    site = start_site(ROOT / "dist")
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(site.app_url)
            page.wait_for_function("window.pyvfs && window.pyvfs.ready", timeout=READY_MS)
            snapshot = page.evaluate(WAIT_STORED, READY_MS)
            page.reload()
            page.wait_for_function("window.pyvfs && window.pyvfs.ready", timeout=READY_MS)
            boot = page.evaluate(BOOT)
            root = os.getpid()  # the browser runs below this process (Playwright's driver)
            for rep in range(reps):
                before = browser_pss(root)
                row = page.evaluate(MEASURE, rep)
                row["memory_mib"] = (browser_pss(root) - before) / (1 << 20)
                rows.append(row)
                print(json.dumps(row), flush=True)
            browser.close()
    finally:
        site.stop()
    load = Path("/proc/loadavg").read_text().split()[:3]
    summary = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    summary.update(chromium=chromium_version(), load=load, snapshot=snapshot,
                   boot_from=boot.get("from"), reps=reps)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
