"""A mounted folder in the workbench's tree (docs/workbench.md, "The file tree"; docs/mounts.md):
after a reload, a folder whose permission the browser asks for again shows that state on its
row and is reconnected from the tree, by the keyboard (Enter) and by the mouse (the row's
Reconnect). The folders are OPFS directory handles whose permission tests/e2e/test_mounts.py's
HELPERS report as "prompt" until requestPermission is called, as a browser does after a reload.
"""

from __future__ import annotations

import pytest

from .conftest import booted_app, js, poll_page, wait_ready
from .test_mounts import HELPERS
from .workbench import reveal, row_selector, status, wait_row, wait_workbench

FOLDERS = {"/mnt/tree-keys": "tree-keys", "/mnt/tree-mouse": "tree-mouse"}


@pytest.fixture(scope="module")
def session(browser, browser_context_args):
    with booted_app(browser, browser_context_args, HELPERS) as booted:
        yield booted


def row_state(page, path: str) -> dict:
    return page.evaluate("""(selector) => {
      const row = document.querySelector(selector);
      return row && {mount: row.dataset.mount ?? null,
                     badge: row.querySelector('.badge')?.textContent,
                     description: row.getAttribute('aria-description'),
                     reconnect: Boolean(row.querySelector('.reconnect'))};
    }""", row_selector(path))


def waiting_shown(page, path: str) -> None:
    poll_page(page, f"document.querySelector({row_selector(path)!r})?.dataset.mount === 'waiting'",
              f"the tree to show {path} waiting for permission")


@pytest.mark.timeout(600)  # two boots from the packages on a loaded machine
def test_a_waiting_mount_shows_on_its_row_and_reconnects_from_the_tree(session):
    page = session.page
    wait_workbench(page)
    js(page, """const F = window.__folders;
                for (const [path, name] of Object.entries(args[0])) {
                  await F.write(await F.fresh(name), "inside.txt", name);
                  await vfs.mount(path, await F.open(name));
                }
                localStorage.setItem("pyvfs-test-deny", JSON.stringify(Object.values(args[0])));""",
       FOLDERS)
    page.reload()
    wait_ready(session)
    wait_workbench(page)
    reveal(page, "/mnt/tree-keys")
    for path in FOLDERS:
        waiting_shown(page, path)
        assert row_state(page, path) == {
            "mount": "waiting", "badge": "mounted, waiting",
            "description": "waiting for permission: Enter reconnects it", "reconnect": True}

    # The keyboard: Enter on the row asks for the permission again.
    page.locator(row_selector("/mnt/tree-keys")).focus()
    page.keyboard.press("Enter")
    assert "Reconnected /mnt/tree-keys" in status(page)
    assert row_state(page, "/mnt/tree-keys") == {
        "mount": None, "badge": "mounted", "description": None, "reconnect": False}
    page.keyboard.press("ArrowRight")
    wait_row(page, "/mnt/tree-keys/inside.txt")

    # The mouse: the row's Reconnect.
    page.click(f"{row_selector('/mnt/tree-mouse')} .reconnect")
    assert "Reconnected /mnt/tree-mouse" in status(page)
    assert row_state(page, "/mnt/tree-mouse")["mount"] is None
    poll_page(page, "document.getElementById('mounts').hidden",
              "the top bar's reconnect buttons to go once both folders are back")
    after = js(page, """return [window.__permissionRequests,
                                await vfs.readFile("/mnt/tree-mouse/inside.txt", "utf8"),
                                (await vfs.mounts()).filter((m) => m.path.startsWith("/mnt/tree-"))
                                  .map((m) => m.state)];""")
    assert after == [2, "tree-mouse", ["active", "active"]]
