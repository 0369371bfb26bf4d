"""FileHandle, Dir and watch's async iterator in a real page (docs/api.md, "File handles"):
what an acknowledged sync() or close() committed is there after a reload, what was only
pending is not (the file stays as it was, whole); several handles on one file see each other's
writes at once, as on Linux; a write inside a large file commits without changing the chunks
it did not touch; watch without a listener yields Node's events."""

from __future__ import annotations

from .conftest import js, open_app, wait_ready


def test_an_acknowledged_sync_survives_a_reload_and_pending_writes_do_not(browser, base_url):
    context = browser.new_context(base_url=base_url)
    try:
        session = open_app(context)
        page = session.page
        js(page, """
          await vfs.mkdir("/fh", {recursive: true});
          await vfs.writeFile("/fh/synced", "0123456789");
          await vfs.writeFile("/fh/pending", "0123456789");
          const synced = await vfs.open("/fh/synced", "r+");
          await synced.write("AB", 2);
          await synced.sync();
          const pending = await vfs.open("/fh/pending", "r+");
          await pending.write("XY", 2);
          window.keptOpen = [synced, pending];  // never closed: the reload drops them
        """)
        page.reload()
        wait_ready(session)
        assert js(page, """
          const read = (path) => vfs.readFile(path, "utf8");
          return [await read("/fh/synced"), await read("/fh/pending")];
        """) == ["01AB456789", "0123456789"]
    finally:
        context.close()


def test_several_handles_on_one_file_as_on_linux(app):
    assert js(app, """
      await vfs.mkdir("/fh2", {recursive: true});
      await vfs.writeFile("/fh2/f", "hello world");
      const a = await vfs.open("/fh2/f", "r+");
      const b = await vfs.open("/fh2/f", "r");
      const c = await vfs.open("/fh2/f", "a");
      await a.write("J", 0);                       // pending, read at once through b
      const seen = new TextDecoder().decode((await b.read(new Uint8Array(5), 0, 5, 0)).buffer);
      await c.write("!", 0);                       // an append handle writes at the end
      const size = (await b.stat()).size;
      const before = await vfs.readFile("/fh2/f", "utf8");  // the path: as committed
      await a.close();
      const after = await vfs.readFile("/fh2/f", "utf8");
      await b.close(); await c.close();
      let closed;
      try { await b.read(new Uint8Array(1), 0, 1, 0); } catch (e) { closed = [e.code, e.syscall]; }
      return {seen, size, before, after, closed};
    """) == {"seen": "Jello", "size": 12, "before": "hello world", "after": "Jello world!",
             "closed": ["EBADF", "read"]}


def test_a_write_inside_a_large_file_keeps_its_other_chunks(app):
    out = js(app, """
      const size = 3 * 512 * 1024 + 10;
      const body = new Uint8Array(size).map((_, i) => (i * 7) % 251);
      await vfs.writeFile("/fh3", body);
      const h = await vfs.open("/fh3", "r+");
      await h.write(new Uint8Array([1, 2, 3]), 0, 3, 512 * 1024 + 5);
      const mid = Array.from((await h.read(new Uint8Array(3), 0, 3, 512 * 1024 + 5)).buffer);
      await h.close();
      const back = await vfs.readFile("/fh3");
      body.set([1, 2, 3], 512 * 1024 + 5);
      return {mid, same: back.length === body.length && back.every((v, i) => v === body[i]),
              check: (await vfs.check()).ok};
    """)
    assert out == {"mid": [1, 2, 3], "same": True, "check": True}


def test_opendir_and_watch_as_node(app):
    assert js(app, """
      await vfs.mkdir("/fh4/d", {recursive: true});
      await vfs.writeFile("/fh4/d/b", "1");
      await vfs.writeFile("/fh4/d/a", "2");
      const names = [];
      for await (const entry of await vfs.opendir("/fh4/d")) names.push(entry.name);
      const controller = new AbortController();
      const events = vfs.watch("/fh4/d", {signal: controller.signal});
      const got = [];
      const reading = (async () => {
        try {
          for await (const event of events) {
            got.push(event);
            if (got.length === 2) controller.abort();
          }
        } catch (error) { got.push(error.name); }
      })();
      // The watch call is posted before the writes, and the worker takes calls in order.
      await vfs.writeFile("/fh4/d/c", "new");
      await vfs.writeFile("/fh4/d/c", "changed");
      await reading;
      return {names, got};
    """) == {"names": ["a", "b"], "got": [{"eventType": "rename", "filename": "c"},
                                          {"eventType": "change", "filename": "c"},
                                          "AbortError"]}


def test_ino_is_the_files_own_across_renames_rewrites_handles_and_a_reload(browser, base_url):
    """Stats.ino (docs/api.md, "Stats"): not 0, one number per file whoever answers the stat
    (the worker, the page's stat cache after a listing, a handle, Python's os.stat, the early
    reader of a reload), kept when the file is renamed or rewritten, another for another file."""
    context = browser.new_context(base_url=base_url)
    try:
        session = open_app(context)
        page = session.page
        before = js(page, """
          await vfs.mkdir("/ino/d", {recursive: true});
          await vfs.writeFile("/ino/a", "one");
          await vfs.writeFile("/ino/b", "two");
          const ino = async (path, how = "stat") => (await vfs[how](path)).ino;
          const a = await ino("/ino/a");
          await vfs.rename("/ino/a", "/ino/d/moved");
          await vfs.writeFile("/ino/d/moved", "rewritten, longer");
          await vfs.appendFile("/ino/d/moved", "!");
          await vfs.symlink("d/moved", "/ino/link");
          const handle = await vfs.open("/ino/d/moved", "r+");
          await handle.write("R", 0);
          const viaHandle = (await handle.stat()).ino;
          await handle.close();
          await vfs.readdir("/ino/d");  // the listing's stats answer the next stat in the page
          const listed = await ino("/ino/d/moved");
          const python = await vfs.runPython(
            "import os\\nprint(os.stat('/ino/d/moved').st_ino, os.lstat('/ino/link').st_ino)");
          return {a, moved: await ino("/ino/d/moved"), viaHandle, listed, python: python.stdout,
                  b: await ino("/ino/b"), dir: await ino("/ino/d"), root: await ino("/"),
                  link: await ino("/ino/link", "lstat"), through: await ino("/ino/link")};
        """)
        a = before["a"]
        assert isinstance(a, int) and a > 0
        assert before["moved"] == before["viaHandle"] == before["listed"] == before["through"] == a
        assert len({a, before["b"], before["dir"], before["link"], before["root"]}) == 5
        assert before["root"] == 2 and 0 not in (before["b"], before["dir"], before["link"])
        assert before["python"] == f"{a} {before['link']}\n"
        page.reload()
        wait_ready(session)
        after = js(page, """
          const ino = async (path, how = "stat") => (await vfs[how](path)).ino;
          return {moved: await ino("/ino/d/moved"), b: await ino("/ino/b"),
                  link: await ino("/ino/link", "lstat")};
        """)
        assert after == {"moved": a, "b": before["b"], "link": before["link"]}
    finally:
        context.close()


def test_a_handles_text_is_in_every_encoding_of_the_path_calls(app):
    assert js(app, """
      await vfs.mkdir("/fh5", {recursive: true});
      const h = await vfs.open("/fh5/t", "w+");
      await h.write("68656c6c6f", null, "hex");
      await h.write("IQ==", null, "base64");
      await h.writeFile("h\\u00e9", "latin1");
      await h.appendFile("\\u2603", {encoding: "utf16le"});
      const back = async (encoding) => {
        const r = await vfs.open("/fh5/t", "r");
        try { return await r.readFile({encoding}); } finally { await r.close(); }
      };
      await h.sync();
      const out = {hex: await back("hex"), base64: await back("base64"),
                   path: await vfs.readFile("/fh5/t", "hex")};
      try { await h.readFile("nope"); } catch (e) { out.refused = [e.code, e.message]; }
      await h.close();
      return out;
    """) == {"hex": "68656c6c6f2168e90326", "base64": "aGVsbG8haOkDJg==",
             "path": "68656c6c6f2168e90326",
             "refused": ["ERR_INVALID_ARG_VALUE",
                         "The argument 'encoding' is invalid encoding. Received 'nope'"]}
