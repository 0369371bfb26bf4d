"""The bench site: dist/ at `/`, bench/web/ at `/bench/`, the peers' files at `/node_modules/`,
and G1's git repository over smart HTTP at `/git/` (bench/githttp.py).

The peers run unbundled: their ES modules are served straight from node_modules/ and the bench
page resolves their bare imports (`@zenfs/core`, `utilium/buffer`, ...) through an import map that
this server writes into the page from each package's `exports` field. Only the packages in
PEER_PACKAGES are served from node_modules/, nothing is copied into dist/ for users.
"""

from __future__ import annotations

import io
import json
import sys
import threading
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build"))

from serve import HOST, Handler, Server  # noqa: E402

from bench.githttp import GIT_PREFIX, serve_git  # noqa: E402

DIST = ROOT / "dist"
WEB = Path(__file__).resolve().parent / "web"
NODE = ROOT / "node_modules"

# Packages the bench page may import (ZenFS and what it imports) or load as a script
# (lightning-fs, and for G1 isomorphic-git's UMD build and its browser HTTP client).
PEER_PACKAGES = [
    "@zenfs/core", "@zenfs/dom", "@zenfs/streams", "utilium", "kerium", "memium",
    "eventemitter3", "buffer", "base64-js", "ieee754", "@isomorphic-git/lightning-fs",
    "isomorphic-git",
]
# Packages that ship CommonJS only: the page maps them to small ES wrappers in bench/web/shims/.
SHIMMED = {"buffer": "/bench/shims/buffer.mjs", "eventemitter3": "/bench/shims/eventemitter3.mjs"}
IMPORTMAP_MARK = "<!--importmap-->"


def package_imports(name: str) -> dict[str, str]:
    """Import-map entries for package `name`, from the "." and "./*" entries of its exports."""
    root = NODE / name
    exports = json.loads((root / "package.json").read_text()).get("exports", {})
    url = f"/node_modules/{name}/"
    entries: dict[str, str] = {}
    main = exports.get(".")
    if isinstance(main, str):
        entries[name] = url + main.removeprefix("./")
    pattern = exports.get("./*")
    if isinstance(pattern, str) and pattern.count("*") == 1:
        prefix, suffix = pattern.removeprefix("./").split("*")
        for file in sorted((root / prefix).rglob("*.js")):
            stem = str(file.relative_to(root / prefix))
            if suffix and not stem.endswith(suffix):
                continue
            sub = stem[: -len(suffix)] if suffix else stem
            entries[f"{name}/{sub}"] = url + prefix + stem
            entries[f"{name}/{sub.removesuffix('.js')}"] = url + prefix + stem
    return entries


def import_map() -> dict:
    """The page's import map: every ES peer package, with CommonJS ones mapped to shims."""
    imports: dict[str, str] = {}
    for name in ("@zenfs/core", "@zenfs/dom", "@zenfs/streams", "utilium", "kerium", "memium"):
        imports.update(package_imports(name))
    imports.update(SHIMMED)
    return {"imports": imports}


class BenchHandler(Handler):
    """dist/ plus the bench prefixes; bench pages get the import map inlined."""

    def do_GET(self):
        if urlsplit(self.path).path.startswith(GIT_PREFIX):
            serve_git(self, self.server.git_root)
        else:
            super().do_GET()

    def do_POST(self):
        if urlsplit(self.path).path.startswith(GIT_PREFIX):
            serve_git(self, self.server.git_root)
        else:
            self.send_error(405, "Method Not Allowed")

    def translate_path(self, path):
        parts = urlsplit(path).path
        if parts.startswith("/bench/"):
            return str(WEB / parts.removeprefix("/bench/"))
        if parts.startswith("/node_modules/"):
            rest = parts.removeprefix("/node_modules/")
            if any(rest.startswith(p + "/") for p in PEER_PACKAGES):
                return str(NODE / rest)
            return str(WEB / "missing")
        return super().translate_path(path)

    def send_head(self):
        path = urlsplit(self.path).path
        if path.startswith("/bench/") and path.endswith(".html"):
            return self.send_page(Path(self.translate_path(self.path)))
        return super().send_head()

    def send_page(self, file: Path):
        """Serve an HTML page of bench/web/ with the import map in place of its marker."""
        if not file.is_file():
            self.send_error(404, "Not Found")
            return None
        script = f'<script type="importmap">{json.dumps(import_map())}</script>'
        body = file.read_text().replace(IMPORTMAP_MARK, script).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def start_bench_server(git_root: Path | None = None) -> tuple[str, Server]:
    """Serve the bench site in a daemon thread on 127.0.0.1; return (base_url, server).
    `git_root` is the GIT_PROJECT_ROOT served under /git/ (None: no repository)."""
    server = Server((HOST, 0), partial(BenchHandler, directory=str(DIST)))
    server.git_root = git_root
    threading.Thread(target=server.serve_forever, name="bench-serve", daemon=True).start()
    return f"http://{HOST}:{server.server_address[1]}/", server
