"""A local smart-HTTP git server for the tests: `git http-backend` (Debian's git) behind a
threaded ``http.server``, serving fetches and pushes (``http.receivepack``) of the bare
repositories under a folder, with CORS headers so that a page of another origin may reach it
(tests/e2e). Used by tests/unit/test_shell_git_http.py and tests/e2e/test_shell_git.py."""

from __future__ import annotations

import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

CORS = [("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Headers", "*"),
        ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
        ("Access-Control-Expose-Headers", "*")]


def make_handler(root: Path) -> type[BaseHTTPRequestHandler]:
    """A handler class serving the bare repositories under ``root`` at ``/NAME.git/...``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_OPTIONS(self) -> None:
            self.send_response(204)
            for name, value in CORS:
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            self._cgi()

        def do_POST(self) -> None:
            self._cgi()

        def _cgi(self) -> None:
            parts = urlsplit(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": str(root),
                   "GIT_HTTP_EXPORT_ALL": "1", "GATEWAY_INTERFACE": "CGI/1.1",
                   "REQUEST_METHOD": self.command, "PATH_INFO": parts.path,
                   "QUERY_STRING": parts.query, "REMOTE_ADDR": "127.0.0.1",
                   "REMOTE_USER": "tester", "CONTENT_LENGTH": str(len(body)),
                   "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root)}
            for header, variable in (("Content-Type", "CONTENT_TYPE"),
                                     ("Git-Protocol", "GIT_PROTOCOL")):
                if self.headers.get(header):
                    env[variable] = self.headers[header]
            done = subprocess.run(["git", "http-backend"], input=body, env=env,
                                  capture_output=True, timeout=120)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            status, headers = 200, []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers + CORS:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


class GitServer:
    """The server in a thread of its own: ``url`` is its base (``http://127.0.0.1:PORT``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(root))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()


def git(cwd: Path, *args: str) -> str:
    """Real git's output (it must succeed), with no user or system configuration."""
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Server", "GIT_AUTHOR_EMAIL": "server@example.com",
           "GIT_COMMITTER_NAME": "Server", "GIT_COMMITTER_EMAIL": "server@example.com",
           "GIT_AUTHOR_DATE": "@1600000000 +0000", "GIT_COMMITTER_DATE": "@1600000000 +0000"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True, timeout=60).stdout


def bare_repository(root: Path, name: str = "project.git", commits: int = 3) -> Path:
    """A bare repository under ``root`` with ``commits`` commits on ``main`` (made by real
    git) that accepts pushes over HTTP."""
    work = root / "seed"
    work.mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    for index in range(commits):
        (work / "README.md").write_text("".join(f"line {i}\n" for i in range(index + 1)))
        (work / f"file{index}.txt").write_text(f"content {index}\n")
        git(work, "add", ".")
        git(work, "commit", "-q", "-m", f"commit {index}")
    bare = root / name
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    git(bare, "config", "http.receivepack", "true")
    return bare
