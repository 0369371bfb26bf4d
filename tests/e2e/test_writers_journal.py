"""Writers, the journal, snapshots, diff and restore through the JS API (real Chromium): two
tabs on one disk, so what one tab's writers did is read back by the other."""

from __future__ import annotations

from .conftest import js, wait_ready


def test_two_writers_in_one_page_are_told_apart_in_another_tab(tabs):
    first, second = tabs
    made = js(first.page, """
      const a = vfs.as("agent:a"), b = vfs.as("agent:b");
      await a.mkdir("/w", {recursive: true});
      await a.writeFile("/w/a.txt", "from a");
      await b.writeFile("/w/b.txt", "from b");
      await b.step(async (tx) => { await tx.writeFile("/w/b2.txt", "step of b"); });
      await vfs.writeFile("/w/user.txt", "from the default writer");
      let bad;
      try { vfs.as(" padded "); } catch (e) { bad = e.code; }
      const { openVFS } = await import("/pyvfs.mjs");
      const named = await openVFS({ writer: "agent:c" });
      await named.writeFile("/w/c.txt", "from c");
      await vfs.shell("echo hi > /w/sh.txt");  // the page's shell writes as "shell"
      return {writers: [a.writer, b.writer, vfs.writer, named.writer], bad};
    """)
    assert made == {"writers": ["agent:a", "agent:b", "user", "agent:c"],
                    "bad": "ERR_INVALID_ARG_VALUE"}
    seen = js(second.page, """
      const rows = (await vfs.query(
        "SELECT path, writer FROM files WHERE path LIKE '/w/%' ORDER BY path")).rows;
      const byB = await vfs.journal({writer: "agent:b"});
      return {rows, byB: byB.map((e) => [e.writer, e.paths.filter((p) => p !== "/w")])};
    """)
    assert seen["rows"] == [["/w/a.txt", "agent:a"], ["/w/b.txt", "agent:b"],
                            ["/w/b2.txt", "agent:b"], ["/w/c.txt", "agent:c"],
                            ["/w/sh.txt", "shell"], ["/w/user.txt", "user"]]
    assert seen["byB"] == [["agent:b", ["/w/b2.txt"]], ["agent:b", ["/w/b.txt"]]]


def test_a_snapshot_is_restored_after_a_reload_and_diff_sees_a_rename(tabs):
    first, _ = tabs
    taken = js(first.page, """
      await vfs.mkdir("/s", {recursive: true});
      await vfs.writeFile("/s/keep.txt", "v1");
      await vfs.writeFile("/s/old.txt", "renamed later");
      const snap = await vfs.snapshot("before");
      await vfs.writeFile("/s/keep.txt", "v2, changed");
      await vfs.rename("/s/old.txt", "/s/new.txt");
      await vfs.writeFile("/s/added.txt", "new");
      const diff = (await vfs.diff("before")).filter((c) => c.path.startsWith("/s/"));
      let taken;
      try { await vfs.snapshot("before"); } catch (e) { taken = e.code; }
      return {name: snap.name, taken,
              diff: diff.map((c) => [c.change, c.path, c.oldPath ?? null]).sort()};
    """)
    assert taken == {"name": "before", "taken": "EEXIST", "diff": [
        ["added", "/s/added.txt", None], ["modified", "/s/keep.txt", None],
        ["renamed", "/s/new.txt", "/s/old.txt"]]}
    first.page.reload()
    wait_ready(first)
    back = js(first.page, """
      const names = (await vfs.snapshots()).map((s) => s.name);
      const done = await vfs.restore("before", {path: "/s"});
      const tree = {};
      for (const name of await vfs.readdir("/s")) {
        tree[name] = await vfs.readFile(`/s/${name}`, "utf8");
      }
      const last = (await vfs.journal({limit: 1}))[0];
      await vfs.deleteSnapshot("before");
      return {names, tree, revision: done.revision === last.revision, op: last.operation,
              left: (await vfs.snapshots()).map((s) => s.name)};
    """)
    assert back == {"names": ["before"], "tree": {"keep.txt": "v1", "old.txt": "renamed later"},
                    "revision": True, "op": "restore", "left": []}


def test_restore_by_revision_and_before_a_time(tabs):
    first, _ = tabs
    result = js(first.page, """
      await vfs.mkdir("/r", {recursive: true});
      await vfs.writeFile("/r/f.txt", "one");
      const at = (await vfs.journal({limit: 1, path: "/r/f.txt"}))[0];
      await vfs.writeFile("/r/f.txt", "two");
      await vfs.restore({revision: at.revision}, {path: "/r"});
      const byRevision = await vfs.readFile("/r/f.txt", "utf8");
      await vfs.restore({before: new Date(at.timeMs + 1)}, {path: "/r"});
      const changes = await vfs.diff({revision: at.revision});
      let bad;
      try { await vfs.restore([1]); } catch (e) { bad = e.code; }
      return {byRevision, still: await vfs.readFile("/r/f.txt", "utf8"), bad,
              changes: changes.filter((c) => c.path.startsWith("/r/"))};
    """)
    assert result == {"byRevision": "one", "still": "one", "bad": "ERR_INVALID_ARG_TYPE",
                      "changes": []}
