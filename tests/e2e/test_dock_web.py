"""The browser replica (openVFS({dock}), docs/dock.md) against a real dock process, in real
Chromium: two browser profiles (two IndexedDBs) and a CPython replica edit one disk at once and
converge byte for byte, each journal entry once; offline edits on every side are all kept; a
profile closed mid-upload loses and duplicates nothing; the app's indicator follows the status;
a page without a dock sends nothing to it.

The dock runs as ``python -m py_vfs dock`` on 127.0.0.1 in the test's temporary directory
(tests/dock/dock_process.py), allowing the app's origin (CORS). The profiles are the app with
``?dock=URL``, the token put in localStorage before the page loads. Every wait is bounded and
says what it waited for.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from .conftest import js, open_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dock"))
from dock_helpers import dock_log, journal_ids, tree
from dock_process import Dock, dock_on

from py_vfs import VFS
from py_vfs.dock.link import Offline, Refusal
from py_vfs.dock.replica import attach
from py_vfs.storage.sqlite import SQLiteStore

CONVERGE_S = 120.0
# A stopped dock: the worker's fetches fail, and Chromium logs each failed load.
OFFLINE_LOADS = r"(ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|Failed to fetch)"


@pytest.fixture
def dock(request: pytest.FixtureRequest, tmp_path: Path, base_url: str):
    """A dock allowing the app's origin, on the SQLite default or (parametrized "postgres")
    on a throwaway Postgres cluster."""
    parts = urlsplit(base_url)
    with dock_on(getattr(request, "param", "sqlite"), tmp_path / "dock", database="dockweb",
                 allow_origins=(f"{parts.scheme}://{parts.netloc}",)) as started:
        yield started


class Python:
    """A CPython replica (a SQLite disk) driven from its own thread and event loop, so the
    test's Playwright calls and its syncs do not share a loop."""

    def __init__(self, path: Path, url: str, token: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

        async def opened() -> Any:  # SQLite's connection belongs to the loop's thread
            return await VFS.open(SQLiteStore(path), writer="carol")

        self.vfs: Any = self.run(opened())
        self.replica: Any = self.run(attach(self.vfs, url, token, live=False))

    def run(self, coro: Any, timeout: float = 120.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def closed() -> None:
            self.vfs.close()

        self.run(closed())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def docked(persistent_browser, profile: Path, dock: Dock, token: str):
    """The app on ``profile`` with ``?dock=URL``, its token kept in localStorage first."""
    context = persistent_browser.launch(profile)
    key = "pyvfs-dock-token:" + dock.url
    context.add_init_script(f"localStorage.setItem({key!r}, {token!r});")
    return open_app(context, f"/?dock={quote(dock.url, safe='')}")


TREE_JS = """
  const out = {};
  for (const path of await vfs.walk("/")) {
    const s = await vfs.lstat(path);
    out[path] = [s.isFile() ? "file" : s.isDirectory() ? "directory" : "symlink",
                 s.isFile() ? Array.from(await vfs.readFile(path)).map(
                   (b) => b.toString(16).padStart(2, "0")).join("") :
                 s.isSymbolicLink() ? await vfs.readlink(path) : null];
  }
  return out;
"""
WRITERS_JS = """
  const {rows} = await vfs.query("SELECT writer, count(*) FROM journal GROUP BY writer");
  return Object.fromEntries(rows.filter(([w]) => w !== "dock"));
"""


def page_sync(page) -> dict[str, Any]:
    return js(page, """
      try { return await vfs.sync(); }
      catch (e) { return {state: "failed", code: e.code, error: e.message}; }""")


def converge(pages: list, python: Python, seconds: float = CONVERGE_S) -> None:
    """Sync every replica, round after round, until all say synced on one head (bounded)."""
    deadline = time.monotonic() + seconds
    last: Any = None
    while time.monotonic() < deadline:
        statuses = [page_sync(page) for page in pages]
        try:
            statuses.append(python.run(python.replica.sync()))
        except (Offline, Refusal) as error:
            statuses.append({"state": "failed", "error": str(error)})
        last = statuses
        if all(s["state"] == "synced" for s in statuses) and \
                len({s["head"] for s in statuses}) == 1:
            return
        pages[0].wait_for_timeout(200)
    pytest.fail(f"waited {seconds:.0f} s for the replicas to converge (last: {last})",
                pytrace=False)


def python_tree(python: Python) -> dict[str, Any]:
    found = python.run(tree(python.vfs))
    return {path: [kind, value.hex() if isinstance(value, bytes) else value]
            for path, (kind, value) in found.items()}


def same_everywhere(pages: list, python: Python, dock: Dock, token: str) -> dict[str, Any]:
    """Every replica holds the same tree, byte for byte, and each dock entry once."""
    expected = python_tree(python)
    for page in pages:
        assert js(page, TREE_JS) == expected
    log = dock_log(dock.url, token, "default")
    by_writer = Counter(item["entry"]["writer"] for item in log)
    for page in pages:
        assert js(page, WRITERS_JS) == dict(by_writer)
        assert js(page, "return (await vfs.check()).ok") is True
    ids = python.run(journal_ids(python.vfs, python.replica.state["replica"]))
    assert set(ids) == {(i["entry"]["origin"]["replica"], i["entry"]["origin"]["rev"])
                        for i in log}
    assert max(ids.values()) == 1
    assert python.run(python.vfs.check()).ok
    return expected


EDITS_JS = """
  const me = vfs.as(args[0]);
  window.__edits = (async () => {
    await me.mkdir("/src", {recursive: true});
    for (let i = 0; i < 12; i++) {
      const name = ["/notes.md", "/src/todo.txt", `/src/${args[0]}-${i % 3}.txt`][i % 3];
      await me.writeFile(name, `${args[0]} ${i} `.repeat(1 + i * 50));
    }
  })();
"""


@pytest.mark.timeout(900)
@pytest.mark.parametrize("dock", ["sqlite", "postgres"], indirect=True)
@pytest.mark.expect_console(OFFLINE_LOADS, reason="the dock is stopped on purpose: the "
                            "worker's fetches to it fail while it is offline")
def test_two_profiles_and_python_converge_offline_edits_kept_and_a_closed_tab_loses_nothing(
        persistent_browser, dock, tmp_path):
    token = dock.token("default")
    a = docked(persistent_browser, tmp_path / "a", dock, token)
    b = docked(persistent_browser, tmp_path / "b", dock, token)
    python = Python(tmp_path / "c.db", dock.url, token)
    try:
        # The indicator shows the dock's status; its changes reach onSyncStatus.
        for session in (a, b):
            session.page.wait_for_selector("#sync:not([hidden])", timeout=60_000)
            js(session.page, """
              window.__states = [];
              vfs.onSyncStatus((s) => window.__states.push(s.state));""")
        # Concurrent edits on the three replicas.
        js(a.page, EDITS_JS, "alice")
        js(b.page, EDITS_JS, "bob")

        async def carol() -> None:
            await python.vfs.mkdir("/src", recursive=True)
            for i in range(12):
                await python.vfs.write_file(["/notes.md", "/src/todo.txt", f"/src/c{i}.txt"][i % 3],
                                            f"carol {i} ".encode() * (1 + i * 40))
                if i % 4 == 3:
                    await python.replica.sync()

        python.run(carol())
        js(a.page, "await window.__edits")
        js(b.page, "await window.__edits")
        converge([a.page, b.page], python)
        first = same_everywhere([a.page, b.page], python, dock, token)
        assert any("(conflict from " in path for path in first), sorted(first)
        states = js(a.page, "return window.__states")
        assert "pending" in states and states[-1] == "synced", states
        assert a.page.get_attribute("#sync", "data-state") == "synced"

        # Offline: the dock stops; every side edits the same file; all versions are kept.
        dock.stop()
        js(a.page, 'await vfs.as("alice").writeFile("/offline.md", "alice offline")')
        js(b.page, 'await vfs.as("bob").writeFile("/offline.md", "bob offline")')
        python.run(python.vfs.write_file("/offline.md", b"carol offline"))
        failed = page_sync(a.page)
        assert failed["state"] == "failed" and failed["code"] == "ENOTCONN", failed
        status = js(a.page, "return await vfs.syncStatus()")
        assert status["state"] == "offline" and status["pending"] >= 1, status
        a.page.wait_for_selector('#sync[data-state="offline"]', timeout=30_000)
        assert "dock" in a.page.get_attribute("#sync", "title")
        dock.start()
        converge([a.page, b.page], python)
        second = same_everywhere([a.page, b.page], python, dock, token)
        versions = sorted(bytes.fromhex(value).decode() for path, (kind, value) in second.items()
                          if path.startswith("/offline"))
        assert versions == ["alice offline", "bob offline", "carol offline"]

        # A profile closed while its upload runs: reopened, it finishes; nothing lost or twice.
        js(a.page, """
          const big = new Uint8Array(6 * 1024 * 1024);
          for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) & 255;
          await vfs.as("alice").writeFile("/big.bin", big);""")
        a.context.close()
        a = docked(persistent_browser, tmp_path / "a", dock, token)
        converge([a.page, b.page], python)
        third = same_everywhere([a.page, b.page], python, dock, token)
        assert len(bytes.fromhex(third["/big.bin"][1])) == 6 * 1024 * 1024
    finally:
        python.close()


def test_a_page_without_a_dock_sends_nothing_to_it(page, dock):
    """No ?dock: the app opens the disk with no dock; no request reaches the dock's origin,
    the indicator stays hidden, syncStatus is null and sync says there is no dock."""
    requests: list[str] = []
    page.context.on("request", lambda request: requests.append(request.url))
    page.goto("/")
    result = js(page, """
      let code;
      try { await vfs.sync(); } catch (e) { code = e.code; }
      return {status: await vfs.syncStatus(), code,
              hidden: document.getElementById("sync").hidden};""")
    assert result == {"status": None, "code": "ENOTSUP", "hidden": True}
    origin = dock.url.rstrip("/")
    assert [url for url in requests if url.startswith(origin)] == []
