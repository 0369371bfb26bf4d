"""The preview's edges through the real service worker (docs/preview.md): a method other than GET
and HEAD is 405; an app tab that acks but never starts answering is 504; an offer of another
protocol version is never acked; a preview body cancelled half way releases the chunks its stream
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

from .console_errors import expect_failed_load

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
  await vfs.mkdir("/edges", { recursive: true });
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
  return vfs.previewUrl(path, { root: "/edges" });
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
def edges(app_session):
    """(app session, preview tab on /edges/a.txt, the preview URLs of two big files), all in
    the preview root /edges."""
    app = app_session.page
    urls = [app.evaluate(SETUP_JS, [path, BIG_PIECES * PIECE])
            for path in ("/edges/big.bin", "/edges/idle.bin")]
    tab = app_session.context.new_page()
    tab.goto(small_url(urls))
    yield app_session, tab, urls
    tab.close()


def small_url(urls: list[str]) -> str:
    """The preview URL of /edges/a.txt, beside the big files in the same root."""
    return urls[0].rsplit("/", 1)[0] + "/a.txt"


@expect_failed_load(r"/preview/[^/]+/a\.txt", 405, reason="sends methods other than GET and HEAD")
def test_methods_other_than_get_and_head_are_405(edges):
    _, tab, urls = edges
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        init = {"method": method, "body": "x"} if method != "DELETE" else {"method": method}
        got = tab.evaluate(FETCH_JS, [small_url(urls), init])
        assert (got["status"], got["allow"]) == (405, "GET, HEAD"), method
    # Nothing reached the file, and GET still answers.
    got = tab.evaluate(FETCH_JS, [small_url(urls), {}])
    assert (got["status"], got["text"]) == (200, "alpha\n")


@expect_failed_load(r"/preview/[^/]+/a\.txt", 504, reason="the app tab is held from answering")
def test_an_app_tab_that_does_not_start_answering_is_504_and_recovers(edges):
    session, tab, urls = edges
    session.page.evaluate(HOLD_JS)  # the tab acks (its page is free), its worker is held
    try:
        with sw_start_timeout(session.context, 500):
            got = tab.evaluate(FETCH_JS, [small_url(urls), {"cache": "no-store"}])
    finally:
        session.page.evaluate(RELEASE_JS)
    assert got["status"] == 504 and "Gateway Timeout" in got["text"], got
    got = tab.evaluate(FETCH_JS, [small_url(urls), {"cache": "no-store"}])
    assert (got["status"], got["text"]) == (200, "alpha\n")


# Offers of protocol 2 and 4 (a relay or service worker of another build), then of the current
# protocol 3, each as a message from the page's own relay frame (the origin and source the page
# checks). The page drops another version before any await, so when the dispatch returns nothing
# of theirs is pending; the current offer's ack is the marker that the listener ran.
OFFERS_JS = """async ([token, ms]) => {
  await window.pyvfs.ready;
  const frame = document.querySelector("iframe[src$='/relay.html']");
  const origin = new URL(frame.src).origin;
  const acked = {};
  for (const protocol of [2, 4, 3]) {
    const { port1, port2 } = new MessageChannel();
    const posted = [];
    port1.onmessage = ({ data }) => posted.push(data?.type);
    const request = { path: "/a.txt", method: "GET" };
    window.dispatchEvent(new MessageEvent("message", {
      data: { type: "pyvfs:preview", protocol, token, request },
      origin, source: frame.contentWindow, ports: [port2] }));
    acked[protocol] = posted;
  }
  const deadline = Date.now() + ms;
  while (!acked[3].length) {
    if (Date.now() > deadline) throw new Error(`no ack of the protocol-3 offer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return acked;
}"""


def test_an_offer_of_another_protocol_version_is_ignored(edges):
    session, _, urls = edges
    token = urls[0].split("/preview/")[1].split("/")[0]
    got = session.page.evaluate(OFFERS_JS, [token, WAIT_MS])
    assert got == {"2": [], "4": [], "3": ["ack"]}


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


# In the VFS worker: the owner's idle timeout (IDLE_MS in web/worker/preview_owner.mjs, 60 s, module
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
    got = tab.evaluate(FETCH_JS, [small_url(edges[2]), {"cache": "no-store"}])
    assert (got["status"], got["text"]) == (200, "alpha\n")  # a new service worker answers
