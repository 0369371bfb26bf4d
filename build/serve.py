"""Static servers for dist/ on 127.0.0.1 (stdlib only): the app and its preview origin.

    .venv/bin/python build/serve.py    # PORT=8000, PREVIEW_PORT=PORT+1; PORT=0: free ports

Serves the app (dist/) on PORT and the preview site (dist/preview-origin/) on PREVIEW_PORT, two
origins (docs/preview.md). Prints the app's URL `http://127.0.0.1:<port>/` on a line of its
own once both listen, then `preview origin: http://127.0.0.1:<port>/`. Each answers
/pyvfs-config.json with the other's origin, so neither file needs editing here. Content types
come from an explicit map (browsers refuse module scripts under a wrong type, and wasm needs
application/wasm for streaming compilation), not from the machine's mime.types. Caching:
`Cache-Control: max-age=3600` under /pyodide/ (large, versioned by the build), `no-cache`
elsewhere. Headers a deployment must send too: `X-Content-Type-Options: nosniff` everywhere;
on the app's HTML pages `Cross-Origin-Opener-Policy: same-origin` and APP_CSP; under /realm/,
/pyodide/ and /wheels/ `Access-Control-Allow-Origin: *`, and on /realm/realm.html REALM_CSP
instead of APP_CSP (a scoop's realm: docs/sandbox.md); on the preview site's
preview/relay.html `Content-Security-Policy: frame-ancestors <app origin>`. The app serves no
service worker and never sends `Service-Worker-Allowed`. Quiet unless PYVFS_LOG_REQUESTS=1.

From Python (tests): `from serve import start_site; site = start_site(dist)` serves both in
daemon threads (`site.app_url`, `site.preview_url`); stop them with `site.stop()`.
`start_server(directory)` serves one folder as a plain static site (no preview origin).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
HOST = "127.0.0.1"

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".css": "text/css",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".map": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}
DEFAULT_TYPE = "application/octet-stream"
LONG_CACHE_PREFIXES = ("/pyodide/",)
PREVIEW_SITE = "preview-origin"  # dist/preview-origin/: served on the preview origin only
CONFIG = "/pyvfs-config.json"
# The app page's policy. 'wasm-unsafe-eval' lets Pyodide compile its WebAssembly; nothing else
# the app runs needs eval or inline script (checked on Chromium 156.0.8078.79). xterm.js sets
# inline styles, hence style-src 'unsafe-inline'.
APP_CSP = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; object-src 'none'; "
           "base-uri 'none'; frame-ancestors 'none'; frame-src {preview} 'self'")
# The folders a scoop's realm loads from the app's origin (docs/sandbox.md, "A realm for code"):
# it runs in an opaque origin, so they are served with CORS (public code, no user data), and
# the realm's policy lets it load, fetch and frame nothing else: its workers start from blobs,
# its code may eval (a .jsh script is a function body), and only the app may embed it.
REALM_PREFIXES = ("/realm/", "/pyodide/", "/wheels/")
REALM_CSP = ("default-src 'none'; script-src {app}/realm/ {app}/pyodide/ blob: 'unsafe-eval' "
             "'wasm-unsafe-eval'; worker-src blob:; connect-src {app}/realm/ {app}/pyodide/ "
             "{app}/wheels/; base-uri 'none'; form-action 'none'; frame-ancestors {app}")


class Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the page loads ~20 files at boot
    server_version = "py_vfs-serve"

    def version_string(self):
        return self.server_version

    def guess_type(self, path):
        return MIME_TYPES.get(os.path.splitext(str(path))[1].lower(), DEFAULT_TYPE)

    def list_directory(self, path):
        # Like a static host: a folder without index.html is not listed.
        self.send_error(404, "Not Found")
        return None

    def end_headers(self):
        path = urlsplit(self.path).path
        if path.startswith(LONG_CACHE_PREFIXES):
            self.send_header("Cache-Control", "max-age=3600")
        else:
            self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def log_message(self, format, *args):
        if os.environ.get("PYVFS_LOG_REQUESTS"):
            super().log_message(format, *args)


class SiteHandler(Handler):
    """One of the two origins: answers /pyvfs-config.json with what it knows of the other."""

    def config(self) -> dict:
        raise NotImplementedError

    def do_GET(self):
        if not self.answer_config(head=False):
            super().do_GET()

    def do_HEAD(self):
        if not self.answer_config(head=True):
            super().do_HEAD()

    def answer_config(self, head: bool) -> bool:
        if urlsplit(self.path).path != CONFIG:
            return False
        body = (json.dumps(self.config()) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)
        return True


class AppHandler(SiteHandler):
    """dist/ on the app's origin, without the preview site's folder, with the app's headers."""

    def config(self) -> dict:
        return {"previewOrigin": self.server.peer_origin}

    def send_head(self):
        if urlsplit(self.path).path.startswith(f"/{PREVIEW_SITE}/"):
            self.send_error(404, "Not Found")  # served on the preview origin, never here
            return None
        return super().send_head()

    def end_headers(self):
        error_page = self.__dict__.pop("error_page", False)  # this response only
        path = urlsplit(self.path).path
        if path.startswith(REALM_PREFIXES):
            self.send_header("Access-Control-Allow-Origin", "*")
        if path.startswith("/realm/") and path.endswith(".html"):
            policy = REALM_CSP.format(app=origin_of(self.server))
            self.send_header("Content-Security-Policy", policy)
        elif path.endswith((".html", "/")) or error_page:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Content-Security-Policy",
                             APP_CSP.format(preview=self.server.peer_origin or "'none'"))
        super().end_headers()

    def send_error(self, code, message=None, explain=None):
        self.error_page = True  # an HTML page of the app's origin too
        super().send_error(code, message, explain)


class PreviewHandler(SiteHandler):
    """dist/preview-origin/ on the preview origin: the relay may be framed by the app only."""

    def config(self) -> dict:
        return {"appOrigins": [self.server.peer_origin]}

    def end_headers(self):
        if urlsplit(self.path).path == "/preview/relay.html":
            self.send_header("Content-Security-Policy",
                             f"frame-ancestors {self.server.peer_origin}; script-src 'self'")
        super().end_headers()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    peer_origin: str | None = None  # the other origin of the pair, for SiteHandler

    def handle_error(self, request, client_address):
        # A browser that drops a connection mid-response is normal; stay quiet about it.
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


def make_server(directory: str | os.PathLike = DIST, port: int = 0, host: str = HOST) -> Server:
    directory = Path(directory).resolve()
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory} does not exist: run `npm run build` first")
    return Server((host, port), partial(Handler, directory=str(directory)))


def origin_of(server: Server) -> str:
    return f"http://{server.server_address[0]}:{server.server_address[1]}"


@dataclass
class Site:
    """The app and its preview origin, each served by its own server."""

    app: Server
    preview: Server

    @property
    def app_url(self) -> str:
        return origin_of(self.app) + "/"

    @property
    def preview_url(self) -> str:
        return origin_of(self.preview) + "/"

    def stop(self) -> None:
        for server in (self.app, self.preview):
            server.shutdown()
            server.server_close()


def make_site(directory: str | os.PathLike = DIST, port: int = 0, preview_port: int = 0,
              host: str = HOST) -> Site:
    """Bind both servers (port 0: a free one) and tell each the other's origin."""
    directory = Path(directory).resolve()
    if not (directory / PREVIEW_SITE).is_dir():
        raise FileNotFoundError(f"{directory / PREVIEW_SITE} does not exist: run `npm run build`")
    app = Server((host, port), partial(AppHandler, directory=str(directory)))
    try:
        preview = Server((host, preview_port),
                         partial(PreviewHandler, directory=str(directory / PREVIEW_SITE)))
    except OSError:
        app.server_close()
        raise
    app.peer_origin, preview.peer_origin = origin_of(preview), origin_of(app)
    return Site(app, preview)


def start_site(directory: str | os.PathLike = DIST, port: int = 0, preview_port: int = 0,
               host: str = HOST) -> Site:
    """Serve the app and its preview origin in daemon threads; ``site.stop()`` ends both."""
    site = make_site(directory, port, preview_port, host)
    for server in (site.app, site.preview):
        threading.Thread(target=server.serve_forever, name="serve-dist", daemon=True).start()
    return site


def start_server(
    directory: str | os.PathLike = DIST, port: int = 0, host: str = HOST
) -> tuple[str, Server]:
    """Serve `directory` in a daemon thread; return (base_url ending in "/", server)."""
    server = make_server(directory, port, host)
    thread = threading.Thread(target=server.serve_forever, name="serve-dist", daemon=True)
    thread.start()
    return f"http://{host}:{server.server_address[1]}/", server


def main() -> int:
    try:
        port = int(os.environ.get("PORT", "8000"))
        preview_port = int(os.environ.get("PREVIEW_PORT", str(port + 1 if port else 0)))
    except ValueError:
        print("serve: PORT and PREVIEW_PORT must be numbers", file=sys.stderr)
        return 2
    try:
        site = make_site(DIST, port, preview_port)
    except FileNotFoundError as e:
        print(f"serve: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"serve: cannot listen on {HOST}:{port} and {preview_port}: {e}", file=sys.stderr)
        return 1
    print(site.app_url, flush=True)
    print(f"preview origin: {site.preview_url}", flush=True)
    threading.Thread(target=site.preview.serve_forever, name="serve-preview", daemon=True).start()
    try:
        site.app.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        site.preview.shutdown()
        site.app.server_close()
        site.preview.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
