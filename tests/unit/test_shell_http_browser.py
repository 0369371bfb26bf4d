"""The browser's side of `curl` and `wget` (http_browser.py), on CPython: stand-ins for the
worker's ``js`` module (``fetch``, ``AbortController``) and ``pyodide.ffi`` show what the shell
makes of fetch's answers and failures: the body streamed, a CORS or offline ``TypeError`` as
curl's 7, an opaque redirect, the deadline aborting the request."""

from __future__ import annotations

import asyncio
import sys
import types
from typing import ClassVar

import pytest
from shell_session import Session

from py_vfs.shell.commands import http_transport

pytestmark = pytest.mark.skipif(sys.platform == "emscripten",
                                reason="Pyodide's own js module shadows the stand-ins")


class FakeJsError(Exception):
    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name


class _Controller:
    aborted: ClassVar[list[bool]] = []

    def __init__(self) -> None:
        self.signal = object()

    @classmethod
    def new(cls) -> _Controller:
        return cls()

    def abort(self) -> None:
        _Controller.aborted.append(True)


class _Piece:
    def __init__(self, data: bytes | None) -> None:
        self.done = data is None
        self.value = types.SimpleNamespace(to_bytes=lambda: data)


class _Reader:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)

    async def read(self) -> _Piece:
        return _Piece(self.chunks.pop(0) if self.chunks else None)


class _Headers:
    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs

    def entries(self) -> list[list[str]]:
        return [list(pair) for pair in self.pairs]


def _answer(status: int = 200, chunks: list[bytes] | None = None, kind: str = "basic"):
    chunks = [b"hel", b"lo\n"] if chunks is None else chunks
    return types.SimpleNamespace(
        status=status, statusText="OK" if status == 200 else "", type=kind,
        url="https://example.test/a/page.txt", redirected=False,
        headers=_Headers([("content-type", "text/plain")]),
        body=types.SimpleNamespace(getReader=lambda: _Reader(chunks)))


@pytest.fixture
def fake_js(monkeypatch):
    """Install the stand-ins; ``calls`` records each fetch, ``behave`` says what it does."""
    calls: list[tuple[str, dict]] = []
    behave: dict = {"answer": _answer()}

    async def fetch(url: str, options: dict):
        calls.append((url, options))
        if "error" in behave:
            raise behave["error"]
        if "delay" in behave:
            await asyncio.sleep(behave["delay"])
        return behave["answer"]

    js = types.ModuleType("js")
    js.AbortController, js.fetch = _Controller, fetch
    js.Object = types.SimpleNamespace(fromEntries=dict)
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsException = FakeJsError
    ffi.to_js = lambda value, dict_converter=None: value
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    monkeypatch.setitem(sys.modules, "js", js)
    monkeypatch.setitem(sys.modules, "pyodide", pyodide)
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    monkeypatch.setattr(http_transport, "IN_BROWSER", True)
    _Controller.aborted.clear()
    return calls, behave


@pytest.fixture
def sh():
    session = Session()
    yield session
    session.runner.close()


def test_fetch_carries_the_request_and_the_body_streams(sh, fake_js):
    calls, _ = fake_js
    assert sh.ok("curl -s -H 'X-A: 1' -d k=v https://example.test/a/page.txt") == "hello\n"
    url, options = calls[0]
    assert url == "https://example.test/a/page.txt"
    assert (options["method"], options["body"], options["redirect"]) == ("POST", b"k=v", "manual")
    assert ["X-A", "1"] in options["headers"] and "signal" in options
    assert not any(name == "User-Agent" for name, _ in options["headers"])
    sh.ok("curl -sL -O https://example.test/a/page.txt")
    assert calls[1][1]["redirect"] == "follow" and sh.text("/page.txt") == "hello\n"
    assert sh.ok("wget -qO- https://example.test/a/page.txt") == "hello\n"


def test_a_type_error_from_fetch_is_the_browsers_refusal(sh, fake_js):
    _, behave = fake_js
    behave["error"] = FakeJsError("TypeError", "Failed to fetch")
    refused = sh("curl -sS https://elsewhere.test/")
    assert (refused.code, refused.stderr) == (7, "curl: (7) Failed to connect: the browser "
                                                 "refused the request (CORS, or offline)\n")
    assert sh("wget -q https://elsewhere.test/").code == 4


def test_an_opaque_redirect_and_an_http_error(sh, fake_js):
    _, behave = fake_js
    behave["answer"] = _answer(0, [], "opaqueredirect")
    assert sh.ok("curl -s -w '%{http_code}' https://example.test/r") == "000"
    behave["answer"] = _answer(404, [b"gone\n"])
    assert sh("curl -sf https://example.test/x").code == 22
    assert sh("wget -q https://example.test/x").code == 8


def test_the_deadline_aborts_the_fetch(sh, fake_js):
    _, behave = fake_js
    behave["delay"] = 5
    late = sh("curl -sS -m 0.2 https://example.test/slow")
    assert late.code == 28 and _Controller.aborted
