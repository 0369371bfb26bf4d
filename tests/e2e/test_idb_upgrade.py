"""An IndexedDB disk of an older format upgraded in real Chromium while a tab of the old version
still has it open (docs/storage.md, "Format version and migration"; tests/pyodide covers the
same upgrade on fake-indexeddb, which has no second tab and no real versionchange).

The old disk is built with raw IndexedDB calls, in the layout web/worker/idb_store.mjs's upgrade
path reads: format 1 is the object stores nodes, chunks, meta (database version 1); format 2
adds the log store and meta/rev (version 2); format 3 keeps that layout (its small files may be
inline; a chunked one still reads); format 4 adds the names store, directory entries (version 4),
which database version 5 keeps, adding the pending store (docs/storage.md, "Pending writes").
Small files here are one chunk named by their record. The
page that built it keeps its connection, with the handler every older IDBStore installed
(``db.onversionchange = () => db.close()``), as an app tab left open from before the deploy. The
current app (format 4, database version 5) then boots in another tab: the old tab is told
(versionchange) and closes, so the upgrade is not blocked; the data is all there, the upgrade
filled the ``names`` store (directory entries) from the nodes, exactly (the app's fsck checks
every entry), and the old code can no longer open it. Last, a version-6 open stands for the next
deploy: the app's own IDBStore must step aside the same way.
"""

from __future__ import annotations

import pytest

from .conftest import NO_SNAPSHOT, assert_no_offsite, open_app, record_offsite

CHUNK = 512 * 1024
BIG_SIZE = CHUNK + 75_000
SMALL_TEXT = "written by an older format\n"

# In a page of the app's origin that is not the app: writes the old disk, keeps it open.
OLD_TAB_JS = """async ([version, chunkSize, bigSize, smallText]) => {
  const hex = async (bytes) => Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
    (b) => b.toString(16).padStart(2, "0")).join("");
  const small = new TextEncoder().encode(smallText);
  const big = Uint8Array.from({ length: bigSize }, (_, i) => (i * 7 + (i >> 12)) & 255);
  const pieces = [big.slice(0, chunkSize), big.slice(chunkSize)];
  const chunks = [[await hex(small), small], ...await Promise.all(
    pieces.map(async (piece) => [await hex(piece), piece]))];
  const node = (parent, name, kind, mode, extra = {}) => JSON.stringify(
    { parent, name, kind, mode, mtime: 1e12, ctime: 1e12, atime: 1e12, size: 0, ...extra });
  const spaces = ["nodes", "chunks", "meta", ...(version >= 2 ? ["log"] : []),
                  ...(version >= 4 ? ["names"] : [])];
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open("pyvfs:default", version);
    req.onupgradeneeded = () => {
      for (const space of spaces) req.result.createObjectStore(space);
      const tx = req.transaction;
      const nodes = tx.objectStore("nodes");
      nodes.put(node(null, "", "directory", 0o755), "root");
      nodes.put(node("root", "docs", "directory", 0o755), "d0c5000000000001");
      nodes.put(node("d0c5000000000001", "small.txt", "file", 0o644,
                     { size: small.length, chunks: [chunks[0][0]] }), "5a11000000000002");
      const bigChunks = [chunks[1][0], chunks[2][0]];
      nodes.put(node("d0c5000000000001", "big.bin", "file", 0o600,
                     { size: big.length, chunks: bigChunks }), "b16b000000000003");
      for (const [key, bytes] of chunks) tx.objectStore("chunks").put(bytes, key);
      if (version >= 4) {
        const names = tx.objectStore("names");
        names.put("d0c5000000000001", "root/docs");
        names.put("5a11000000000002", "d0c5000000000001/small.txt");
        names.put("b16b000000000003", "d0c5000000000001/big.bin");
      }
      tx.objectStore("meta").put(String(version), "format");
      if (version >= 2) tx.objectStore("meta").put("0", "rev");
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error("blocked"));
  });
  window.__old = db;
  window.__versionchange = null;
  db.onversionchange = (event) => {
    window.__versionchange = [event.oldVersion, event.newVersion];
    db.close();
  };
  return db.version;
}"""

# In the app, after the upgrade: what the disk holds, read through the JS API.
APP_JS = """async ([chunkSize, bigSize]) => {
  const vfs = await window.pyvfs.ready;
  const big = await vfs.readFile("/docs/big.bin");
  let wrong = big.length === bigSize ? 0 : -1;
  for (let i = 0; i < big.length; i++) if (big[i] !== ((i * 7 + (i >> 12)) & 255)) wrong++;
  const before = await vfs.check();
  await vfs.appendFile("/docs/small.txt", "and appended by format 4\\n");
  await vfs.writeFile("/docs/new.txt", "new");
  const after = await vfs.check();
  return {
    names: await vfs.readdir("/docs"), wrong,
    modes: [(await vfs.stat("/docs/big.bin")).mode & 0o777,
            (await vfs.stat("/docs/small.txt")).mode & 0o777],
    small: await vfs.readFile("/docs/small.txt", "utf8"),
    problems: [...before.problems, ...after.problems],
    chunksBefore: before.chunks, chunksAfter: after.chunks,
    reclaimable: after.reclaimableChunks, history: after.historyChunks,
  };
}"""

# In the old tab, once the app booted: what happened to its connection, and to the old code.
OLD_AFTER_JS = """async (version) => {
  let closed;
  try { window.__old.transaction("nodes"); closed = "still open"; }
  catch (error) { closed = error.name; }
  const reopen = await new Promise((resolve) => {
    const req = indexedDB.open("pyvfs:default", version);
    req.onsuccess = () => { req.result.close(); resolve("opened"); };
    req.onerror = () => resolve(req.error.name);
  });
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open("pyvfs:default");
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const format = await new Promise((resolve) => {
    const get = db.transaction("meta").objectStore("meta").get("format");
    get.onsuccess = () => resolve(get.result);
  });
  const state = { versionchange: window.__versionchange, closed, reopen, version: db.version,
                  stores: [...db.objectStoreNames].sort(), format };
  db.close();
  return state;
}"""

# The next deploy's upgrade, with the current app open: its IDBStore must close on versionchange
# (web/worker/idb_store.mjs), so this open is not blocked. Bounded: a blocked open never settles.
FUTURE_JS = """async () => {
  const blocked = [];
  const outcome = await new Promise((resolve) => {
    const req = indexedDB.open("pyvfs:default", 6);
    req.onblocked = () => blocked.push(true);
    req.onsuccess = () => { req.result.close(); resolve("opened"); };
    req.onerror = () => resolve(req.error.name);
    setTimeout(() => resolve("still waiting after 10 s"), 10000);
  });
  return { outcome, blocked: blocked.length > 0 };
}"""


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_an_old_format_disk_upgrades_while_an_old_tab_has_it_open(browser, base_url, version):
    context = browser.new_context(base_url=base_url)
    context.add_init_script(NO_SNAPSHOT)
    offsite = record_offsite(context, [])
    try:
        old = context.new_page()
        old.goto("/manifest.json")  # the app's origin, not the app: nothing else opens the disk
        assert old.evaluate(OLD_TAB_JS, [version, CHUNK, BIG_SIZE, SMALL_TEXT]) == version

        app = open_app(context).page  # blocked forever (boot timeout) if the old tab held on
        got = app.evaluate(APP_JS, [CHUNK, BIG_SIZE])
        assert got["names"] == ["big.bin", "new.txt", "small.txt"]
        assert got["wrong"] == 0 and got["modes"] == [0o600, 0o644]
        assert got["small"] == SMALL_TEXT + "and appended by format 4\n"
        assert got["problems"] == []
        # The small file is inline now: its old chunk is no file's any more, but the journal
        # holds it (time travel), so it is not reclaimable; the big file's chunks stay.
        assert (got["chunksBefore"], got["chunksAfter"], got["reclaimable"],
                got["history"]) == (3, 2, 0, 1)

        assert old.evaluate(OLD_AFTER_JS, version) == {
            "versionchange": [version, 5],  # told, with the versions, and it closed
            "closed": "InvalidStateError",
            "reopen": "VersionError",  # the old code cannot open the upgraded disk
            "version": 5, "stores": ["chunks", "log", "meta", "names", "nodes", "pending"],
            "format": "4",
        }
        # The same promise, kept by the current code for the deploy after it.
        assert old.evaluate(FUTURE_JS) == {"outcome": "opened", "blocked": False}
    finally:
        context.close()
    assert_no_offsite(offsite, "the upgrade context")
