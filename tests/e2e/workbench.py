"""Helpers for the workbench's tests (tests/e2e/test_workbench_*.py): the file tree and the
editor of the app page driven as a person would, by clicks and keys, and checked on the disk
through the JS API (conftest's ``js``)."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import ROOT, js, poll_page

# Screenshots of the views, kept as test artifacts (test-results/ is git-ignored).
ARTIFACTS = ROOT / "test-results" / "workbench"
TREE_READY = "document.querySelector('#workbench')?.dataset.tree === 'ready'"


def wait_workbench(page) -> None:
    """Wait until the tree shows the disk's root and listens for changes."""
    poll_page(page, TREE_READY, "the workbench's file tree to be ready")


def row_selector(path: str) -> str:
    return f".tree-row[data-path={json.dumps(path)}]"


def wait_row(page, path: str, present: bool = True) -> None:
    """Wait until the tree shows (or no longer shows) the row of ``path``."""
    found = f"document.querySelector({json.dumps(row_selector(path))})"
    poll_page(page, found if present else f"!{found}",
              f"the tree to {'show' if present else 'drop'} {path}")


def reveal(page, path: str) -> None:
    """Open the folders down to ``path`` by clicking them, as a person would."""
    parts = path.strip("/").split("/")
    for depth in range(1, len(parts)):
        folder = "/" + "/".join(parts[:depth])
        wait_row(page, folder)
        row = page.locator(row_selector(folder))
        if row.get_attribute("aria-expanded") == "false":
            row.click()
    wait_row(page, path)


def open_folder(page, path: str) -> None:
    """Reveal the folder ``path`` and open it (a click)."""
    reveal(page, path)
    row = page.locator(row_selector(path))
    if row.get_attribute("aria-expanded") == "false":
        row.click()
    poll_page(page, f"document.querySelector({json.dumps(row_selector(path))})"
                    ".getAttribute('aria-expanded') === 'true'", f"{path} to open")


def select(page, path: str) -> None:
    """Reveal ``path`` and focus its row (a click would toggle a folder: focus it instead)."""
    reveal(page, path)
    page.locator(row_selector(path)).focus()


def status(page, state: str = "done") -> str:
    """#files-status's text once it says ``state`` ("done" or "failed"; fails on the other)."""
    settled = "['done', 'failed'].includes(document.querySelector('#files-status').dataset.state)"
    poll_page(page, settled, "the files pane's status to settle")
    text = page.text_content("#files-status")
    assert page.get_attribute("#files-status", "data-state") == state, text
    return text


def reset_status(page) -> None:
    page.evaluate("document.querySelector('#files-status').dataset.state = 'idle'")


def exists(page, path: str) -> bool:
    return js(page, "return vfs.exists(args[0]);", path)


def read_text(page, path: str) -> str:
    return js(page, "return vfs.readFile(args[0], 'utf8');", path)


def reload(page) -> None:
    """Reload the page and wait for the terminal and the tree."""
    page.reload()
    poll_page(page, "document.body.dataset.state === 'ready'", "the page to boot again",
              timeout_ms=120_000)
    wait_workbench(page)


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
