"""The JS API of the default VFS (`await window.pyvfs.ready`) in real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import BOOT_TIMEOUT_MS
from .console_errors import expect_failed_load


def js(page, body: str, *args):
    """Run an async function body with `vfs` bound to the default VFS's JS API."""
    return page.evaluate(f"async (args) => {{ const vfs = await window.pyvfs.ready; {body} }}",
                         list(args))


def js_error(page, body: str) -> dict:
    return js(page, f"""
      try {{ {body}; return null; }}
      catch (e) {{ return {{isError: e instanceof Error, code: e.code, path: e.path,
                          syscall: e.syscall, message: e.message}}; }}""")


def test_write_read_text_and_bytes(app):
    assert js(app, """
      await vfs.mkdir("/api/dir", {recursive: true});
      await vfs.writeFile("/api/dir/t.txt", "héllo");
      await vfs.writeFile("/api/dir/b.bin", new Uint8Array([0, 1, 254, 255]));
      const text = await vfs.readFile("/api/dir/t.txt", "utf8");
      const bytes = await vfs.readFile("/api/dir/b.bin");
      return [text, bytes instanceof Uint8Array, Array.from(bytes)];
    """) == ["héllo", True, [0, 1, 254, 255]]


def test_readdir_and_stat(app):
    result = js(app, """
      await vfs.mkdir("/api2/sub", {recursive: true});
      await vfs.writeFile("/api2/a.txt", "12345");
      const names = await vfs.readdir("/api2");
      const dirents = (await vfs.readdir("/api2", {withFileTypes: true}))
        .map((d) => [d.name, d.isFile(), d.isDirectory()]);
      const s = await vfs.stat("/api2/a.txt");
      const d = await vfs.stat("/api2/sub");
      return {names, dirents, size: s.size, isFile: s.isFile(), isDir: d.isDirectory(),
              perm: s.mode & 0o777, fresh: Math.abs(Date.now() - s.mtimeMs) < 600000};
    """)
    assert result == {"names": ["a.txt", "sub"],
                      "dirents": [["a.txt", True, False], ["sub", False, True]],
                      "size": 5, "isFile": True, "isDir": True, "perm": 0o644, "fresh": True}


def test_rm_recursive_and_force(app):
    assert js(app, """
      await vfs.mkdir("/api3/x/y", {recursive: true});
      await vfs.writeFile("/api3/x/y/z.txt", "z");
      await vfs.rm("/api3/x", {recursive: true});
      await vfs.rm("/api3/never", {force: true});
      return await vfs.readdir("/api3");
    """) == []


@pytest.mark.parametrize(("body", "code", "syscall", "path"), [
    ('await vfs.readFile("/api4/missing")', "ENOENT", "open", "/api4/missing"),
    ('await vfs.readdir("/api4/file")', "ENOTDIR", "scandir", "/api4/file"),
    ('await vfs.mkdir("/api4")', "EEXIST", "mkdir", "/api4"),
    ('await vfs.readFile("/api4")', "EISDIR", "read", None),  # Node's read(2) names no path
    ('await vfs.rm("/api4")', "EISDIR", "rm", "/api4"),
    ('await vfs.stat("/api4/file/x")', "ENOTDIR", "stat", "/api4/file/x"),
])
def test_errors_have_code_and_path(app, body, code, syscall, path):
    js(app, 'await vfs.mkdir("/api4", {recursive: true}); await vfs.writeFile("/api4/file", "f");')
    error = js_error(app, body)
    assert error["isError"] is True
    assert (error["code"], error["syscall"], error["path"]) == (code, syscall, path)
    assert error["message"].startswith(f"{code}: ")
    assert error["message"].endswith(f"{syscall} '{path}'" if path else f", {syscall}")


def test_a_failed_call_changes_nothing(app):
    assert js(app, """
      await vfs.mkdir("/api5", {recursive: true});
      await vfs.writeFile("/api5/file", "keep");
      try { await vfs.writeFile("/api5/file/child", "x"); } catch (e) {}
      return [await vfs.readdir("/api5"), await vfs.readFile("/api5/file", "utf8")];
    """) == [["file"], "keep"]


def test_calls_in_flight_at_once_all_land(app):
    assert js(app, """
      await vfs.mkdir("/api6");
      await Promise.all(Array.from({length: 50}, (_, i) =>
        vfs.writeFile(`/api6/f${String(i).padStart(2, "0")}`, String(i))));
      const names = await vfs.readdir("/api6");
      const texts = await Promise.all(names.map((n) => vfs.readFile(`/api6/${n}`, "utf8")));
      return [names.length, texts.map(Number).reduce((a, b) => a + b, 0)];
    """) == [50, sum(range(50))]


# Another page of the origin that is not the app: it imports dist/pyvfs.mjs and opens the VFS
# "default" in a worker of its own (its own Python, its own caches), bounded by `ms`.
EMBEDDED_READ_JS = """async ([path, ms]) => {
  const { openVFS } = await import("/pyvfs.mjs");
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`openVFS did not boot within ${ms} ms`)), ms);
  });
  try {
    const vfs = await Promise.race([openVFS({ name: "default", snapshot: "off" }), late]);
    try {
      return [typeof window.pyvfs, await vfs.readFile(path, "utf8")];
    } finally {
      await vfs.close();
    }
  } finally {
    clearTimeout(timer);
  }
}"""


@expect_failed_load(r"/embedding-page-test", 404, reason="the 404 page stands for a non-app page")
def test_embeddable_module_gives_the_same_disk(app_session):
    """A page that is not the app imports dist/pyvfs.mjs and sees what the app wrote: read
    through a VFS worker of its own, so only the disk (IndexedDB) connects the two."""
    js(app_session.page, 'await vfs.mkdir("/api7", {recursive: true}); '
                         'await vfs.writeFile("/api7/shared.txt", "from app");')
    other = app_session.context.new_page()
    try:
        other.goto("/embedding-page-test")  # the server's 404 page: same origin, no app
        assert other.evaluate(EMBEDDED_READ_JS, ["/api7/shared.txt", BOOT_TIMEOUT_MS]) == [
            "undefined", "from app"]
    finally:
        other.close()


def test_search_from_js(app):
    result = js(app, """
      await vfs.mkdir("/api8/src/b", {recursive: true});
      await vfs.writeFile("/api8/src/a.py", "print('hi')\\n");
      await vfs.writeFile("/api8/src/b/c.py", "x = 'HI'\\n");
      await vfs.writeFile("/api8/src/n.txt", "nothing\\n");
      const grep = await vfs.grep("hi", "/api8", {ignoreCase: true, include: "*.py"});
      return {
        glob: await vfs.glob("/api8/**/*.py"),
        find: (await vfs.find("/api8", "src/*")).map((e) => [e.path, e.type]),
        ls: await vfs.ls("/api8/src/b"),
        grep: grep.matches.map((m) => [m.path, m.line, m.text]),
      };
    """)
    assert result == {
        "glob": ["/api8/src/a.py", "/api8/src/b/c.py"],
        "find": [["/api8/src/a.py", "file"], ["/api8/src/b", "directory"],
                 ["/api8/src/n.txt", "file"]],
        "ls": ["/api8/src/b/c.py"],
        "grep": [["/api8/src/a.py", 1, "print('hi')"], ["/api8/src/b/c.py", 1, "x = 'HI'"]],
    }


def test_a_large_write_leaves_the_callers_buffer_and_stores_sound_chunks(app):
    # Over 64 KiB the page transfers a copy of the bytes; over a chunk the worker hashes them
    # with WebCrypto: the caller keeps its buffer, and fsck finds every chunk under its sha256.
    result = js(app, """
      const data = new Uint8Array(3 * 512 * 1024 + 9);
      for (let j = 0; j < data.length; j++) data[j] = (j * 7 + (j >> 9)) & 255;
      const view = data.subarray(3, data.length - 1);
      await vfs.mkdir("/api7", {recursive: true});
      await vfs.writeFile("/api7/big", view);
      await vfs.writeFile("/api7/small", new Float32Array([1.5, 2.5]));
      const back = await vfs.readFile("/api7/big");
      const same = back.length === view.length && back.every((b, i) => b === view[i]);
      const small = Array.from(new Float32Array((await vfs.readFile("/api7/small")).buffer));
      const report = await vfs.check();
      return {same, kept: [data.byteLength, view.byteLength], small, ok: report.ok,
              problems: report.problems};
    """)
    assert result == {"same": True, "kept": [3 * 512 * 1024 + 9, 3 * 512 * 1024 + 5],
                      "small": [1.5, 2.5], "ok": True, "problems": []}


def test_every_method_of_the_api_object_is_documented(app):
    """docs/api.md documents every export of pyvfs.mjs and every method of the real object
    openVFS() gives (enumerated in the browser, so a new method cannot go undocumented)."""
    names = js(app, """
      const module = await import("/pyvfs.mjs");
      const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(vfs))
        .filter((name) => name !== "constructor" && typeof vfs[name] === "function");
      return [...Object.keys(module), ...methods];
    """)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    headings = [line for line in doc.splitlines() if line.startswith("#")]
    missing = [name for name in names
               if not any(f"`{name}(" in line or f"`{name}`" in line for line in headings)]
    assert len(names) > 40
    assert missing == []


def test_a_call_without_its_path_rejects_in_the_page_as_node_does(app):
    """isomorphic-git probes fs.readFile() with no argument: it must reject with Node's
    TypeError, without a round trip to the worker and without a console error (the fixture
    fails the test on any)."""
    result = js(app, """
      const before = (await vfs.diagnostics()).calls;
      const outcomes = [];
      for (const call of [() => vfs.readFile(), () => vfs.stat(5), () => vfs.writeFile("/x", 5),
                          () => vfs.rename("/a"), () => vfs.mkdir("/m", {recursive: "yes"})]) {
        try { await call(); outcomes.push("resolved"); }
        catch (e) { outcomes.push([e instanceof TypeError, e.code]); }
      }
      const after = (await vfs.diagnostics()).calls;
      return {outcomes, sent: after - before - 1};
    """)
    assert result == {"outcomes": [[True, "ERR_INVALID_ARG_TYPE"]] * 5, "sent": 0}


def test_options_we_cannot_honour_are_refused_and_flags_we_can_work(app):
    result = js(app, """
      const C = {EXCL: 1, FICLONE: 2, FICLONE_FORCE: 4};  // node:fs constants
      const code = async (call) => {
        try { await call(); return "ok"; } catch (e) { return e.code; }
      };
      await vfs.mkdir("/api9", {recursive: true});
      await vfs.writeFile("/api9/a", "A");
      await vfs.writeFile("/api9/b", "B");
      await vfs.writeFile("/api9/b", "+", {flag: "a"});
      return {
        excl: await code(() => vfs.copyFile("/api9/a", "/api9/b", C.EXCL)),
        b: await vfs.readFile("/api9/b", "utf8"),
        exclNew: await code(() => vfs.copyFile("/api9/a", "/api9/c", C.EXCL)),
        force: await code(() => vfs.copyFile("/api9/a", "/api9/d", C.FICLONE_FORCE)),
        clone: await code(() => vfs.copyFile("/api9/a", "/api9/e", C.FICLONE)),
        names: await vfs.readdir("/api9"),
        wx: await code(() => vfs.writeFile("/api9/a", "x", {flag: "wx"})),
        hex: await vfs.readFile("/api9/a", "hex"),
        unknown: await code(() => vfs.mkdir("/api9/m", {recursive: true, bogus: 1})),
        latin1: await vfs.readFile("/api9/a", "latin1"),
      };
    """)
    assert result == {"excl": "EEXIST", "b": "B+", "exclNew": "ok", "force": "ENOTSUP",
                      "clone": "ok", "names": ["a", "b", "c", "e"],
                      "wx": "EEXIST", "hex": "41",
                      "unknown": "ERR_INVALID_ARG_VALUE", "latin1": "A"}


def test_query_answers_read_only_sql_over_the_disk(app):
    result = js(app, """
      await vfs.mkdir("/q/src", {recursive: true});
      await vfs.writeFile("/q/src/a.py", "print(1)\\n");
      await vfs.writeFile("/q/b.txt", "hello");
      const june = Date.UTC(2026, 5, 1) / 1000;
      await vfs.utimes("/q/b.txt", june, june);
      const bytes = await vfs.query(
        "SELECT dir, sum(size) FROM files WHERE path LIKE '/q/%' GROUP BY dir ORDER BY 2 DESC");
      const since = await vfs.query(
        "SELECT path FROM files WHERE path LIKE ? AND mtime > '2026-06-09'", ["/q/%.%"]);
      let refused;
      try { await vfs.query("DELETE FROM files"); } catch (e) { refused = e.code; }
      return {bytes, since: since.rows.map((r) => r[0]).sort(), refused,
              still: await vfs.readFile("/q/b.txt", "utf8")};
    """)
    assert result["bytes"] == {"columns": ["dir", "sum(size)"],
                               "rows": [["/q/src", 9], ["/q", 5]], "truncated": False}
    assert result["since"] == ["/q/src/a.py"]
    assert result["refused"] == "EACCES" and result["still"] == "hello"
