"""The terminal's tabs (web/app/terminal_tabs.mjs), driven by clicks and keys in Chromium: a
scoop opened in a tab of its own, from the file tree and from the terminal panel, whose shell
sees and reaches nothing outside the scoop (each write checked on the disk through the API);
history, completion and Ctrl-C in that tab; the first tab still the whole disk's shell; tabs
chosen and closed from the keyboard."""

from __future__ import annotations

import json

import pytest

from .conftest import js, poll_page
from .workbench import select, wait_workbench

TABS = ".terminal-tabs [role=tab]"
SHOWN = ".terminal-panel:not([hidden])"
SHOWN_ROWS = f"document.querySelector({json.dumps(SHOWN + ' .xterm-rows')}).innerText"
FIRST_ROWS = "document.querySelector('.terminal-panel .xterm-rows').innerText"


@pytest.fixture(scope="module")
def bench(app):
    """The booted app, its tree ready, the scoop `sand` made (through the API)."""
    wait_workbench(app)
    js(app, "await vfs.scoop('sand');")
    return app


def tab_labels(page) -> list[str]:
    return page.eval_on_selector_all(TABS, "tabs => tabs.map((tab) => tab.textContent)")


def selected_tab(page) -> str:
    return page.text_content(f"{TABS}[aria-selected=true]")


def wait_shown(page, text: str, what: str, rows: str = SHOWN_ROWS) -> None:
    poll_page(page, f"{rows}.includes({json.dumps(text)})", what)


def run_shown(page, line: str, marker: str) -> None:
    """Type ``line`` into the terminal shown (clicked first, as a person would), then wait
    for ``marker`` in its rows."""
    page.click(f"{SHOWN} .xterm-screen")
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    wait_shown(page, marker, f"{line!r} to print {marker!r}")


def test_a_scoop_opened_from_the_tree_sees_only_the_scoop(bench):
    select(bench, "/scoops/sand")
    bench.click("button[data-term-action=open-scoop]")
    poll_page(bench, f"document.querySelectorAll({json.dumps(TABS)}).length === 2",
              "the scoop's terminal tab to open")
    assert tab_labels(bench) == ["disk", "scoop:sand"]
    assert selected_tab(bench) == "scoop:sand"
    wait_shown(bench, "scoop:sand@py_vfs", "the scoop's prompt")
    run_shown(bench, "pwd; echo \"root=$(ls / | tr '\\n' ' ')|$((40+2))\"", "|42")
    rows = bench.evaluate(SHOWN_ROWS)
    assert "/scoops/sand/workspace" in rows
    assert "root=scoops shared |" in rows
    run_shown(bench, "echo \"scoops=$(ls /scoops)|\"; ls /workspace", "No such file")
    assert "scoops=sand|" in bench.evaluate(SHOWN_ROWS)
    # A write lands in the scoop's folder, by the scoop's writer; one outside is refused.
    run_shown(bench, "echo from the tab > note.txt && echo wrote-$((1+1))", "wrote-2")
    assert js(bench, "return vfs.readFile('/scoops/sand/workspace/note.txt', 'utf8');") == \
        "from the tab\n"
    writer = js(bench, "return (await vfs.journal({path: '/scoops/sand/workspace/note.txt',"
                       " limit: 1}))[0].writer;")
    assert writer == "scoop:sand"
    run_shown(bench, "echo out > /escaped.txt", "Permission denied")
    assert js(bench, "return vfs.exists('/escaped.txt');") is False


def test_history_completion_and_ctrl_c_in_a_scoop_tab(bench):
    assert selected_tab(bench) == "scoop:sand"
    # Completion: `/sh` + Tab becomes /shared/.
    bench.click(f"{SHOWN} .xterm-screen")
    bench.keyboard.type("echo /sh")
    bench.keyboard.press("Tab")
    wait_shown(bench, "echo /shared/", "Tab to complete /sh")
    bench.keyboard.type(" $((1+1))x")
    bench.keyboard.press("Enter")
    wait_shown(bench, "/shared/ 2x\n", "the completed line to run")
    # History: Up brings the last line back.
    bench.keyboard.press("ArrowUp")
    bench.keyboard.press("End")
    bench.keyboard.type("-again")
    bench.keyboard.press("Enter")
    wait_shown(bench, "/shared/ 2x-again", "the line from the history to run")
    # Ctrl-C stops a running line; the prompt comes back and works.
    bench.keyboard.type("sleep 60; echo not-$((1+1))stopped")
    bench.keyboard.press("Enter")
    bench.keyboard.press("Control+c")
    wait_shown(bench, "^C", "Ctrl-C to stop sleep")
    run_shown(bench, "echo after-$((1+1))", "after-2")
    assert "not-2stopped" not in bench.evaluate(SHOWN_ROWS)


def test_the_first_tab_is_still_the_disk_and_tabs_switch_by_keys(bench):
    bench.focus(f"{TABS}[aria-selected=true]")
    bench.keyboard.press("ArrowLeft")
    assert selected_tab(bench) == "disk"
    assert bench.evaluate("document.activeElement.textContent") == "disk"
    assert bench.is_hidden(".terminal-panel >> nth=1")
    bench.keyboard.press("Enter")  # to the tab's terminal
    poll_page(bench, "document.querySelector('.terminal-panel').contains(document.activeElement)",
              "Enter on the tab to focus its terminal")
    bench.keyboard.type("echo \"disk=$(ls / | tr '\\n' ' ')|$((40+2))\"")
    bench.keyboard.press("Enter")
    wait_shown(bench, "|42", "the disk's shell to answer", rows=FIRST_ROWS)
    assert "workspace" in bench.evaluate(FIRST_ROWS).split("disk=")[-1]
    assert "user@py_vfs" in bench.evaluate(FIRST_ROWS)
    # End goes to the last tab, Delete closes it; the disk's own tab cannot be closed.
    bench.focus(f"{TABS}[aria-selected=true]")
    bench.keyboard.press("End")
    assert selected_tab(bench) == "scoop:sand"
    bench.keyboard.press("Delete")
    assert tab_labels(bench) == ["disk"]
    assert selected_tab(bench) == "disk"
    bench.keyboard.press("Delete")
    assert tab_labels(bench) == ["disk"]
    assert bench.is_disabled(".terminal-bar button:text-is('Close')")


def test_a_scoop_opened_from_the_terminal_panel(bench):
    bench.click(".terminal-bar button:text-is('Open scoop…')")
    bench.keyboard.type("fresh")
    bench.keyboard.press("Enter")
    poll_page(bench, f"document.querySelectorAll({json.dumps(TABS)}).length === 2",
              "the new scoop's tab to open")
    assert selected_tab(bench) == "scoop:fresh"
    wait_shown(bench, "scoop:fresh@py_vfs", "the new scoop's prompt")
    focused = f"document.querySelector({json.dumps(SHOWN)}).contains(document.activeElement)"
    poll_page(bench, focused, "the new tab's terminal to have the focus")
    bench.keyboard.type("touch made-here && echo touched-$((1+1))")
    bench.keyboard.press("Enter")
    wait_shown(bench, "touched-2", "touch to run in the new scoop")
    assert js(bench, "return vfs.readdir('/scoops/fresh/workspace');") == ["made-here"]
    # Escape leaves the name field without opening anything.
    bench.click(".terminal-bar button:text-is('Open scoop…')")
    bench.keyboard.type("never")
    bench.keyboard.press("Escape")
    assert tab_labels(bench) == ["disk", "scoop:fresh"]
    assert js(bench, "return vfs.exists('/scoops/never');") is False
