"""The preview through the real service worker, on one booted app: a multi-file site renders in
a new tab with every resource applied (`serve`, `open`); HTTP semantics: Range/206/416 on a
50 MiB file read chunk by chunk, an audio seek, HEAD, ETag/304, fresh bytes after a write, index
and listing, 404, 400 and traversal attempts. Requests are made with fetch() from a page under
/preview/ on the preview origin, the only kind of page the service worker controls; the files
live under /http, which the module's preview root (a token) serves."""

from __future__ import annotations

import base64
import re

import pytest

from .conftest import opened_tab
from .conftest import sh_ok as sh
from .console_errors import expect_failed_load
from .preview_site import ODD_TEXT, RENDERED_JS, WRITE_JS, site_files

BIG_SIZE = 50 * 1024 * 1024
PIECE = 512 * 1024
# Bound of the waits inside the page (a body to end, a media event): far above their usual
# second or two, below the test's timeout so that the page's own message is the failure.
WAIT_MS = 120_000
# Byte i of the big file; the same formula in the app (writing) and the preview tab (checking).
# Every 1 KiB block gets its own hash, so no two 512 KiB chunks are equal (none deduplicated).
PATTERN_JS = "const pattern = (i) => (i ^ (Math.imul(i >>> 10, 0x9E3779B1) >>> 24)) & 255;"

SETUP_JS = """async (size) => {
  PATTERN;
  const vfs = await window.pyvfs.ready;
  await vfs.mkdir("/http/list/sub", { recursive: true });
  await vfs.mkdir("/http/withindex");
  await vfs.writeFile("/http/a.txt", "alpha\\n");
  await vfs.writeFile("/http/withindex/index.html", "<title>index</title><p>the index</p>");
  await vfs.writeFile("/http/list/one.txt", "1");
  await vfs.writeFile("/http/list/sub/two.txt", "2");
  // Written as a stream, so Pyodide's memory (which never shrinks) stays small enough for the
  // streaming test to see whether serving the file makes it grow.
  let offset = 0;
  const source = new ReadableStream({
    pull(controller) {
      if (offset >= size) return controller.close();
      const piece = new Uint8Array(Math.min(512 * 1024, size - offset));
      for (let k = 0; k < piece.length; k++) piece[k] = pattern(offset + k);
      offset += piece.length;
      controller.enqueue(piece);
    },
  });
  const started = performance.now();
  await vfs.writeFile("/http/big.bin", source);
  return performance.now() - started;
}""".replace("PATTERN;", PATTERN_JS)

# Counts the chunk reads the VFS worker makes from IndexedDB (IDBStore.get on "chunks"): the
# proof that a range reads only the chunks it covers, and that a stream is read as it is pulled.
COUNT_READS_JS = """() => {
  if (self.__chunkReads === undefined) {
    const get = IDBObjectStore.prototype.get;
    IDBObjectStore.prototype.get = function (key) {
      if (this.name === "chunks") self.__chunkReads++;
      return get.call(this, key);
    };
  }
  self.__chunkReads = 0;
}"""

FETCH_JS = """async ([url, init]) => {
  const response = await fetch(url, init);
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = Object.fromEntries(response.headers.entries());
  return { status: response.status, headers, text: new TextDecoder().decode(body),
           length: body.length, url: response.url, redirected: response.redirected };
}"""

RANGE_JS = """async ([url, range]) => {
  PATTERN;
  const response = await fetch(url, { headers: { Range: range } });
  const body = new Uint8Array(await response.arrayBuffer());
  const [, first] = /bytes (\\d+)-/.exec(response.headers.get("content-range")) ?? [0, "0"];
  let wrong = 0;
  body.forEach((byte, k) => { if (byte !== pattern(Number(first) + k)) wrong++; });
  return { status: response.status, range: response.headers.get("content-range"),
           length: body.length, contentLength: response.headers.get("content-length"), wrong };
}""".replace("PATTERN;", PATTERN_JS)


ROOT_URL_JS = "async (path) => (await window.pyvfs.ready).previewUrl(path)"


@pytest.fixture(scope="module")
def preview(app_session):
    """(app page, VFS worker, preview tab, root URL): the files written, /http minted as a
    preview root, the tab on a page of it."""
    app = app_session.page
    write_ms = app.evaluate(SETUP_JS, BIG_SIZE)
    print(f"\nwriting 50 MiB through the JS API: {write_ms:.0f} ms")
    worker = next(w for w in app.workers if w.url.endswith("/worker.mjs"))
    worker.evaluate(COUNT_READS_JS)
    root = app.evaluate(ROOT_URL_JS, "/http")
    tab = app_session.context.new_page()
    tab.goto(root + "list/")
    yield app, worker, tab, root
    tab.close()


def get(tab, url: str, **init) -> dict:
    return tab.evaluate(FETCH_JS, [url, init])


def reads(worker) -> int:
    """Chunk reads since the last call."""
    return worker.evaluate("() => { const n = self.__chunkReads; self.__chunkReads = 0; "
                           "return n; }")


@expect_failed_load(r"/preview/[^/]+/big\.bin", 416, reason="asks for a range past the end")
def test_ranges_are_206_with_the_right_bytes_and_read_only_their_chunks(preview):
    _, worker, tab, root = preview
    url = root + "big.bin"
    reads(worker)
    # The last 64 chunks written are still in the 32 MiB chunk cache; these ranges are below.
    boundary = 20 * PIECE
    cases = [
        (f"bytes={boundary - 100}-{boundary + 99}", boundary - 100, 200, 2),
        ("bytes=0-9", 0, 10, 1),
        (f"bytes={5 * PIECE + 7}-{5 * PIECE + 7}", 5 * PIECE + 7, 1, 1),
    ]
    for header, start, length, chunks in cases:
        got = tab.evaluate(RANGE_JS, [url, header])
        assert got == {"status": 206, "range": f"bytes {start}-{start + length - 1}/{BIG_SIZE}",
                       "length": length, "contentLength": str(length), "wrong": 0}, header
        assert reads(worker) == chunks, header
    tail = tab.evaluate(RANGE_JS, [url, "bytes=-10"])
    assert (tail["status"], tail["length"], tail["wrong"]) == (206, 10, 0)
    assert tail["range"] == f"bytes {BIG_SIZE - 10}-{BIG_SIZE - 1}/{BIG_SIZE}"
    beyond = get(tab, url, headers={"Range": f"bytes={BIG_SIZE}-"})
    assert beyond["status"] == 416
    assert beyond["headers"]["content-range"] == f"bytes */{BIG_SIZE}"


MEMORY_JS = "async () => (await (await window.pyvfs.ready).memoryUsage()).wasmBytes"


def test_a_large_body_streams_in_pieces_each_chunk_read_once(preview):
    app, worker, tab, root = preview
    reads(worker)
    before = app.evaluate(MEMORY_JS)
    got = tab.evaluate("""async ([url, size]) => {
      PATTERN;
      const started = performance.now();
      let total = 0, pieces = 0, largest = 0, wrong = 0, timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(
          `${url}: the body did not end within WAIT_MS ms (${total} bytes read)`)), WAIT_MS);
      });
      const check = (bytes, offset) => {
        for (let k = 0; k < bytes.length; k += 4099) {
          if (bytes[k] !== pattern(offset + k)) wrong++;
        }
      };
      try {
        const response = await Promise.race([fetch(url), late]);
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await Promise.race([reader.read(), late]);
          if (done) break;
          check(value, total);
          total += value.length; pieces++; largest = Math.max(largest, value.length);
        }
        return { status: response.status, total, pieces, largest, wrong,
                 length: response.headers.get("content-length"), ms: performance.now() - started };
      } finally { clearTimeout(timer); }
    }""".replace("PATTERN;", PATTERN_JS).replace("WAIT_MS", str(WAIT_MS)),
                       [root + "big.bin", BIG_SIZE])
    assert (got["status"], got["total"], got["wrong"]) == (200, BIG_SIZE, 0)
    assert got["length"] == str(BIG_SIZE)
    # Chrome re-chunks the service worker's 512 KiB pieces (the page reads 64 KiB ones): so at
    # least one piece per chunk and none larger (checked on Chromium 156.0.8078.79).
    assert got["pieces"] >= BIG_SIZE // PIECE and got["largest"] <= PIECE
    assert reads(worker) <= BIG_SIZE // PIECE  # no chunk read twice
    growth = app.evaluate(MEMORY_JS) - before
    print(f"\n50 MiB streamed in {got['ms']:.0f} ms, {got['pieces']} pieces; Pyodide memory "
          f"{before / 2**20:.0f} MiB, grew {growth / 2**20:.1f} MiB")
    # Read whole, the file alone would grow Pyodide's memory by 50 MiB.
    assert growth < 16 * 2**20


def test_head_has_the_headers_and_no_body(preview):
    _, _, tab, root = preview
    got = get(tab, root + "big.bin", method="HEAD")
    assert (got["status"], got["length"]) == (200, 0)
    headers = got["headers"]
    assert headers["content-length"] == str(BIG_SIZE)
    assert headers["content-type"] == "application/octet-stream"
    assert headers["etag"] and headers["last-modified"].endswith(" GMT")
    assert headers["accept-ranges"] == "bytes" and headers["cache-control"] == "no-cache"
    assert headers["x-content-type-options"] == "nosniff"


def test_etag_gives_304_and_a_write_shows_on_the_next_request(preview):
    app, _, tab, root = preview
    first = get(tab, root + "a.txt")
    etag = first["headers"]["etag"]
    assert (first["status"], first["text"]) == (200, "alpha\n")
    assert first["headers"]["content-type"] == "text/plain; charset=utf-8"
    same = get(tab, root + "a.txt", headers={"If-None-Match": etag})
    assert (same["status"], same["length"]) == (304, 0)
    app.evaluate("async () => (await window.pyvfs.ready).writeFile('/http/a.txt', 'beta\\n')")
    fresh = get(tab, root + "a.txt", headers={"If-None-Match": etag})
    assert (fresh["status"], fresh["text"]) == (200, "beta\n")
    assert fresh["headers"]["etag"] != etag


def test_a_directory_serves_its_index_or_a_listing(preview):
    _, _, tab, root = preview
    index = get(tab, root + "withindex")
    assert index["redirected"] and index["url"] == root + "withindex/"
    assert index["text"] == "<title>index</title><p>the index</p>"
    tab.goto(tab.url)  # the listing of /http/list/, named inside the root
    assert tab.title() == "Directory listing for /list"
    assert tab.locator("a").all_inner_texts() == ["one.txt", "sub/"]
    tab.click("text=sub/")
    tab.wait_for_url(root + "list/sub/")
    tab.click("text=two.txt")
    tab.wait_for_url(root + "list/sub/two.txt")
    assert tab.inner_text("body") == "2"
    tab.goto(root + "list/")


@expect_failed_load(r"/preview/[^/]+/nope\.js", 404, reason="asks for a missing file")
@expect_failed_load(r"/preview/[^/]+/%E0%A4%A", 400, reason="a malformed percent-encoding")
def test_missing_is_404_malformed_is_400(preview):
    _, _, tab, root = preview
    missing = get(tab, root + "nope.js")
    assert missing["status"] == 404
    assert "ENOENT" in missing["text"] and "'/nope.js'" in missing["text"]
    assert missing["headers"]["x-content-type-options"] == "nosniff"
    malformed = get(tab, root + "%E0%A4%A")
    assert malformed["status"] == 400 and "malformed percent-encoding" in malformed["text"]


@expect_failed_load(r"/preview/[^/]+/list/[^/]*a\.txt", 400, reason="an encoded slash is refused")
@expect_failed_load(r"/preview/[^/]+/(manifest\.json|%252e%252e/a\.txt|evil\.invalid/a\.txt)", 404,
                    reason="the paths that climb or are double-encoded name no file")
def test_traversal_never_leaves_the_preview_root(preview):
    _, _, tab, root = preview
    # An encoded slash would step across segments: refused.
    assert get(tab, root + "list/..%2f..%2fa.txt")["status"] == 400
    assert get(tab, root + "list/%2e%2e%2Fa.txt")["status"] == 400
    # %2e%2e is "..", resolved by the browser before the service worker sees the URL; climbing
    # above the token lands back in the preview root (root-relative), never elsewhere.
    escaped = get(tab, root + "%2e%2e/%2e%2e/%2e%2e/manifest.json")
    assert escaped["url"] == root + "manifest.json"
    assert escaped["status"] == 404 and "ENOENT" in escaped["text"]
    inside = get(tab, root + "list/%2e%2e/a.txt")
    assert inside["status"] == 200 and inside["url"] == root + "a.txt"
    # Double encoding names a file called "%2e%2e", which does not exist.
    assert get(tab, root + "%252e%252e/a.txt")["status"] == 404
    # A path that starts with "//" names a host if resolved carelessly: it stays in the root.
    origin = root.split("/preview/")[0]
    hosty = get(tab, origin + "/.//evil.invalid/a.txt")
    assert hosty["url"] == root + "evil.invalid/a.txt" and hosty["status"] == 404


WAV_JS = """async (seconds) => {
  const rate = 8000, size = 44 + rate * seconds;
  const wav = new Uint8Array(size);
  const view = new DataView(wav.buffer);
  const text = (offset, s) => [...s].forEach((c, k) => { wav[offset + k] = c.charCodeAt(0); });
  text(0, "RIFF"); view.setUint32(4, size - 8, true); text(8, "WAVEfmt ");
  view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
  view.setUint32(24, rate, true); view.setUint32(28, rate, true);
  view.setUint16(32, 1, true); view.setUint16(34, 8, true);
  text(36, "data"); view.setUint32(40, rate * seconds, true);
  for (let i = 44; i < size; i++) wav[i] = 128 + Math.round(60 * Math.sin(i / 3));
  await (await window.pyvfs.ready).writeFile("/http/tone.wav", wav);
}"""

SEEK_JS = """async ([url, at]) => {
  const audio = new Audio();
  audio.preload = "metadata";
  const once = (name) => new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${url}: no ${name} event within WAIT_MS ms`)), WAIT_MS);
    audio.addEventListener(name, () => { clearTimeout(timer); resolve(); }, { once: true });
    audio.addEventListener("error", () => {
      clearTimeout(timer);
      reject(new Error(`${url}: media error ${audio.error?.code} awaiting ${name}`));
    }, { once: true });
  });
  const ready = once("loadedmetadata");
  audio.src = url;
  await ready;
  const seeked = once("seeked");
  audio.currentTime = at;
  await seeked;
  return { duration: audio.duration, currentTime: audio.currentTime };
}""".replace("WAIT_MS", str(WAIT_MS))


def test_audio_seeks_with_range_requests(preview):
    app, _, tab, root = preview
    seconds = 20 * 60  # 9.6 MB at 8 kHz, 8-bit mono
    app.evaluate(WAV_JS, seconds)
    ranges: list[str] = []
    tab.on("request", lambda request: ranges.append(request.headers.get("range") or "")
           if request.url.endswith("/tone.wav") else None)
    got = tab.evaluate(SEEK_JS, [root + "tone.wav", 1000])
    assert got["duration"] == pytest.approx(seconds, abs=1)
    assert got["currentTime"] == pytest.approx(1000, abs=1)
    # The seek was a Range request far into the file (answered 206 by the service worker). The
    # media element's request pattern is Chromium's (checked on Chromium 156.0.8078.79).
    starts = [int(r.split("=")[1].split("-")[0]) for r in ranges if r.startswith("bytes=")]
    assert any(start > 7_000_000 for start in starts), ranges


def test_names_with_hash_question_mark_and_percent(preview):
    app, _, tab, _ = preview
    url = app.evaluate("""async () => {
      const vfs = await window.pyvfs.ready;
      await vfs.writeFile("/http/odd #1?x=%41.txt", "odd");
      return vfs.previewUrl("/http/odd #1?x=%41.txt");
    }""")
    assert re.search(r"/preview/[\w-]{22}/odd%20%231%3Fx%3D%2541\.txt$", url), url
    got = get(tab, url)
    assert (got["status"], got["text"]) == (200, "odd")


# --- the site ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(app_session):
    files = {path: base64.b64encode(data).decode() for path, data in site_files().items()}
    app_session.page.evaluate(WRITE_JS, files)
    return app_session


def test_serve_renders_the_site_with_every_resource_applied(site):
    with opened_tab(site.context, site.page) as opened:
        result = sh(site.page, "serve /site")
    url = result["stdout"].removeprefix("Serving /site at ").rstrip("\n")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/preview/[\w-]{22}/index\.html", url), url
    tab = opened.value
    tab.wait_for_url(url)
    tab.wait_for_load_state()
    rendered = tab.evaluate(RENDERED_JS)
    assert rendered == {
        "relative": "rgb(1, 2, 3)", "root": "rgb(4, 5, 6)",
        "module": "imported by module", "wasm": "42", "image": [3, 2],
        "fontStatus": "loaded", "fontCheck": True, "controlled": True,
    }
    types = tab.evaluate("""async () => {
      const kinds = {};
      for (const path of ["img/dot.png", "fonts/pixel.woff2", "wasm/add.wasm", "js/main.mjs",
                          "/root.css"]) {
        const response = await fetch(path);
        kinds[path] = [response.status, response.headers.get("content-type"), response.url];
      }
      return kinds;
    }""")
    base = tab.url.rsplit("/", 1)[0]
    assert types == {
        "img/dot.png": [200, "image/png", f"{base}/img/dot.png"],
        "fonts/pixel.woff2": [200, "font/woff2", f"{base}/fonts/pixel.woff2"],
        "wasm/add.wasm": [200, "application/wasm", f"{base}/wasm/add.wasm"],
        "js/main.mjs": [200, "text/javascript; charset=utf-8", f"{base}/js/main.mjs"],
        # Root-relative: "/" is the preview root, /site, so /root.css is redirected into it.
        "/root.css": [200, "text/css; charset=utf-8", f"{base}/root.css"],
    }
    tab.close()


def test_names_with_spaces_and_non_ascii_letters(site):
    with opened_tab(site.context, site.page) as opened:
        result = sh(site.page, "open '/site/dir with space/ünï cödé.txt'")
    url = result["stdout"].rstrip("\n").split(" -> ")[-1]
    odd = "dir%20with%20space/%C3%BCn%C3%AF%20c%C3%B6d%C3%A9.txt"
    assert url.endswith("/%C3%BCn%C3%AF%20c%C3%B6d%C3%A9.txt")  # a file root: the file alone
    # The name is quoted as GNU ls quotes it (it has spaces).
    assert result["stdout"] == f"'/site/dir with space/ünï cödé.txt' -> {url}\n"
    tab = opened.value
    tab.wait_for_url(url)
    assert tab.inner_text("body") == ODD_TEXT
    preview_url = site.page.evaluate(
        "async () => (await window.pyvfs.ready).previewUrl('/site/dir with space/ünï cödé.txt')")
    assert preview_url == url  # the same root gets the same token
    # The link in index.html, percent-encoded by hand, reaches the file in the site's root.
    tab.goto(site.page.evaluate(ROOT_URL_JS, "/site") + "index.html")
    tab.click("#odd")
    tab.wait_for_url(f"**/{odd}")
    assert tab.inner_text("body") == ODD_TEXT
    tab.close()
