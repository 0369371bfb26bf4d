"""Bad input: each a clear 4xx, and nothing changed on the dock (docs/dock.md)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import time
from urllib.parse import urlsplit

import pytest
from dock_helpers import dock_log, replica, request

DISK = "/v1/disks/work"


def _record(name: str, parent: str = "root") -> str:
    return json.dumps({"parent": parent, "name": name, "kind": "file", "mode": 0o644,
                       "mtime": 1.0, "ctime": 1.0, "atime": 1.0, "size": 1,
                       "inline": "YQ=="})


def _push(name: str = "ok.txt", base: int = 0, node: str = "n1", **entry: object) -> dict:
    return {"push": f"p-{name.encode().hex()[:40]}-{base}", "base": base, "entries": [{
        "v": 2, "writer": "mallory", "time": time.time() * 1000, "op": "writeFile",
        "ops": ["writeFile"], "puts": {node: _record(name)}, "deletes": [],
        "before": {node: None}, "events": [], "origin": {"replica": "m", "rev": 1},
        **entry}]}


@pytest.fixture
def seeded(docks, tmp_path):
    """A dock holding one disk with a file, its state, and tokens of every kind."""
    dock = docks()
    token = dock.token()

    async def seed() -> None:
        vfs, one = await replica(tmp_path / "a.db", dock.url, token, "alice")
        await vfs.write_file("/hello.txt", "hi")
        await one.sync()
        vfs.close()

    asyncio.run(seed())
    tokens = {"rw": token, "other": dock.token("other"),
              "ro": dock.token("work", "--read-only"), "revoked": dock.token()}
    revoked_id = next(t["id"] for t in dock.tokens()
                      if t["id"] == hashlib.sha256(tokens["revoked"].encode()).hexdigest()[:12])
    dock.cli("token", "revoke", revoked_id)
    return dock, tokens, dock_log(dock.url, token)


def _unchanged(dock, tokens, before) -> None:
    assert dock_log(dock.url, tokens["rw"]) == before
    assert request(dock.url, "GET", f"{DISK}/head", tokens["rw"])[1]["head"] == len(before)


def _raw_headers_only(url: str, path: str, token: str, length: int,
                      method: str = "POST") -> tuple[int, bytes]:
    """Send the headers of a request with a body of ``length`` bytes, and none of the body."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall((f"{method} {path} HTTP/1.1\r\nHost: {parts.hostname}\r\n"
                      f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {length}\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            part = sock.recv(65536)
            if not part:
                break
            answer += part
    status = int(answer.split(b" ", 2)[1])
    return status, answer


def test_each_bad_request_is_a_clear_4xx_and_changes_nothing(seeded):
    dock, tokens, before = seeded
    url, rw = dock.url, tokens["rw"]
    head = len(before)
    good = b"some bytes"
    wrong = hashlib.sha256(b"other bytes").hexdigest()
    cases = [
        ("no token", 401, lambda: request(url, "GET", f"{DISK}/head")),
        ("a made-up token", 401, lambda: request(url, "GET", f"{DISK}/head", "pvd_nope")),
        ("a revoked token", 401, lambda: request(url, "GET", f"{DISK}/log", tokens["revoked"])),
        ("another disk's token", 403, lambda: request(url, "GET", f"{DISK}/log",
                                                      tokens["other"])),
        ("a disk that does not exist, same answer", 403, lambda: request(
            url, "GET", "/v1/disks/nosuch/log", tokens["other"])),
        ("a read-only token pushing", 403, lambda: request(
            url, "POST", f"{DISK}/push", tokens["ro"], _push(base=head))),
        ("a read-only token uploading", 403, lambda: request(
            url, "PUT", f"{DISK}/chunks/{hashlib.sha256(good).hexdigest()}", tokens["ro"],
            raw=good)),
        ("chunk bytes not matching the hash", 400, lambda: request(
            url, "PUT", f"{DISK}/chunks/{wrong}", rw, raw=good)),
        ("a forged base revision", 400, lambda: request(
            url, "POST", f"{DISK}/push", rw, _push(base=head + 5))),
        ("a name '..'", 400, lambda: request(url, "POST", f"{DISK}/push", rw,
                                             _push("..", base=head))),
        ("a name with NUL", 400, lambda: request(url, "POST", f"{DISK}/push", rw,
                                                 _push("a\0b", base=head))),
        ("a name with a slash", 400, lambda: request(url, "POST", f"{DISK}/push", rw,
                                                     _push("a/b", base=head))),
        ("a disk name with '..'", 400, lambda: request(url, "GET", "/v1/disks/a..b/head", rw)),
        ("malformed JSON", 400, lambda: request(url, "POST", f"{DISK}/push", rw,
                                                b'{"push": "x", "base": ')),
        ("JSON of the wrong shape", 400, lambda: request(
            url, "POST", f"{DISK}/push", rw, {"push": "x", "base": "0", "entries": []})),
        ("duplicate keys", 400, lambda: request(
            url, "POST", f"{DISK}/push", rw, b'{"push": "x", "push": "y"}')),
        ("a bad node id", 400, lambda: request(
            url, "POST", f"{DISK}/push", rw, _push(base=head, node="../x"))),
        ("a chunk the dock lacks", 409, lambda: request(
            url, "POST", f"{DISK}/push", rw, {**_push(base=head), "entries": [{
                **_push(base=head)["entries"][0],
                "puts": {"n1": json.dumps({**json.loads(_record("c.bin")), "size": 10,
                                           "inline": None, "chunks": ["a" * 64]})}}]})),
        ("a 2 GiB body, refused unread", 413, lambda: _raw_headers_only(
            url, f"{DISK}/push", rw, 2 * 1024 ** 3)),
        ("a chunk over 512 KiB", 413, lambda: _raw_headers_only(
            url, f"{DISK}/chunks/{'b' * 64}", rw, 512 * 1024 + 1, "PUT")),
    ]
    for what, status, call in cases:
        got, answer = call()
        assert got == status, f"{what}: {got} {answer!r}"
        if isinstance(answer, dict):
            assert answer.get("error"), f"{what}: no sentence in {answer}"
        _unchanged(dock, tokens, before)
    # The chunk whose bytes were wrong was not kept.
    assert request(url, "GET", f"{DISK}/chunks/{wrong}", rw)[0] == 404


def test_a_path_token_reaches_only_its_folder(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        vfs, one = await replica(tmp_path / "a.db", dock.url, token, "alice")
        await vfs.mkdir("/scoops/x", recursive=True)
        await vfs.write_file("/scoops/x/in.txt", "in")
        await vfs.write_file("/secret.txt", "out")
        await one.sync()
        scoped = dock.token("work", "--path", "/scoops/x")
        log = dock_log(dock.url, scoped)
        seen = {json.loads(r)["name"] for e in log for r in e["entry"]["puts"].values()}
        assert "in.txt" in seen and "secret.txt" not in seen
        outside = _push("evil.txt", base=len(log))
        got, answer = request(dock.url, "POST", f"{DISK}/push", scoped, outside)
        assert got == 403, answer
        vfs.close()

    asyncio.run(main())
