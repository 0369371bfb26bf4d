"""Fixtures for the browser tier: dist/ served on 127.0.0.1, driven in Debian's Chromium.

dist/ must be built first (`.venv/bin/python build/build.py`; `npm test` does it). The browser
is Debian's chromium launched by path (build/chromium.py: never `playwright install`, and no
`--browser-channel`, which would look for Playwright's own download); its flags include a
`--host-resolver-rules` that makes any non-loopback fetch fail, so nothing a test does can leave
127.0.0.1. The static server has an explicit MIME map (.mjs as text/javascript, .wasm as
application/wasm): Chromium refuses module scripts served under another type.

Session-wide
    site_server               (base_url, site): build/serve.py's two servers (serve.Site), free
                              ports: the app on dist/ and its preview origin on
                              dist/preview-origin/, each told the other's origin.
    base_url                  overrides pytest-playwright's: "http://127.0.0.1:<port>/", so
                              `page.goto("/")` and `page.request.get("/x")` work.
    preview_origin            "http://127.0.0.1:<other port>": where previews are served.
    browser_type_launch_args  Debian's chromium ($CHROMIUM or `chromium` on PATH), headless,
                              with CHROMIUM_ARGS (every non-loopback host fails to resolve).

Per test (pytest-playwright's function-scoped `context`/`page`: a fresh context, cold boot)
    offsite_requests          list of URLs the test's `context` requested off 127.0.0.1; the
                              test fails at teardown if it is not empty.

Every test
    is bounded by E2E_TIMEOUT_S (pytest-timeout) unless it has its own timeout marker, and
    fails at teardown on a console.error or uncaught error of any page or worker of any context
    (the browser's contexts and persistent ones), unless declared with
    @pytest.mark.expect_console(pattern, reason=...) or expect_failed_load (console_errors.py).

Per test module (one booted page shared by all the tests of a module)
    app_session               AppSession(context, page, offsite, console): ONE context + ONE
                              page, navigated to base_url and waited until
                              `window.pyvfs.ready` resolved (BOOT_TIMEOUT_MS). At the end of
                              the module the context is closed and no offsite request is
                              allowed.
    app                       app_session.page: the booted page, e.g.
                              `app.evaluate("window.pyvfs.ready.then(() => 1)")`.
    Tests in one module share state (the VFS, IndexedDB): write them so order does not matter,
    e.g. each in its own folder.
    booted_app(browser, browser_context_args, init_script)  the same as a context manager, for
                              a module fixture of its own (e.g. with an init script).

Python memory snapshot (docs/boot.md)
    Every context these fixtures make (and pytest-playwright's `context`/`page`) runs
    NO_SNAPSHOT first: the app boots Python from its packages and never makes a snapshot, so
    no test spends seconds of CPU on one it does not look at. tests/e2e/test_snapshot.py uses
    a context without it.

Restart / persistence
    persistent_browser        PersistentBrowser: `.launch(user_data_dir)` starts a persistent
                              Chromium context on that profile folder (same executable and
                              args); `.open_app(user_data_dir)` also navigates its page to
                              base_url and waits for ready, giving an AppSession. Close it
                              (`session.context.close()`) and open again on the same folder to
                              test that data survived a browser restart. Everything still open
                              is closed at teardown, which asserts no offsite requests.
                              Use `tmp_path / "profile"` as user_data_dir.

Helpers
    poll_page / poll_value    wait for an expression in the page / a check made in Python.
    ROWS, type_line           the terminal's rows as text (for poll_page), and a line typed
                              at its prompt.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS, chromium_version
from serve import start_site

from .console_errors import MARKER_HELP, ConsoleErrors, failure_text, unexpected

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"

BOOT_TIMEOUT_MS = 120_000
# Read by web/app/app.mjs: boot without the runtime snapshot and never make one.
NO_SNAPSHOT = 'window.__pyvfsSnapshot = "off";'
# Read by web/app/app.mjs too: a runtime of the page's own, not the shared one (the default), for
# tests of what a tab with its own Python does (an init script of booted_app).
OWN_RUNTIME = 'window.__pyvfsRuntime = "own";'
LOCAL_HOST = "127.0.0.1"
IGNORED_SCHEMES = {"data", "blob", "chrome-extension", "about"}
# Generous bound for one test (pytest-timeout; pytest.ini sets 120 s for tests/unit): a hung
# browser call fails its test with a stack instead of hanging the tier. A test that needs more
# says so with @pytest.mark.timeout(seconds).
E2E_TIMEOUT_S = 300
CONSOLE_ERRORS = ConsoleErrors()


# --- server and browser ------------------------------------------------------------------


def pytest_terminal_summary(terminalreporter) -> None:
    """The browser this run drove, at the end of the tier's output (docs/testing.md), -q too."""
    try:
        line = f"e2e ran on Chromium {chromium_version(CHROMIUM)} ({CHROMIUM})"
    except RuntimeError as e:
        line = f"e2e browser: {e}"
    terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def site_server():
    """(base_url, site): dist/ served by build/serve.py on 127.0.0.1 with its preview origin,
    each on a free port."""
    if not (DIST / "manifest.json").is_file():
        pytest.exit("dist/ is not built: run `.venv/bin/python build/build.py` first", returncode=1)
    site = start_site(DIST)
    yield site.app_url, site
    site.stop()


@pytest.fixture(scope="session")
def preview_origin(site_server) -> str:
    """The origin previews are served from (no trailing slash)."""
    return site_server[1].preview_url.rstrip("/")


@pytest.fixture(scope="session")
def base_url(site_server):
    """Overrides pytest-playwright's base_url: contexts resolve relative URLs against it."""
    return site_server[0]


def chromium_launch_options() -> dict:
    if not CHROMIUM:
        pytest.exit(
            "chromium not found: `sh build/setup.sh --test` installs Debian's, "
            "or set CHROMIUM=/path/to/chromium",
            returncode=1,
        )
    return {"executable_path": CHROMIUM, "args": list(CHROMIUM_ARGS), "headless": True}


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium, headless (unless --headed), loopback-only host resolution."""
    return {**chromium_launch_options(), **browser_type_launch_args}


@pytest.fixture(scope="session")
def browser(browser):
    """pytest-playwright's browser; every context made from it is watched for page errors."""
    browser.on("context", CONSOLE_ERRORS.watch)
    return browser


# --- hooks: a time bound for every test, page errors fail the test --------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every e2e test without its own timeout marker E2E_TIMEOUT_S."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(E2E_TIMEOUT_S))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After the test's teardown (module fixtures included), fail it on unexpected page errors."""
    try:
        return (yield)
    finally:
        errors = unexpected(item, CONSOLE_ERRORS.take())
        if errors:
            pytest.fail(failure_text(errors), pytrace=False)


# --- offsite requests --------------------------------------------------------------------


def is_offsite(url: str) -> bool:
    """True for a request that would leave 127.0.0.1 (data:, blob:, about: do not count)."""
    parts = urlsplit(url)
    if parts.scheme in IGNORED_SCHEMES:
        return False
    return parts.hostname != LOCAL_HOST


def record_offsite(context, sink: list[str]) -> list[str]:
    """Append to `sink` the URL of every request of `context` that is not on 127.0.0.1.

    A passive `request` listener on the context (pages, workers and, in Chromium, service
    workers), never `route`: routing would disable the HTTP cache.
    """

    def on_request(request):
        if is_offsite(request.url):
            sink.append(request.url)

    context.on("request", on_request)
    return sink


def assert_no_offsite(offsite: list[str], where: str) -> None:
    assert not offsite, f"{where} made requests off 127.0.0.1: {offsite}"


@pytest.fixture
def offsite_requests(context):
    """Offsite URLs requested by this test's `context` (pytest-playwright's); must stay empty."""
    offsite = record_offsite(context, [])
    yield offsite
    assert_no_offsite(offsite, "the test's context")


# --- the booted app ----------------------------------------------------------------------


@dataclass
class AppSession:
    """A browser context with one page on the app, booted (window.pyvfs.ready resolved)."""

    context: object
    page: object
    offsite: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # console errors/warnings, page errors


WAIT_READY_JS = """async (ms) => {
  const deadline = Date.now() + ms;
  while (!(window.pyvfs && window.pyvfs.ready)) {
    if (Date.now() > deadline) throw new Error(`window.pyvfs did not appear within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`window.pyvfs.ready did not settle within ${ms} ms`)),
      Math.max(0, deadline - Date.now()));
  });
  try { await Promise.race([window.pyvfs.ready, late]); } finally { clearTimeout(timer); }
  // window.pyvfs.ready may resolve before Python has booted (reads are answered early); the
  // page's own boot calls (the shell's first line, the mounts bar) end with its state.
  while (document.body.dataset.state === "booting") {
    if (Date.now() > deadline) throw new Error(`the page's state stayed "booting" for ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}"""


def without_shipped_snapshot(context) -> None:
    """`context`'s workers read a manifest without `snapshot`, as a build without a browser
    writes it: the boot restores the stored runtime snapshot or starts from the packages, and
    makes one (docs/boot.md). Routing turns the context's HTTP cache off."""

    def drop(route):
        manifest = route.fetch().json()
        manifest.pop("snapshot", None)
        route.fulfill(json=manifest)

    context.route(lambda url: urlsplit(url).path == "/manifest.json", drop)


# The worker's boot diagnostics (docs/boot.md), and a wait until its runtime snapshot is stored
# (or making it failed): seconds of CPU on a loaded machine.
BOOT_JS = "async () => (await (await window.pyvfs.ready).diagnostics()).boot"
WAIT_STORED_JS = """async (ms) => {
  const vfs = await window.pyvfs.ready;
  const deadline = Date.now() + ms;
  for (;;) {
    const { boot } = await vfs.diagnostics();
    if (!["waiting", "making", "keeping"].includes(boot.snapshot)) return boot.snapshot;
    if (Date.now() > deadline) throw new Error(`no snapshot after ${ms} ms: ${boot.snapshot}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}"""


def poll_page(page, expression: str, what: str, timeout_ms: int = 60_000,
              show: str | None = None):
    """Wait until `expression` is truthy in `page`, checked every 50 ms; fail naming `what`
    (and, given `show`, an expression for what the page showed then: the terminal's rows...).

    For app pages instead of `wait_for_function`: Playwright's polling evaluates its predicate
    with `new Function`, which the app's CSP (no 'unsafe-eval') refuses."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        if page.evaluate(expression):
            return
        if time.monotonic() > deadline:
            shown = f"; the page showed {page.evaluate(show)!r}" if show else ""
            pytest.fail(f"waited {timeout_ms} ms for {what}{shown}", pytrace=False)
        time.sleep(0.05)


def poll_value(page, read, done, failure, timeout_s: float = 60.0):
    """``read()`` every 100 ms until ``done(value)``: the value; after ``timeout_s``, fail
    with ``failure(value)``. For a check made in Python (poll_page's is an expression in the
    page); ``page.wait_for_timeout`` between reads lets Playwright take its events in."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            pytest.fail(failure(value), pytrace=False)
        page.wait_for_timeout(100)


# The app's terminal: its rows as text (xterm's DOM renderer), for poll_page's expressions.
ROWS = "document.querySelector('.xterm-rows').innerText"


def type_line(page, text: str) -> None:
    """Type ``text`` at the terminal's prompt and press Enter."""
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


@dataclass
class OpenedTab:
    value: object = None


@contextlib.contextmanager
def opened_tab(context, page, timeout_ms: int = 60_000):
    """The tab `page` opens (window.open) while the block runs, as `opened.value` after it.

    Found among the context's pages, polled with `page.wait_for_timeout` (which lets Playwright
    take its events in) rather than by waiting for one "page" event: a popup that navigates away
    from about:blank to the preview origin at once has, a few times in many runs, produced no
    event in 30 s. On failure the message lists the context's pages."""
    before = list(context.pages)
    opened = OpenedTab()
    yield opened
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        fresh = [tab for tab in context.pages if tab not in before]
        if fresh:
            opened.value = fresh[0]
            return
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout_ms} ms for the tab the page opens; the context has "
                        f"{[tab.url for tab in context.pages]}", pytrace=False)
        page.wait_for_timeout(100)


def watch_console(page, sink: list[str]) -> None:
    def on_console(msg):
        if msg.type in ("error", "warning"):
            sink.append(f"console.{msg.type}: {msg.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: sink.append(f"pageerror: {exc}"))


def wait_ready(session: AppSession, timeout_ms: int = BOOT_TIMEOUT_MS) -> None:
    """Wait until window.pyvfs.ready resolves; fail with the page's console on error."""
    try:
        session.page.evaluate(WAIT_READY_JS, timeout_ms)
        return
    except Exception as e:
        error = e  # fail outside the except block: no "during handling..." chain
    log = "\n".join(session.console[-30:]) or "(no console errors)"
    pytest.fail(f"app did not boot: {error}\n--- page console ---\n{log}", pytrace=False)


def open_app(context, path: str = "/", timeout_ms: int = BOOT_TIMEOUT_MS) -> AppSession:
    """Open `path` in a page of `context` (reusing an open blank page) and wait for ready."""
    session = AppSession(context=context, page=None)
    record_offsite(context, session.offsite)
    blank = [p for p in context.pages if p.url == "about:blank"]
    session.page = blank[0] if blank else context.new_page()
    watch_console(session.page, session.console)
    session.page.goto(path)
    wait_ready(session, timeout_ms)
    return session


@pytest.fixture
def context(context):
    """pytest-playwright's per-test context, without the runtime snapshot (NO_SNAPSHOT)."""
    context.add_init_script(NO_SNAPSHOT)
    return context


@contextlib.contextmanager
def booted_app(browser, browser_context_args, init_script: str | None = None):
    """A new context with ONE page booted on the app (``init_script`` runs in every page of
    the context before the app's own scripts); closed at the end, no offsite request allowed."""
    context = browser.new_context(**browser_context_args)
    context.add_init_script(NO_SNAPSHOT)
    if init_script:
        context.add_init_script(init_script)
    try:
        session = open_app(context)
        yield session
    finally:
        context.close()
    assert_no_offsite(session.offsite, "the module's app context")


@pytest.fixture(scope="module")
def app_session(browser, browser_context_args):
    """ONE context + ONE booted page for the whole test module (see the module docstring)."""
    with booted_app(browser, browser_context_args) as session:
        yield session


@pytest.fixture(scope="module")
def app(app_session):
    """The booted app page shared by the module's tests (window.pyvfs.ready has resolved)."""
    return app_session.page


def workbench_started(page, timeout_ms: int = 60_000) -> None:
    """Waits until the app page's workbench has started: its module loads after the page is
    ready (web/app/app.mjs), and a click on one of its controls before that is lost."""
    poll_page(page, "window.pyvfs.workbench !== undefined", "the workbench to start", timeout_ms)
    state = page.evaluate("""(ms) => Promise.race([
      window.pyvfs.workbench.then(() => "started", (error) => `failed: ${error}`),
      new Promise((resolve) => setTimeout(() => resolve(`not started within ${ms} ms`), ms))])""",
                          timeout_ms)
    assert state == "started", f"the workbench: {state}"


def quiet(page) -> None:
    """The app page's workbench lists folders in its tree as watch events come: those calls
    are the page's too. For tests that count a page's calls, its tree has started and stopped
    listening."""
    workbench_started(page)
    page.evaluate("async () => (await window.pyvfs.workbench).tree.unwatch()")


@pytest.fixture(scope="module")
def quiet_tree(app):
    """``quiet`` for the module's app page."""
    quiet(app)


# --- persistent profiles (browser restarts) -----------------------------------------------


class PersistentBrowser:
    """Launches persistent Chromium contexts on profile folders; closes them at teardown."""

    def __init__(self, playwright, base_url: str):
        self.playwright = playwright
        self.base_url = base_url
        self.contexts: list = []
        self.offsite: list[str] = []

    def launch(self, user_data_dir, **kwargs):
        """A persistent BrowserContext on `user_data_dir` (created if missing).

        Two contexts cannot use the same folder at once: close the first before relaunching.
        """
        Path(user_data_dir).mkdir(parents=True, exist_ok=True)
        options = {**chromium_launch_options(), "base_url": self.base_url, **kwargs}
        context = self.playwright.chromium.launch_persistent_context(str(user_data_dir), **options)
        CONSOLE_ERRORS.watch(context)
        context.add_init_script(NO_SNAPSHOT)
        self.contexts.append(context)
        record_offsite(context, self.offsite)
        return context

    def open_app(self, user_data_dir, path: str = "/", timeout_ms: int = BOOT_TIMEOUT_MS):
        """launch(user_data_dir), open the app in its first page and wait for ready."""
        session = open_app(self.launch(user_data_dir), path, timeout_ms)
        return session

    def close_all(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):  # already closed by the test
                context.close()
        self.contexts.clear()


@pytest.fixture
def persistent_browser(playwright, base_url):
    """PersistentBrowser for restart tests (see the module docstring)."""
    launcher = PersistentBrowser(playwright, base_url)
    try:
        yield launcher
    finally:
        launcher.close_all()
    assert_no_offsite(launcher.offsite, "a persistent context")


@contextlib.contextmanager
def two_tabs(browser, browser_context_args, init_script: str | None = None):
    """Two booted pages (tabs) of one context: the same origin, so the same IndexedDB disk;
    ``init_script`` runs in both before the app (OWN_RUNTIME: each with a Python of its own)."""
    context = browser.new_context(**browser_context_args)
    if init_script:
        context.add_init_script(init_script)
    try:
        first = open_app(context)
        second = open_app(context, "/")  # a new page: the first one is no longer blank
        yield first, second
    finally:
        context.close()
    assert_no_offsite(first.offsite + second.offsite, "the two tabs")


@pytest.fixture(scope="module")
def tabs(browser, browser_context_args):
    """two_tabs on openVFS's default: one Python, the first tab's; the second is its guest."""
    with two_tabs(browser, browser_context_args) as pair:
        yield pair


def sh(page, line: str) -> dict:
    """``window.pyvfs.shell(line)`` in ``page``: its answer (stdout, stderr, code...)."""
    return page.evaluate("(line) => window.pyvfs.shell(line)", line)


def sh_ok(page, line: str) -> dict:
    """``sh`` of a line that must succeed (status 0)."""
    result = sh(page, line)
    assert result["code"] == 0, result
    return result


def js(page, body: str, *args):
    """Run ``body`` in ``page`` with ``vfs`` (the page's booted disk) and ``args`` in scope."""
    return page.evaluate(f"async (args) => {{ const vfs = await window.pyvfs.ready; {body} }}",
                         list(args))
