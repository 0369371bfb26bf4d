"""dist/ as Chromium sees it through build/serve.py: files, content types, cache headers, and
the headers that keep the app and its preview origin apart.

Static checks only: no test here waits for Python to boot. The fetches run inside the page
(the browser's own network stack), from /manifest.json so that index.html's scripts do not run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from .console_errors import expect_failed_load

ROOT = Path(__file__).resolve().parents[2]

FETCH_JS = """async (url) => {
  const r = await fetch(url);
  const body = new Uint8Array(await r.arrayBuffer());
  return {status: r.status, headers: Object.fromEntries(r.headers), size: body.length};
}"""


def fetch(page, url: str) -> dict:
    return page.evaluate(FETCH_JS, url)


def test_index_html(page, offsite_requests, preview_origin):
    response = page.goto("/")
    assert response.status == 200
    assert response.header_value("content-type") == "text/html; charset=utf-8"
    assert response.header_value("cache-control") == "no-cache"
    assert response.header_value("cross-origin-opener-policy") == "same-origin"
    csp = response.header_value("content-security-policy")
    assert "frame-ancestors 'none'" in csp and f"frame-src {preview_origin}" in csp
    assert "script-src 'self' 'wasm-unsafe-eval'" in csp
    assert response.header_value("x-content-type-options") == "nosniff"


def test_pyodide_wasm_served_as_wasm(page, offsite_requests):
    page.goto("/manifest.json")
    r = fetch(page, "/pyodide/pyodide.asm.wasm")
    assert r["status"] == 200
    assert r["headers"]["content-type"] == "application/wasm"
    assert r["headers"]["cache-control"] == "max-age=3600"
    assert r["size"] == (ROOT / "dist/pyodide/pyodide.asm.wasm").stat().st_size
    # The browser accepts it for streaming compilation (it requires application/wasm).
    assert page.evaluate(
        "WebAssembly.compileStreaming(fetch('/pyodide/pyodide.asm.wasm')).then(() => true)"
    )


@expect_failed_load(r"/(preview-origin/)?(preview/)?sw\.js", 404,
                    reason="probes the app origin for a service worker script")
@expect_failed_load(r"/manifest\.json", 404, reason="probes the preview origin for an app file")
def test_the_app_serves_no_service_worker_the_preview_origin_does(page, offsite_requests,
                                                                    base_url, preview_origin):
    page.goto("/manifest.json")
    assert fetch(page, "/pyvfs-config.json")["status"] == 200
    assert page.evaluate("fetch('/pyvfs-config.json').then((r) => r.json())") == {
        "previewOrigin": preview_origin}
    for path in ("/sw.js", "/preview/sw.js", "/preview-origin/preview/sw.js"):
        assert fetch(page, path)["status"] == 404, path
    page.goto(preview_origin + "/pyvfs-config.json")
    assert page.evaluate("fetch('/pyvfs-config.json').then((r) => r.json())") == {
        "appOrigins": [base_url.rstrip("/")]}
    r = fetch(page, "/preview/sw.js")
    assert r["status"] == 200
    assert r["headers"]["content-type"] == "text/javascript"
    assert "service-worker-allowed" not in r["headers"]
    assert r["headers"]["cache-control"] == "no-cache"
    relay = fetch(page, "/preview/relay.html")["headers"]
    assert f"frame-ancestors {base_url.rstrip('/')}" in relay["content-security-policy"]
    assert relay["x-content-type-options"] == "nosniff"
    assert fetch(page, "/manifest.json")["status"] == 404  # no app file on the preview origin


def test_manifest_and_wheels(page, offsite_requests):
    response = page.goto("/manifest.json")
    assert response.header_value("content-type") == "application/json"
    manifest = json.loads(response.text())
    keys = {"version", "wheel", "wheelSha256", "micropip", "fsspec", "git", "pyodide", "build",
            "downloads", "snapshot"}  # "snapshot": the build had a browser, as the tests do
    assert set(manifest) == keys
    assert manifest["pyodide"] == "314.0.7"
    assert manifest["micropip"] == "wheels/micropip-0.11.1-py3-none-any.whl"
    assert manifest["wheel"] == f"wheels/py_vfs-{manifest['version']}-py3-none-any.whl"
    # Installed on the first `import fsspec` (py_vfs/web/lazy_wheels.py), at pyproject.toml's pin.
    assert manifest["fsspec"] == "wheels/fsspec-2026.9.0-py3-none-any.whl"
    # The shell's git installs these on its first run, at pyproject.toml's pins.
    assert manifest["git"] == ["wheels/dulwich-1.2.21-py3-none-any.whl",
                               "wheels/merge3-1.0.0-py3-none-any.whl"]
    for name in [manifest[key] for key in ("wheel", "micropip", "fsspec")] + manifest["git"]:
        r = fetch(page, name)
        assert r["status"] == 200, name
        assert r["headers"]["content-type"] == "application/zip"
    # The runtime snapshot is keyed by the served wheel's hash (docs/boot.md).
    wheel = (ROOT / "dist" / manifest["wheel"]).read_bytes()
    assert manifest["wheelSha256"] == hashlib.sha256(wheel).hexdigest()
    # Boot reports download progress against these sizes, so they must be the served ones.
    assert set(manifest["downloads"]) == {"pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip"}
    for name, size in manifest["downloads"].items():
        assert int(fetch(page, name)["headers"]["content-length"]) == size, name
    # The shipped runtime snapshot (docs/boot.md): served beside Pyodide, its header names the
    # key of this manifest (web/shared/shipped_snapshot.mjs).
    shipped = manifest["snapshot"]
    assert re.fullmatch(r"pyodide/py_vfs-runtime-[0-9a-f]{16}\.bin", shipped["file"])
    assert int(fetch(page, shipped["file"])["headers"]["content-length"]) == shipped["size"]
    with (ROOT / "dist" / shipped["file"]).open("rb") as file:
        head = file.read(4096)
    key = f"pyodide 314.0.7; {manifest['wheel']} sha256 {manifest['wheelSha256']}".encode()
    assert head[:8] == b"PYVFSRT2" and head[16:16 + len(key)] == key


def test_module_scripts_import(page, offsite_requests):
    """Vendored ES modules load as modules (a wrong MIME type would make import() fail)."""
    page.goto("/manifest.json")
    exports = page.evaluate(
        """async () => ({
          xterm: Object.keys(await import('/vendor/xterm.mjs')),
          fit: Object.keys(await import('/vendor/addon-fit.mjs')),
          pyodide: Object.keys(await import('/pyodide/pyodide.mjs')),
        })"""
    )
    assert "Terminal" in exports["xterm"]
    assert "FitAddon" in exports["fit"]
    assert "loadPyodide" in exports["pyodide"]
    r = fetch(page, "/vendor/xterm.css")
    assert r["headers"]["content-type"] == "text/css"


@expect_failed_load(r"/(no/such/file\.txt|pyodide/)", 404, reason="asks for what is not served")
def test_missing_file_is_404(page, offsite_requests):
    page.goto("/manifest.json")
    assert fetch(page, "/no/such/file.txt")["status"] == 404
    assert fetch(page, "/pyodide/")["status"] == 404  # folders are not listed


@expect_failed_load(r"//example\.invalid/x", "net::ERR_NAME_NOT_RESOLVED",
                    reason="a request off 127.0.0.1, which the resolver rules make fail")
def test_offsite_requests_are_recorded(page, offsite_requests):
    """The recorder sees a request to another host (which the resolver rules make fail)."""
    page.goto("/manifest.json")
    page.evaluate("fetch('http://example.invalid/x').catch(() => null)")
    assert offsite_requests == ["http://example.invalid/x"]
    offsite_requests.clear()  # expected here; the fixture's teardown check must pass


def test_serve_cli_prints_url():
    """`PORT=0 build/serve.py` prints its URL on a line of its own and serves dist/, then the
    preview origin's URL, which serves the preview site."""
    env = {**os.environ, "PORT": "0"}
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "build/serve.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("http://127.0.0.1:") and line.endswith("/"), line
        preview = proc.stdout.readline().strip().removeprefix("preview origin: ")
        assert preview.startswith("http://127.0.0.1:") and preview != line, preview
        from urllib.request import urlopen

        with urlopen(line + "manifest.json", timeout=10) as r:
            assert r.headers["Content-Type"] == "application/json"
        with urlopen(preview + "pyvfs-config.json", timeout=10) as r:
            assert json.load(r) == {"appOrigins": [line.rstrip("/")]}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
