"""dist/pyvfs.mjs embedded in a page that is not the app: boots on first use, reports progress."""

from __future__ import annotations

import pytest

from .console_errors import expect_failed_load


@expect_failed_load(r"/embedding-page-test", 404, reason="the page is the server's 404 page")
def test_a_foreign_page_opens_its_own_named_vfs(page, offsite_requests):
    # Any same-origin document will do; the server's 404 page is one the app never touches.
    page.goto("/embedding-page-test")
    result = page.evaluate("""async () => {
      const { openVFS } = await import("/pyvfs.mjs");
      const stages = [];
      // No chunk cache: every read of a chunked file goes to IndexedDB (counted by the store's
      // diagnostics); a.txt is inline in its record and reads none.
      const vfs = await openVFS({ name: "embedded", cacheBytes: 0,
                                  onProgress: (p) => stages.push(p.stage) });
      await vfs.mkdir("/notes");
      await vfs.writeFile("/notes/a.txt", "mine");
      await vfs.writeFile("/big.bin", new Uint8Array(3000)); // > INLINE_MAX: one chunk
      let error = null;
      try { await vfs.readFile("/notes/missing.txt"); }
      catch (e) { error = { code: e.code, path: e.path }; }
      const before = (await vfs.diagnostics()).reads.chunks;
      await vfs.readFile("/notes/a.txt");
      await vfs.readFile("/big.bin");
      await vfs.readFile("/big.bin");
      const uncached = (await vfs.diagnostics()).reads.chunks - before;
      const again = await openVFS({ name: "embedded" });
      return { stages, same: again === vfs, text: await vfs.readFile("/notes/a.txt", "utf8"),
               error, names: await vfs.readdir("/notes"), app: typeof window.pyvfs, uncached,
               boot: (await vfs.diagnostics()).boot };
    }""")
    # flush waits for the calls made before it; close waits too, then stops the worker, and the
    # name opens again on the same disk.
    after = page.evaluate("""async () => {
      const { openVFS } = await import("/pyvfs.mjs");
      const vfs = await openVFS({ name: "embedded" });
      await vfs.mkdir("/many");
      const writes = Array.from({ length: 20 }, (_, i) => vfs.writeFile(`/many/${i}`, String(i)));
      let settled = 0;
      writes.forEach((w) => w.then(() => settled++));
      await vfs.flush();
      const afterFlush = settled;
      vfs.writeFile("/last.txt", "kept");
      await vfs.close();
      let closed = null;
      try { await vfs.readdir("/"); } catch (e) { closed = e.code; }
      const reopened = await openVFS({ name: "embedded" });
      return { afterFlush, closed, fresh: reopened !== vfs,
               last: await reopened.readFile("/last.txt", "utf8"),
               many: (await reopened.readdir("/many")).length };
    }""")
    assert after == {"afterFlush": 20, "closed": "EBADF", "fresh": True, "last": "kept",
                     "many": 20}
    assert result["stages"][0] == "download"
    assert result["stages"][-1] == "ready"
    # A first visit restores the runtime snapshot the build shipped (docs/boot.md), or, from
    # a build that shipped none, starts Python from its packages.
    if result["boot"]["shipped"] == "used":
        assert result["boot"]["from"] == "snapshot" and "disk" in result["stages"]
    else:
        assert {"compile", "python", "install", "disk"} <= set(result["stages"])
    assert result["same"] is True
    assert result["text"] == "mine"
    assert result["error"] == {"code": "ENOENT", "path": "/notes/missing.txt"}
    assert result["names"] == ["a.txt"]
    assert result["app"] == "undefined"
    assert result["uncached"] == 2
    databases = page.evaluate("async () => (await indexedDB.databases()).map((d) => d.name)")
    assert "pyvfs:embedded" in databases
    assert "pyvfs:default" not in databases



@expect_failed_load(r"/embedding-page-test", 404, reason="the page is the server's 404 page")
def test_strict_durability_reaches_the_commits_and_a_write_persists(page):
    page.goto("/embedding-page-test")
    opened = page.evaluate("""async () => {
      const { openVFS } = await import("/pyvfs.mjs");
      let refused = null;
      try { await openVFS({ name: "sometimes", durability: "sometimes" }); }
      catch (e) { refused = e.name; }
      const strict = await openVFS({ name: "strict", durability: "strict" });
      await strict.writeFile("/kept.txt", "written strictly");
      await strict.writeFile("/big.bin", new Uint8Array(3000).fill(7)); // chunked: two stores
      const plain = await openVFS({ name: "plain" });
      await plain.writeFile("/a.txt", "a");
      return { refused, strict: (await strict.diagnostics()).durability,
               plain: (await plain.diagnostics()).durability };
    }""")
    # lastCommit is IDBTransaction.durability of the last commit as the browser reports it:
    # "default" when none was asked (checked on Chromium 156.0.8078.79).
    assert opened == {"refused": "TypeError",
                      "strict": {"asked": "strict", "lastCommit": "strict"},
                      "plain": {"asked": "default", "lastCommit": "default"}}
    page.reload()  # ends the page's workers: what was acknowledged is read back from IndexedDB
    again = page.evaluate("""async () => {
      const { openVFS } = await import("/pyvfs.mjs");
      const strict = await openVFS({ name: "strict", durability: "strict" });
      const big = await strict.readFile("/big.bin");
      return { text: await strict.readFile("/kept.txt", "utf8"), big: [big.length, big[2999]],
               asked: (await strict.diagnostics()).durability.asked };
    }""")
    assert again == {"text": "written strictly", "big": [3000, 7], "asked": "strict"}


@expect_failed_load(r"/embedding-page-test", 404, reason="the page is the server's 404 page")
@pytest.mark.expect_console(r"Framing 'http://127\.0\.0\.1:9/' violates the following",
                            reason="the page's policy frames only the configured preview origin")
def test_a_bad_preview_origin_is_refused_and_an_unreachable_one_does_not_hold_the_disk(page):
    page.goto("/embedding-page-test")
    got = page.evaluate("""async () => {
      const { openVFS } = await import("/pyvfs.mjs");
      const refusals = [];
      for (const previewOrigin of ["not a url", "ftp://127.0.0.1/"]) {
        try { await openVFS({ name: "bad-preview", previewOrigin }); refusals.push("opened"); }
        catch (e) { refusals.push(`${e.name}: ${e.message}`); }
      }
      // Nothing listens on port 9: the relay frame never answers. The disk works all the same.
      const vfs = await openVFS({ name: "relayless", previewOrigin: "http://127.0.0.1:9" });
      await vfs.writeFile("/a.txt", "written");
      return { refusals, read: await vfs.readFile("/a.txt", "utf8") };
    }""")
    assert got == {
        "refusals": ["TypeError: openVFS: previewOrigin must be an http(s) URL, not not a url",
                     "TypeError: openVFS: previewOrigin must be http: or https:, not ftp:"],
        "read": "written"}
