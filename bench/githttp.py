"""Smart HTTP for G1: `git http-backend` as a CGI behind the bench server, fetch (upload-pack) only.

Under GIT_PREFIX the bench server answers the two requests a clone makes, `GET
<repo>/info/refs?service=git-upload-pack` and `POST <repo>/git-upload-pack`, by running `git
http-backend` with the CGI environment (GIT_PROJECT_ROOT, GIT_HTTP_EXPORT_ALL) and relaying its
answer, streamed in chunks as git writes it. Anything else under the prefix (a push, the dumb
protocol) is refused with 403. Same origin as the bench page: no CORS proxy.
"""

from __future__ import annotations

import os
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

GIT_PREFIX = "/git/"
# The requests of a fetch over smart HTTP (paths relative to the repository).
ALLOWED = {("GET", "info/refs"), ("POST", "git-upload-pack")}
CHUNK = 64 * 1024
# A clone's requests answer within seconds; this bounds a stuck git process.
BACKEND_TIMEOUT = 300.0


def allowed(method: str, path: str, query: str) -> bool:
    """Whether a request under GIT_PREFIX is one of a fetch's (upload-pack only)."""
    repo_path = path.removeprefix(GIT_PREFIX)
    for want_method, suffix in ALLOWED:
        if method == want_method and repo_path.endswith("/" + suffix):
            return suffix != "info/refs" or query == "service=git-upload-pack"
    return False


def cgi_environment(handler: BaseHTTPRequestHandler, project_root: Path, body: bytes) -> dict:
    """The CGI variables git http-backend reads (RFC 3875, and git's own)."""
    parts = urlsplit(handler.path)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_PROJECT_ROOT": str(project_root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "GATEWAY_INTERFACE": "CGI/1.1",
        "SERVER_PROTOCOL": handler.request_version,
        "REQUEST_METHOD": handler.command,
        "PATH_INFO": parts.path.removeprefix(GIT_PREFIX.rstrip("/")),
        "QUERY_STRING": parts.query,
        "REMOTE_ADDR": handler.client_address[0],
        "CONTENT_LENGTH": str(len(body)),
    }
    for header, variable in (("Content-Type", "CONTENT_TYPE"), ("Git-Protocol", "GIT_PROTOCOL"),
                             ("Content-Encoding", "HTTP_CONTENT_ENCODING")):
        if handler.headers.get(header):
            env[variable] = handler.headers[header]
    return env


def serve_git(handler: BaseHTTPRequestHandler, project_root: Path | None) -> None:
    """Answer one request under GIT_PREFIX through git http-backend."""
    parts = urlsplit(handler.path)
    if project_root is None or not allowed(handler.command, parts.path, parts.query):
        handler.send_error(403, "Forbidden: this server only serves fetches (upload-pack)")
        return
    body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    with subprocess.Popen(["git", "http-backend"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE,
                          env=cgi_environment(handler, project_root, body)) as proc:
        try:
            relay(handler, proc, body)
        finally:
            proc.kill()  # a no-op once it has exited; ends it if the browser went away
            proc.wait(timeout=BACKEND_TIMEOUT)


def relay(handler: BaseHTTPRequestHandler, proc: subprocess.Popen, body: bytes) -> None:
    """Send the request body to the CGI, then its headers and (chunked) body to the client."""
    proc.stdin.write(body)
    proc.stdin.close()
    status, headers = 200, []
    while (line := proc.stdout.readline().rstrip(b"\r\n")) != b"":
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "status":
            status = int(value.split()[0])
        else:
            headers.append((name.strip(), value.strip()))
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    while chunk := proc.stdout.read1(CHUNK):
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    handler.wfile.write(b"0\r\n\r\n")
    if proc.wait(timeout=BACKEND_TIMEOUT) != 0:
        # The status line is sent: the client sees a truncated pack; say why on the console.
        print(f"bench: git http-backend failed: {proc.stderr.read().decode(errors='replace')}",
              flush=True)
