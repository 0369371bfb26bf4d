"""`curl` and `wget` against a local HTTP server (http.server on 127.0.0.1, in a thread of
this test), and the scoop's network switch. Pyodide has no sockets: these tests skip there."""

from __future__ import annotations

import asyncio
import http.server
import json
import re
import socket
import sys
import threading
import time

import pytest
from shell_session import Session

from py_vfs.shell import Shell

pytestmark = pytest.mark.skipif(sys.platform == "emscripten",
                                reason="no sockets in Pyodide: no local HTTP server to test")

SLOW = threading.Event()  # set at the end: the slow handler stops waiting


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:
        path = self.path
        if path in ("/", "/hello.txt"):
            self._reply(200, b"hello\n", {"Content-Type": "text/plain", "X-Test": "yes"})
        elif path == "/bin":
            self._reply(200, bytes(range(256)) * 4, {"Content-Type": "application/octet-stream"})
        elif path == "/redirect":
            self._reply(302, b"moved\n", {"Location": "/hello.txt"})
        elif path == "/loop":
            self._reply(302, b"", {"Location": "/loop"})
        elif path == "/slow":
            SLOW.wait(5)
            self._reply(200, b"late\n")
        elif path == "/echo":
            self._echo()
        else:
            self._reply(404, b"not here\n", {"Content-Type": "text/plain"})

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._echo()

    def do_PUT(self) -> None:
        self._echo()

    def _echo(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode()
        answer = {"method": self.command, "body": body,
                  "type": self.headers.get("Content-Type"),
                  "token": self.headers.get("X-Token"), "other": self.headers.get("X-Other")}
        self._reply(200, json.dumps(answer, sort_keys=True).encode() + b"\n")


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hung up (the timeout tests): nothing to report


@pytest.fixture(scope="module")
def server():
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    SLOW.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


@pytest.fixture
def sh():
    session = Session()
    yield session
    session.runner.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_curl_writes_the_body_to_stdout_and_to_files(sh, server):
    assert sh.ok(f"curl -s {server}/hello.txt") == "hello\n"
    sh.ok(f"curl -s -o /out.txt {server}/hello.txt")
    assert sh.text("/out.txt") == "hello\n"
    sh.ok(f"mkdir /d && cd /d && curl -sO {server}/bin")
    assert sh.read("/d/bin") == bytes(range(256)) * 4
    assert sh.ok(f"curl -s {server}/bin | wc -c") == "1024\n"


def test_curl_follows_redirects_only_with_L(sh, server):
    assert sh.ok(f"curl -s {server}/redirect") == "moved\n"
    assert sh.ok(f"curl -sL {server}/redirect") == "hello\n"
    assert sh.ok(f"curl -sL -w '%{{http_code}} %{{num_redirects}}\\n' -o /dev/null "
                 f"{server}/redirect") == "200 1\n"
    looped = sh(f"curl -sSL --max-redirs 3 {server}/loop")
    assert (looped.code, looped.stderr) == (47, "curl: (47) Maximum (3) redirects followed\n")


def test_curl_f_fails_with_22_on_an_http_error(sh, server):
    assert sh.ok(f"curl -s {server}/missing") == "not here\n"
    failed = sh(f"curl -sSf {server}/missing")
    assert (failed.code, failed.stdout) == (22, "")
    assert failed.stderr == "curl: (22) The requested URL returned error: 404\n"
    assert sh(f"curl -sf {server}/missing").stderr == ""
    assert sh.ok(f"curl -s -w '%{{http_code}}' -o /dev/null {server}/missing") == "404"


def test_curl_I_and_i_show_the_headers(sh, server):
    head = sh.ok(f"curl -sI {server}/hello.txt")
    assert head.startswith("HTTP/1.1 200 OK\r\n") and head.endswith("\r\n\r\n")
    assert "X-Test: yes\r\n" in head and "hello" not in head
    both = sh.ok(f"curl -si {server}/hello.txt")
    assert both.startswith("HTTP/1.1 200 OK\r\n") and both.endswith("\r\n\r\nhello\n")
    sh.ok(f"curl -si -o /with-head {server}/hello.txt")
    assert sh.text("/with-head").startswith("HTTP/1.1 200 OK\r\n")
    assert sh.text("/with-head").endswith("\r\n\r\nhello\n")
    chain = sh.ok(f"curl -siL {server}/redirect")
    assert chain.startswith("HTTP/1.1 302 Found\r\n") and chain.count("HTTP/1.1 ") == 2


def test_curl_posts_data_and_sends_headers(sh, server):
    echoed = json.loads(sh.ok(f"curl -s -d a=1 -d b=2 -H 'X-Token: t1' -H 'X-Other: o' "
                              f"{server}/echo"))
    assert echoed == {"method": "POST", "body": "a=1&b=2", "token": "t1", "other": "o",
                      "type": "application/x-www-form-urlencoded"}
    sh.write("/payload.json", '{"k": 1}\n')
    echoed = json.loads(sh.ok(f"curl -s -X PUT --data-binary @/payload.json "
                              f"-H 'Content-Type: application/json' {server}/echo"))
    assert (echoed["method"], echoed["body"], echoed["type"]) == (
        "PUT", '{"k": 1}\n', "application/json")
    missing = sh(f"curl -s --data-binary @/nope {server}/echo")
    assert missing.code == 26


def test_curl_max_time_stops_a_slow_server_with_28(sh, server):
    started = time.monotonic()
    slow = sh(f"curl -sS --max-time 0.3 {server}/slow")
    assert slow.code == 28 and slow.stderr.startswith("curl: (28) Operation timed out after ")
    assert time.monotonic() - started < 3


def test_curl_connection_refused_is_7_and_bad_urls_fail(sh):
    refused = sh(f"curl -sS http://127.0.0.1:{_closed_port()}/")
    assert refused.code == 7 and re.fullmatch(
        r"curl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+ after \d+ ms: "
        r"Couldn't connect to server\n", refused.stderr)
    assert sh("curl -sS ftp://example.invalid/x").stderr == \
        'curl: (1) Protocol "ftp" not supported\n'
    assert sh("curl -sS 'http://[::1'").stderr == \
        "curl: (3) URL rejected: Malformed input to a URL function\n"
    assert sh("wget -q http://127.0.0.1:99999/").code == 1
    usage = sh("curl")
    assert (usage.code, usage.stderr) == (
        2, "curl: try 'curl --help' or 'curl --manual' for more information\n")
    assert sh("curl -Z x").code == 2


def test_wget_names_files_from_the_url(sh, server):
    sh.ok("mkdir /w")
    done = sh(f"cd /w && wget {server}/ && wget -q {server}/ && wget -q {server}/hello.txt")
    assert done.code == 0 and "Saving to: 'index.html'" in done.stderr
    assert sh.ok("ls /w") == "hello.txt\nindex.html\nindex.html.1\n"
    sh.ok(f"cd / && wget -q -P /dl/sub {server}/hello.txt && wget -q -O /named {server}/bin")
    assert sh.text("/dl/sub/hello.txt") == "hello\n"
    assert sh.read("/named") == bytes(range(256)) * 4
    assert sh.ok(f"wget -qO- {server}/redirect") == "hello\n"


def test_wget_statuses(sh, server):
    missing = sh(f"wget -q {server}/missing")
    assert (missing.code, missing.stderr) == (8, "")
    assert "ERROR 404: Not Found." in sh(f"wget {server}/missing").stderr
    assert sh(f"wget -q http://127.0.0.1:{_closed_port()}/").code == 4
    assert sh(f"wget -q -T 0.3 {server}/slow").code == 4
    assert (sh("wget").code, sh("wget -Z x").code) == (1, 2)


def test_a_scoop_has_no_network_unless_allowed(sh, server):
    refused = sh(f"scoop quiet && curl -sS {server}/hello.txt")
    assert refused.code == 7
    assert refused.stderr == ("curl: (7) Failed to connect: scoop 'quiet' has no network "
                              "access (its creator did not allow it)\n")
    assert sh(f"wget -q {server}/hello.txt").code == 4
    sh.ok("exit 0")
    assert sh.ok(f"scoop --network open && curl -s {server}/hello.txt") == "hello\n"


def test_a_scoop_view_made_with_network_lets_its_shell_reach_it(server):
    session = Session()

    async def run() -> tuple[int, int]:
        closed = Shell(await session.vfs.scoop("a"))
        opened = Shell(await session.vfs.scoop("b", network=True))
        narrower = (await session.vfs.scoop("c", network=True)).restrict("/scoops/c")
        assert narrower.network and not (await session.vfs.scoop("a")).network
        url = f"{server}/hello.txt"
        return ((await closed.run(f"curl -s {url}")).code,
                (await opened.run(f"curl -s {url}")).code)

    try:
        assert session.runner.run(asyncio.wait_for(run(), 10)) == (7, 0)
    finally:
        session.runner.close()


def test_ctrl_c_stops_a_transfer_at_once(sh, server):
    """The call's cancel signal (Ctrl-C) ends the wait for a slow server: status 130."""
    from py_vfs.core import cancel

    async def scenario() -> tuple[int, float]:
        signal = cancel.Signal()
        token = cancel.SIGNAL.set(signal)
        try:
            started = time.monotonic()
            running = asyncio.ensure_future(sh.shell.run(f"curl -s {server}/slow"))
            while not signal.listeners:  # the marker: the transfer is waiting
                await asyncio.sleep(0.01)
            signal.abort()
            result = await asyncio.wait_for(running, 5)
            return result.code, time.monotonic() - started
        finally:
            cancel.SIGNAL.reset(token)

    code, took = sh.runner.run(scenario())
    assert code == 130 and took < 3


def test_a_body_over_the_limit_fails_cleanly(sh, server, monkeypatch):
    from py_vfs.shell import limits
    monkeypatch.setattr(limits, "MAX_DOWNLOAD", 100)
    over = sh(f"curl -sS -o /big {server}/bin")
    assert over.code == 63 and over.stderr.startswith("curl: (63) Maximum file size exceeded")
    assert sh(f"wget -q -O /big2 {server}/bin").code == 1
    assert sh.ok("ls /") == ""
    assert sh.ok(f"curl -s {server}/hello.txt") == "hello\n"
