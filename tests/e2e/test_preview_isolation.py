"""A hostile previewed page cannot touch the app: served by `serve` on the preview origin, it tries
to open the disk's and the snapshot's IndexedDB databases, hold the disk's Web Lock forever, use
window.opener, frame the app, register a service worker over the whole origin, and read files
outside its preview root by path, symlink or guessed token. Every attempt fails and the app keeps
working (checked on Chromium 156.0.8078.79)."""

from __future__ import annotations

import json

import pytest

from .conftest import opened_tab
from .conftest import sh_ok as sh
from .console_errors import expect_failed_load

# The attacks run as the hostile page loads, so the browser's complaints about them can arrive
# during any test of the module: each is declared for all of them, with what causes it.
pytestmark = [
    pytest.mark.expect_console(
        r"The path of the provided scope \('/'\) is not under the max scope",
        reason="the page registers a service worker over the whole origin"),
    pytest.mark.expect_console(
        r"A bad HTTP response code \(404\) was received when fetching the script",
        reason="the page registers a script it wrote into the VFS"),
    expect_failed_load(r"/preview/[^/]+(/secret|/out)?/s\.txt", 404,
                       reason="the page reads outside its root: by path, symlink, guessed token"),
    pytest.mark.expect_console(r"Framing 'http://127\.0\.0\.1:\d+/' violates the following Content "
                               r"Security Policy directive: \"frame-ancestors 'none'\"",
                               reason="the page frames the app, which refuses to be framed"),
]

ATTACK_MJS = r"""
const results = {};
const attempt = async (name, fn) => {
  try {
    results[name] = await fn();
  } catch (error) {
    results[name] = `threw ${error.name}: ${error.message}`;
  }
};
const stores = (name) => new Promise((resolve, reject) => {
  const req = indexedDB.open(name);
  req.onupgradeneeded = () => {
    // Whatever it gets is its own: make a store and write into it.
    req.result.createObjectStore("nodes").put({ hacked: true }, "/");
  };
  req.onsuccess = () => {
    const names = [...req.result.objectStoreNames];
    req.result.close();
    resolve(names);
  };
  req.onerror = () => reject(req.error);
});
const status = async (url) => (await fetch(url, { cache: "no-store" })).status;

await attempt("disk", () => stores("pyvfs:default"));
await attempt("snapshot", () => stores("pyvfs-runtime"));
await attempt("previews", () => stores("pyvfs-previews"));
await attempt("databases", async () => (await indexedDB.databases()).map((d) => d.name).sort());
// Held forever: this page never releases the disk's lock.
navigator.locks.request("pyvfs:default", () => new Promise(() => {}));
await attempt("lock", async () => (await navigator.locks.query()).held.map((l) => l.name));
results.opener = window.opener === null;
const register = (script, scope) => navigator.serviceWorker.register(script, { scope });
await attempt("swRoot", () => register("/preview/sw.js", "/").then(() => "registered"));
await attempt("swOwn", () => register("evil-sw.js", "/").then(() => "registered"));
await attempt("swNarrow", async () => {
  const registration = await register("/preview/sw.js", "/preview/narrow/");
  const worker = registration.installing ?? registration.waiting ?? registration.active;
  if (worker.state === "redundant") return "redundant";
  await new Promise((resolve) => worker.addEventListener("statechange", () => {
    if (worker.state === "redundant" || worker.state === "activated") resolve();
  }));
  return worker.state;
});
await attempt("dotdot", () => status("../secret/s.txt"));
await attempt("rootRelative", () => status("/../secret/s.txt"));
await attempt("symlink", () => status("out/s.txt"));
await attempt("guessed", async () => {
  const token = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return status(`/preview/${token}/s.txt`);
});
await attempt("own", () => status("index.html"));
document.body.dataset.results = JSON.stringify(results);
"""

INDEX_HTML = '<!doctype html><meta charset="utf-8"><title>hostile</title>' \
             '<script type="module" src="attack.mjs"></script><p>hostile</p>'


@pytest.fixture(scope="module")
def hostile(app_session):
    """(app page, hostile tab, its URL, attack results, the secret's own URL)."""
    app = app_session.page
    app.evaluate("""async ([attack, index]) => {
      const vfs = await window.pyvfs.ready;
      await vfs.mkdir("/secret");
      await vfs.mkdir("/hostile");
      await vfs.writeFile("/secret/s.txt", "the secret");
      await vfs.writeFile("/hostile/attack.mjs", attack);
      await vfs.writeFile("/hostile/index.html", index);
      await vfs.writeFile("/hostile/evil-sw.js", "self.onfetch = () => {};");
      await vfs.symlink("/secret", "/hostile/out");
    }""", [ATTACK_MJS, INDEX_HTML])
    # A real token for /secret exists: the hostile page would have to guess it.
    secret_url = app.evaluate("async () => (await window.pyvfs.ready).previewUrl('/secret/s.txt')")
    with opened_tab(app_session.context, app) as opened:
        url = sh(app, "serve /hostile")["stdout"].removeprefix("Serving /hostile at ").strip()
    tab = opened.value
    tab.wait_for_url(url)
    tab.wait_for_function("document.body?.dataset.results", timeout=30_000)
    results = json.loads(tab.evaluate("document.body.dataset.results"))
    yield app, tab, url, results, secret_url
    tab.close()


def test_the_page_runs_on_the_preview_origin_and_reads_its_own_root(hostile, base_url,
                                                                     app_session):
    _, tab, url, results, _ = hostile
    assert not url.startswith(base_url)
    assert tab.evaluate("location.origin") != base_url.rstrip("/")
    assert results["own"] == 200
    # The app runs under its Content-Security-Policy without tripping it.
    assert not [line for line in app_session.console if "Content Security Policy" in line]


def test_the_apps_databases_are_out_of_reach(hostile):
    app, _, _, results, _ = hostile
    # Each open made a new, empty database of the preview origin (its upgrade ran and made the
    # one store it has): the app's disk, with its own several stores, is not what it opened.
    assert results["disk"] == ["nodes"] and results["snapshot"] == ["nodes"]
    assert results["previews"] == ["nodes"]
    # The preview origin's databases: the three it made, and its service worker's list of
    # relay frames (sw.js), which holds no VFS data.
    assert results["databases"] == ["pyvfs-preview-relays", "pyvfs-previews", "pyvfs-runtime",
                                    "pyvfs:default"]
    # The app's disk is untouched: its files are there, its check passes.
    checked = app.evaluate("""async () => {
      const vfs = await window.pyvfs.ready;
      return { secret: await vfs.readFile("/secret/s.txt", "utf8"), ok: (await vfs.check()).ok,
               names: await vfs.readdir("/hostile") };
    }""")
    assert checked == {"secret": "the secret", "ok": True,
                       "names": ["attack.mjs", "evil-sw.js", "index.html", "out"]}


def test_holding_the_disk_lock_forever_does_not_stop_the_app(hostile):
    app, _, _, results, _ = hostile
    assert "pyvfs:default" in results["lock"]  # the page holds a lock of that name, its own
    written = app.evaluate("""async () => {
      const vfs = await window.pyvfs.ready;
      await vfs.writeFile("/after-lock.txt", "still writing");
      return vfs.readFile("/after-lock.txt", "utf8");
    }""")
    assert written == "still writing"


def test_no_opener_and_the_app_cannot_be_framed(hostile, base_url):
    _, tab, _, results, _ = hostile
    assert results["opener"] is True
    handle = tab.evaluate_handle("""(src) => new Promise((resolve) => {
      const frame = document.createElement("iframe");
      frame.onload = () => resolve(frame);
      frame.src = src;
      document.body.append(frame);
    })""", base_url)
    frame = handle.as_element().content_frame()
    # frame-ancestors 'none': Chromium shows its error page instead of the app.
    assert frame.evaluate("typeof window.pyvfs") == "undefined"
    assert not frame.url.startswith(base_url)


def test_no_service_worker_over_the_whole_origin(hostile):
    _, _, _, results, _ = hostile
    # The preview's own script may not claim "/" (its maximum scope is /preview/, and no
    # Service-Worker-Allowed header widens it).
    assert results["swRoot"].startswith("threw SecurityError"), results["swRoot"]
    # A script written into the VFS cannot be a service worker at all: the browser fetches
    # service worker scripts from the network, past the preview's service worker (a 404).
    assert results["swOwn"].startswith("threw TypeError"), results["swOwn"]
    assert "404" in results["swOwn"], results["swOwn"]
    # A narrower scope is allowed by the browser but refused by the worker's install.
    assert results["swNarrow"] == "redundant"


def test_nothing_outside_the_root_is_served(hostile):
    _, tab, _, results, secret_url = hostile
    assert results["dotdot"] == 404
    assert results["rootRelative"] == 404
    assert results["symlink"] == 404
    assert results["guessed"] == 404
    # The secret's real URL, minted by the app, does serve it: only its token was missing.
    assert tab.evaluate("(url) => fetch(url).then((r) => r.text())", secret_url) == "the secret"
