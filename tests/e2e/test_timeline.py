"""The app page's History and Storage panels (issue 33) in real Chromium, driven as a person
would: clicks and keys on the page, the disk checked through the API.

History (web/app/timeline.mjs, past_view.mjs): three edits of one file by two writers, the
first one picked on the timeline, its content seen read only, diffed against now, restored, and
the restore found on the timeline; filters by path and writer; the same flow by keyboard only;
a file name made of HTML shown as text. Storage (web/app/usage_panel.mjs): the figures match
`vfs.usage()` and the largest folders `vfs.query`, and follow a write. axe-core, loaded from
node_modules, finds no serious or critical violation with both panels open.

One booted page for the module (`app`); each test works in its own folder and sets the panels'
filters itself.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import ROOT, js, poll_page, workbench_started

WAIT_MS = 60_000
HISTORY = "#history-body"
OPTIONS = "#history-body [role=option]"
# The rows that are journal entries; a snapshot's marker row (.tl-marker) is not one. A
# snapshot made by one test of the module shows in the others' filtered lists.
CHANGES = f"{OPTIONS}:not(.tl-marker)"


def edit_three_times(page, path: str, texts: list[str]) -> list[int]:
    """Writes `texts` into `path` in turn, the second as agent:x: the revisions, oldest first."""
    return js(page, """
      const [path, texts] = args;
      const agent = vfs.as("agent:x");
      // The first write makes its folder in the same commit (a step): one entry per edit.
      const folder = path.slice(0, path.lastIndexOf("/"));
      for (const [i, text] of texts.entries()) {
        const who = i === 1 ? agent : vfs;
        if (i > 0) await who.writeFile(path, text);
        else await who.step(async (tx) => {
          await tx.mkdir(folder, {recursive: true});
          await tx.writeFile(path, text);
        });
      }
      return (await vfs.journal({path, limit: texts.length})).map((e) => e.revision).reverse();
    """, path, texts)


def open_history(page, path: str = "", writer: str = "") -> None:
    """Shows the side panel's History tab (if hidden), filters it by `path` and `writer`, and
    waits until the filter's changes are listed."""
    show_history_tab(page)
    page.fill(f"{HISTORY} input[name=path]", path)
    page.fill(f"{HISTORY} input[name=writer]", writer)
    page.click(f"{HISTORY} button[type=submit]")
    expect(page.locator(f"{HISTORY} .tl-status")).to_have_attribute("data-state", "done",
                                                                     timeout=WAIT_MS)


def show_history_tab(page) -> None:
    """Clicks the side panel's History tab when its panel is hidden (once the workbench has
    started: a click before is lost), and waits for the panel's form, or shows what the panel
    says instead (its module failed to load)."""
    workbench_started(page)
    if page.evaluate("document.getElementById('history-panel').hidden"):
        page.click("#side-history")
    poll_page(page, f"document.querySelector('{HISTORY} input[name=path]') !== null",
              "the History panel's form", WAIT_MS,
              show=f"document.querySelector('{HISTORY}').innerText")


def option(page, revision: int):
    return page.get_by_role("option", name=re.compile(rf"^r{revision} "))


def read(page, path: str) -> str:
    return js(page, "return vfs.readFile(args[0], 'utf8');", path)


def test_pick_the_first_edit_see_it_diff_it_restore_it_and_find_the_restore(app):
    texts = ["first\n", "second\n", "third\n"]
    first, second, third = edit_three_times(app, "/tl1/notes.txt", texts)
    open_history(app, path="/tl1")
    expect(app.locator(CHANGES)).to_have_count(3, timeout=WAIT_MS)
    expect(option(app, second).locator(".tl-writer")).to_have_text("agent:x")
    expect(option(app, first).locator(".tl-writer")).to_have_text("user")

    option(app, first).click()
    expect(option(app, first)).to_have_attribute("aria-selected", "true")
    point = app.get_by_role("region", name=f"The disk at revision {first}")
    point.get_by_role("button", name="/tl1/notes.txt").click()
    expect(point.locator(".tl-text")).to_have_text("first\n", timeout=WAIT_MS)

    point.get_by_role("button", name="Diff against now").click()
    diff = point.locator(".tl-diff-line")
    expect(diff).to_have_text(["- first", "+ third"], timeout=WAIT_MS)

    point.get_by_role("button", name="Restore this file to this point…").click()
    dialog = app.get_by_role("dialog")
    expect(dialog).to_contain_text(f"Restore /tl1/notes.txt to revision {first}?")
    dialog.get_by_role("button", name="Restore").click()
    expect(point.locator(".tl-outcome")).to_have_attribute("data-state", "done", timeout=WAIT_MS)
    assert read(app, "/tl1/notes.txt") == "first\n"
    restored = js(app, "return (await vfs.journal({limit: 1}))[0];")
    assert (restored["operation"], restored["revision"] > third) == ("restore", True)
    # The restore is on the timeline at once, on top, without a reload.
    newest = app.locator(CHANGES).first
    expect(newest).to_contain_text(f"r{restored['revision']} ", timeout=WAIT_MS)
    expect(newest.locator(".tl-op")).to_have_text("restore")
    expect(app.locator(CHANGES)).to_have_count(4)


def test_filters_by_writer_and_shows_each_writer_apart(app):
    js(app, """
      await vfs.as("agent:x").step(async (tx) => {
        await tx.mkdir("/tl2");
        await tx.writeFile("/tl2/a.txt", "a");
      });
      await vfs.as("scoop:s").writeFile("/tl2/b.txt", "b");
      await vfs.writeFile("/tl2/c.txt", "c");
    """)
    open_history(app, path="/tl2")
    expect(app.locator(f"{CHANGES} .tl-writer")).to_have_text(["user", "scoop:s", "agent:x"],
                                                              timeout=WAIT_MS)
    kinds = app.eval_on_selector_all(f"{CHANGES} .tl-writer",
                                     "all => all.map((n) => n.dataset.kind)")
    assert kinds == ["user", "scoop", "agent"]
    # A new filter takes the old one's rows away at once: none can be picked while it loads.
    while_loading = app.evaluate("""() => {
      const body = document.querySelector('#history-body');
      body.querySelector('input[name=writer]').value = 'agent:x';
      body.querySelector('form').requestSubmit();
      const status = body.querySelector('.tl-status');
      return [body.querySelectorAll('[role=option]').length, status.dataset.state,
              body.querySelector('.tl-list').getAttribute('aria-busy')];
    }""")
    assert while_loading == [0, "loading", "true"]
    open_history(app, path="/tl2", writer="agent:x")
    expect(app.locator(f"{CHANGES} .tl-writer")).to_have_text(["agent:x"], timeout=WAIT_MS)
    expect(app.locator(f"{CHANGES} .tl-paths")).to_contain_text(["/tl2/a.txt"])
    # Live: a change made elsewhere (here through the API, as an agent's tool would) shows at
    # once on the open timeline, filtered as it is.
    js(app, """
      await vfs.writeFile("/tl2/e.txt", "by the user");
      await vfs.as("agent:x").writeFile("/tl2/d.txt", "d");
    """)
    expect(app.locator(f"{CHANGES} .tl-paths")).to_contain_text(["/tl2/d.txt", "/tl2/a.txt"],
                                                                timeout=WAIT_MS)
    expect(app.locator(CHANGES)).to_have_count(2)  # the user's write is not the agent's


def test_snapshots_are_on_the_timeline_by_name(app):
    snap = js(app, """
      const snap = await vfs.snapshot("tl8-before");
      await vfs.step(async (tx) => {
        await tx.mkdir("/tl8");
        await tx.writeFile("/tl8/after.txt", "after");
      });
      return snap;""")
    # Unfiltered: the name is on the snapshot's own entry.
    open_history(app)
    entry = option(app, snap["revision"])
    expect(entry.locator(".tl-snap")).to_have_text("snapshot “tl8-before”", timeout=WAIT_MS)
    expect(entry.locator(".tl-op")).to_have_text("snapshot")
    # Filtered by a path the snapshot's entry did not touch: a row of its own, at its revision,
    # which opens the disk as the snapshot keeps it.
    open_history(app, path="/tl8")
    expect(app.locator(f"{OPTIONS} .tl-op")).to_have_text(["step", "snapshot"],
                                                          timeout=WAIT_MS)
    marker = app.locator(OPTIONS).last
    expect(marker.locator(".tl-snap")).to_have_text("snapshot “tl8-before”")
    marker.click()
    name = f"The disk at snapshot “tl8-before” (r{snap['revision']})"
    point = app.get_by_role("region", name=name)
    expect(point.get_by_role("button", name="shared/")).to_be_visible(timeout=WAIT_MS)
    expect(point.get_by_role("button", name="tl8/")).to_have_count(0)


def tab_to(page, selector: str, what: str, text: str | None = None, presses: int = 40) -> None:
    """Presses Tab until the focused element matches `selector` (and has the text `text`), at
    most `presses` times."""
    for _ in range(presses):
        if page.evaluate("""([s, text]) => Boolean(document.activeElement?.matches(s) &&
                              (text === null || document.activeElement.textContent === text))""",
                         [selector, text]):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{presses} Tabs did not reach {what} ({selector})")


def test_the_whole_flow_by_keyboard_only(app):
    first, _, _ = edit_three_times(app, "/tl3/k.txt", ["one\n", "two\n", "three\n"])
    app.click("#side-files")
    app.focus("#side-history")
    app.keyboard.press("Enter")
    # The panel's module loads on its first opening: a person waits until it shows.
    expect(app.locator(f"{HISTORY} [role=listbox]")).to_be_visible(timeout=WAIT_MS)
    tab_to(app, f"{HISTORY} input[name=path]", "the path filter")
    app.keyboard.press("Control+A")
    app.keyboard.type("/tl3")
    app.keyboard.press("Tab")  # the writer filter, which an earlier test may have left set
    app.keyboard.press("Control+A")
    app.keyboard.press("Delete")
    app.keyboard.press("Enter")
    expect(app.locator(CHANGES)).to_have_count(3, timeout=WAIT_MS)
    tab_to(app, f"{HISTORY} [role=listbox]", "the list of changes")
    app.keyboard.press("End")  # the oldest row; above any snapshot marker, the first edit
    for _ in range(5):
        if not app.locator(f"{OPTIONS}.tl-active.tl-marker").count():
            break
        app.keyboard.press("ArrowUp")
    expect(app.locator(f"{CHANGES}.tl-active")).to_contain_text(f"r{first} ")
    app.keyboard.press("Enter")
    expect(option(app, first)).to_have_attribute("aria-selected", "true")
    tab_to(app, f"{HISTORY} .tl-changed button", "the changed file's button", "/tl3/k.txt")
    app.keyboard.press("Enter")
    expect(app.locator(f"{HISTORY} .tl-text")).to_have_text("one\n", timeout=WAIT_MS)
    tab_to(app, f"{HISTORY} .tl-restore-one", "the file's restore button")
    app.keyboard.press("Enter")
    expect(app.get_by_role("dialog")).to_be_visible()
    app.keyboard.press("Enter")  # the dialog's focus starts on Restore
    expect(app.locator(f"{HISTORY} .tl-outcome")).to_have_attribute("data-state", "done",
                                                                    timeout=WAIT_MS)
    # The outcome may still say "done" from an earlier restore of this page: the file tells.
    poll_page(app, "window.pyvfs.ready.then((v) => v.readFile('/tl3/k.txt', 'utf8'))"
                   ".then((text) => text === 'one\\n')", "the restore of /tl3/k.txt")
    assert read(app, "/tl3/k.txt") == "one\n"
    expect(app.locator(f"{CHANGES} .tl-op").first).to_have_text("restore", timeout=WAIT_MS)


def test_a_file_name_made_of_html_shows_as_text_and_runs_nothing(app):
    name = "<img src=x onerror=window.__pwned=1>.txt"
    js(app, """await vfs.step(async (tx) => {
      await tx.mkdir("/tl4");
      await tx.writeFile(args[0], '<b>bold</b><script>window.__pwned=2</script>');
    });""", f"/tl4/{name}")
    open_history(app, path="/tl4")
    expect(app.locator(f"{CHANGES} .tl-paths")).to_contain_text([f"/tl4/{name}"],
                                                                timeout=WAIT_MS)
    app.locator(CHANGES).first.click()
    tree = app.locator(f"{HISTORY} .tl-tree")
    tree.get_by_role("button", name="tl4/").click()
    tree.get_by_role("button", name=name).click()
    expect(app.locator(f"{HISTORY} .tl-text")).to_have_text(
        "<b>bold</b><script>window.__pwned=2</script>", timeout=WAIT_MS)
    found = app.evaluate("""() => ({
      pwned: window.__pwned ?? null,
      elements: document.querySelectorAll(
        '#history-body img, #history-body b, #history-body script').length})""")
    assert found == {"pwned": None, "elements": 0}


def test_long_histories_big_folders_and_large_or_binary_files_are_bounded(app):
    expected = js(app, """
      await vfs.step(async (tx) => {
        await tx.mkdir("/tl7/many", {recursive: true});
        for (let i = 0; i < 250; i++) {
          await tx.writeFile(`/tl7/many/f${String(i).padStart(3, "0")}`, "");
        }
      });
      for (let i = 0; i < 60; i++) await vfs.writeFile("/tl7/f.txt", `version ${i}\\n`);
      await vfs.writeFile("/tl7/big.txt", "x".repeat(2 * 1024 * 1024));
      await vfs.writeFile("/tl7/bin.dat", new Uint8Array([0, 1, 2]));
      return (await vfs.journal({path: "/tl7", limit: 1000})).length;
    """)
    open_history(app, path="/tl7")
    older = app.get_by_role("button", name="Load older changes")
    expect(app.locator(CHANGES)).to_have_count(50, timeout=WAIT_MS)  # one page
    older.click()
    expect(app.locator(CHANGES)).to_have_count(expected, timeout=WAIT_MS)
    expect(older).to_be_hidden()

    app.locator(CHANGES).first.click()
    tree = app.locator(f"{HISTORY} .tl-tree")
    tree.get_by_role("button", name="tl7/").click()
    many = tree.get_by_role("button", name="many/")
    many.click()
    listed = many.locator("xpath=following-sibling::ul/li/button[contains(@class, 'tl-node')]")
    expect(listed).to_have_count(200, timeout=WAIT_MS)
    tree.get_by_role("button", name="Show more (50 left)").click()
    expect(listed).to_have_count(250, timeout=WAIT_MS)

    view = app.locator(f"{HISTORY} .tl-content")
    refused = "2.10 MB: too large to show or diff here (over 1 MiB)"
    tree.get_by_role("button", name="big.txt").click()
    expect(view).to_have_text(refused, timeout=WAIT_MS)
    app.get_by_role("button", name="Diff against now").click()
    expect(view).to_have_text(refused, timeout=WAIT_MS)
    tree.get_by_role("button", name="bin.dat").click()
    expect(view).to_have_text("binary, 3 bytes", timeout=WAIT_MS)


USAGE = "#usage-body"


def test_the_storage_panel_shows_the_disks_usage_and_follows_a_write(app):
    js(app, "await vfs.mkdir('/tl5/big', {recursive: true});"
            "await vfs.writeFile('/tl5/big/a.bin', new Uint8Array(300_000));")
    show_history_tab(app)
    expect(app.locator(f"{USAGE} .usage-status")).to_have_attribute("data-state", "done",
                                                                    timeout=WAIT_MS)

    def shown():
        return app.evaluate("""() => Object.fromEntries(
          [...document.querySelectorAll('#usage-body dd data')]
            .map((n) => [n.className, n.value]))""")

    expected = js(app, """
      const u = await vfs.usage();
      const top = (await vfs.query("SELECT dir, sum(size) FROM files WHERE kind = 'file' " +
                                   "GROUP BY dir ORDER BY 2 DESC LIMIT 1")).rows[0];
      return {u, top};
    """)
    usage = expected["u"]
    # The panel may have been in view since an earlier test: it refreshes on the write (throttled).
    expect(app.locator(f"{USAGE} .usage-content")).to_have_attribute(
        "value", str(usage["contentBytes"]), timeout=WAIT_MS)
    figures = shown()
    assert figures["usage-content"] == str(usage["contentBytes"])
    assert figures["usage-quota"] == str(usage["quotaBytes"])
    assert figures["usage-history"] == str(usage["historyBytes"])
    assert figures["usage-files"] == str(usage["files"])
    assert figures["usage-persisted"] == str(usage["persisted"]).lower()
    assert int(figures["usage-used"]) > 0 and int(figures["usage-available"]) > 0
    first_row = app.locator(f"{USAGE} tbody tr").first
    expect(first_row.locator("th")).to_have_text(expected["top"][0])
    expect(first_row.locator("data")).to_have_attribute("value", str(expected["top"][1]))
    # A write while the panel is open shows without touching it.
    content = js(app, """
      await vfs.writeFile('/tl5/big/b.bin', new Uint8Array(500_000));
      return (await vfs.usage()).contentBytes;""")
    expect(app.locator(f"{USAGE} .usage-content")).to_have_attribute("value", str(content),
                                                                     timeout=WAIT_MS)


def test_axe_finds_no_serious_violation_in_the_open_panels(app):
    edit_three_times(app, "/tl6/x.txt", ["a\n", "b\n", "c\n"])
    open_history(app, path="/tl6")
    app.locator(CHANGES).last.click()
    app.get_by_role("region", name=re.compile("The disk at")).get_by_role(
        "button", name="/tl6/x.txt").click()
    expect(app.locator(f"{HISTORY} .tl-text")).to_have_text("a\n", timeout=WAIT_MS)
    show_history_tab(app)
    expect(app.locator(f"{USAGE} .usage-status")).to_have_attribute("data-state", "done",
                                                                    timeout=WAIT_MS)
    # Evaluated as a script (CDP), not added as a <script>: the app's CSP allows no inline one.
    app.evaluate((ROOT / "node_modules/axe-core/axe.min.js").read_text())
    result = app.evaluate("""async () => {
      const found = await axe.run({include: [['#history-panel']]});
      return found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target)}));
    }""")
    assert result == []
