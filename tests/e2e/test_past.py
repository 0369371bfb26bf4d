"""``vfs.at(state)`` in real Chromium: the disk as it was, read from one tab after another tab
made the edits, then restored and found in the journal (what the workbench's timeline does)."""

from __future__ import annotations

from .conftest import js


def test_three_edits_by_two_writers_read_back_at_the_first_then_restored(tabs):
    first, second = tabs
    revisions = js(first.page, """
      const agent = vfs.as("agent:past");
      await vfs.mkdir("/past", {recursive: true});
      const revisions = [];
      for (const [who, text] of [[vfs, "one"], [agent, "two"], [vfs, "three"]]) {
        await who.writeFile("/past/notes.md", text);
        revisions.push((await vfs.journal({path: "/past/notes.md", limit: 1}))[0].revision);
      }
      await vfs.rename("/past/notes.md", "/past/moved.md");
      return revisions;
    """)
    seen = js(second.page, """
      const [firstRev, secondRev] = args[0];
      const then = vfs.at({revision: firstRev});
      const entries = await then.readdir("/past", {withFileTypes: true});
      const stats = await then.stat("/past/notes.md");
      let missing;
      try { await then.readFile("/past/moved.md"); } catch (e) {
        missing = [e.code, e.syscall, e.path, e instanceof Error];
      }
      let bad;
      try { await vfs.at({revision: 10 ** 9}).readdir("/"); } catch (e) { bad = e.code; }
      const view = await vfs.restrict({read: ["/past"]});
      let refused;
      try { await view.at(firstRev).readdir("/past"); } catch (e) { refused = e.code; }
      return {
        text: await then.readFile("/past/notes.md", "utf8"),
        second: await vfs.at(secondRev).readFile("/past/notes.md", {encoding: "utf8"}),
        names: await then.readdir("/past"),
        entries: entries.map((e) => [e.name, e.isFile(), e.parentPath]),
        stats: [stats.isFile(), stats.size, stats.mtime instanceof Date],
        exists: [await then.exists("/past/notes.md"), await then.exists("/past/moved.md")],
        now: await vfs.readFile("/past/moved.md", "utf8"),
        missing, bad, refused,
      };
    """, revisions)
    assert seen == {
        "text": "one", "second": "two", "names": ["notes.md"],
        "entries": [["notes.md", True, "/past"]], "stats": [True, 3, True],
        "exists": [True, False], "now": "three",
        "missing": ["ENOENT", "open", "/past/moved.md", True], "bad": "EINVAL",
        "refused": "EACCES",
    }
    restored = js(second.page, """
      const done = await vfs.restore({revision: args[0][0]}, {path: "/past"});
      const last = (await vfs.journal({limit: 1}))[0];
      return {text: await vfs.readFile("/past/notes.md", "utf8"),
              movedStillThere: await vfs.exists("/past/moved.md"),
              journal: [last.revision === done.revision, last.operation]};
    """, revisions)
    assert restored == {"text": "one", "movedStillThere": False, "journal": [True, "restore"]}
