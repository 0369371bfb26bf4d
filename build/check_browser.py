"""Checks that the Chromium the tests will drive can run them, and says which one it is.

    .venv/bin/python build/check_browser.py     # run by `sh build/setup.sh --test`

Debian moves its `chromium` package from release to release (150, then 156 in November 2026),
so setup checks the browser it finds rather than trusting a version number:
- older than OLDEST_KNOWN: refused, with the versions known to work;
- otherwise it is launched headless (as the tests do) and a page served on 127.0.0.1 checks the
  platform features py_vfs needs, in the page and in a module worker. A browser newer than
  NEWEST_KNOWN passes when every feature is there, with a note that it is not yet known to work.
Every wait here is bounded: a browser that does not start or answer fails with what it was doing.
docs/testing.md lists the versions known to work.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chromium import CHROMIUM, CHROMIUM_ARGS, chromium_version
from serve import start_server

# Versions the whole of `npm test` passed on (docs/testing.md keeps the list).
KNOWN_TO_WORK = ["150.0.7871.100", "156.0.8078.79"]
OLDEST_KNOWN = int(KNOWN_TO_WORK[0].split(".")[0])
NEWEST_KNOWN = int(KNOWN_TO_WORK[-1].split(".")[0])
LAUNCH_TIMEOUT_MS = 60_000
PROBE_TIMEOUT_MS = 30_000
HARD_BOUND_S = 150

PAGE = """<!doctype html><meta charset="utf-8"><title>browser check</title>
<script type="module">
const WORKER = `
  const missing = [];
  const need = (ok, what) => { if (!ok) missing.push(what + " in a worker"); };
  need(typeof WebAssembly.Suspending === "function", "WebAssembly JSPI (WebAssembly.Suspending)");
  need(self.indexedDB, "IndexedDB");
  need(self.FileSystemFileHandle?.prototype.createSyncAccessHandle, "OPFS sync access handles");
  need(self.crypto?.subtle, "WebCrypto");
  postMessage(missing);
`;
window.probe = async (ms) => {
  const missing = [];
  if (!("serviceWorker" in navigator)) missing.push("service workers");
  if (!navigator.locks) missing.push("Web Locks");
  if (typeof BroadcastChannel !== "function") missing.push("BroadcastChannel");
  if (!window.indexedDB) missing.push("IndexedDB");
  if (!navigator.storage?.getDirectory) missing.push("the origin private file system");
  const url = URL.createObjectURL(new Blob([WORKER], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  const fromWorker = await new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(`the module worker failed: ${event.message}`));
    setTimeout(() => reject(new Error(`the module worker did not answer within ${ms} ms`)), ms);
  });
  worker.terminate();
  return [...missing, ...fromWorker];
};
</script>
"""


def fail(message: str) -> None:
    print(f"check_browser: error: {message}", file=sys.stderr, flush=True)
    os._exit(1)  # also from the watchdog's thread


def probe(path: str) -> list[str]:
    """Launch the browser as the tests do and list the features it lacks."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="pyvfs-browser-check-") as site:
        Path(site, "index.html").write_text(PAGE)
        base_url, server = start_server(site, port=0)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=path, args=CHROMIUM_ARGS, headless=True,
                    timeout=LAUNCH_TIMEOUT_MS,
                )
                try:
                    page = browser.new_page()
                    page.goto(base_url, timeout=PROBE_TIMEOUT_MS)
                    page.wait_for_function("window.probe !== undefined", timeout=PROBE_TIMEOUT_MS)
                    return page.evaluate("(ms) => window.probe(ms)", PROBE_TIMEOUT_MS)
                finally:
                    browser.close()
        finally:
            server.shutdown()
            server.server_close()


def main() -> int:
    path = CHROMIUM
    try:
        version = chromium_version(path)
    except RuntimeError as e:
        fail(str(e))
    major = int(version.split(".")[0])
    known = ", ".join(KNOWN_TO_WORK)
    if major < OLDEST_KNOWN:
        fail(f"Chromium {version} at {path} is too old: the tests are known to work on {known}")
    watchdog = threading.Timer(HARD_BOUND_S, fail, args=(
        f"Chromium {version} at {path} did not start and answer the feature probe within "
        f"{HARD_BOUND_S} s",))
    watchdog.daemon = True
    watchdog.start()
    try:
        missing = probe(path)
    except Exception as e:  # any failure to launch or probe is reported whole
        fail(f"Chromium {version} at {path} could not be probed: {e}")
    watchdog.cancel()
    if missing:
        fail(f"Chromium {version} at {path} lacks what py_vfs needs: {'; '.join(missing)} "
             f"(known to work: {known})")
    note = "known to work" if version in KNOWN_TO_WORK or major <= NEWEST_KNOWN else (
        f"newer than the newest known to work ({KNOWN_TO_WORK[-1]}): the probe passed")
    print(f"check_browser: Chromium {version} at {path}: ok, {note}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
