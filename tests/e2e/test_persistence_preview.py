"""Durability across reload and browser restart, and the preview in a new tab."""

from __future__ import annotations

from .conftest import wait_ready
from .console_errors import expect_failed_load


def sh(page, line: str) -> dict:
    result = page.evaluate("(line) => window.pyvfs.shell(line)", line)
    assert result["code"] == 0, result
    return result


SITE = [
    "mkdir -p /workspace/site && cd /workspace/site",
    """echo '<h1>hello</h1><link rel="stylesheet" href="style.css">' > index.html""",
    "echo 'h1 { color: rgb(200, 0, 0) }' > style.css",
]


@expect_failed_load(r"/preview/workspace/site/nope\.js", 404, reason="fetches a missing file")
def test_open_shows_the_site_with_its_css_through_the_service_worker(app_session):
    page, context = app_session.page, app_session.context
    for line in SITE:
        sh(page, line)
    with context.expect_page() as opened:
        result = sh(page, "open index.html")
    assert result["stdout"].startswith("index.html -> http://127.0.0.1:")
    assert result["stdout"].rstrip().endswith("/preview/workspace/site/index.html")
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.endswith("/preview/workspace/site/index.html")
    color = tab.evaluate("getComputedStyle(document.querySelector('h1')).color")
    assert color == "rgb(200, 0, 0)"
    css = tab.evaluate("""async () => {
      const r = await fetch('style.css');
      return [r.status, r.headers.get('content-type'), await r.text()];
    }""")
    assert css == [200, "text/css; charset=utf-8", "h1 { color: rgb(200, 0, 0) }\n"]
    missing = tab.evaluate("""async () => {
      const r = await fetch('/preview/workspace/site/nope.js');
      return [r.status, await r.text()];
    }""")
    assert missing[0] == 404
    assert "ENOENT" in missing[1] and "/workspace/site/nope.js" in missing[1]
    tab.close()


def test_a_new_write_shows_on_the_next_preview_request(app_session):
    page = app_session.page
    sh(page, "mkdir -p /fresh && echo v1 > /fresh/a.txt")
    url = page.evaluate("async () => (await window.pyvfs.ready).previewUrl('/fresh/a.txt')")
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
