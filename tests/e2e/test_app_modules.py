"""The app page fetches the modules of its boot at once (build/module_preload.py, docs/boot.md
"The page's modules"): dist/index.html lists them as modulepreload links, so no module of the
page waits for the one that imports it to arrive first, and the editor's CodeMirror bundle,
which loads when a file is opened, is not among them."""

from __future__ import annotations

from .conftest import open_app, workbench_started

# The worker's own modules show in the page's resource timeline too; the page never imports them.
WORKER_MODULES = ("worker.mjs", "pyodide/")
PAGE_MODULES_JS = """() => ({
  preloaded: [...document.querySelectorAll('link[rel="modulepreload"]')]
    .map((link) => new URL(link.href).pathname.slice(1)),
  fetched: performance.getEntriesByType("resource").map((entry) => new URL(entry.name))
    .filter((url) => url.origin === location.origin && url.pathname.endsWith(".mjs"))
    .map((url) => url.pathname.slice(1)),
  entry: new URL(document.querySelector('script[type="module"]').src).pathname.slice(1),
})"""


def test_every_module_of_the_boot_is_preloaded_and_the_editor_is_not(context):
    page = open_app(context).page
    workbench_started(page)  # the last of the boot's imports: the workbench and its panels
    modules = page.evaluate(PAGE_MODULES_JS)
    preloaded = modules["preloaded"]
    page_fetched = [name for name in modules["fetched"] if not name.startswith(WORKER_MODULES)]
    assert modules["entry"] == "app.mjs"
    assert preloaded and len(set(preloaded)) == len(preloaded)
    assert "pyvfs.mjs" in preloaded and "terminal.mjs" in preloaded and "workbench.mjs" in preloaded
    # Every module the boot imported was listed (none came a level later), and every listed
    # one arrived.
    assert sorted(set(page_fetched) - {"app.mjs"}) == sorted(preloaded)
    assert "code_editor.mjs" not in page_fetched
