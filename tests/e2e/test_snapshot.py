"""Booting from the Python memory snapshot (docs/boot.md), in a context that allows it.

A first visit restores the snapshot the build shipped and, once idle, keeps a copy in IndexedDB
that later boots restore; one of another build, or damaged, is refused and the boot falls back
to the packages. Without a shipped one (a build without a browser: `without_shipped_snapshot`),
the first boot of the origin starts Python from its packages and then makes the snapshot in a
second worker; the next boot restores it. Which path a boot took is read from
`diagnostics().boot`, never from timings. A stale or corrupt stored snapshot is dropped, the
boot falls back (to the shipped file, else the packages), and a new copy or snapshot replaces it.
"""

from __future__ import annotations

import pytest

from .conftest import (
    BOOT_JS,
    OWN_RUNTIME,
    WAIT_STORED_JS,
    AppSession,
    assert_no_offsite,
    open_app,
    record_offsite,
    wait_ready,
    without_shipped_snapshot,
)

MAKE_TIMEOUT_S = 240
# The stored snapshot's boots, in a context whose manifest names no shipped one.
NOT_SHIPPED = "none"
# The file the build ships (build/ship_snapshot.py).
SHIPPED = "**/pyodide/py_vfs-runtime-*.bin"
# Rewrites the stored record: "corrupt" flips the first byte of Pyodide's snapshot in it (the
# record keeps the shipped file's layout: web/shared/shipped_snapshot.mjs), "stale" gives it
# another key. (No code passed as a string: the app's CSP refuses eval, so `new Function` cannot
# run there.)
EDIT_JS = """async (change) => {
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open("pyvfs-runtime");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const step = (mode, use) => new Promise((resolve, reject) => {
    const tx = db.transaction("snapshots", mode);
    const request = use(tx.objectStore("snapshots"));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
  });
  try {
    const record = await step("readonly", (store) => store.get("python"));
    if (change === "corrupt") {  // Pyodide finds no snapshot magic
      const file = new Uint8Array(await record.blob.arrayBuffer());
      const view = new DataView(file.buffer);
      const padded = (length) => Math.ceil(length / 16) * 16;
      const blocks = Math.ceil(view.getUint32(12, true) / 65536);
      file[padded(16 + view.getUint32(8, true)) + padded(Math.ceil(blocks / 8))] ^= 0xff;
      record.blob = new Blob([file]);
    } else if (change === "stale") {
      record.key = "pyodide 0.0.0; an older wheel";  // another build
    } else {
      throw new Error(`unknown change ${change}`);
    }
    await step("readwrite", (store) => store.put(record, "python"));
    return record.source;
  } finally {
    db.close();
  }
}"""
# Stages of a second VFS opened in the page: the app's own boot happened before we listened.
STAGES_JS = """async () => {
  const { openVFS } = await import("/pyvfs.mjs");
  const stages = [];
  const vfs = await openVFS({ name: "stages", onProgress: (p) => stages.push(p.stage) });
  const { boot } = await vfs.diagnostics();
  await vfs.close();
  return { stages: [...new Set(stages)], from: boot.from };
}"""


@pytest.fixture(scope="module")
def session(browser, browser_context_args):
    """The app in a context where the snapshot is on, booted once and its snapshot made."""
    context = browser.new_context(**browser_context_args)
    without_shipped_snapshot(context)
    try:
        app = open_app(context)
        assert app.page.evaluate(BOOT_JS)["from"] == "packages"
        app.page.evaluate("async () => (await window.pyvfs.ready).writeFile('/kept.txt', 'kept')")
        assert app.page.evaluate(WAIT_STORED_JS, MAKE_TIMEOUT_S * 1000) == "stored"
        yield app
    finally:
        context.close()
    assert_no_offsite(app.offsite, "the snapshot context")


def reboot(app) -> dict:
    app.page.reload()
    wait_ready(app)
    return app.page.evaluate(BOOT_JS)


def ensure_stored(app) -> None:
    if reboot(app)["from"] != "snapshot":
        assert app.page.evaluate(WAIT_STORED_JS, MAKE_TIMEOUT_S * 1000) == "stored"


def test_second_boot_restores_the_snapshot_with_files_shell_and_api(session):
    ensure_stored(session)
    boot = reboot(session)
    assert boot == {"from": "snapshot", "snapshot": "used", "shipped": NOT_SHIPPED}
    page = session.page
    assert page.evaluate("window.pyvfs.shell('cat /kept.txt')")["stdout"] == "kept"
    assert page.evaluate("window.pyvfs.shell('mkdir -p /snap && echo hi > /snap/a && ls /snap')")[
        "stdout"
    ].split() == ["a"]
    api = """async () => {
      const vfs = await window.pyvfs.ready;
      await vfs.writeFile("/snap/b.txt", "from the api");
      return [await vfs.readFile("/snap/b.txt", "utf8"), (await vfs.readdir("/snap")).sort()];
    }"""
    assert page.evaluate(api) == ["from the api", ["a", "b.txt"]]


def test_a_snapshot_boot_reports_no_install_stage(session):
    ensure_stored(session)
    result = session.page.evaluate(STAGES_JS)
    assert result["from"] == "snapshot"
    assert result["stages"][0] == "download"
    assert result["stages"][-2:] == ["disk", "ready"]
    assert "python" in result["stages"]
    assert "install" not in result["stages"]


@pytest.mark.parametrize("change", ["corrupt", "stale"])
def test_a_bad_snapshot_falls_back_and_is_replaced(session, change):
    ensure_stored(session)
    assert session.page.evaluate(EDIT_JS, change) == "made"
    boot = reboot(session)
    assert boot["from"] == "packages"
    assert session.page.evaluate("window.pyvfs.shell('cat /kept.txt')")["stdout"] == "kept"
    assert session.page.evaluate(WAIT_STORED_JS, MAKE_TIMEOUT_S * 1000) == "stored"
    assert reboot(session) == {"from": "snapshot", "snapshot": "used", "shipped": NOT_SHIPPED}


def test_two_tabs_booting_together_make_one_snapshot(browser, browser_context_args):
    """Two Pythons booting at once, one in each tab (runtime "own"; with the shared runtime, the
    default, the second tab would be a guest and boot none): one makes the snapshot."""
    context = browser.new_context(**browser_context_args)
    context.add_init_script(OWN_RUNTIME)
    without_shipped_snapshot(context)
    try:
        tabs = [AppSession(context=context, page=context.new_page()) for _ in range(2)]
        for tab in tabs:
            record_offsite(context, tab.offsite)
            tab.page.goto("/")
        for tab in tabs:
            wait_ready(tab)
        states = [tab.page.evaluate(WAIT_STORED_JS, MAKE_TIMEOUT_S * 1000) for tab in tabs]
        # "stored" is the tab that made it; the other either found the Web Lock held ("made
        # elsewhere") or got it after the first stored the snapshot ("already stored").
        assert sorted(states) in (["made elsewhere", "stored"], ["already stored", "stored"]), \
            states
        assert reboot(tabs[1])["from"] == "snapshot"
        assert reboot(tabs[0])["from"] == "snapshot"
    finally:
        context.close()
    assert_no_offsite(tabs[0].offsite + tabs[1].offsite, "the two-tab context")


def test_a_first_visit_restores_the_shipped_snapshot_and_keeps_a_copy(browser,
                                                                     browser_context_args):
    """The build's snapshot (made in UTC) restores with the visitor's time zone, and a blocking
    call works (Python recorded the browser's stack switching when the snapshot was made). Once
    idle the worker keeps a copy in IndexedDB, which the next boot restores instead of the
    file; a damaged copy is dropped, the boot goes back to the file and keeps it again."""
    context = browser.new_context(**{**browser_context_args, "timezone_id": "America/New_York"})
    script = ("echo hi > /shipped.txt && python -c "
              "'import time; print(open(\"/shipped.txt\").read().strip(), *time.tzname)'")
    try:
        app = open_app(context)
        boot = app.page.evaluate(BOOT_JS)
        assert (boot["from"], boot["shipped"]) == ("snapshot", "used"), boot
        result = app.page.evaluate("(line) => window.pyvfs.shell(line)", script)
        assert (result["stdout"], result["stderr"]) == ("hi UTC-0500 UTC-0400\n", "")
        assert app.page.evaluate(WAIT_STORED_JS, MAKE_TIMEOUT_S * 1000) == "kept"
        assert reboot(app) == {"from": "snapshot", "snapshot": "used", "shipped": "kept"}
        result = app.page.evaluate("(line) => window.pyvfs.shell(line)", script)
        assert (result["stdout"], result["stderr"]) == ("hi UTC-0500 UTC-0400\n", "")
        assert app.page.evaluate(EDIT_JS, "corrupt") == "shipped"
        boot = reboot(app)
        assert (boot["from"], boot["shipped"]) == ("snapshot", "used"), boot
        assert app.page.evaluate(WAIT_STORED_JS, MAKE_TIMEOUT_S * 1000) == "kept"
        assert reboot(app) == {"from": "snapshot", "snapshot": "used", "shipped": "kept"}
    finally:
        context.close()
    assert_no_offsite(app.offsite, "the shipped snapshot's context")


def changed(body: bytes, change: str) -> bytes:
    """The shipped file (web/shared/shipped_snapshot.mjs's layout) with its key naming another
    build, or with Pyodide's snapshot damaged (its magic number)."""
    body = bytearray(body)
    key_length = int.from_bytes(body[8:12], "little")
    if change == "another build":
        body[16:16 + key_length] = body[16:16 + key_length].replace(b"pyodide ", b"pyodidX ", 1)
    else:  # the first stored block is the snapshot's first, which starts with the magic number
        def padded(length: int) -> int:
            return -(-length // 16) * 16

        blocks = -(-int.from_bytes(body[12:16], "little") // 65536)
        body[padded(16 + key_length) + padded(-(-blocks // 8))] ^= 0xFF
    return bytes(body)


@pytest.mark.parametrize("change", ["another build", "damaged"])
def test_a_shipped_snapshot_that_does_not_match_is_refused_and_the_boot_falls_back(
        browser, browser_context_args, change):
    context = browser.new_context(**browser_context_args)
    context.route(SHIPPED, lambda route: route.fulfill(
        body=changed(route.fetch().body(), change), content_type="application/octet-stream"))
    try:
        app = open_app(context)
        boot = app.page.evaluate(BOOT_JS)
        assert boot["from"] == "packages"
        reason = "made for another build" if change == "another build" else "magic number"
        assert boot["shipped"].startswith("refused: ") and reason in boot["shipped"], boot
        assert app.page.evaluate("window.pyvfs.shell('echo ok')")["stdout"] == "ok\n"
    finally:
        context.close()
    assert_no_offsite(app.offsite, "the refused snapshot's context")
