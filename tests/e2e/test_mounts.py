"""Mounted folders in real Chromium, with OPFS directory handles as the folders the user picks.

One booted page for the module (`mount_app`), whose init script (HELPERS) makes
`window.__pickDirectory` answer the OPFS folder named by `window.__pickName`, gives the tests
`window.__folders` to make, change and read folders through the handles directly, and wraps the
handles' permission methods: a folder whose name is listed in localStorage "pyvfs-test-deny"
answers queryPermission with "prompt" until requestPermission is called (OPFS itself is always
granted). Every result through the VFS is checked against the handles themselves. Each test
uses its own folder and mount path.
"""

from __future__ import annotations

import pytest

from .conftest import OWN_RUNTIME, booted_app, open_app, poll_page, sh, wait_ready
from .test_js_api import js, js_error

HELPERS = """
window.__pickName = "picked";
window.__pickDirectory = async () =>
  (await navigator.storage.getDirectory()).getDirectoryHandle(window.__pickName, {create: true});

window.__folders = {
  async fresh(name) {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry(name, {recursive: true}).catch(() => {});
    return root.getDirectoryHandle(name, {create: true});
  },
  async open(name) {
    return (await navigator.storage.getDirectory()).getDirectoryHandle(name);
  },
  async dirOf(dir, path, create = false) {
    for (const name of path.split("/").filter(Boolean)) {
      dir = await dir.getDirectoryHandle(name, {create});
    }
    return dir;
  },
  async write(dir, path, data) {
    const names = path.split("/");
    const parent = await this.dirOf(dir, names.slice(0, -1).join("/"), true);
    const file = await parent.getFileHandle(names.at(-1), {create: true});
    const writable = await file.createWritable();
    await writable.write(data);
    await writable.close();
  },
  async file(dir, path) {
    const names = path.split("/");
    const parent = await this.dirOf(dir, names.slice(0, -1).join("/"));
    return (await parent.getFileHandle(names.at(-1))).getFile();
  },
  async text(dir, path) {
    return (await this.file(dir, path)).text();
  },
  async exists(dir, path) {
    const names = path.split("/");
    try {
      const parent = await this.dirOf(dir, names.slice(0, -1).join("/"));
      for await (const name of parent.keys()) if (name === names.at(-1)) return true;
    } catch {}
    return false;
  },
  // Every entry below `dir`: "path/" for a directory, "path:size" for a file, sorted.
  async tree(dir, prefix = "") {
    const found = [];
    for await (const [name, handle] of dir.entries()) {
      if (handle.kind === "directory") {
        found.push(`${prefix}${name}/`, ...await this.tree(handle, `${prefix}${name}/`));
      } else {
        found.push(`${prefix}${name}:${(await handle.getFile()).size}`);
      }
    }
    return found.sort();
  },
};

// The context's blank pages (about:blank) have no File System Access API: nothing to patch.
if (typeof FileSystemHandle !== "undefined") {
  const denied = () => new Set(JSON.parse(localStorage.getItem("pyvfs-test-deny") || "[]"));
  const query = FileSystemHandle.prototype.queryPermission;
  FileSystemHandle.prototype.queryPermission = function (options) {
    return denied().has(this.name) ? Promise.resolve("prompt") : query.call(this, options);
  };
  const request = FileSystemHandle.prototype.requestPermission;
  FileSystemHandle.prototype.requestPermission = function (options) {
    const names = denied();
    if (!names.has(this.name)) return request.call(this, options);
    names.delete(this.name);
    localStorage.setItem("pyvfs-test-deny", JSON.stringify([...names]));
    window.__permissionRequests = (window.__permissionRequests || 0) + 1;
    return Promise.resolve("granted");
  };
}
"""

# `F` is window.__folders, `dir` the test's fresh folder (args[0] names it).
WITH_FOLDER = "const F = window.__folders; const dir = await F.fresh(args[0]);"


@pytest.fixture(scope="module")
def mount_session(browser, browser_context_args):
    with booted_app(browser, browser_context_args, HELPERS) as session:
        yield session


@pytest.fixture(scope="module")
def app(mount_session):
    return mount_session.page


def ok(page, line: str) -> str:
    result = sh(page, line)
    assert result["code"] == 0 and result["stderr"] == "", result
    return result["stdout"]


# ---------------------------------------------------------------- the file API under a mount


def test_reads_and_metadata_match_the_handle(app):
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "a.txt", "alpha");
      await F.write(dir, "sub/b.txt", "beta!");
      await F.write(dir, "sub/deeper/c.bin", new Uint8Array([0, 1, 2, 255]));
      const info = await vfs.mount("/mnt/reads", dir);
      const file = await F.file(dir, "sub/b.txt");
      const stat = await vfs.stat("/mnt/reads/sub/b.txt");
      const lstat = await vfs.lstat("/mnt/reads/a.txt");
      const root = await vfs.stat("/mnt/reads");
      return {
        info,
        names: await vfs.readdir("/mnt/reads"),
        typed: (await vfs.readdir("/mnt/reads/sub", {withFileTypes: true}))
          .map((d) => [d.name, d.isFile(), d.isDirectory()]),
        stat: [stat.isFile(), stat.size, stat.mtimeMs, stat.mode & 0o777],
        handle: [file.size, file.lastModified],
        lstat: [lstat.isFile(), lstat.size],
        root: root.isDirectory(),
        text: await vfs.readFile("/mnt/reads/sub/b.txt", "utf8"),
        bytes: Array.from(await vfs.readFile("/mnt/reads/sub/deeper/c.bin")),
        exists: [await vfs.exists("/mnt/reads/a.txt"), await vfs.exists("/mnt/reads/nope")],
        realpath: await vfs.realpath("/mnt/reads/sub/../a.txt"),
        walk: await vfs.walk("/mnt/reads"),
        du: await vfs.du("/mnt/reads"),
        ls: await vfs.ls("/mnt/reads/sub"),
        find: await vfs.find("/mnt/reads", "**/*.txt"),
        glob: await vfs.glob("/mnt/reads/*/*.txt"),
        grep: (await vfs.grep("a", "/mnt/reads")).matches.map((m) => m.path),
        tree: await F.tree(dir),
      };
    """, "reads")
    assert result["info"] == {"path": "/mnt/reads", "name": "reads", "readOnly": False,
                              "state": "active"}
    assert result["names"] == ["a.txt", "sub"]
    assert result["typed"] == [["b.txt", True, False], ["deeper", False, True]]
    assert result["stat"][:2] == [True, 5] and result["stat"][3] == 0o644
    assert result["stat"][1:3] == result["handle"]
    assert result["lstat"] == [True, 5] and result["root"] is True
    assert result["text"] == "beta!" and result["bytes"] == [0, 1, 2, 255]
    assert result["exists"] == [True, False]
    assert result["realpath"] == "/mnt/reads/a.txt"
    files = [p.split(":")[0] for p in result["tree"] if not p.endswith("/")]
    assert result["walk"] == ["/mnt/reads/" + p for p in files]
    assert result["du"] == sum(int(p.split(":")[1]) for p in result["tree"] if ":" in p)
    assert result["ls"] == ["/mnt/reads/sub/b.txt", "/mnt/reads/sub/deeper/c.bin"]
    assert [f["path"] for f in result["find"]] == ["/mnt/reads/a.txt", "/mnt/reads/sub/b.txt"]
    assert result["glob"] == ["/mnt/reads/sub/b.txt"]
    assert result["grep"] == ["/mnt/reads/a.txt", "/mnt/reads/sub/b.txt"]


def test_writes_land_in_the_folder(app):
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "keep.txt", "keep");
      await vfs.mount("/mnt/writes", dir);
      await vfs.mkdir("/mnt/writes/new/deep", {recursive: true});
      await vfs.writeFile("/mnt/writes/new/deep/n.txt", "new");
      await vfs.appendFile("/mnt/writes/keep.txt", "+more");
      await vfs.writeFile("/mnt/writes/t.txt", "0123456789");
      await vfs.truncate("/mnt/writes/t.txt", 4);
      await vfs.mkdir("/mnt/writes/made/x", {recursive: true});
      await vfs.mkdir("/mnt/writes/made/y");
      await vfs.rename("/mnt/writes/new/deep/n.txt", "/mnt/writes/made/n.txt");
      await vfs.rename("/mnt/writes/new", "/mnt/writes/renamed");
      await vfs.copyFile("/mnt/writes/keep.txt", "/mnt/writes/made/copy.txt");
      await vfs.cp("/mnt/writes/made", "/mnt/writes/made2", {recursive: true});
      await vfs.rm("/mnt/writes/made/x", {recursive: true});
      await vfs.rmdir("/mnt/writes/made/y");
      await vfs.unlink("/mnt/writes/made2/copy.txt");
      return {
        tree: await F.tree(dir),
        keep: await F.text(dir, "keep.txt"),
        t: await F.text(dir, "t.txt"),
        moved: await F.text(dir, "made/n.txt"),
      };
    """, "writes")
    assert result["tree"] == [
        "keep.txt:9", "made/", "made/copy.txt:9", "made/n.txt:3", "made2/", "made2/n.txt:3",
        "made2/x/", "made2/y/", "renamed/", "renamed/deep/", "t.txt:4"]
    assert (result["keep"], result["t"], result["moved"]) == ("keep+more", "0123", "new")


def test_renames_onto_existing_names_ask_if_they_are_one_entry(app):
    # Before replacing, the mount asks the folder whether both names are one entry
    # (web/worker/fsa.mjs sameEntry: FileSystemHandle.isSameEntry), as "a" and "A" are on a
    # case-insensitive host;
    # in OPFS they are two entries, so these renames replace, and "x" -> "X" is a plain rename.
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "old.txt", "old");
      await F.write(dir, "new.txt", "replaced");
      await dir.getDirectoryHandle("empty", {create: true});
      await F.write(dir, "tree/f", "f");
      await F.write(dir, "x", "case");
      await vfs.mount("/mnt/same", dir);
      await vfs.rename("/mnt/same/old.txt", "/mnt/same/new.txt");
      await vfs.rename("/mnt/same/tree", "/mnt/same/empty");
      await vfs.rename("/mnt/same/x", "/mnt/same/X");
      return { tree: await F.tree(dir), text: await F.text(dir, "new.txt") };
    """, "same")
    assert result["tree"] == ["X:4", "empty/", "empty/f:1", "new.txt:3"]
    assert result["text"] == "old"


def test_errors_under_a_mount_are_posix_codes(app):
    js(app, WITH_FOLDER + """
      await F.write(dir, "f.txt", "f");
      await F.write(dir, "full/x", "x");
      await vfs.mount("/mnt/errors", dir);
    """, "errors")
    cases = {
        "ENOENT": 'await vfs.readFile("/mnt/errors/missing")',
        "ENOTDIR": 'await vfs.readdir("/mnt/errors/f.txt")',
        "EISDIR": 'await vfs.readFile("/mnt/errors/full")',
        "EEXIST": 'await vfs.mkdir("/mnt/errors/full")',
        "ENOTEMPTY": 'await vfs.rmdir("/mnt/errors/full")',
        "EINVAL": 'await vfs.rename("/mnt/errors/full", "/mnt/errors/full/inside")',
        "EPERM": 'await vfs.symlink("f.txt", "/mnt/errors/link")',
    }
    for code, call in cases.items():
        error = js_error(app, call)
        assert error and error["code"] == code, (call, error)
    assert js_error(app, 'await vfs.stat("/mnt/errors/f.txt/")')["code"] == "ENOTDIR"


def test_large_files_stream_through_the_folder(app):
    result = js(app, WITH_FOLDER + """
      const MiB = 1024 * 1024, total = 3 * MiB + 7;
      const byte = (k) => (k * 31 + 7) & 255;
      let sent = 0;
      const source = new ReadableStream({pull(c) {
        if (sent >= total) { c.close(); return; }
        const n = Math.min(300000, total - sent), piece = new Uint8Array(n);
        for (let k = 0; k < n; k++) piece[k] = byte(sent + k);
        sent += n; c.enqueue(piece);
      }});
      await vfs.mount("/mnt/big", dir);
      await vfs.writeFile("/mnt/big/file.bin", source);
      const check = (bytes, from) => bytes.every((b, k) => b === byte(from + k));
      const whole = new Uint8Array(await (await F.file(dir, "file.bin")).arrayBuffer());
      let read = 0, good = true, pieces = 0, largest = 0;
      for await (const piece of vfs.createReadStream("/mnt/big/file.bin")) {
        good = good && check(piece, read); read += piece.length; pieces++;
        largest = Math.max(largest, piece.length);
      }
      const range = new Uint8Array(await new Response(
        vfs.createReadStream("/mnt/big/file.bin", {start: MiB - 3, end: MiB + 3})).arrayBuffer());
      return {size: whole.length, handleOk: check(whole, 0), read, good, pieces, largest,
              range: range.length, rangeOk: check(range, MiB - 3),
              stat: (await vfs.stat("/mnt/big/file.bin")).size};
    """, "big")
    assert result == {"size": 3 * 2**20 + 7, "handleOk": True, "read": 3 * 2**20 + 7,
                      "good": True, "pieces": 7, "largest": 512 * 1024, "range": 7,
                      "rangeOk": True, "stat": 3 * 2**20 + 7}


def test_changes_made_through_the_handle_show_at_once(app):
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "note.txt", "v1");
      await vfs.mount("/mnt/live", dir);
      const before = [await vfs.readFile("/mnt/live/note.txt", "utf8"),
                      await vfs.readdir("/mnt/live")];
      await F.write(dir, "note.txt", "version 2");
      await F.write(dir, "added/a.txt", "a");
      const after = [await vfs.readFile("/mnt/live/note.txt", "utf8"),
                     (await vfs.stat("/mnt/live/note.txt")).size,
                     await vfs.readdir("/mnt/live"), await vfs.walk("/mnt/live")];
      await dir.removeEntry("added", {recursive: true});
      const gone = [await vfs.exists("/mnt/live/added/a.txt"), await vfs.readdir("/mnt/live")];
      await F.write(dir, "added/b.txt", "b");
      const again = await vfs.readdir("/mnt/live/added");
      await dir.removeEntry("added", {recursive: true});
      await F.write(dir, "added", "now a file");
      let through;
      try { await vfs.stat("/mnt/live/added/b.txt"); } catch (e) { through = e.code; }
      return {before, after, gone, again, through};
    """, "live")
    assert result["before"] == ["v1", ["note.txt"]]
    assert result["after"] == ["version 2", 9, ["added", "note.txt"],
                               ["/mnt/live/added/a.txt", "/mnt/live/note.txt"]]
    assert result["gone"] == [False, ["note.txt"]]
    assert result["again"] == ["b.txt"] and result["through"] == "ENOTDIR"


def test_walks_from_the_disk_descend_into_mounts(app):
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "src/app.js", "const needle = 1;\\n");
      await vfs.mkdir("/outer");
      await vfs.writeFile("/outer/readme.txt", "needle on the disk\\n");
      await vfs.mount("/outer/inner/proj", dir);
      return {walk: await vfs.walk("/outer"), du: await vfs.du("/outer"),
              find: (await vfs.find("/outer", "**/*.js")).map((f) => f.path),
              grep: (await vfs.grep("needle", "/outer")).matches.map((m) => [m.path, m.line]),
              shell: await window.pyvfs.shell("ls /outer/inner/proj/src")};
    """, "walked")
    assert result["walk"] == ["/outer/inner/proj/src/app.js", "/outer/readme.txt"]
    assert result["du"] == len("const needle = 1;\n") + len("needle on the disk\n")
    assert result["find"] == ["/outer/inner/proj/src/app.js"]
    assert result["grep"] == [["/outer/inner/proj/src/app.js", 1], ["/outer/readme.txt", 1]]
    assert result["shell"]["stdout"] == "app.js\n"


def test_touch_moves_the_mtime_and_a_file_in_use_is_busy(app):
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "t.txt", "touch me");
      await vfs.mount("/mnt/touch", dir);
      const before = (await F.file(dir, "t.txt")).lastModified;
      await new Promise((r) => setTimeout(r, 20));
      await window.pyvfs.shell("touch /mnt/touch/t.txt");
      const after = await F.file(dir, "t.txt");
      const stat = await vfs.stat("/mnt/touch/t.txt");
      const text = await after.text();
      await new Promise((r) => setTimeout(r, 20));
      await vfs.appendFile("/mnt/touch/t.txt", "!");
      const appended = await F.file(dir, "t.txt");
      const writable = await (await dir.getFileHandle("t.txt")).createWritable();
      let busy;
      try { await vfs.rm("/mnt/touch/t.txt"); } catch (e) { busy = e.code; }
      await writable.abort();
      return {moved: after.lastModified > before, same: stat.mtimeMs === after.lastModified,
              text, appendMoved: appended.lastModified > after.lastModified,
              appended: await appended.text(), busy};
    """, "touch")
    # "busy": Chromium refuses to remove an OPFS file with an open writable, which the mount
    # reports as EBUSY (checked on Chromium 156.0.8078.79).
    assert result == {"moved": True, "same": True, "text": "touch me", "appendMoved": True,
                      "appended": "touch me!", "busy": "EBUSY"}


def test_sync_calls_in_flight_together_all_answer(app):
    """Many synchronous calls reaching the folder at once: each is repeated as a promising
    call in the worker (JSPI), while others interleave."""
    result = js(app, WITH_FOLDER + """
      for (let i = 0; i < 10; i++) await F.write(dir, `f${i}.txt`, "x".repeat(i));
      await vfs.mount("/mnt/many", dir);
      await vfs.writeFile("/disk-many.txt", "disk");
      const calls = [];
      for (let i = 0; i < 10; i++) {
        calls.push(vfs.stat(`/mnt/many/f${i}.txt`).then((s) => s.size));
        calls.push(vfs.stat("/disk-many.txt").then((s) => s.size));
        calls.push(vfs.readdir("/mnt/many").then((names) => names.length));
      }
      return Promise.all(calls);
    """, "many")
    assert result == [v for i in range(10) for v in (i, 4, 10)]


# ---------------------------------------------------------------- the boundary


def test_rename_across_is_exdev_and_mv_copies_then_removes(app):
    error = js(app, WITH_FOLDER + """
      await F.write(dir, "inside/i.txt", "inside");
      await vfs.mount("/mnt/cross", dir);
      await vfs.mkdir("/cross-disk/tree/sub", {recursive: true});
      await vfs.writeFile("/cross-disk/tree/sub/t.txt", "tree");
      try { await vfs.rename("/cross-disk/tree", "/mnt/cross/tree"); return null; }
      catch (e) { return [e.code, e.syscall, e.path, e.dest]; }
    """, "cross")
    assert error == ["EXDEV", "rename", "/cross-disk/tree", "/mnt/cross/tree"]
    ok(app, "mv /cross-disk/tree /mnt/cross/ && mv /mnt/cross/inside /cross-disk/")
    result = js(app, """
      const dir = await window.__folders.open("cross");
      return [await window.__folders.tree(dir), await vfs.walk("/cross-disk"),
              await vfs.readFile("/cross-disk/inside/i.txt", "utf8")];
    """)
    assert result == [["tree/", "tree/sub/", "tree/sub/t.txt:4"],
                      ["/cross-disk/inside/i.txt"], "inside"]


def test_mount_refusals(app):
    js(app, WITH_FOLDER + """
      await vfs.mount("/mnt/taken", dir);
      await vfs.mkdir("/not-empty");
      await vfs.writeFile("/not-empty/f", "f");
    """, "taken")
    mount_fresh = 'await vfs.mount("{}", await window.__folders.fresh("{}"))'
    assert js_error(app, mount_fresh.format("/mnt/taken", "taken2"))["code"] == "EEXIST"
    assert js_error(app, mount_fresh.format("/not-empty", "taken3"))["code"] == "ENOTEMPTY"
    assert js_error(app, 'await vfs.rm("/mnt/taken", {recursive: true})')["code"] == "EBUSY"
    assert js_error(app, 'await vfs.rm("/mnt", {recursive: true})')["code"] == "EBUSY"
    assert js_error(app, 'await vfs.rename("/mnt/taken", "/moved")')["code"] == "EBUSY"
    assert js_error(app, 'await vfs.unmount("/mnt")')["code"] == "EINVAL"


def test_read_only_mount_refuses_writes(app):
    js(app, WITH_FOLDER + """
      await F.write(dir, "r.txt", "read me");
      await vfs.mount("/mnt/ro", dir, {readOnly: true});
    """, "ro")
    for call in ('await vfs.writeFile("/mnt/ro/w.txt", "w")',
                 'await vfs.appendFile("/mnt/ro/r.txt", "w")',
                 'await vfs.mkdir("/mnt/ro/d")', 'await vfs.rm("/mnt/ro/r.txt")',
                 'await vfs.rename("/mnt/ro/r.txt", "/mnt/ro/s.txt")'):
        assert js_error(app, call)["code"] == "EROFS", call
    result = js(app, """
      const dir = await window.__folders.open("ro");
      return [await vfs.readFile("/mnt/ro/r.txt", "utf8"), (await vfs.mounts())
                .find((m) => m.path === "/mnt/ro"), await window.__folders.tree(dir),
              (await vfs.stat("/mnt/ro/r.txt")).mode & 0o777];
    """)
    assert result == ["read me", {"path": "/mnt/ro", "name": "ro", "readOnly": True,
                                  "state": "active"}, ["r.txt:7"], 0o444]


def test_unmount_leaves_the_folder_and_an_empty_directory(app):
    result = js(app, WITH_FOLDER + """
      await F.write(dir, "stays.txt", "stays");
      await vfs.mount("/mnt/gone", dir);
      const info = await vfs.unmount("/mnt/gone");
      return [info.path, await vfs.readdir("/mnt/gone"), await F.tree(dir),
              (await vfs.mounts()).some((m) => m.path === "/mnt/gone")];
    """, "gone")
    assert result == ["/mnt/gone", [], ["stays.txt:5"], False]


def test_mounting_a_large_folder_reads_nothing(app):
    """The issue's "a folder of 100,000 files mounts at once": mounting touches no handle; the
    first listing lists the folder once; a stat looks up one name."""
    result = js(app, WITH_FOLDER + """
      const writes = [];
      for (let i = 0; i < 5000; i++) writes.push(dir.getFileHandle(`f${i}.txt`, {create: true}));
      await Promise.all(writes);
      const before = await vfs.fsaCounters();
      await vfs.mount("/mnt/huge", dir);
      const mounted = await vfs.fsaCounters();
      const one = await vfs.stat("/mnt/huge/f4999.txt");
      const stat = await vfs.fsaCounters();
      const names = await vfs.readdir("/mnt/huge");
      const listed = await vfs.fsaCounters();
      const delta = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - a[k]]));
      return {mount: delta(before, mounted), stat: delta(mounted, stat),
              readdir: delta(stat, listed), count: names.length, size: one.size};
    """, "huge")
    assert result["mount"] == {k: 0 for k in result["mount"]}
    assert result["stat"]["listed"] == 0 and result["stat"]["lookups"] <= 2
    assert result["readdir"]["listings"] == 1 and result["readdir"]["listed"] == 5000
    assert result["readdir"]["files"] == 0  # names only: no getFile per file
    assert (result["count"], result["size"]) == (5000, 0)


# ---------------------------------------------------------------- shell, preview


def test_shell_mount_commands(app):
    app.evaluate("window.__folders.fresh('shell-picked')")
    app.evaluate("window.__pickName = 'shell-picked'")
    assert ok(app, "mount /mnt/sh") == "mounted 'shell-picked' at /mnt/sh (read-write)\n"
    ok(app, "cd /mnt/sh && echo hello > h.txt && mkdir d && cp h.txt d/ && cd /")
    assert ok(app, "ls /mnt/sh") == "d\nh.txt\n"
    rows = [line.split() for line in ok(app, "mount").splitlines()]
    assert ["/mnt/sh", "shell-picked", "read-write", "active"] in rows
    assert [line.split() for line in ok(app, "mount list").splitlines()] == rows
    assert ok(app, "mount reconnect /mnt/sh") == "reconnected 'shell-picked' at /mnt/sh\n"
    assert ok(app, "mount --read-only /mnt/sh-ro").endswith("(read-only)\n")
    denied = sh(app, "touch /mnt/sh-ro/x")
    assert denied["code"] == 1 and "Read-only file system" in denied["stderr"]
    busy = sh(app, "rm -r /mnt/sh")
    assert busy["code"] == 1 and "busy" in busy["stderr"]
    ok(app, "umount /mnt/sh-ro && mount unmount /mnt/sh")
    assert not {"/mnt/sh", "/mnt/sh-ro"} & {line.split()[0] for line in
                                           ok(app, "mount").splitlines()}
    tree = app.evaluate("""async () => window.__folders.tree(
        await window.__folders.open('shell-picked'))""")
    assert tree == ["d/", "d/h.txt:6", "h.txt:6"]
    failed = sh(app, "mount /mnt/sh2 /some/folder")
    assert failed["code"] == 2 and "picked, not named" in failed["stderr"]


def test_preview_serves_a_mounted_site(app, mount_session):
    js(app, WITH_FOLDER + """
      await F.write(dir, "index.html",
        '<h1>mounted</h1><link rel="stylesheet" href="style.css">');
      await F.write(dir, "style.css", "h1 { color: rgb(0, 128, 0) }");
      await vfs.mount("/mnt/site", dir);
    """, "site")
    tab = mount_session.context.new_page()
    tab.goto(app.evaluate("async () => (await window.pyvfs.ready).previewUrl('/mnt/site/')"))
    assert tab.inner_text("h1") == "mounted"
    assert tab.evaluate("getComputedStyle(document.querySelector('h1')).color") == \
        "rgb(0, 128, 0)"
    js(app, """await window.__folders.write(await window.__folders.open("site"), "style.css",
                                            "h1 { color: rgb(0, 0, 255) }")""")
    tab.reload()
    assert tab.evaluate("getComputedStyle(document.querySelector('h1')).color") == \
        "rgb(0, 0, 255)"
    tab.close()


def test_a_folder_mounted_in_one_tab_is_mounted_in_every_tab(app, mount_session):
    """One disk, one namespace: the tabs of a disk share its runtime (openVFS's default), whose
    Python holds the mounts, as one machine holds its mounts for every program. The other tab
    (open before the mount) lists it active and reads and writes below it at once; a folder it
    mounts is the first tab's too; an unmount in either frees the directory in both."""
    other = open_app(mount_session.context)
    try:
        assert js(other.page, "return (await vfs.diagnostics()).runtime.role;") == "guest"
        js(app, WITH_FOLDER + """
          await F.write(dir, "a.txt", "A");
          await vfs.mount("/mnt/shared", dir);
        """, "shared")
        seen = js(other.page, """
          const mounts = (await vfs.mounts()).filter((m) => m.path === "/mnt/shared");
          const text = await vfs.readFile("/mnt/shared/a.txt", "utf8");
          await vfs.writeFile("/mnt/shared/b.txt", "B");
          const codes = [];
          for (const call of [() => vfs.rmdir("/mnt/shared"),
                              () => vfs.rm("/mnt", {recursive: true})]) {
            try { await call(); codes.push("ok"); } catch (e) { codes.push(e.code); }
          }
          return {mounts, text, codes};
        """)
        assert seen == {"mounts": [{"path": "/mnt/shared", "name": "shared", "readOnly": False,
                                    "state": "active"}],
                        "text": "A", "codes": ["EBUSY", "EBUSY"]}
        assert js(app, """const F = window.__folders; const dir = await F.open("shared");
                          return [await F.text(dir, "b.txt"),
                                  await vfs.readFile("/mnt/shared/b.txt", "utf8")];""") == \
            ["B", "B"]
        js(other.page, WITH_FOLDER + """
          await F.write(dir, "g.txt", "G");
          await vfs.mount("/mnt/from-guest", dir);
        """, "from-guest")
        assert js(app, 'return await vfs.readFile("/mnt/from-guest/g.txt", "utf8");') == "G"
        js(app, 'await vfs.unmount("/mnt/from-guest");')
        js(other.page, 'await vfs.unmount("/mnt/shared");')
        assert js(app, "return (await vfs.mounts()).map((m) => m.path).filter("
                       "(p) => p === '/mnt/shared' || p === '/mnt/from-guest');") == []
        js(app, 'await vfs.writeFile("/mnt/shared/disk.txt", "disk");')
        assert js(other.page, """return [await vfs.readFile("/mnt/shared/disk.txt", "utf8"),
                                         await window.__folders.exists(
                                             await window.__folders.open("shared"),
                                             "disk.txt")];""") == ["disk", False]
    finally:
        other.page.close()


@pytest.mark.timeout(600)  # two boots of a Python each, in a context of their own
def test_with_runtimes_of_their_own_a_tab_opened_before_the_mount_cannot_write_below_it(
        browser, browser_context_args):
    """Tabs that each run a Python of their own (runtime "own"): the mount point is disk
    state, so the other tab (open before the mount) refuses writes below it and offers the
    mount as waiting; reconnect attaches the folder kept by the first tab, and unmount in the
    first tab frees the directory in both."""
    with booted_app(browser, browser_context_args, HELPERS + OWN_RUNTIME) as first:
        tabs_with_their_own_runtimes(first)


def tabs_with_their_own_runtimes(first) -> None:
    """The body of the test above, `first` its first tab."""
    app = first.page
    other = open_app(first.context)
    try:
        assert [js(page, "return (await vfs.diagnostics()).runtime.role;")
                for page in (app, other.page)] == ["own", "own"]
        js(app, WITH_FOLDER + """
          await F.write(dir, "a.txt", "A");
          await vfs.mount("/mnt/shared", dir);
        """, "shared")
        refused = js(other.page, """
          const codes = [];
          for (const call of [() => vfs.writeFile("/mnt/shared/b.txt", "lost"),
                              () => vfs.rmdir("/mnt/shared"),
                              () => vfs.rm("/mnt", {recursive: true})]) {
            try { await call(); codes.push("ok"); } catch (e) { codes.push(e.code); }
          }
          return {codes, mounts: (await vfs.mounts()).filter((m) => m.path === "/mnt/shared")};
        """)
        assert refused["codes"][0] == "EACCES"
        assert refused["codes"][1] in ("EBUSY", "EACCES") and refused["codes"][2] == "EBUSY"
        assert refused["mounts"] == [{"path": "/mnt/shared", "name": "shared", "readOnly": False,
                                      "state": "waiting"}]
        js(other.page, """
          await vfs.reconnect("/mnt/shared");
          await vfs.writeFile("/mnt/shared/b.txt", "B");
        """)
        assert js(app, """const F = window.__folders; const dir = await F.open("shared");
                          return [await F.text(dir, "a.txt"), await F.text(dir, "b.txt"),
                                  await vfs.readFile("/mnt/shared/b.txt", "utf8")];""") == \
            ["A", "B", "B"]
        js(app, 'await vfs.unmount("/mnt/shared");')
        poll_page(other.page, "window.pyvfs.ready.then((v) => v.mounts()).then((m) => "
                  "!m.some((x) => x.path === '/mnt/shared'))", "the unmount to reach the tab")
        js(other.page, 'await vfs.writeFile("/mnt/shared/disk.txt", "disk");')
        # Reads in a tab may lag another tab's writes by one broadcast (docs/architecture.md,
        # "Several tabs"): wait until this tab has caught up.
        poll_page(app, "window.pyvfs.ready.then((v) => v.exists('/mnt/shared/disk.txt'))",
                  "the other tab's write to reach this tab")
        assert js(app, """return [await vfs.readFile("/mnt/shared/disk.txt", "utf8"),
                                  await window.__folders.exists(
                                      await window.__folders.open("shared"), "disk.txt")];""") \
            == ["disk", False]
    finally:
        other.page.close()


# ---------------------------------------------------------------- persistence (last: reloads)


def test_mounts_survive_a_reload_and_waiting_ones_reconnect(app, mount_session):
    js(app, """
      const F = window.__folders;
      await F.write(await F.fresh("kept"), "k.txt", "kept");
      await F.write(await F.fresh("asks"), "a.txt", "asks");
      await F.fresh("dropped");
      await vfs.mount("/mnt/kept", await F.open("kept"));
      await vfs.mount("/mnt/asks", await F.open("asks"));
      await vfs.mount("/mnt/dropped", await F.open("dropped"));
      await vfs.unmount("/mnt/dropped");
      localStorage.setItem("pyvfs-test-deny", JSON.stringify(["asks"]));
    """)
    app.reload()
    wait_ready(mount_session)
    result = js(app, """
      const states = Object.fromEntries((await vfs.mounts()).map((m) => [m.path, m.state]));
      let denied;
      try { await vfs.readdir("/mnt/asks"); } catch (e) { denied = [e.code, e.message]; }
      return {states, kept: await vfs.readFile("/mnt/kept/k.txt", "utf8"), denied};
    """)
    assert result["states"]["/mnt/kept"] == "active"
    assert result["states"]["/mnt/asks"] == "waiting"
    assert "/mnt/dropped" not in result["states"]
    assert result["kept"] == "kept"
    assert result["denied"][0] == "EACCES" and "mount reconnect /mnt/asks" in result["denied"][1]
    app.wait_for_selector('#mounts button[data-path="/mnt/asks"]')
    app.click('#mounts button[data-path="/mnt/asks"]')
    poll_page(app, "document.getElementById('mounts').hidden", "the mounts bar to hide")
    after = js(app, """
      return [window.__permissionRequests, await vfs.readFile("/mnt/asks/a.txt", "utf8"),
              (await vfs.mounts()).find((m) => m.path === "/mnt/asks").state];
    """)
    assert after == [1, "asks", "active"]
