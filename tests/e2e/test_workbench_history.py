"""The workbench's History tab (web/app/history.mjs): three edits by two writers listed with
their writers, filtered by path and writer, the changes since a point, a restore to the first
point (checked on the disk and found in the timeline, after a reload too), snapshots by name,
and the usage line (docs/workbench.md)."""

from __future__ import annotations

import pytest

from .conftest import js, poll_page
from .workbench import read_text, reload, wait_workbench

ITEMS = "#history-list > li"


@pytest.fixture(scope="module")
def history(app):
    wait_workbench(app)
    js(app, """
      await vfs.mkdir('/workspace/h', {recursive: true});
      await vfs.writeFile('/workspace/h/doc.txt', 'first');
      await vfs.as('agent:bot').writeFile('/workspace/h/doc.txt', 'second');
      await vfs.snapshot('after-bot');
      await vfs.writeFile('/workspace/h/doc.txt', 'third');
    """)
    return app


def show(page, path: str = "", writer: str = "") -> list[str]:
    """Open the History tab, filter, and return the items' texts once listed."""
    page.click("#side-history")
    page.fill("#history-path", path)
    page.fill("#history-writer", writer)
    page.evaluate("document.querySelector('#history-status').dataset.state = 'idle'")
    page.click("#history-filter button[type=submit]")
    poll_page(page, "document.querySelector('#history-status').dataset.state === 'done'",
              "the history to be listed")
    return page.locator(ITEMS).all_text_contents()


def test_edits_by_two_writers_are_listed_and_filtered(history):
    items = show(history, "/workspace/h/doc.txt")
    writes = [item for item in items if "writeFile" in item]
    assert len(writes) == 3
    assert "agent:bot" in writes[1] and "user" in writes[0] and "user" in writes[2]
    assert any("snapshot “after-bot”" in item for item in items)
    by_bot = show(history, "/workspace/h/doc.txt", "agent:bot")
    assert len(by_bot) == 1 and "agent:bot" in by_bot[0]
    assert usage_text(history).endswith(("persisted", "the browser may evict it"))


def usage_text(page) -> str:
    poll_page(page, "document.querySelector('#usage').textContent", "the usage line")
    return page.text_content("#usage")


def test_restore_the_first_point(history):
    show(history, "/workspace/h/doc.txt")
    first = history.locator(f"{ITEMS}:not([data-snapshot])").last  # the oldest: 'first'
    first.locator("button:text('Changes since')").click()
    poll_page(history, "document.querySelector('#history-list > li:not([data-snapshot]):last-child"
                       " .history-changes li')", "the changes since the first point")
    assert "modified /workspace/h/doc.txt" in first.locator(".history-changes").text_content()
    first.locator("button:text('Restore')").click()
    said = "document.querySelector('#history-status').textContent"
    poll_page(history, f"{said}.startsWith('Restored')", "the restore to finish")
    assert read_text(history, "/workspace/h/doc.txt") == "first"
    assert "restore" in history.locator(ITEMS).first.text_content()
    # A snapshot restores by name.
    history.locator(f"{ITEMS}[data-snapshot='after-bot'] button:text('Restore')").click()
    poll_page(history, f"{said}.includes('after-bot')", "the restore to the snapshot")
    assert read_text(history, "/workspace/h/doc.txt") == "second"
    reload(history)
    items = show(history, "/workspace/h/doc.txt")
    assert sum("restore" in item for item in items) == 2
