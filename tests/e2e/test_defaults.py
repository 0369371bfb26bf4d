"""Default content in real Chromium on real IndexedDB disks (docs/defaults.md): the files the
build ships in dist/defaults/ appear once on a fresh disk, survive a reload, are not duplicated
when two tabs open the disk at once, never replace a file the user changed, and come back with
`reset --defaults` after the terminal asked y/N."""

from __future__ import annotations

import json

from .conftest import DIST, booted_app, js, open_app, wait_ready

MANIFEST = json.loads((DIST / "defaults" / "manifest.json").read_text())
SHIPPED = {entry["path"]: (DIST / "defaults" / "files" / entry["path"].lstrip("/")).read_text()
           for entry in MANIFEST["files"]}
START_TIMEOUT_MS = 60_000

# What a disk holds of the default content: each shipped file's text (null when missing), the
# layout folders, and the journal's entries by the writer "defaults".
STATE = """
  const [paths] = args;
  const files = {};
  for (const path of paths) {
    files[path] = (await vfs.exists(path)) ? await vfs.readFile(path, "utf8") : null;
  }
  const folders = [];
  for (const path of ["/workspace", "/shared", "/scoops"]) {
    if (await vfs.exists(path) && (await vfs.stat(path)).isDirectory()) folders.push(path);
  }
  const installs = (await vfs.journal({writer: "defaults", limit: 1000})).map((e) => e.operation);
  return {files, folders, installs, shared: await vfs.readdir("/shared")};
"""


def state(page) -> dict:
    return js(page, STATE, list(SHIPPED))


def test_the_build_ships_the_layout_readme_and_a_skill():
    assert "/shared/README.md" in SHIPPED and "/scoops" in SHIPPED["/shared/README.md"]
    assert any(path.startswith("/workspace/skills/") for path in SHIPPED)


def test_a_fresh_disk_gets_the_default_content_once_and_keeps_it_across_a_reload(context):
    """The app page's own disk ("default") in a fresh context: installed on first open, in one
    journal entry; after a reload it is not installed again, and the user's edit of a default
    file stays."""
    session = open_app(context)
    page = session.page
    first = state(page)
    assert first == {"files": SHIPPED, "folders": ["/workspace", "/shared", "/scoops"],
                     "installs": ["defaults"], "shared": ["README.md"]}
    js(page, 'await vfs.writeFile("/shared/README.md", "mine"); return true;')
    page.reload()
    wait_ready(session)
    again = state(page)
    assert again["installs"] == ["defaults"]  # no second install
    assert again["files"] == {**SHIPPED, "/shared/README.md": "mine"}
    assert again["shared"] == ["README.md"]


OPEN_ON_SIGNAL = """
  const [name, ms] = args;
  const go = new BroadcastChannel("defaults-go");
  const signalled = new Promise((resolve, reject) => {
    go.onmessage = resolve;
    setTimeout(() => reject(new Error(`no start signal within ${ms} ms`)), ms);
  });
  window.__opened = (async () => {
    try { await signalled; } finally { go.close(); }
    const { openVFS } = await import("/pyvfs.mjs");
    window.__raced = await openVFS({ name });
    return true;
  })();
  return true;
"""


def test_two_tabs_opening_a_fresh_disk_at_once_install_it_once(tabs):
    """Both tabs boot a worker on the same new disk at the same moment; whichever installs
    first, the other finds its record under the disk's turn and writes nothing."""
    pages = [session.page for session in tabs]
    for page in pages:
        page.evaluate(f"async (args) => {{ {OPEN_ON_SIGNAL} }}",
                      ["defaults-race", START_TIMEOUT_MS])
    pages[0].evaluate("""() => { const go = new BroadcastChannel("defaults-go");
                                 go.postMessage("go"); go.close(); }""")
    for page in pages:
        assert page.evaluate("() => window.__opened") is True
    for page in pages:
        seen = page.evaluate(f"async (args) => {{ const vfs = window.__raced; {STATE} }}",
                             [list(SHIPPED)])
        assert seen["installs"] == ["defaults"], seen
        assert seen["files"] == SHIPPED
        assert seen["shared"] == ["README.md"]


def test_opting_out_opens_an_empty_disk_and_reset_installs_it(app):
    result = js(app, """
      const { openVFS } = await import("/pyvfs.mjs");
      const bare = await openVFS({ name: "defaults-off", defaults: false });
      const empty = await bare.readdir("/");
      let refused;
      try { await bare.reset(); } catch (e) { refused = e.code; }
      const report = await bare.reset({ defaults: true });
      const after = await bare.readdir("/");
      let wrong;
      try { await openVFS({ name: "defaults-x", defaults: "yes" }); } catch (e) { wrong = e.name; }
      return { empty, refused, report, after, wrong };
    """)
    assert result["empty"] == [] and result["refused"] == "EINVAL"
    assert result["report"] == {"version": MANIFEST["version"], "written": sorted(SHIPPED),
                                "kept": []}
    assert result["after"] == ["scoops", "shared", "workspace"]
    assert result["wrong"] == "TypeError"


def test_reset_in_the_terminal_asks_first_and_puts_the_shipped_file_back(app):
    js(app, 'await vfs.writeFile("/shared/README.md", "edited"); return true;')
    scripted = app.evaluate("window.pyvfs.shell('reset --defaults')")
    assert scripted["code"] == 1 and scripted["confirm"] == "reset --defaults --yes"
    assert js(app, 'return await vfs.readFile("/shared/README.md", "utf8");') == "edited"
    terminal = app.locator(".xterm-helper-textarea")
    rows = app.locator(".xterm-rows")
    terminal.focus()
    app.keyboard.type("reset --defaults")
    app.keyboard.press("Enter")
    rows.get_by_text("Proceed? [y/N]").last.wait_for()
    app.keyboard.type("n")
    app.keyboard.press("Enter")
    rows.get_by_text("cancelled", exact=True).last.wait_for()
    assert js(app, 'return await vfs.readFile("/shared/README.md", "utf8");') == "edited"
    app.keyboard.type("reset --defaults")
    app.keyboard.press("Enter")
    rows.get_by_text("Proceed? [y/N]").last.wait_for()
    app.keyboard.type("y")
    app.keyboard.press("Enter")
    rows.get_by_text("restored /shared/README.md", exact=True).last.wait_for()
    assert js(app, 'return await vfs.readFile("/shared/README.md", "utf8");') \
        == SHIPPED["/shared/README.md"]


def test_a_reload_after_reset_does_not_install_again(browser, browser_context_args):
    """Reset is recorded like an install: reopening the disk finds its version and adds
    nothing, so the reset's entry stays the last one by the writer defaults."""
    with booted_app(browser, browser_context_args) as session:
        js(session.page, """await vfs.rm("/workspace/skills", {recursive: true});
                            await vfs.reset({defaults: true}); return true;""")
        before = state(session.page)["installs"]
        session.page.reload()
        wait_ready(session)
        assert state(session.page)["installs"] == before == ["defaults", "defaults"]


# A disk that had an older version of the default content: its record (meta/defaults in the
# disk's IndexedDB database, written here while no worker has it open) names the old shipped
# hashes. /shared/README.md still holds the old default, /workspace/skills/README.md was edited
# by the user, the skill was deleted by the user.
OLD_VERSION = """
  const [name] = args;
  const { openVFS } = await import("/pyvfs.mjs");
  const hex = async (text) => Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
    (byte) => byte.toString(16).padStart(2, "0")).join("");
  const disk = await openVFS({ name });
  await disk.writeFile("/shared/README.md", "old default readme");
  await disk.writeFile("/workspace/skills/README.md", "edited by the user");
  await disk.rm("/workspace/skills/file-notes", { recursive: true });
  await disk.close();
  const record = JSON.stringify({ version: "0000000000000000", files: {
    "/shared/README.md": await hex("old default readme"),
    "/workspace/skills/README.md": await hex("old default skills readme"),
    "/workspace/skills/file-notes/SKILL.md": await hex("old default skill"),
  } });
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open(`pyvfs:${name}`);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  await new Promise((resolve, reject) => {
    const tx = db.transaction("meta", "readwrite");
    tx.objectStore("meta").put(record, "defaults");
    tx.oncomplete = resolve;
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
  db.close();
  return true;
"""


def test_an_upgrade_updates_untouched_defaults_and_keeps_the_users_changes(app):
    assert js(app, OLD_VERSION, "defaults-upgrade") is True
    seen = js(app, f"""{{
      const {{ openVFS }} = await import("/pyvfs.mjs");
      const vfs = await openVFS({{ name: "defaults-upgrade" }});
      {STATE}
    }}""", list(SHIPPED))
    assert seen["files"] == {**SHIPPED, "/workspace/skills/README.md": "edited by the user",
                             "/workspace/skills/file-notes/SKILL.md": None}
    assert seen["installs"] == ["defaults", "defaults"]  # the first install, then the upgrade
