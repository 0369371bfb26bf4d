"""Issue 27 in a real Chromium: a previewed page cannot pose as the relay (finding 2), and a
scoop that swaps the folder it previews for a link to "/", a directory index that links out of
its root, or a file root replaced by a link get nothing more served (finding 1).

The hostile page is a preview like any other, on the preview origin. After one click each, it
opens the relay's URLs (the old /relay.html and /preview/relay.html) as windows of its own,
frames them, frames one of its own pages, listens on the service worker in every one of those
windows and in itself, asks the service worker whether it is a relay, and acks every offer it
gets with its own bytes. Meanwhile another preview (the victim's, another token) is fetched:
the hostile page must learn nothing of it and its answers must never reach it."""

from __future__ import annotations

import json
import time

import pytest

from .conftest import js, opened_tab
from .console_errors import expect_failed_load

# Bound of the page's own waits (a window to load, the service worker to answer).
WAIT_MS = 20_000

ATTACK_MJS = r"""
const WAIT_MS = __WAIT_MS__;
const seen = [];       // every message a window of this page got from the service worker
const answers = [];    // the service worker's answers to "am I a relay?"
const problems = [];   // windows that could not be hooked (they were refused: not an error)
const deadline = (what) => {
  const until = Date.now() + WAIT_MS;
  return () => { if (Date.now() > until) throw new Error(`waited ${WAIT_MS} ms for ${what}`); };
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Listens on the service worker from `win` (same origin: this page can script it), records
// every message, acks every offer and answers it with its own bytes.
function hook(win, where) {
  try {
    const container = win.navigator.serviceWorker;
    container.addEventListener("message", (event) => {
      seen.push({ where, data: JSON.stringify(event.data) });
      if (event.data?.type === "pyvfs:relay-trusted") {
        answers.push({ where, trusted: event.data.trusted });
      }
      const port = event.ports[0];
      if (!port) return;
      port.onmessage = ({ data }) => {
        if (data?.type !== "go") return;
        const body = new TextEncoder().encode("PWNED by the hostile page");
        const headers = { "content-type": "text/plain" };
        port.postMessage({ type: "start", status: 200, headers, body, more: false });
      };
      port.postMessage({ type: "ack" });
    });
    container.startMessages();
    // As a relay says hello (relay.mjs), from that window's own client.
    container.getRegistration("/preview/").then((registration) => {
      registration?.active?.postMessage({ type: "pyvfs:relay-hello", protocol: 3 });
    });
  } catch (error) {
    problems.push({ where, error: String(error) });
  }
}

async function loaded(win, path, what) {
  const late = deadline(what);
  for (;;) {
    try {
      if (win.location.pathname === path && win.document.readyState === "complete") return;
    } catch {
      // not yet on this origin
    }
    late();
    await sleep(50);
  }
}

async function frame(src, what) {
  const element = document.createElement("iframe");
  let done = false;
  element.onload = () => { done = true; };
  element.src = src;
  document.body.append(element);
  const late = deadline(what);
  while (!done) {
    late();
    await sleep(50);
  }
  return element.contentWindow;
}

hook(window, "the page itself");
const windows = [];
const clicks = ["/relay.html", "/preview/relay.html"];
document.querySelector("#go").addEventListener("click", async () => {
  const path = clicks.shift();
  const win = window.open(path);
  windows.push(win);
  try {
    await loaded(win, path, `the window at ${path}`);
    hook(win, `window ${path}`);
  } catch (error) {
    problems.push({ where: `window ${path}`, error: String(error) });
  }
  document.body.dataset.opened = String(windows.length);
});

for (const path of ["/relay.html", "/preview/relay.html"]) {
  try {
    hook(await frame(path, `a frame of ${path}`), `frame ${path}`);
  } catch (error) {
    problems.push({ where: `frame ${path}`, error: String(error) });
  }
}
// A frame of one of its own pages, moved to the relay's URL (pushState does not change what a
// service worker sees as the client's URL, but the page tries).
const own = await frame("own.html", "a frame of its own page");
own.history.pushState(null, "", "/preview/relay.html");
hook(own, "own frame moved to /preview/relay.html");

window.hostile = { seen, answers, problems, windows };
document.body.dataset.ready = "1";
""".replace("__WAIT_MS__", str(WAIT_MS))

INDEX_HTML = ('<!doctype html><meta charset="utf-8"><title>hostile</title>'
              '<button id="go">go</button><script type="module" src="attack.mjs"></script>')

HOOKED = ["the page itself", "window /relay.html", "window /preview/relay.html",
          "frame /relay.html", "frame /preview/relay.html",
          "own frame moved to /preview/relay.html"]

RESULTS_JS = """() => JSON.stringify({
  seen: window.hostile.seen, answers: window.hostile.answers,
  problems: window.hostile.problems })"""

FETCH_JS = """async (url) => {
  const response = await fetch(url, { cache: "no-store" });
  return { status: response.status, text: await response.text() };
}"""

pytestmark = [
    # The hostile page's windows and frames at the relay's URLs are refused: by the static
    # server (no /relay.html any more), by the service worker (403: not an app tab's frame), or
    # by the relay's frame-ancestors (the old /relay.html on an old build).
    expect_failed_load(r"/(preview/)?relay\.html", 404,
                       reason="the hostile page opens the relay's old URL"),
    expect_failed_load(r"/(preview/)?relay\.html", 403,
                       reason="the hostile page opens or frames the relay's URL"),
    pytest.mark.expect_console(r"Framing 'http://127\.0\.0\.1:\d+/' violates the following "
                               r"Content Security Policy directive: \"frame-ancestors",
                               reason="the hostile page frames the relay, which refuses it"),
    expect_failed_load(r"/preview/[A-Za-z0-9_-]{22}/(workspace/|scoops/|index\.html|a\.html|(?=\)))",
                       404, reason="a swapped root, a linked index answer 404"),
]


@pytest.fixture(scope="module")
def hostile(app_session):
    """(app page, hostile tab): the hostile page loaded, its two windows opened by clicks."""
    app = app_session.page
    js(app, """
      await vfs.mkdir("/hostile");
      await vfs.writeFile("/hostile/index.html", args[0]);
      await vfs.writeFile("/hostile/attack.mjs", args[1]);
      await vfs.writeFile("/hostile/own.html", "<p>own</p>");
    """, INDEX_HTML, ATTACK_MJS)
    url = js(app, "return vfs.previewUrl('/hostile/');")
    tab = app_session.context.new_page()
    tab.goto(url)
    tab.wait_for_function("document.body?.dataset.ready === '1'", timeout=60_000)
    for count in ("1", "2"):
        with opened_tab(app_session.context, tab):
            tab.click("#go")
        tab.wait_for_function(f"document.body.dataset.opened === '{count}'", timeout=60_000)
    yield app, tab
    for page in app_session.context.pages:
        if page is not app:
            page.close()


def test_a_previewed_page_cannot_learn_or_answer_another_tabs_previews(hostile, app_session):
    app, tab = hostile
    js(app, "await vfs.mkdir('/victim'); "
            "await vfs.writeFile('/victim/secret.txt', 'the victim\\'s secret');")
    victim_url = js(app, "return vfs.previewUrl('/victim/');")
    token = victim_url.rstrip("/").rsplit("/", 1)[-1]
    victim = app_session.context.new_page()
    victim.goto(victim_url)  # a listing: the victim's own preview page, controlled by the SW
    bodies = [victim.evaluate(FETCH_JS, victim_url + "secret.txt") for _ in range(5)]
    # Every answer is the app's: none is the hostile page's.
    assert bodies == [{"status": 200, "text": "the victim's secret"}] * 5
    results = json.loads(tab.evaluate(RESULTS_JS))
    # It learned nothing: no offer reached any window it controls, so no token and no path.
    offers = [m for m in results["seen"] if "pyvfs:preview" in m["data"]]
    assert offers == [], offers
    assert not [m for m in results["seen"] if token in m["data"] or "secret" in m["data"]]
    # Every window it hooked was listening (each asked the service worker whether it is a
    # relay and got the answer), and the answer was no.
    assert sorted(a["where"] for a in results["answers"]) == sorted(HOOKED), results
    assert all(a["trusted"] is False for a in results["answers"]), results
    # And the app's own relay still serves: the hostile page's own file.
    assert tab.evaluate(FETCH_JS, "own.html") == {"status": 200, "text": "<p>own</p>"}


def test_a_scoop_that_swaps_its_folder_for_a_link_to_the_root_gets_404(app_session):
    app = app_session.page
    url = js(app, """
      await vfs.writeFile("/workspace/private.txt", "the user's private notes");
      const scoop = await vfs.scoop("mallory");
      const made = await scoop.shell("cd /scoops/mallory/workspace && mkdir -p site && "
        + "echo '<p>mallory</p>' > site/index.html && open site/");
      if (made.code !== 0) throw new Error(made.stderr);
      return made.open[0];
    """)
    with opened_tab(app_session.context, app) as opened:
        app.evaluate("(url) => { window.open(url, '_blank', 'noopener'); }", url)
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.evaluate(FETCH_JS, url)["text"] == "<p>mallory</p>\n"
    swapped = js(app, """
      const scoop = await vfs.scoop("mallory");
      return scoop.shell("cd /scoops/mallory/workspace && rm -r site && ln -s / site");
    """)
    assert swapped["code"] == 0, swapped
    for inside in ("", "index.html", "workspace/", "workspace/private.txt", "scoops/"):
        answer = tab.evaluate(FETCH_JS, url + inside)
        assert answer["status"] == 404, (inside, answer)
        assert "private" not in answer["text"].replace(inside, ""), (inside, answer)


def test_a_linked_index_and_a_file_root_swapped_for_a_link_serve_nothing(app_session):
    app = app_session.page
    site, file, link = js(app, """
      await vfs.mkdir("/escape/site", {recursive: true});
      await vfs.writeFile("/escape/private.txt", "the user's private notes");
      await vfs.writeFile("/escape/site/page.html", "<p>page</p>");
      await vfs.symlink("/escape/private.txt", "/escape/site/index.html");
      await vfs.writeFile("/escape/a.html", "<p>a</p>");
      await vfs.symlink("/escape/a.html", "/escape/link.html");
      return [await vfs.previewUrl("/escape/site/"), await vfs.previewUrl("/escape/a.html"),
              await vfs.previewUrl("/escape/link.html")];
    """)
    tab = app_session.context.new_page()
    tab.goto(site)
    listing = tab.evaluate(FETCH_JS, site)
    assert listing["status"] == 200 and "page.html" in listing["text"], listing
    assert "private" not in listing["text"] and "index.html" not in listing["text"], listing
    assert tab.evaluate(FETCH_JS, site + "index.html")["status"] == 404
    assert tab.evaluate(FETCH_JS, file) == {"status": 200, "text": "<p>a</p>"}
    assert link.endswith("/link.html")  # a file opened by a link's name keeps that name
    assert tab.evaluate(FETCH_JS, link) == {"status": 200, "text": "<p>a</p>"}
    js(app, """
      await vfs.rm("/escape/a.html");
      await vfs.symlink("/escape/private.txt", "/escape/a.html");
    """)
    swapped = tab.evaluate(FETCH_JS, file)
    assert swapped["status"] == 404 and "private notes" not in swapped["text"], swapped
    tab.close()


def test_the_app_tabs_relay_still_serves_after_the_service_worker_was_stopped(app_session):
    """The service worker is stopped when idle; the relays it knew are kept (sw.js), so the
    next request, which starts it again, is still served by the app tab's relay."""
    app = app_session.page
    js(app, "await vfs.mkdir('/restart'); "
            "await vfs.writeFile('/restart/a.txt', 'after a restart');")
    url = js(app, "return vfs.previewUrl('/restart/');")
    tab = app_session.context.new_page()
    tab.goto(url)
    states: list[str] = []
    cdp = app_session.context.new_cdp_session(tab)
    cdp.on("ServiceWorker.workerVersionUpdated",
           lambda event: states.extend(v["runningStatus"] for v in event["versions"]))
    cdp.send("ServiceWorker.enable")
    cdp.send("ServiceWorker.stopAllWorkers")
    deadline = time.monotonic() + WAIT_MS / 1000
    while "stopped" not in states:
        if time.monotonic() > deadline:
            pytest.fail(f"the service worker did not stop within {WAIT_MS} ms: {states}")
        tab.wait_for_timeout(50)
    states.clear()
    assert tab.evaluate(FETCH_JS, url + "a.txt") == {"status": 200, "text": "after a restart"}
    assert "running" in states or "starting" in states, states  # it was started again
    tab.close()
