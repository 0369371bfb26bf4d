"""Two tabs on one disk (real Chromium): concurrent writers, watch across tabs, and steps.

Each test runs twice: on openVFS's default (one Python for both tabs, the second a guest of the
first) and with a Python in each tab (runtime "own"), where the tabs keep in step through the
disk's revision, change log, Web Lock and peers (docs/architecture.md, "Several tabs")."""

from __future__ import annotations

import time

import pytest

from .conftest import OWN_RUNTIME, js, poll_page, two_tabs

RUNTIMES = {"shared": None, "own": OWN_RUNTIME}


@pytest.fixture(scope="module", params=sorted(RUNTIMES))
def tabs(request, browser, browser_context_args):
    """The two tabs, on the runtime the parameter names."""
    with two_tabs(browser, browser_context_args, RUNTIMES[request.param]) as pair:
        roles = [js(tab.page, "return (await vfs.diagnostics()).runtime.role;") for tab in pair]
        assert roles == (["own", "own"] if request.param == "own" else ["host", "guest"])
        yield pair


ROUNDS = 20  # of writes per tab: a count, not a duration, so a slow machine does the same work
START_TIMEOUT_MS = 30_000


WATCH = """
  window.__events = [];
  const unwatch = vfs.watch("/tabs", (e) => window.__events.push(e), {recursive: true});
  await unwatch.ready;
  return true;
"""

# Arms a writer of ROUNDS rounds that starts when any page of the context posts on the
# "tabs-go" BroadcastChannel (GO): both tabs then start together and write concurrently.
START_WRITER = """
  const [tag, rounds, ms] = args;
  for (const dir of [`/tabs/${tag}`, "/tabs/shared"]) await vfs.mkdir(dir, {recursive: true});
  const go = new BroadcastChannel("tabs-go");
  const signalled = new Promise((resolve, reject) => {
    go.onmessage = resolve;
    setTimeout(() => reject(new Error(`no start signal within ${ms} ms`)), ms);
  });
  window.__writer = (async () => {
    try { await signalled; } finally { go.close(); }
    const acked = [], appended = [];
    for (let i = 0; i < rounds; i++) {
      await vfs.writeFile(`/tabs/${tag}/f${i}`, `${tag}${i}`);
      acked.push(`/tabs/${tag}/f${i}`);
      await vfs.writeFile(`/tabs/shared/k${i % 4}`, `${tag}${i}`);
      await vfs.appendFile("/tabs/shared/log", `${tag}${i};`);
      appended.push(`${tag}${i};`);
    }
    return {acked, appended};
  })();
  return true;
"""

GO = """
  const go = new BroadcastChannel("tabs-go");
  go.postMessage("go");
  go.close();
  return true;
"""

SNAPSHOT = """
  const out = {};
  for (const dir of ["/tabs/a", "/tabs/b", "/tabs/shared"]) {
    out[dir] = (await vfs.exists(dir)) ? await vfs.readdir(dir) : [];
  }
  const log = "/tabs/shared/log";
  out.log = (await vfs.exists(log)) ? await vfs.readFile(log, "utf8") : "";
  out.keys = [];
  for (let k = 0; k < 4; k++) {
    const p = `/tabs/shared/k${k}`;
    out.keys.push((await vfs.exists(p)) ? await vfs.readFile(p, "utf8") : null);
  }
  return out;
"""


def wait_until(check, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def test_two_tabs_writing_concurrently_lose_nothing_and_see_each_others_events(tabs):
    first, second = tabs
    for tab in tabs:  # both listen before either writes
        js(tab.page, WATCH)
    js(first.page, START_WRITER, "a", ROUNDS, START_TIMEOUT_MS)
    js(second.page, START_WRITER, "b", ROUNDS, START_TIMEOUT_MS)
    js(first.page, GO)  # another channel object of the page: both writers hear it
    a = js(first.page, "return await window.__writer;")
    b = js(second.page, "return await window.__writer;")
    assert len(a["acked"]) == ROUNDS and len(b["acked"]) == ROUNDS

    def converged():
        views = [js(tab.page, SNAPSHOT) for tab in tabs]
        return views if views[0] == views[1] else None

    views = wait_until(converged)
    assert views, "the two tabs did not converge"
    view = views[0]
    assert sorted(f"/tabs/a/{n}" for n in view["/tabs/a"]) == sorted(a["acked"])
    assert sorted(f"/tabs/b/{n}" for n in view["/tabs/b"]) == sorted(b["acked"])
    pieces = [p + ";" for p in view["log"].split(";") if p]
    assert sorted(pieces) == sorted(a["appended"] + b["appended"])  # no append lost or doubled
    for tab_log in (a["appended"], b["appended"]):  # each tab's appends stay in its order
        assert [p for p in pieces if p in set(tab_log)] == tab_log

    def events(tab):
        return js(tab.page, "return window.__events;")

    def seen_all():
        got_a, got_b = events(first), events(second)
        created_by_b = {e["path"] for e in got_a if e["type"] == "create"}
        created_by_a = {e["path"] for e in got_b if e["type"] == "create"}
        return set(b["acked"]) <= created_by_b and set(a["acked"]) <= created_by_a

    assert wait_until(seen_all), "a tab missed create events of the other"


def test_a_step_that_throws_leaves_no_trace_even_after_a_reload(tabs):
    first, second = tabs
    outcome = js(first.page, """
      await vfs.mkdir("/steps/kept", {recursive: true});
      try {
        await vfs.step(async (tx) => {
          await tx.writeFile("/steps/kept/x", "1");
          await tx.rename("/steps/kept", "/steps/moved");
          await tx.writeFile("/steps/moved/y", "2");
          throw new Error("halfway");
        });
        return "committed";
      } catch (e) {
        return [e.message, await vfs.readdir("/steps"), await vfs.readdir("/steps/kept")];
      }
    """)
    assert outcome == ["halfway", ["kept"], []]
    # A later commit of the same tab: once the other tab sees it, it has caught up past the
    # failed step, so anything the step had left would show there now.
    js(first.page, 'await vfs.writeFile("/steps-marker", "after the step"); return true;')
    assert wait_until(lambda: js(second.page, 'return await vfs.exists("/steps-marker");')), \
        "the other tab never saw the write made after the step"
    listing = 'return [await vfs.readdir("/steps"), await vfs.readdir("/steps/kept")];'
    assert js(second.page, listing) == [["kept"], []]
    first.page.reload()
    poll_page(first.page, "!!(window.pyvfs && window.pyvfs.ready)", "window.pyvfs after the reload")
    assert js(first.page, listing) == [["kept"], []]


def test_a_committed_step_is_seen_whole_by_the_other_tab(tabs):
    first, second = tabs
    js(second.page, """
      window.__firstSight = null;
      window.__stepEvents = [];
      const unwatch = vfs.watch("/whole", async (e) => {
        window.__stepEvents.push(e);
        if (window.__firstSight === null) {
          window.__firstSight = "pending";
          window.__firstSight = await vfs.readdir("/whole/dir");
        }
      }, {recursive: true});
      await unwatch.ready;
      return true;
    """)
    js(first.page, """
      await vfs.step(async (tx) => {
        await tx.mkdir("/whole/tmp", {recursive: true});
        for (let i = 0; i < 20; i++) await tx.writeFile(`/whole/tmp/f${i}`, `${i}`);
        await tx.rename("/whole/tmp", "/whole/dir");
        await tx.writeFile("/whole/dir/done", "yes");
      });
      // A marker after the step: once its event arrives, every event of the step has too.
      await vfs.writeFile("/whole/after", "marker");
      return true;
    """)
    sight = wait_until(lambda: (s := js(second.page, "return window.__firstSight;")) not in
                       (None, "pending") and s)
    assert sorted(sight) == sorted([f"f{i}" for i in range(20)] + ["done"])
    assert wait_until(lambda: "/whole/after" in [
        e["path"] for e in js(second.page, "return window.__stepEvents;")]), \
        "the other tab never got the event of the write made after the step"
    events = [(e["type"], e["path"]) for e in js(second.page, "return window.__stepEvents;")]
    assert events[-1] == ("create", "/whole/after")
    assert sorted(events[:-1]) == sorted(  # the step's, each once: no more, no less
        [("create", "/whole"), ("create", "/whole/dir")]
        + [("create", f"/whole/dir/f{i}") for i in range(20)] + [("create", "/whole/dir/done")])


def test_two_tabs_taking_turns_each_see_the_others_writes_and_lose_none(tabs):
    # A tab keeps the disk's Web Lock between its own commits while nobody else asks for it
    # (web/shared/lock_lease.mjs): each turn here is the other tab asking, and each append reads the
    # file first, so a tab that wrote over a change it had not seen would lose a piece.
    first, second = tabs
    log = "/turns/log"
    js(first.page, 'await vfs.mkdir("/turns"); await vfs.writeFile(args[0], ""); return true;', log)
    expected = ""
    for i in range(10):
        for tag, tab in (("a", first), ("b", second)):
            piece = f"{tag}{i};"
            expected += piece
            text = js(tab.page, """
              const [path, piece] = args;
              await vfs.appendFile(path, piece);
              await vfs.writeFile(`/turns/${piece}`, piece);
              return await vfs.readFile(path, "utf8");
            """, log, piece)
            assert text == expected, f"tab {tag}, round {i}"
    # The second tab wrote last: its view holds every write.
    listing = js(second.page, 'return (await vfs.readdir("/turns")).sort();')
    assert listing == sorted(["log"] + [f"{t}{i};" for i in range(10) for t in "ab"])
