"""The runtime snapshot that the build ships beside Pyodide (docs/boot.md), made in headless
Chromium: build/snapshot_worker.mjs runs in a module worker on a server of the staging dist/
that this module starts on 127.0.0.1, and posts the file back.

Why a browser and not Node: Python records at start-up how the runtime switches stacks
(WebAssembly JSPI), and the memory keeps it. Node 20 has none, or only the old JSPI API behind a
flag: a snapshot made there refuses every blocking call in Chromium, or crashes it ("trying to
suspend JS frames"). Made in the browser that restores it, it holds the same Python as the one
a visitor's own snapshot worker makes. The zone is UTC so that the same sources give the same
Python; a restore sets the visitor's zone (web/shared/snapshot_memory.mjs).

No browser ($CHROMIUM or `chromium` on PATH), or one that fails or does not finish within
TIMEOUT_S: no file, and the build says so; a first visit then starts Python from its packages.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path

from build_base import say, sha256_of
from chromium import CHROMIUM
from serve import HOST, Handler

HERE = Path(__file__).resolve().parent
WORKER = HERE / "snapshot_worker.mjs"
# What makes the shipped runtime snapshot (docs/boot.md), an input of the build.
SNAPSHOT_MAKER = [Path(__file__).resolve(), WORKER]
TIMEOUT_S = 300
PAGE = (b'<!doctype html><meta charset="utf-8"><title>runtime snapshot</title>'
        b'<script type="module">new Worker("/__build/snapshot_worker.mjs", {type: "module"});'
        b'</script>')
# Chromium's flags: headless, nothing but 127.0.0.1 (build/chromium.py's rules), no profile kept.
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
        "--disable-background-networking", "--disable-component-update", "--disable-quic",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]


class Outcome:
    """What the worker posted: the file's bytes, or why it failed."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.file: bytes | None = None
        self.error: str | None = None


class MakerHandler(Handler):
    """The staging dist/, the maker's page and worker under /__build/, and its two answers."""

    def do_GET(self):
        if self.path == "/__build/":
            self.answer(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/__build/snapshot_worker.mjs":
            self.answer(200, WORKER.read_bytes(), "text/javascript")
        else:
            super().do_GET()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        outcome: Outcome = self.server.outcome
        if self.path == "/__build/snapshot":
            outcome.file = body
        else:
            outcome.error = body.decode(errors="replace")
        self.answer(204, b"", "text/plain")
        outcome.done.set()

    def answer(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def ship_snapshot(out: Path) -> dict | None:
    """out/pyodide/py_vfs-runtime-<hash>.bin, made in headless Chromium (make_snapshot) from
    out/'s manifest, wheel and Pyodide: {file, size} for the manifest. None, saying why,
    when it cannot be made: the page then starts Python from its packages on a first visit."""
    made = out / "pyodide" / "py_vfs-runtime.bin"
    why = make_snapshot(out, made)
    if why or not made.is_file():
        made.unlink(missing_ok=True)
        say(f"warning: no runtime snapshot shipped ({why or 'no file made'}): a first visit "
            "starts Python from its packages")
        return None
    name = f"py_vfs-runtime-{sha256_of(made)[:16]}.bin"
    made.rename(out / "pyodide" / name)
    return {"file": f"pyodide/{name}", "size": (out / "pyodide" / name).stat().st_size}


def make_snapshot(out: Path, dest: Path) -> str | None:
    """Writes the snapshot of out/ (its manifest, wheel and Pyodide) to dest; None when it did,
    else why not."""
    if not CHROMIUM:
        return "no chromium ($CHROMIUM or `chromium` on PATH)"
    server = ThreadingHTTPServer((HOST, 0), partial(MakerHandler, directory=str(out)))
    server.outcome = Outcome()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://{HOST}:{server.server_address[1]}/__build/"
    with tempfile.TemporaryDirectory(prefix="pyvfs-snapshot-") as profile:
        try:
            browser = subprocess.Popen([CHROMIUM, *ARGS, f"--user-data-dir={profile}", url],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       env={**os.environ, "TZ": "UTC"})
        except OSError as error:
            server.shutdown()
            server.server_close()
            return f"chromium ({CHROMIUM}) does not start: {error}"
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while not server.outcome.done.wait(0.2):
                if browser.poll() is not None:
                    tail = browser.stderr.read().decode(errors="replace").strip()[-300:]
                    return f"chromium exited ({browser.returncode}) before the snapshot: {tail}"
                if time.monotonic() > deadline:
                    return f"no snapshot from chromium within {TIMEOUT_S} s"
        finally:
            stop(browser)
            server.shutdown()
            server.server_close()
    if server.outcome.error is not None:
        return f"the snapshot worker failed: {server.outcome.error[:300]}"
    dest.write_bytes(server.outcome.file)
    return None


def stop(browser: subprocess.Popen) -> None:
    """Ends the browser this module started (it waits at most 10 s, then kills it)."""
    if browser.poll() is None:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait(10)
