"""Durability across reload and browser restart, and the preview in a new tab."""

from __future__ import annotations

import re

from .conftest import opened_tab, wait_ready
from .conftest import sh_ok as sh
from .console_errors import expect_failed_load

SITE = [
    "mkdir -p /workspace/site && cd /workspace/site",
    """echo '<h1>hello</h1><link rel="stylesheet" href="style.css">' > index.html""",
    "echo 'h1 { color: rgb(200, 0, 0) }' > style.css",
]


@expect_failed_load(r"/preview/[^/]+/nope\.js", 404, reason="fetches a missing file")
def test_serve_shows_the_site_with_its_css_on_the_preview_origin(app_session, preview_origin):
    page, context = app_session.page, app_session.context
    for line in SITE:
        sh(page, line)
    with opened_tab(context, page) as opened:
        result = sh(page, "serve")
    url = result["stdout"].removeprefix("Serving /workspace/site at ").rstrip("\n")
    assert re.fullmatch(re.escape(preview_origin) + r"/preview/[\w-]{22}/index\.html", url), url
    tab = opened.value
    tab.wait_for_url(url)
    tab.wait_for_load_state()
    color = tab.evaluate("getComputedStyle(document.querySelector('h1')).color")
    assert color == "rgb(200, 0, 0)"
    css = tab.evaluate("""async () => {
      const r = await fetch('style.css');
      return [r.status, r.headers.get('content-type'), await r.text()];
    }""")
    assert css == [200, "text/css; charset=utf-8", "h1 { color: rgb(200, 0, 0) }\n"]
    # Root-relative: "/" is the preview root, /workspace/site.
    missing = tab.evaluate("""async () => {
      const r = await fetch('/nope.js');
      return [r.status, r.url, await r.text()];
    }""")
    assert missing[0] == 404 and missing[1] == url.replace("index.html", "nope.js")
    assert "ENOENT" in missing[2] and "'/nope.js'" in missing[2]
    tab.close()


@expect_failed_load(r"/preview/[^/]+/b\.txt", 404, reason="a file's neighbour is outside its root")
def test_open_shows_one_file_alone(app_session):
    page, context = app_session.page, app_session.context
    sh(page, "mkdir -p /alone && echo '<p>solo</p>' > /alone/a.html && echo x > /alone/b.txt")
    with opened_tab(context, page) as opened:
        result = sh(page, "open /alone/a.html")
    url = result["stdout"].split(" -> ")[1].strip()
    assert url.endswith("/a.html")
    tab = opened.value
    tab.wait_for_url(url)
    assert tab.inner_text("p") == "solo"
    # A file's preview root is the file: its neighbour is not served.
    assert tab.evaluate("fetch('b.txt').then((r) => r.status)") == 404
    tab.close()


def test_a_new_write_shows_on_the_next_preview_request(app_session):
    page = app_session.page
    sh(page, "mkdir -p /fresh && echo v1 > /fresh/a.txt")
    url = page.evaluate("async () => (await window.pyvfs.ready).previewUrl('/fresh/a.txt')")
    assert url.endswith("/a.txt")
    tab = app_session.context.new_page()
    tab.goto(url)
    assert tab.inner_text("body").strip() == "v1"
    sh(page, "echo v2 > /fresh/a.txt")
    tab.reload()
    assert tab.inner_text("body").strip() == "v2"
    tab.close()


def test_files_survive_a_reload(app_session):
    page = app_session.page
    sh(page, "mkdir -p /durable && echo kept > /durable/r.txt && cd /durable")
    page.reload()
    wait_ready(app_session)
    assert sh(page, "cat /durable/r.txt")["stdout"] == "kept\n"
    assert page.evaluate("""async () => {
      const vfs = await window.pyvfs.ready;
      return vfs.readdir('/durable');
    }""") == ["r.txt"]


def test_files_survive_a_browser_restart(persistent_browser, tmp_path):
    profile = tmp_path / "profile"
    first = persistent_browser.open_app(profile)
    for line in SITE:
        sh(first.page, line)
    sh(first.page, "echo restart > /workspace/site/r.txt")
    first.context.close()

    second = persistent_browser.open_app(profile)
    listing = sh(second.page, "ls /workspace/site")["stdout"]
    assert listing == "index.html\nr.txt\nstyle.css\n"
    assert sh(second.page, "cat /workspace/site/r.txt")["stdout"] == "restart\n"
    second.context.close()
