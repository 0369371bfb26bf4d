"""`npm run bench`: the same workloads against py_vfs and its peers in one headless Chromium.

    .venv/bin/python bench/run.py [--reps N] [--only W1,W4] [--adapters ours,rawidb]
                                  [--json PATH] [--markdown PATH] [--smoke]

Adapters: ours (dist/pyvfs.mjs, `openVFS`), lightningfs (@isomorphic-git/lightning-fs), zenfs
(@zenfs/core + @zenfs/dom IndexedDB), rawidb (one IndexedDB put per file). The workloads are in
bench/web/workloads.mjs; docs/benchmarks.md says what each one does and what the numbers mean.
E1 (ours only) exports a tree of 100 MiB as a zip through `vfs.export` and drains it: its time,
rate (MB/s of the tree) and the worker's peaks. G1 clones bench/gitrepo.py's repository with
isomorphic-git over HTTP from the bench server into a fresh store per repetition and adapter
(not raw IndexedDB, which is no file system) and checks the checkout against its manifest.

Per repetition and adapter, one fresh store (every IndexedDB database of the origin is deleted
first) is opened (untimed; for ours this boots Pyodide) and takes the CHAIN of workloads in order,
each timed on its own with an untimed check after it; then the page is reloaded and W6 times
reopening the store and reading W1's files. W8 seeds its own store in a persistent profile and
times open-to-first-read after each browser restart; Q1-Q3 then time the issue's SQL statements
(`vfs.query`) on that 10,000-file store in the same page, for ours only (the peers have no SQL;
bench/restarts.py).
B1 times our app page (dist/index.html) to `body[data-state=ready]`, cold (new context), warm
(reload) and snapshot (reload once the runtime snapshot is stored); B0 times a bare Pyodide in a
worker from its snapshot to its first answer, the floor under B1 (bench/python_floor.py). W4r
times reading W4's file after a reload (bench/cold_read.py). T1 opens ours (a runtime per tab,
and the shared one, the default) on one store in 1, 2 and 5 pages of a context of its own and
reports their memory (bench/tabs.py). WB1 times the app's file tree from the click that opens a
folder of 10,000 files to the frame that draws its first rows (bench/tree_draw.py).
A setup of ours waits, untimed, until its runtime snapshot is stored (docs/boot.md), so W6 and
W8 reopen as a returning user does.

--smoke runs every workload once at tiny sizes (B1 cold only; G1 clones a 21-file repository in
the chain's store, before W6, with no page or boot of its own) and exits non-zero unless every
case verified: tests/e2e/test_bench_smoke.py runs it so the bench cannot rot.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build"))

from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.cdp import CDPError, FlatCDP, debugging_args, free_port  # noqa: E402
from bench.cold_read import run_cold_read  # noqa: E402
from bench.floors import run_floors  # noqa: E402
from bench.githttp import GIT_PREFIX  # noqa: E402
from bench.gitrepo import REPO, Repository, repository  # noqa: E402
from bench.memory import MemoryProbe  # noqa: E402
from bench.python_floor import FloorFailed, run_python_floor  # noqa: E402
from bench.report import pick, summarize, write_json, write_markdown  # noqa: E402
from bench.restarts import QUERIES, W8_RESTARTS_PER_REP, run_restart  # noqa: E402
from bench.server import start_bench_server  # noqa: E402
from bench.tabs import run_tabs  # noqa: E402
from bench.tree_draw import run_tree_draw  # noqa: E402
from bench.watchdog import Watchdog  # noqa: E402

ADAPTERS = ["ours", "strict", "lightningfs", "zenfs", "rawidb"]
# "strict" is ours opened with {durability: "strict"}: it changes how commits complete, not how a
# store opens, so it takes the chains (W1-W7, W6) and not W8's browser restarts.
STRICT = "strict"
# Run in this order on one store (bench/web/workloads.mjs says which tree each one uses).
CHAIN = ["W1", "W1c", "W2", "W3", "W5", "W7", "W4"]
WORKLOADS = [*CHAIN, "W6", "W4r", "E1", "G1", "W8", *QUERIES, "B1", "B0", "T1", "WB1", "F1"]
# E1 exports through our JS API (vfs.export): no peer has one, so it runs on ours alone.
EXPORTING = ["ours"]
# G1 needs a file system isomorphic-git can take as `fs`: raw IndexedDB is none.
CLONING = ["ours", STRICT, "lightningfs", "zenfs"]
# What must run before a workload: the tree it reads, renames or removes.
NEEDS = {"W2": "W1c", "W3": "W1c", "W5": "W1c", "W7": "W5", "W6": "W1",
         **dict.fromkeys(QUERIES, "W8")}
POLL_SECONDS = 0.05
# Bounds. A case's own polling fails it after CASE_TIMEOUT (smoke: SMOKE_CASE_TIMEOUT); the
# watchdog ends the run STAGE_SLACK later if a browser call never returns (bench/watchdog.py).
CASE_TIMEOUT = 600.0
SMOKE_CASE_TIMEOUT = 150.0
STAGE_SLACK = 60.0
READY_TIMEOUT_MS = 180_000
BENCH_PAGE = "bench/bench.html"
APP_PAGE = "index.html"
# Waits (untimed) until the app's first boot has stored the runtime snapshot (docs/boot.md).
SNAPSHOT_SETTLED_JS = """async (ms) => {
  const vfs = await window.pyvfs.ready;
  const deadline = Date.now() + ms;
  for (;;) {
    const { snapshot } = (await vfs.diagnostics()).boot;
    if (!["waiting", "making", "keeping"].includes(snapshot)) return snapshot;
    if (Date.now() > deadline) throw new Error(`no runtime snapshot after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}"""
# Records when our app page first shows data-state="ready"; runs before the page's scripts.
READY_PROBE_JS = """(() => {
  const timer = setInterval(() => {
    if (document.body && document.body.dataset.state === "ready") {
      window.__readyAt = performance.now();
      clearInterval(timer);
    }
  }, 5);
})();"""


@dataclass(frozen=True)
class Sizes:
    files: int = 1000
    dirs: int = 10
    fileSize: int = 1024  # camelCase: the names the page reads
    bigSize: int = 32 * 1024 * 1024
    manyFiles: int = 10_000
    manyDirs: int = 100
    exportSize: int = 100 * 1024 * 1024


SMOKE_SIZES = Sizes(files=20, dirs=2, bigSize=256 * 1024, manyFiles=40, manyDirs=4,
                    exportSize=1024 * 1024)


class CaseFailed(Exception):
    pass


class Bench:
    """One bench run: a browser, the bench server, and the results collected so far."""

    def __init__(self, playwright, base_url: str, sizes: Sizes, smoke: bool, watchdog: Watchdog,
                 repo: Repository | None = None):
        self.playwright = playwright
        self.repo = repo
        self.base_url = base_url
        self.sizes = sizes
        self.smoke = smoke
        self.watchdog = watchdog
        self.case_timeout = SMOKE_CASE_TIMEOUT if smoke else CASE_TIMEOUT
        self.stage_bound = self.case_timeout + STAGE_SLACK
        with watchdog.stage("launching chromium", self.stage_bound):
            self.browser, self.cdp = self.launch()
            # One context for the chains: its HTTP cache stays warm, so our set-up boots Pyodide
            # from cache every time (boot is untimed there; B1 times it). A smoke run makes it
            # persistent and seeds W8 in the chain's store, which saves a browser launch and a
            # boot per adapter.
            self.profile = None
            if smoke:
                self.profile = tempfile.TemporaryDirectory(prefix="pyvfs-bench-smoke-")
                self.context, self.context_cdp = self.launch_persistent(self.profile.name)
            else:
                self.context, self.context_cdp = self.browser.new_context(), self.cdp
        self.results: dict[str, dict[str, list[dict]]] = {}

    def options(self) -> tuple[dict, int]:
        """Launch options for Debian's Chromium, with a DevTools port of its own for the probe."""
        port = free_port()
        args = [*CHROMIUM_ARGS, *debugging_args(port)]
        return {"executable_path": CHROMIUM, "args": args, "headless": True}, port

    def launch(self):
        options, port = self.options()
        self.watchdog.waiting_for(f"chromium to start ({CHROMIUM})")
        browser = self.playwright.chromium.launch(**options)
        self.watchdog.waiting_for(f"the DevTools endpoint on port {port}")
        return browser, FlatCDP(port)

    def launch_persistent(self, profile: str):
        options, port = self.options()
        self.watchdog.waiting_for(f"chromium to start on the profile {profile}")
        context = self.playwright.chromium.launch_persistent_context(profile, **options)
        self.watchdog.waiting_for(f"the DevTools endpoint on port {port}")
        return context, FlatCDP(port)

    def close(self) -> None:
        with self.watchdog.stage("closing the browsers", self.stage_bound):
            if self.context_cdp is not self.cdp:
                self.context_cdp.close()
            self.context.close()
            self.cdp.close()
            self.browser.close()
            if self.profile:
                self.profile.cleanup()

    def record(self, workload: str, adapter: str, sample: dict) -> None:
        self.results.setdefault(workload, {}).setdefault(adapter, []).append(sample)
        shown = ", ".join(f"{k} {v:.0f}" for k, v in sample.items() if isinstance(v, float))
        print(f"bench: {workload:4} {adapter:12} {shown}", flush=True)

    # --- one case ---------------------------------------------------------------------------

    def open_bench_page(self, page, wipe: bool) -> None:
        self.watchdog.waiting_for("the bench page to load (window.bench)")
        page.goto(self.base_url + BENCH_PAGE)
        page.wait_for_function("window.bench !== undefined", timeout=READY_TIMEOUT_MS)
        if wipe:
            self.watchdog.waiting_for("the bench page to delete every IndexedDB database")
            page.evaluate("window.bench.wipe()")

    def run_stage(self, cdp: FlatCDP, page, spec: dict) -> dict:
        """Start one stage of a case in the page and poll it, sampling memory meanwhile."""
        label = f"{spec['adapter']} {spec['workload'] or '-'} {spec['stage']}"
        wait = self.watchdog.waiting_for
        try:
            wait("CDP sessions on the page and its worker")
            probe = MemoryProbe(cdp, page.url)
            try:
                if spec["stage"] != "setup":  # after a reload too: the old page's garbage remains
                    wait("a forced garbage collection in the page and the worker (CDP)")
                    probe.collect_garbage()
                wait("the page to start the case (window.bench.start)")
                page.evaluate("(spec) => window.bench.start(spec)", spec)
                deadline = time.monotonic() + self.case_timeout
                wait("the case's result (window.bench.poll) and memory samples (CDP)")
                while (result := page.evaluate("window.bench.poll()")) is None:
                    if time.monotonic() > deadline:
                        raise CaseFailed(f"{label}: no result within {self.case_timeout:.0f} s")
                    probe.sample()
                    time.sleep(POLL_SECONDS)
                probe.sample()  # a case shorter than one poll still gets a page and worker sample
                if not result["ok"]:
                    raise CaseFailed(f"{label}: {result['error']}")
                if spec["stage"] != "setup":
                    result["heapPeak"] = float(probe.peak)
                    if probe.worker_peak:
                        result["workerHeapPeak"] = float(probe.worker_peak)
                        wait("a forced garbage collection in the worker, then its heap (CDP)")
                        result["workerHeapRetained"] = float(probe.worker_retained())
                    wait("the worker's wasm memory size (window.bench.wasm)")
                    wasm = page.evaluate("([a, s]) => window.bench.wasm(a, s)",
                                         [spec["adapter"], spec["store"]])
                    if wasm is not None:
                        result["wasm"] = float(wasm)
                return result
            finally:
                probe.close()
        except CDPError as e:
            raise CaseFailed(f"{label}: {e}") from e

    def stage(self, cdp: FlatCDP, page, spec: dict) -> dict:
        """run_stage under the watchdog's bound."""
        label = f"{spec['adapter']} {spec['workload'] or '-'} {spec['stage']}"
        with self.watchdog.stage(label, self.stage_bound):
            return self.run_stage(cdp, page, spec)

    def spec(self, adapter: str, workload: str | None, stage: str, store: str) -> dict:
        return {"adapter": adapter, "store": store, "workload": workload, "stage": stage,
                "params": asdict(self.sizes)}

    def clone_spec(self, adapter: str, store: str) -> dict:
        """G1's run on `store`, with the repository's URL path and manifest."""
        spec = self.spec(adapter, "G1", "run", store)
        spec["params"] |= {"gitRepo": f"{GIT_PREFIX}{REPO}", "gitManifest": self.repo.manifest}
        return spec

    # --- workloads --------------------------------------------------------------------------

    def run_all(self, workloads: list[str], adapters: list[str], reps: int) -> None:
        steps = with_prerequisites(workloads)
        seeds_w8 = self.smoke and "W8" in steps  # a smoke run seeds W8 in the chain's store
        chains = seeds_w8 or any(w in steps for w in (*CHAIN, "W6"))
        if chains:
            page = self.context.new_page()
            for rep in range(reps):
                for adapter in adapters:  # interleaved: slow drift hits every adapter
                    self.chain(page, adapter, f"chain-{rep}-{adapter}", steps, workloads)
            with self.watchdog.stage("closing the chain's page", self.stage_bound):
                page.close()
        if "W4r" in workloads:  # W4's file read in a fresh page (bench/cold_read.py)
            run_cold_read(self, [a for a in adapters if a != STRICT], reps, READY_TIMEOUT_MS)
        if "E1" in workloads:  # before W8: a smoke run's W8 closes this context
            for adapter in (a for a in adapters if a in EXPORTING):
                self.run_export(adapter, reps)
        if "G1" in workloads and not (self.smoke and chains):  # before W8 too
            self.run_clone([a for a in adapters if a in CLONING], reps)
        if "W8" in steps:  # browser restarts, then Q1-Q3 (bench/restarts.py)
            run_restart(self, [a for a in adapters if a != STRICT], reps, workloads)
        if "B1" in workloads and "ours" in adapters:
            self.run_app_load(reps)
        if "B0" in workloads and "ours" in adapters:  # Pyodide alone (bench/python_floor.py)
            run_python_floor(self, reps, READY_TIMEOUT_MS)
        if "T1" in workloads and "ours" in adapters:  # memory per tab (bench/tabs.py)
            run_tabs(self, reps, BENCH_PAGE, READY_TIMEOUT_MS)
        if "WB1" in workloads and "ours" in adapters:  # the workbench's tree (bench/tree_draw.py)
            run_tree_draw(self, reps, READY_TIMEOUT_MS)
        if "F1" in workloads and "ours" in adapters:  # per-call floors (bench/floors.py)
            run_floors(self, reps)

    def chain(self, page, adapter: str, store: str, steps: set[str], record: list[str]) -> None:
        """One fresh store: the CHAIN workloads in order, then a reload and W6."""
        def stage(workload: str | None, name: str) -> dict:
            return self.stage(self.context_cdp, page, self.spec(adapter, workload, name, store))

        # The smoke profile is fresh, and holds every adapter's store until the W8 restart.
        with self.watchdog.stage(f"{adapter} opening the bench page", self.stage_bound):
            self.open_bench_page(page, wipe=not self.smoke)
        stage("W8" if self.smoke else None, "setup")
        for workload in CHAIN:
            if workload in steps:
                result = stage(workload, "run")
                if workload in record:
                    self.record(workload, adapter, pick(result))
        if self.smoke and "G1" in steps and adapter in CLONING:
            self.record("G1", adapter, pick(self.stage(self.context_cdp, page,
                                                       self.clone_spec(adapter, store))))
        if "W6" in steps:
            with self.watchdog.stage(f"{adapter} W6 reload", self.stage_bound):
                self.watchdog.waiting_for("the bench page to reload (window.bench)")
                page.reload()
                page.wait_for_function("window.bench !== undefined", timeout=READY_TIMEOUT_MS)
            self.record("W6", adapter, pick(stage("W6", "reopen")))

    def run_export(self, adapter: str, reps: int) -> None:
        """E1: a tree of exportSize bytes in a store of its own (seeded at its setup, untimed),
        exported as a zip and drained `reps` times; the sample adds the rate over the tree's
        bytes."""
        page = self.context.new_page()
        store = f"export-{adapter}"
        try:
            with self.watchdog.stage(f"{adapter} E1 opening the bench page", self.stage_bound):
                self.open_bench_page(page, wipe=False)  # the chains' stores may stay
            self.stage(self.context_cdp, page, self.spec(adapter, "E1", "setup", store))
            for _ in range(reps):
                result = pick(self.stage(self.context_cdp, page,
                                         self.spec(adapter, "E1", "run", store)))
                result["mbps"] = self.sizes.exportSize / 1e6 / max(result["ms"] / 1000, 1e-3)
                self.record("E1", adapter, result)
        finally:
            with self.watchdog.stage("closing the export's page", self.stage_bound):
                page.close()

    def run_clone(self, adapters: list[str], reps: int) -> None:
        """G1: per repetition and adapter (interleaved), a page and a fresh store of its own,
        opened untimed, then the timed clone and the untimed check of its checkout."""
        for rep in range(reps):
            for adapter in adapters:
                page = self.context.new_page()
                store = f"clone-{rep}-{adapter}"
                try:
                    with self.watchdog.stage(f"{adapter} G1 opening the bench page",
                                             self.stage_bound):
                        # A smoke run's profile may hold stores its later stages reopen.
                        self.open_bench_page(page, wipe=not self.smoke)
                    self.stage(self.context_cdp, page, self.spec(adapter, "G1", "setup", store))
                    self.record("G1", adapter, pick(self.stage(self.context_cdp, page,
                                                               self.clone_spec(adapter, store))))
                finally:
                    with self.watchdog.stage("closing the clone's page", self.stage_bound):
                        page.close()

    def run_app_load(self, reps: int) -> None:
        """B1: our app page to a ready prompt: cold (fresh context), warm (reload at once, before
        the runtime snapshot exists) and snapshot (reload once the first boot stored it)."""
        wait = self.watchdog.waiting_for
        for _ in range(reps):
            context = self.browser.new_context()
            try:
                context.add_init_script(READY_PROBE_JS)
                page = context.new_page()
                for kind in ("cold", "warm", "snapshot"):
                    with self.watchdog.stage(f"ours B1 {kind}", self.stage_bound):
                        if kind == "cold":
                            wait("the app page to load")
                            page.goto(self.base_url + APP_PAGE)
                        else:
                            if kind == "snapshot":
                                wait("the app's runtime snapshot to be stored")
                                page.evaluate(SNAPSHOT_SETTLED_JS, READY_TIMEOUT_MS)
                            wait("the app page to reload")
                            page.reload()
                        wait("the app page's ready prompt (body[data-state=ready])")
                        page.wait_for_function("window.__readyAt !== undefined",
                                               timeout=READY_TIMEOUT_MS)
                        ready_at = float(page.evaluate("window.__readyAt"))
                    self.record(f"B1 {kind}", "ours", {"ms": ready_at})
                    if self.smoke:
                        break
            finally:
                with self.watchdog.stage("closing the B1 context", self.stage_bound):
                    context.close()


def with_prerequisites(workloads: list[str]) -> set[str]:
    """The workloads to run so that each selected one has the tree it needs."""
    steps = set(workloads)
    while missing := {NEEDS[w] for w in steps if w in NEEDS} - steps:
        steps |= missing
    return steps


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3, help="repetitions per case (default 3)")
    parser.add_argument("--only", default=",".join(WORKLOADS), help="workloads, comma-separated")
    parser.add_argument("--adapters", default=",".join(ADAPTERS), help="comma-separated")
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "benchmarks.json")
    parser.add_argument("--markdown", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes, once each, nothing written unless --json is given")
    args = parser.parse_args(argv)
    if args.smoke:
        args.reps = 1
        explicit = "--json" in (argv if argv is not None else sys.argv)
        args.json = args.json if explicit else None
        args.markdown = None
    return args


def run(args: argparse.Namespace) -> dict:
    """Run the selected workloads; return {meta, results, summary}."""
    workloads = [w for w in args.only.split(",") if w]
    adapters = [a for a in args.adapters.split(",") if a]
    sizes = SMOKE_SIZES if args.smoke else Sizes()
    repo = repository(args.smoke) if "G1" in workloads else None
    if repo:
        print(f"bench: G1's repository: {repo.files} files, {repo.size / 1e6:.1f} MB from "
              f"{len(repo.packages)} packages, commit {repo.commit}", flush=True)
    base_url, server = start_bench_server(repo.project_root if repo else None)
    started = time.monotonic()
    load_before = os.getloadavg()
    watchdog = Watchdog()
    try:
        with sync_playwright() as playwright:
            bench = Bench(playwright, base_url, sizes, args.smoke, watchdog, repo)
            version = bench.browser.version
            print(f"bench: chromium {version}, load average {load_before[0]:.1f}", flush=True)
            bench.run_all(workloads, adapters, args.reps)
            bench.close()
    finally:
        server.shutdown()
        server.server_close()
    meta = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "chromium": version,
            "sizes": asdict(sizes), "reps": args.reps,
            "w8Restarts": args.reps if args.smoke else W8_RESTARTS_PER_REP * args.reps,
            "seconds": time.monotonic() - started,
            "load": {"before": load_before[0], "after": os.getloadavg()[0]}}
    if repo:
        meta["g1"] = {"files": repo.files, "bytes": repo.size, "commit": repo.commit,
                      "packages": list(repo.packages)}
    return {"meta": meta, "results": bench.results, "summary": summarize(bench.results)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        report = run(args)
    except (CaseFailed, FloorFailed) as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        return 1
    if args.json:
        write_json(args.json, report)
    if args.markdown:
        write_markdown(args.markdown, report)
    print(f"bench: done in {report['meta']['seconds']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
