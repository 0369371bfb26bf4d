"""CORS: the dock answers the page origins given with --allow-origin, and no other
(docs/dock.md, "Browsers (CORS)"). The browser side: tests/e2e/test_dock_web.py."""

from __future__ import annotations

import os
import subprocess
import sys

from dock_helpers import request
from dock_process import ROOT, Dock

APP = "http://app.example:8000"
PREFLIGHT = {"Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization,content-type"}


def _preflight(url: str, origin: str) -> tuple[int, dict[str, str]]:
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("OPTIONS", "/v1/disks/work/push",
                           headers={"Origin": origin, **PREFLIGHT})
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def test_only_the_allowed_origins_get_cors_answers(tmp_path):
    dock = Dock(tmp_path / "dock", None, (APP,)).start()
    try:
        token = dock.token("work")
        status, headers = _preflight(dock.url, APP)
        assert status == 200
        assert headers["access-control-allow-origin"] == APP
        allowed = headers["access-control-allow-headers"].lower()
        assert "authorization" in allowed and "content-type" in allowed
        status, answer = request(dock.url, "GET", "/v1/disks/work/head", token,
                                 headers={"Origin": APP})
        assert (status, answer) == (200, {"head": 0})
        status, headers = _preflight(dock.url, "http://elsewhere.example")
        assert "access-control-allow-origin" not in headers
    finally:
        dock.stop()


def test_no_origin_is_allowed_by_default(tmp_path):
    dock = Dock(tmp_path / "dock", None).start()
    try:
        _, headers = _preflight(dock.url, APP)
        assert "access-control-allow-origin" not in headers
    finally:
        dock.stop()


def test_an_allow_origin_that_is_no_origin_is_refused(tmp_path):
    done = subprocess.run([sys.executable, "-m", "py_vfs", "dock", "--data", str(tmp_path),
                           "--allow-origin", "http://app.example/path"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert "is not an origin" in done.stderr
