"""The workbench's editor (web/app/editor.mjs, code_editor.mjs), driven as a person would:
files opened from the tree, typed into, saved with Ctrl-S and checked on the disk; a change made
in a second tab announced in the first; binary and large files read-only; a keyboard-only
walkthrough (open, edit, save, rename); the preview of an HTML file (docs/workbench.md)."""

from __future__ import annotations

import pytest

from .conftest import js, opened_tab, poll_page
from .workbench import (
    read_text,
    reload,
    reset_status,
    reveal,
    row_selector,
    wait_row,
    wait_workbench,
)

EDITOR_TEXT = ("[...document.querySelectorAll('#editor-host .cm-line')]"
               ".map((line) => line.textContent).join('\\n')")
NOTICE = "document.querySelector('#editor-notice')"


@pytest.fixture(scope="module")
def both(tabs):
    """Two tabs of one browser on the same disk, each with its workbench ready."""
    first, second = tabs
    for tab in tabs:
        wait_workbench(tab.page)
    js(first.page, "await vfs.mkdir('/workspace/e', {recursive: true});")
    return first.page, second.page


def open_file(page, path: str) -> None:
    """Click the file's row in the tree; wait until its tab is the active one."""
    reveal(page, path)
    reset_status(page)
    page.click(row_selector(path))
    active = "document.querySelector('.editor-tab[aria-selected=true]')?.title"
    failed = "document.querySelector('#files-status').dataset.state === 'failed'"
    shown = f"{active} === {path!r} || {failed}"
    poll_page(page, shown, f"the editor to show {path}")
    assert page.evaluate(f"{active}") == path, page.text_content("#files-status")
    poll_page(page, "document.querySelector('#editor-host .cm-content')", "CodeMirror to load")


def editor_text(page) -> str:
    return page.evaluate(EDITOR_TEXT)


def wait_notice(page, state: str) -> str:
    poll_page(page, f"{NOTICE}.dataset.state === {state!r} && !{NOTICE}.hidden",
              f"the editor's notice to say {state}")
    return page.text_content("#editor-notice")


def test_type_and_save_with_ctrl_s(both):
    page, _ = both
    js(page, "await vfs.writeFile('/workspace/e/code.py', 'x = 1\\n');")
    open_file(page, "/workspace/e/code.py")
    assert editor_text(page).startswith("x = 1")
    # Python is highlighted: the keyword has a colour of its own.
    page.click("#editor-host .cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.type("def f():\nreturn 2")  # the editor indents the body itself
    assert page.get_attribute(".editor-tab[aria-selected=true]", "data-dirty") == "true"
    assert "unsaved" in page.get_attribute(".editor-tab[aria-selected=true]", "aria-label")
    assert read_text(page, "/workspace/e/code.py") == "x = 1\n"  # nothing written before Ctrl-S
    page.keyboard.press("Control+s")
    wait_notice(page, "saved")
    assert read_text(page, "/workspace/e/code.py") == "x = 1\ndef f():\n    return 2"
    assert page.get_attribute(".editor-tab[aria-selected=true]", "data-dirty") == "false"
    keyword = page.locator("#editor-host .cm-line span", has_text="def").first
    assert keyword.evaluate("(s) => getComputedStyle(s).color") != \
        page.locator("#editor-host .cm-content").evaluate("(c) => getComputedStyle(c).color")
    reload(page)
    open_file(page, "/workspace/e/code.py")
    assert "return 2" in editor_text(page)


def test_a_change_from_another_tab_is_announced(both):
    page, other = both
    # openVFS's default: one Python for both workbenches, the other tab's a guest of it
    # (which is which since the reload above: docs/architecture.md, "One runtime for every tab").
    roles = sorted(js(tab, "return (await vfs.diagnostics()).runtime.role;") for tab in both)
    assert roles == ["guest", "host"]
    js(page, "await vfs.writeFile('/workspace/e/shared.txt', 'one');")
    open_file(page, "/workspace/e/shared.txt")
    js(other, "await vfs.writeFile('/workspace/e/shared.txt', 'two');")
    assert "changed elsewhere" in wait_notice(page, "changed")
    assert editor_text(page) == "one"  # nothing replaced silently
    page.click("#editor-notice button:text('Reload')")
    wait_notice(page, "reloaded")
    assert editor_text(page) == "two"
    # Keep mine: the tab keeps its text and a save replaces the other tab's.
    page.click("#editor-host .cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.type(" mine")
    js(other, "await vfs.writeFile('/workspace/e/shared.txt', 'three');")
    wait_notice(page, "changed")
    page.click("#editor-notice button:text('Keep mine')")
    wait_notice(page, "kept")
    assert editor_text(page) == "two mine"
    page.click("#editor-save")
    wait_notice(page, "saved")
    assert read_text(other, "/workspace/e/shared.txt") == "two mine"


def test_binary_and_large_files_open_read_only(both):
    page, _ = both
    js(page, "await vfs.writeFile('/workspace/e/blob.bin', new Uint8Array([0, 1, 2, 255]));"
             "await vfs.writeFile('/workspace/e/large.txt', 'a'.repeat(6 * 1024 * 1024));")
    open_file(page, "/workspace/e/blob.bin")
    assert "binary file" in page.text_content("#editor-notice")
    assert page.get_attribute("#editor-host .cm-content", "contenteditable") == "false"
    assert page.is_disabled("#editor-save")
    open_file(page, "/workspace/e/large.txt")
    assert "read-only" in page.text_content("#editor-notice")
    assert page.get_attribute("#editor-host .cm-content", "contenteditable") == "false"
    for _ in range(2):
        page.click("#editor-close")


def focused(page) -> str | None:
    return page.evaluate("document.activeElement?.dataset?.path ?? null")


def tab_until(page, check: str, what: str, key: str = "Shift+Tab") -> None:
    """Press ``key`` until ``check`` (an expression) holds, at most 40 times."""
    for _ in range(40):
        if page.evaluate(check):
            return
        page.keyboard.press(key)
    pytest.fail(f"{key} never reached {what}")


def keys_to(page, path: str) -> None:
    """Move the tree's focus to ``path`` with the arrow keys alone, opening folders on the way."""
    for _ in range(400):
        now = focused(page)
        if now == path:
            return
        row = page.locator(row_selector(now))
        if path.startswith(f"{now}/") and row.get_attribute("aria-expanded") == "false":
            page.keyboard.press("ArrowRight")
            poll_page(page, f"document.querySelector({row_selector(now)!r})"
                            ".getAttribute('aria-expanded') === 'true'", f"{now} to open")
        else:
            page.keyboard.press("ArrowDown")
    rows = page.evaluate("[...document.querySelectorAll('.tree-row')].map((r) => r.dataset.path)")
    pytest.fail(f"the arrow keys never reached {path}; at {focused(page)}, rows {rows}")


def test_keyboard_only_open_edit_save_rename(both):
    page, _ = both
    js(page, "await vfs.mkdir('/workspace/e/kbd', {recursive: true});"
             "await vfs.writeFile('/workspace/e/kbd/walk.md', '# Walk\\n');")
    wait_row(page, "/workspace/e/kbd")  # the tree learns of it from its watch: a person waits too
    page.locator(".xterm-helper-textarea").focus()  # where the page puts the focus after boot
    # The terminal keeps Tab for itself; F6 goes to the next panel, the tree.
    page.keyboard.press("F6")
    assert page.evaluate("document.activeElement?.getAttribute('role')") == "treeitem"
    page.keyboard.press("Home")
    keys_to(page, "/workspace/e/kbd/walk.md")
    page.keyboard.press("Enter")
    poll_page(page, "document.activeElement?.classList.contains('cm-content')",
              "the editor's focus")
    page.keyboard.press("Control+End")
    page.keyboard.type("typed by keys\n")
    page.keyboard.press("Control+s")
    wait_notice(page, "saved")
    assert read_text(page, "/workspace/e/kbd/walk.md") == "# Walk\ntyped by keys\n"
    # Escape, then Shift-Tab, leaves the text (Tab alone indents); on to the tree's row.
    page.keyboard.press("Escape")
    tab_until(page, "document.activeElement?.getAttribute('role') === 'treeitem'", "the tree")
    assert focused(page) == "/workspace/e/kbd/walk.md"
    page.keyboard.press("F2")
    poll_page(page, "document.activeElement?.tagName === 'INPUT'", "the rename field")
    page.keyboard.press("Control+a")
    page.keyboard.type("walked.md")
    page.keyboard.press("Enter")
    wait_row(page, "/workspace/e/kbd/walked.md")
    assert read_text(page, "/workspace/e/kbd/walked.md") == "# Walk\ntyped by keys\n"
    active_tab = page.get_attribute(".editor-tab[aria-selected=true]", "title")
    assert active_tab == "/workspace/e/kbd/walked.md"


def test_preview_an_html_file(both, preview_origin):
    page, _ = both
    js(page, "await vfs.mkdir('/workspace/e/site', {recursive: true});"
             "await vfs.writeFile('/workspace/e/site/index.html', '<h1>Previewed</h1>');")
    open_file(page, "/workspace/e/site/index.html")
    with opened_tab(page.context, page) as opened:
        page.click("#editor-preview")
    tab = opened.value
    tab.wait_for_url(lambda url: url.startswith(preview_origin))
    tab.wait_for_load_state()
    poll_page(tab, "document.querySelector('h1')", "the preview to show the page")
    assert tab.text_content("h1") == "Previewed"
    tab.close()
