"""The preview's edges through the real service worker (docs/preview.md): a method other than GET
and HEAD is 405; an app tab that acks but never starts answering is 504; a tab speaking another
protocol version is never used; a preview body cancelled half way releases the chunks its stream
pinned at once, and one left idle (the service worker died) once the VFS worker's idle timeout
fires.

The timeouts are 60 s. The 504 tests shorten the service worker's `START_TIMEOUT_MS` for one
request, and the idle test the VFS worker's `IDLE_MS`, by wrapping that worker's `setTimeout`
through the DevTools protocol for that one delay; nothing else of them changes.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from .conftest import (
    NO_SNAPSHOT,
    AppSession,
    assert_no_offsite,
    record_offsite,
    wait_ready,
    watch_console,
)

PIECE = 512 * 1024
BIG_PIECES = 40  # 20 MiB: Chromium buffers a fetch body ahead of its reader (docs/preview.md)

# Every browser-side wait is bounded: a request that never answers rejects after WAIT_MS with a
# TimeoutError naming the URL, rather than hanging the test.
WAIT_MS = 20000

FETCH_JS = """async ([url, init]) => {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(WAIT_MS) })
    .catch((error) => { throw new Error(`${url}: ${error.name} after WAIT_MS ms`); });
  return { status: response.status, allow: response.headers.get("allow"),
           text: await response.text() };
}""".replace("WAIT_MS", str(WAIT_MS))

# Writes `size` bytes to `path` through a stream (each 512 KiB piece different, so none is
# deduplicated) and a small text file beside it.
SETUP_JS = """async ([path, size]) => {
  const vfs = await window.pyvfs.ready;
  await vfs.writeFile("/edges/a.txt", "alpha\\n");
  let offset = 0;
  await vfs.writeFile(path, new ReadableStream({
    pull(controller) {
      if (offset >= size) return controller.close();
      const piece = new Uint8Array(512 * 1024).fill(offset / (512 * 1024));
      offset += piece.length;
      controller.enqueue(piece);
    },
  }));
  return vfs.previewUrl(path);
}"""

DIAGNOSTICS_JS = """async () => {
  const vfs = await window.pyvfs.ready;
  const { streams, pinnedChunks } = await vfs.diagnostics();
  return { streams, pinnedChunks };
}"""

# Holds the VFS worker inside an open step until window.__release() is called: every other
# call of the worker (a preview request, the next piece of a preview body) waits for it.
HOLD_JS = """async () => {
  const vfs = await window.pyvfs.ready;
  await new Promise((begun, failed) => {
    setTimeout(() => failed(new Error("the step did not begin within WAIT_MS ms")), WAIT_MS);
    window.__held = vfs.step(() => new Promise((release) => {
      window.__release = release;
      begun();
    }));
  });
}""".replace("WAIT_MS", str(WAIT_MS))
RELEASE_JS = "async () => { window.__release(); await window.__held; }"

# In the VFS worker: counts the messages it posts on preview ports, by type.
COUNT_PORT_MESSAGES_JS = """() => {
  if (self.__portMessages === undefined) {
    const post = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (message, ...rest) {
      const type = message?.type ?? "?";
      self.__portMessages[type] = (self.__portMessages[type] ?? 0) + 1;
      return post.call(this, message, ...rest);
    };
  }
  self.__portMessages = {};
}"""


def wait_for(check, what: str, timeout: float = 20.0):
    """Poll `check()` until it returns a truthy value; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what} (last: {value!r})")
        time.sleep(0.1)


def service_worker(context):
    """The preview service worker of `context` (Playwright's Worker for it)."""
    return wait_for(lambda: next((w for w in context.service_workers
                                  if w.url.endswith("/sw.js")), None),
                    "the preview service worker", timeout=10)


@contextlib.contextmanager
def sw_start_timeout(context, ms: int):
    """The service worker's START_TIMEOUT_MS becomes `ms` while inside (its setTimeout is
    wrapped for that one delay); restored on exit."""
    worker = service_worker(context)
    worker.evaluate("""(ms) => {
      self.__realSetTimeout ??= self.setTimeout;
      const real = self.__realSetTimeout, start = START_TIMEOUT_MS;
      self.setTimeout = (fn, delay, ...rest) => real(fn, delay === start ? ms : delay, ...rest);
    }""", ms)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):  # a stopped worker starts again unpatched
            worker.evaluate("() => { self.setTimeout = self.__realSetTimeout; }")


@pytest.fixture(scope="module")
def edges(app_session, base_url):
    """(app session, preview tab, the preview URLs of two big files)."""
    app = app_session.page
    urls = [app.evaluate(SETUP_JS, [path, BIG_PIECES * PIECE])
            for path in ("/edges/big.bin", "/edges/idle.bin")]
    tab = app_session.context.new_page()
    tab.goto(base_url + "preview/edges/a.txt")
    yield app_session, tab, urls
    tab.close()


def test_methods_other_than_get_and_head_are_405(edges):
    _, tab, _ = edges
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        init = {"method": method, "body": "x"} if method != "DELETE" else {"method": method}
        got = tab.evaluate(FETCH_JS, ["/preview/edges/a.txt", init])
        assert (got["status"], got["allow"]) == (405, "GET, HEAD"), method
    # Nothing reached the file, and GET still answers.
    got = tab.evaluate(FETCH_JS, ["/preview/edges/a.txt", {}])
    assert (got["status"], got["text"]) == (200, "alpha\n")


def test_an_app_tab_that_does_not_start_answering_is_504_and_recovers(edges):
    session, tab, _ = edges
    session.page.evaluate(HOLD_JS)  # the tab acks (its page is free), its worker is held
    try:
        with sw_start_timeout(session.context, 500):
            got = tab.evaluate(FETCH_JS, ["/preview/edges/a.txt", {"cache": "no-store"}])
    finally:
        session.page.evaluate(RELEASE_JS)
    assert got["status"] == 504 and "Gateway Timeout" in got["text"], got
    got = tab.evaluate(FETCH_JS, ["/preview/edges/a.txt", {"cache": "no-store"}])
    assert (got["status"], got["text"]) == (200, "alpha\n")


# What an offer from a service worker of another protocol version looks like to the page, and
# which of the two offers gets an ack. The page's own listener sees it as it would a real one.
OFFERS_JS = """async () => {
  await window.pyvfs.ready;
  const acked = {};
  for (const protocol of [1, 2, 3]) {
    const { port1, port2 } = new MessageChannel();
    const posted = [];
    port2.postMessage = (message) => posted.push(message?.type);
    const request = { path: "/edges/a.txt", method: "GET" };
    navigator.serviceWorker.dispatchEvent(new MessageEvent("message", {
      data: { type: "pyvfs:preview", protocol, vfs: "default", request }, ports: [port2] }));
    acked[protocol] = posted;  // the listener runs during dispatchEvent: nothing is pending
    port1.close();
  }
  return acked;
}"""


def test_an_offer_of_another_protocol_version_is_ignored(edges):
    session, _, _ = edges
    assert session.page.evaluate(OFFERS_JS) == {"1": [], "2": ["ack"], "3": []}


# An app tab loaded before a deploy, speaking protocol 1 (web/pyvfs.mjs at 24fc81a): it acked
# every offer for its VFS name at once and answered {type: "response"} on the port, with no
# "go" and no "start". The current service worker must time it out (504), not hang or serve it.
OLD_TAB_JS = """async (scope) => {
  window.__offers = [];
  navigator.serviceWorker.addEventListener("message", (event) => {
    const message = event.data;
    if (message?.type !== "pyvfs:preview" || message.vfs !== "default") return;
    window.__offers.push(message.protocol);
    const [port] = event.ports;
    port.postMessage({ type: "ack" });
    const body = new TextEncoder().encode("from the old tab");
    port.postMessage({ type: "response", status: 200, headers: {}, body }, [body.buffer]);
  });
  navigator.serviceWorker.startMessages();
  const registration = await navigator.serviceWorker.register("/sw.js", { scope });
  const worker = registration.installing ?? registration.waiting ?? registration.active;
  while (worker.state !== "activated") await new Promise((r) => setTimeout(r, 50));
}"""


def test_an_app_tab_of_an_older_protocol_gets_504_until_it_is_reloaded(browser, base_url):
    context = browser.new_context(base_url=base_url)
    context.add_init_script(NO_SNAPSHOT)
    offsite = record_offsite(context, [])
    try:
        old = context.new_page()
        old.goto("/manifest.json")  # any page of the app's origin outside /preview/
        old.evaluate(OLD_TAB_JS, base_url + "preview/")
        preview = context.new_page()
        with sw_start_timeout(context, 500):
            response = preview.goto("/preview/old.txt")
        assert response.status == 504
        assert "Gateway Timeout" in preview.inner_text("body")
        assert old.evaluate("window.__offers") == [2]  # it was asked, acked, and not believed

        session = AppSession(context, old)  # the old tab, reloaded: now the current app
        watch_console(old, session.console)
        old.goto("/")
        wait_ready(session)
        old.evaluate("""async () => {
          await (await window.pyvfs.ready).writeFile("/old.txt", "served by the new tab");
        }""")
        response = preview.goto("/preview/old.txt")
        assert response.status == 200
        assert preview.inner_text("body") == "served by the new tab"
    finally:
        context.close()
    assert_no_offsite(offsite, "the old-tab context")


# In the preview tab: start reading the big file, read its first piece, keep the reader.
START_READ_JS = """async (url) => {
  window.__abort = new AbortController();
  const signal = AbortSignal.any([window.__abort.signal, AbortSignal.timeout(WAIT_MS)]);
  const response = await fetch(url, { signal, cache: "no-store" });
  window.__reader = response.body.getReader();
  const first = await window.__reader.read();
  return { status: response.status, first: first.value.length };
}""".replace("WAIT_MS", str(WAIT_MS))
ABORT_JS = """async () => {
  window.__abort.abort();
  try { await window.__reader.read(); return "read on"; } catch (error) { return error.name; }
}"""


def test_a_cancelled_preview_body_releases_its_pinned_chunks(edges):
    session, tab, (url, _) = edges
    app = session.page
    worker = next(w for w in app.workers if w.url.endswith("/worker.mjs"))
    worker.evaluate(COUNT_PORT_MESSAGES_JS)
    assert app.evaluate(DIAGNOSTICS_JS) == {"streams": 0, "pinnedChunks": 0}

    started = tab.evaluate(START_READ_JS, url)
    assert started["status"] == 200 and started["first"] > 0
    # The file goes while its body is read: only the stream's pins keep its chunks stored.
    app.evaluate("async () => { await (await window.pyvfs.ready).rm('/edges/big.bin'); }")
    app.evaluate(HOLD_JS)  # the body stops where it is (its next piece waits for the worker)
    try:
        midway = app.evaluate(DIAGNOSTICS_JS)
        sent = worker.evaluate("() => ({ ...self.__portMessages })")
        assert midway["streams"] == 1 and midway["pinnedChunks"] == BIG_PIECES, midway
        assert sent.get("end", 0) == 0 and sent.get("chunk", 0) < BIG_PIECES - 1, sent
        # The abort reaches the service worker as a cancel of its body stream, which it passes
        # on to the VFS worker (checked on Chromium 156.0.8078.79).
        assert tab.evaluate(ABORT_JS) == "AbortError"
    finally:
        app.evaluate(RELEASE_JS)

    # Released by the cancel, well before the worker's 60 s idle timeout could do it (and
    # the service worker's 30 s one): the poll gives up after 20 s.
    wait_for(lambda: app.evaluate(DIAGNOSTICS_JS) == {"streams": 0, "pinnedChunks": 0},
             "the preview stream to be closed and its pins released after the abort")
    sent = worker.evaluate("() => ({ ...self.__portMessages })")
    assert sent.get("end", 0) == 0, sent  # cancelled, not read to its end
    report = app.evaluate("async () => (await window.pyvfs.ready).check()")
    assert report["problems"] == []
    # The removed file's chunks left the store with the last pin.
    assert report["reclaimableChunks"] == 0, report


# In the VFS worker: the owner's idle timeout (IDLE_MS in web/preview_owner.mjs, 60 s, module
# private) becomes `ms`; every other timer keeps its delay.
SHORT_IDLE_JS = """(ms) => {
  self.__realSetTimeout ??= self.setTimeout;
  const real = self.__realSetTimeout;
  self.setTimeout = (fn, delay, ...rest) => real(fn, delay === 60000 ? ms : delay, ...rest);
}"""
# In the preview tab, once the service worker is gone: the body fails (after what the page had
# buffered).
DRAIN_JS = """async () => {
  for (;;) {
    try { if ((await window.__reader.read()).done) return "ended"; }
    catch (error) { return error.name; }
  }
}"""


def test_a_preview_body_left_idle_is_closed_and_releases_its_pins(edges):
    """The service worker dies mid-body (DevTools stops it): nothing cancels the stream, and the
    VFS worker's idle timeout, shortened to 0.5 s here, is what closes it."""
    session, tab, (_, url) = edges
    app = session.page
    worker = next(w for w in app.workers if w.url.endswith("/worker.mjs"))
    worker.evaluate(SHORT_IDLE_JS, 500)
    try:
        assert tab.evaluate(START_READ_JS, url)["status"] == 200
        app.evaluate(HOLD_JS)  # the body stops where it is
        try:
            midway = app.evaluate(DIAGNOSTICS_JS)
            assert midway["streams"] == 1 and midway["pinnedChunks"] == BIG_PIECES, midway
            cdp = session.context.new_cdp_session(tab)
            cdp.send("ServiceWorker.enable")
            cdp.send("ServiceWorker.stopAllWorkers")
            cdp.detach()
            # The reader sees the body fail: the service worker is gone, its cancel never sent.
            assert tab.evaluate(DRAIN_JS) == "TypeError"
        finally:
            app.evaluate(RELEASE_JS)
        wait_for(lambda: app.evaluate(DIAGNOSTICS_JS) == {"streams": 0, "pinnedChunks": 0},
                 "the idle preview stream to be closed and its pins released")
    finally:
        worker.evaluate("() => { self.setTimeout = self.__realSetTimeout; }")
    got = tab.evaluate(FETCH_JS, ["/preview/edges/a.txt", {"cache": "no-store"}])
    assert (got["status"], got["text"]) == (200, "alpha\n")  # a new service worker answers
