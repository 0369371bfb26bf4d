"""The preview across tabs and versions: any open app tab answers, a preview outlives the tab that
opened it while another app tab remains (also when that tab learns late that the tab running
the disk's Python went), a guest tab passes a large body through from its host's worker, 503
once none is left or none has the disk open, and a new service worker build takes over an open
preview without reloading it."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from serve import start_site

from .conftest import DIST, assert_no_offsite, open_app, record_offsite, wait_ready
from .console_errors import expect_failed_load

WRITE_JS = """async ([path, text]) => {
  const vfs = await window.pyvfs.ready;
  await vfs.mkdir(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
  await vfs.writeFile(path, text);
  return vfs.previewUrl(path);
}"""

PROBE_JS = """async (url) => {
  const response = await fetch(url, { cache: "no-store" });
  return [response.status, response.headers.get("x-preview-build"), await response.text()];
}"""


@pytest.fixture(scope="module")
def origin(browser, browser_context_args, tmp_path_factory):
    """(context, app URL, dist copy): dist/ copied and served with its preview origin on other
    ports, so a test may rebuild its sw.js, and one context for the module, so the app boots
    cold only once."""
    copy = tmp_path_factory.mktemp("preview-tabs") / "dist"
    shutil.copytree(DIST, copy)
    site = start_site(copy)
    context = browser.new_context(**browser_context_args)
    offsite = record_offsite(context, [])
    yield context, site.app_url, copy
    context.close()
    site.stop()
    assert_no_offsite(offsite, "the module's context")


@expect_failed_load(r"/preview/[^/]+/a\.txt", 503, reason="no app tab is left to answer")
def test_any_app_tab_answers_and_503_when_none_is_left(origin):
    context, served, _ = origin
    first = open_app(context, served)
    url = first.page.evaluate(WRITE_JS, ["/tabs/a.txt", "from the first tab's disk"])
    # The second tab boots after the write, so its VFS (read from IndexedDB) has the file too.
    second = open_app(context, served)
    preview = context.new_page()
    assert preview.goto(url).status == 200
    assert preview.inner_text("body") == "from the first tab's disk"

    first.page.close()  # the tab that wrote the file and opened the preview
    response = preview.reload()
    assert response.status == 200
    assert preview.inner_text("body") == "from the first tab's disk"

    second.page.close()
    response = preview.reload()
    assert response.status == 503
    assert preview.title() == "Preview unavailable"
    assert "No py_vfs app tab is open" in preview.inner_text("body")
    assert preview.get_attribute("a", "href") == served  # the app's origin, not the preview's
    assert preview.evaluate(PROBE_JS, url)[0] == 503  # subresources too
    preview.close()


EMBED_JS = """async () => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: "elsewhere" });
  return vfs.previewUrl("/");
}"""


@expect_failed_load(r"/embedding-page", 404, reason="the embedding page is the server's 404 page")
@expect_failed_load(r"/preview/[^/]+/(b\.txt|favicon\.ico)", 503,
                    reason="no open tab has the disk open (the page and its icon)")
def test_a_tab_without_the_disk_passes_and_the_preview_says_so(origin):
    context, served, _ = origin
    app = open_app(context, served)
    url = app.page.evaluate(WRITE_JS, ["/pass/b.txt", "b"])
    # A page of the app's origin that embeds py_vfs with another disk: it has a relay too, and
    # its tab answers every offer for the default disk's previews with "pass".
    other = context.new_page()
    other.goto(served + "embedding-page")
    assert other.evaluate(EMBED_JS).startswith(url.split("/preview/")[0])
    app.page.close()
    preview = context.new_page()
    response = preview.goto(url)
    assert response.status == 503
    assert preview.title() == "Preview unavailable"
    assert "No open py_vfs app tab has this preview's disk open" in preview.inner_text("body")
    preview.close()
    other.close()


# A guest tab that hears of its host's going LATE_MS late: the Web Lock a guest waits on to
# learn it (web/page/share.mjs whenFree: `locks.request(name, callback)`, the only two-argument
# request of a "pyvfs-host:" lock) resolves that much later. A preview request that reaches the
# guest meanwhile must wait for the next host's worker: handed to the gone host's, it was never
# answered, and the previewed page waited for the service worker's 60 s bound
# (web/page/preview_handoff.mjs).
LATE_MS = 5000
LATE_HOST_GONE = f"""(() => {{
  if (typeof LockManager === "undefined") return; // about:blank, an insecure preview page
  const request = LockManager.prototype.request;
  LockManager.prototype.request = function (name, ...rest) {{
    const granted = request.call(this, name, ...rest);
    if (rest.length !== 1 || !String(name).startsWith("pyvfs-host:")) return granted;
    const late = (value) => new Promise((resolve) => setTimeout(() => resolve(value), {LATE_MS}));
    return granted.then(late);
  }};
}})();"""


def test_a_preview_asked_before_a_guest_learns_its_host_went_is_served(origin, browser,
                                                                       browser_context_args):
    _, served, _ = origin
    context = browser.new_context(**browser_context_args)
    offsite = record_offsite(context, [])
    try:
        context.add_init_script(LATE_HOST_GONE)
        host = open_app(context, served)
        guest = open_app(context, served)
        runtime = "async () => (await (await window.pyvfs.ready).diagnostics()).runtime"
        assert [host.page.evaluate(runtime)["role"], guest.page.evaluate(runtime)["role"]] == [
            "host", "guest"]
        url = host.page.evaluate(WRITE_JS, ["/late/a.txt", "served after the failover"])
        preview = context.new_page()
        assert preview.goto(url).status == 200
        host.page.close()
        # The host's worker ends a moment after its page (meanwhile it may still answer); within
        # LATE_MS the guest still takes its host for alive. The bound is well under the service
        # worker's 60 s, so a request handed to the gone worker fails here.
        guest.page.wait_for_timeout(1000)
        response = preview.reload(timeout=30_000)
        assert response.status == 200
        assert preview.inner_text("body") == "served after the failover"
        assert guest.page.evaluate(runtime) == {"role": "host", "guests": 0, "failovers": 1}
    finally:
        context.close()
    assert_no_offsite(offsite, "the late guest's context")


BIG_JS = """async ([path, size]) => {
  const vfs = await window.pyvfs.ready;
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 12)) & 255;
  await vfs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await vfs.writeFile(path, bytes);
  return vfs.previewUrl(path);
}"""

FETCH_BIG_JS = """async (url) => {
  const response = await fetch(url, { cache: "no-store" });
  const bytes = new Uint8Array(await response.arrayBuffer());
  let wrong = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== ((i * 7 + (i >> 12)) & 255)) wrong++;
  return [response.status, bytes.length, wrong];
}"""


def test_a_guest_tab_passes_a_large_body_through_from_its_hosts_worker(origin, browser,
                                                                        browser_context_args):
    _, served, _ = origin
    context = browser.new_context(**browser_context_args)
    try:
        host = open_app(context, served)
        guest = open_app(context, served)
        runtime = "async () => (await (await window.pyvfs.ready).diagnostics()).runtime"
        assert guest.page.evaluate(runtime)["role"] == "guest"
        # Without the host's relay frame only the guest is offered the request: its relay takes
        # it and passes the body, piece by piece, from the host's worker (preview_handoff.mjs).
        relay = host.page.locator("iframe[title='py_vfs preview relay']")
        relay.evaluate("frame => frame.remove()")
        size = 3 * 2**20 + 12345  # several pieces
        url = host.page.evaluate(BIG_JS, ["/big/b.bin", size])
        preview = context.new_page()
        assert preview.goto(host.page.evaluate(WRITE_JS, ["/big/a.txt", "a"])).status == 200
        assert preview.evaluate(FETCH_BIG_JS, url) == [200, size, 0]
    finally:
        context.close()


def test_a_new_build_takes_over_an_open_preview_without_reload(origin):
    context, served, copy = origin
    build = json.loads((copy / "manifest.json").read_text())["build"]
    sw_file = copy / "preview-origin" / "preview" / "sw.js"
    sw = sw_file.read_text()
    assert f'const BUILD = "{build}";' in sw  # the build stamps every sw.js it writes

    app = open_app(context, served)
    url = app.page.evaluate(WRITE_JS, ["/v/a.txt", "one"])
    preview = context.new_page()
    preview.goto(url)
    assert preview.evaluate(PROBE_JS, url) == [200, build, "one"]

    sw_file.write_text(sw.replace(f'const BUILD = "{build}";', 'const BUILD = "next";'))
    app.page.evaluate(WRITE_JS, ["/v/a.txt", "two"])
    app.page.reload()  # the app's relay registers the service worker again, asks for an update
    wait_ready(app)
    # Ready does not wait for the relay frame; a preview's URL is given only once it is up.
    assert app.page.evaluate("p => window.pyvfs.ready.then((vfs) => vfs.previewUrl(p))",
                             "/v/a.txt") == url
    # Polled here, not with wait_for_function: that one takes an async predicate's promise as
    # truthy at once, so it never waited for the new build.
    deadline = time.monotonic() + 20
    while (seen := preview.evaluate(PROBE_JS, url))[1] != "next":
        if time.monotonic() > deadline:
            pytest.fail(f"waited 20 s for the new service worker build to answer; last {seen}")
        time.sleep(0.2)
    assert seen == [200, "next", "two"]
    assert preview.evaluate(PROBE_JS, url) == [200, "next", "two"]  # and it stays in charge
