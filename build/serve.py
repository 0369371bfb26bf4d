"""Static server for dist/ on 127.0.0.1 (stdlib only).

    .venv/bin/python build/serve.py            # PORT=8000 by default; PORT=0 picks a free port

Prints `http://127.0.0.1:<port>/` on a line of its own once it listens. Content types come from
an explicit map (browsers refuse module scripts under a wrong type, and wasm needs
application/wasm for streaming compilation), not from the machine's mime.types. Caching:
`Cache-Control: max-age=3600` under /pyodide/ (large, versioned by the build), `no-cache`
elsewhere; /sw.js also gets `Service-Worker-Allowed: /`. Quiet unless PYVFS_LOG_REQUESTS=1.

From Python (tests): `from serve import start_server; base_url, server = start_server(dist)`
serves in a daemon thread; stop it with `server.shutdown(); server.server_close()`.
"""

from __future__ import annotations

import os
import sys
import threading
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
        if path == "/sw.js":
            self.send_header("Service-Worker-Allowed", "/")
        super().end_headers()

    def log_message(self, format, *args):
        if os.environ.get("PYVFS_LOG_REQUESTS"):
            super().log_message(format, *args)


class Server(ThreadingHTTPServer):
    daemon_threads = True

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
    except ValueError:
        print(f"serve: PORT must be a number, got {os.environ['PORT']!r}", file=sys.stderr)
        return 2
    try:
        server = make_server(DIST, port)
    except FileNotFoundError as e:
        print(f"serve: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"serve: cannot listen on {HOST}:{port}: {e}", file=sys.stderr)
        return 1
    print(f"http://{HOST}:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
