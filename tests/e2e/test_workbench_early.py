"""The workbench while Python boots (docs/workbench.md, "Layout"; docs/boot.md, "Reads before
Python"): on a returning visit the file tree shows the disk's real entries, opens folders and
answers the keys and the mouse before the page says ``data-state="ready"``, listed through the
page's early reads. Python is held back by holding the worker's first request (its
manifest.json, as tests/e2e/test_early_reads.py does), so nothing it lists can have come from
Python; the test releases it once the tree has been used. What needs Python says it waits, and
does its part once Python is up.
"""

from __future__ import annotations

import pytest

from .conftest import js, open_app, poll_page
from .test_early_reads import python_held, worker_asked
from .workbench import row_selector, screenshot, wait_row, wait_workbench

FILES = ["/workspace/early/notes.txt", "/workspace/early/sub/deep.txt"]
STATE = "document.body.dataset.state"


def attribute(page, path: str, name: str) -> str | None:
    return page.get_attribute(row_selector(path), name)


@pytest.mark.timeout(600)  # two boots from the packages (no runtime snapshot) on a loaded machine
def test_the_tree_lists_and_walks_before_python_is_ready(context):
    session = open_app(context)
    page = session.page
    wait_workbench(page)
    js(page, """await vfs.mkdir("/workspace/early/sub", {recursive: true});
                await vfs.writeFile(args[0], "notes"); await vfs.writeFile(args[1], "deep");""",
       *FILES)

    with python_held(context) as held:
        page.reload()
        poll_page(page, "document.querySelector('#workbench')?.dataset.tree === 'listed'",
                  "the tree to list the disk's root while Python is held")
        worker_asked(page, held)
        assert page.evaluate(STATE) == "booting"
        # The boot's progress stands in the terminal's place; the layout and the tree show.
        assert page.locator("#workbench").is_visible()
        assert page.evaluate("document.querySelector('#workbench').contains("
                             "document.getElementById('boot'))")
        assert page.locator("#boot").is_visible()
        assert page.get_attribute("#workbench", "data-python") == "starting"
        screenshot(page, "booting")  # test-results/workbench/: the tree beside the boot

        # The mouse opens a folder, listed lazily from the disk.
        wait_row(page, "/workspace")
        page.click(row_selector("/workspace"))
        wait_row(page, "/workspace/early")
        assert attribute(page, "/workspace", "aria-expanded") == "true"
        # The keys walk it: Right opens, Right again goes to the first entry (folders first).
        page.locator(row_selector("/workspace/early")).focus()
        page.keyboard.press("ArrowRight")
        wait_row(page, "/workspace/early/sub")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.dataset.path") == "/workspace/early/sub"
        page.keyboard.press("ArrowRight")
        wait_row(page, FILES[1])
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        assert page.evaluate("document.activeElement.dataset.path") == FILES[0]

        # What needs Python says so and changes nothing: the toolbar is disabled with a reason,
        # Delete tells it waits, a file chosen opens once Python is up.
        delete = page.locator("#files-pane [data-action=delete]")
        assert delete.is_disabled()
        assert "once Python has started" in delete.get_attribute("title")
        page.keyboard.press("Delete")
        assert page.get_attribute("#files-status", "data-state") == "waiting"
        assert "waits for Python" in page.text_content("#files-status")
        page.keyboard.press("Enter")
        assert "opens once Python has started" in page.text_content("#files-status")
        assert page.evaluate(STATE) == "booting", "Python answered while it was held"

    poll_page(page, f"{STATE} === 'ready'", "the page to be ready once Python is released",
              timeout_ms=180_000)
    wait_workbench(page)
    assert page.get_attribute("#workbench", "data-python") == "ready"
    assert not page.locator("#files-pane [data-action=delete]").is_disabled()
    assert page.locator("#boot").is_hidden()
    # The file chosen while Python booted is open in the editor now; nothing was deleted.
    poll_page(page, "[...document.querySelectorAll('#editor-tabs [role=tab]')]"
                    ".some((tab) => tab.textContent.includes('notes.txt'))",
              "the file chosen during the boot to open in the editor")
    assert js(page, "return vfs.readFile(args[0], 'utf8');", FILES[0]) == "notes"
    assert js(page, "return (await vfs.diagnostics()).earlyReads;") > 0
