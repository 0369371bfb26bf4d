"""Promises of the page's API that only the Python and Node tiers checked: garbage collection
after a boot (docs/storage.md, "Chunks"), `vfs.step()` committing whole or not at all across a
reload, and `unwatch()` stopping a watcher's events (docs/semantics.md, "Steps" and "Watch").
One booted app for the module; each test has its own folder."""

from __future__ import annotations

from .conftest import wait_ready

DAY_MS = 24 * 60 * 60 * 1000

# `until(test, what)`: waits for test() to be truthy, at most 20 s, then throws naming `what`.
UNTIL = """
  const until = async (test, what) => {
    const deadline = Date.now() + 20000;
    while (!(await test())) {
      if (Date.now() > deadline) throw new Error(`timed out after 20 s waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
"""

# Raw IndexedDB on the app's own disk, beside the app's connection.
IDB = """
  const idb = (run) => new Promise((resolve, reject) => {
    const req = indexedDB.open("pyvfs:default");
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const tx = db.transaction(["chunks", "meta"], "readwrite");
      const result = run(tx);
      tx.oncomplete = () => { db.close(); resolve(result.value); };
      tx.onabort = () => { db.close(); reject(tx.error); };
    };
  });
  const sha = async (bytes) => Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
    (b) => b.toString(16).padStart(2, "0")).join("");
"""


def js(page, body: str, *args):
    """Run an async function body with `vfs`, `args`, `until` and `idb` in scope."""
    return page.evaluate(
        f"async (args) => {{ const vfs = await window.pyvfs.ready; {UNTIL} {IDB} {body} }}",
        list(args))


# --- garbage collection at boot ------------------------------------------------------------

SEED_JS = """
  const [dayMs] = args;
  const bytes = (tag) => new TextEncoder().encode(`${tag} `.repeat(1000));
  const kept = bytes("referenced");
  await vfs.mkdir("/gc");
  await vfs.writeFile("/gc/kept.bin", kept);  // 11,000 bytes: one chunk, not inline
  const keys = { kept: await sha(kept) };
  const orphans = { old: Date.now() - 2 * dayMs, young: Date.now(), bare: null };
  for (const [tag, written] of Object.entries(orphans)) {
    const data = bytes(tag);
    const key = keys[tag] = await sha(data);
    await idb((tx) => {
      tx.objectStore("chunks").put(data, key);
      if (written !== null) tx.objectStore("meta").put(String(Math.round(written)), `ahead:${key}`);
      return {};
    });
  }
  return { keys, reclaimable: (await vfs.check()).reclaimableChunks };
"""

STORED_JS = """
  const [keys] = args;
  const stored = () => idb((tx) => {
    const out = { value: {} };
    for (const [tag, key] of Object.entries(keys)) {
      const chunk = tx.objectStore("chunks").getKey(key);
      const marker = tx.objectStore("meta").get(`ahead:${key}`);
      marker.onsuccess = () => {  // after the chunk's: one transaction answers in order
        out.value[tag] = [chunk.result !== undefined, marker.result ?? null];
      };
    }
    return out;
  });
  await until(async () => !(await stored()).old[0], "the old orphan chunk to be collected");
  const report = await vfs.check();
  return { stored: await stored(), reclaimable: report.reclaimableChunks,
           problems: report.problems, text: (await vfs.readFile("/gc/kept.bin", "utf8")).length };
"""


def test_a_boot_collects_orphan_chunks_past_their_grace_and_keeps_the_rest(app_session):
    app = app_session.page
    seeded = js(app, SEED_JS, DAY_MS)
    assert seeded["reclaimable"] == 3  # the three orphans, which no node names
    app.reload()  # the boot runs garbage collection in the background
    wait_ready(app_session)
    got = js(app, STORED_JS, seeded["keys"])
    stored = got["stored"]
    assert stored["old"] == [False, None]  # chunk and marker gone
    assert stored["bare"] == [False, None]  # no marker: nothing to wait for
    assert stored["young"][0] and stored["young"][1] is not None  # within its grace: kept
    assert stored["kept"] == [True, None]  # referenced
    assert (got["reclaimable"], got["problems"], got["text"]) == (1, [], 11_000)


# --- steps, across a reload ----------------------------------------------------------------

STEPS_JS = """
  window.__stepEvents = [];
  await vfs.mkdir("/st", { recursive: true });
  await vfs.writeFile("/st/keep.txt", "before");
  const unwatch = vfs.watch("/st", (e) => window.__stepEvents.push([e.type, e.path]),
                            { recursive: true });
  await unwatch.ready;
  const value = await vfs.step(async (tx) => {
    await tx.mkdir("/st/done");
    await tx.writeFile("/st/done/a.txt", "a");
    await tx.rename("/st/done/a.txt", "/st/done/b.txt");
    await tx.appendFile("/st/keep.txt", "+committed");
    return "the step's value";
  });
  let thrown = null;
  try {
    await vfs.step(async (tx) => {
      await tx.writeFile("/st/ghost.txt", "never");
      await tx.rm("/st/done", { recursive: true });
      await tx.appendFile("/st/keep.txt", "+thrown");
      if (!(await tx.exists("/st/ghost.txt")) || (await tx.exists("/st/done"))) {
        throw new Error("the step does not see its own changes");
      }
      throw new Error("halfway");
    });
  } catch (error) { thrown = error.message; }
  // A later change this watcher sees: every event of the steps before it has arrived too.
  await vfs.writeFile("/st/marker", "m");
  await until(() => window.__stepEvents.some(([, path]) => path === "/st/marker"), "the marker");
  await unwatch();
  return { value, thrown, events: window.__stepEvents };
"""

STATE_JS = """
  return { names: await vfs.readdir("/st"), done: await vfs.readdir("/st/done"),
           keep: await vfs.readFile("/st/keep.txt", "utf8"),
           problems: (await vfs.check()).problems };
"""


def test_a_step_commits_whole_or_leaves_no_trace_even_after_a_reload(app_session):
    app = app_session.page
    got = js(app, STEPS_JS)
    assert (got["value"], got["thrown"]) == ("the step's value", "halfway")
    assert sorted(got["events"]) == sorted([
        ["create", "/st/done"], ["create", "/st/done/b.txt"], ["modify", "/st/keep.txt"],
        ["create", "/st/marker"]])  # nothing of the step that threw
    expected = {"names": ["done", "keep.txt", "marker"], "done": ["b.txt"],
                "keep": "before+committed", "problems": []}
    assert js(app, STATE_JS) == expected
    app.reload()
    wait_ready(app_session)
    assert js(app, STATE_JS) == expected


# --- unwatch ---------------------------------------------------------------------------------

UNWATCH_JS = """
  const seen = { a: [], b: [] };
  await vfs.mkdir("/uw", { recursive: true });
  const stopA = vfs.watch("/uw", (e) => seen.a.push(e.path), { recursive: true });
  const stopB = vfs.watch("/uw", (e) => seen.b.push(e.path), { recursive: true });
  await Promise.all([stopA.ready, stopB.ready]);
  await vfs.writeFile("/uw/one", "1");
  await until(() => seen.a.includes("/uw/one") && seen.b.includes("/uw/one"), "both to see one");
  await stopA();
  await vfs.writeFile("/uw/two", "2");
  await vfs.mkdir("/uw/sub");
  await vfs.writeFile("/uw/marker", "m");
  // B is told of the marker after everything written before it, so A would have been too.
  await until(() => seen.b.includes("/uw/marker"), "the marker on the watcher still listening");
  await stopB();
  return seen;
"""


def test_unwatch_stops_the_events_of_that_watcher_only(app):
    seen = js(app, UNWATCH_JS)
    assert seen["a"] == ["/uw/one"]
    assert seen["b"] == ["/uw/one", "/uw/two", "/uw/sub", "/uw/marker"]
