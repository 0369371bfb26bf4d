"""The workbench's layout at 360, 1024 and 1600 px, light and dark: screenshots of each view
(the tree and the terminal, the editor, the history; in test-results/workbench/, git-ignored),
no two visible panels overlapping, nothing wider than
the window, axe-core (pinned in package.json) finding no serious or critical violation, the
splitters moved by the keyboard with the terminal still working (docs/workbench.md)."""

from __future__ import annotations

import pytest

from .conftest import ROOT, ROWS, booted_app, js, poll_page, type_line
from .workbench import reveal, row_selector, screenshot, wait_workbench

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PANELS = [".topbar", "#files-pane", "#files-splitter", "#editor-pane", "#editor-splitter",
          "#terminal"]
# The boxes of the panels that show, and the page's width against the window's.
BOXES_JS = """(selectors) => {
  const boxes = {};
  for (const selector of selectors) {
    const element = document.querySelector(selector);
    const box = element.getBoundingClientRect();
    if (element.checkVisibility() && box.width > 0 && box.height > 0) {
      boxes[selector] = [box.left, box.top, box.right, box.bottom];
    }
  }
  return { boxes, width: innerWidth, scrollWidth: document.documentElement.scrollWidth };
}"""
AXE_JS = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ` +
      v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", "));
}"""


@pytest.fixture(scope="module")
def bench(browser, browser_context_args):
    """The booted app in a context that lets the test inject axe-core (bypass_csp: the app's
    policy allows scripts from its own origin only), with a file open in the editor."""
    with booted_app(browser, {**browser_context_args, "bypass_csp": True}) as session:
        page = session.page
        wait_workbench(page)
        js(page, "await vfs.mkdir('/workspace/layout', {recursive: true});"
                 "await vfs.writeFile('/workspace/layout/page.html', '<h1>hi</h1>\\n');")
        page.add_script_tag(path=str(AXE))
        yield page


def check_layout(page, name: str) -> None:
    """Screenshot, then: no two visible panels overlap, nothing overflows horizontally, and
    axe-core finds no serious or critical violation."""
    screenshot(page, name)
    found = page.evaluate(BOXES_JS, PANELS)
    boxes = found["boxes"]
    assert "#terminal" in boxes or "#files-pane" in boxes or "#editor-pane" in boxes, found
    assert found["scrollWidth"] <= found["width"], f"{name}: the page is wider than the window"
    for selector, (left, _top, right, _bottom) in boxes.items():
        assert left >= -0.5 and right <= found["width"] + 0.5, f"{name}: {selector} overflows"
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            (al, at, ar, ab), (bl, bt, br, bb) = boxes[a], boxes[b]
            overlap = max(0, min(ar, br) - max(al, bl)) * max(0, min(ab, bb) - max(at, bt))
            assert overlap < 1, f"{name}: {a} and {b} overlap"
    assert page.evaluate(AXE_JS) == [], f"{name}: axe-core"


def open_in_editor(page, path: str) -> None:
    reveal(page, path)
    page.click(row_selector(path))
    poll_page(page, f"document.querySelector('.editor-tab[aria-selected=true]')?.title === {path!r}"
                    " && document.querySelector('#editor-host .cm-content')", "the editor")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_views_at_each_width(bench, scheme):
    page = bench
    page.emulate_media(color_scheme=scheme)
    for width in (1600, 1024):
        page.set_viewport_size({"width": width, "height": 800})
        page.click(".topbar .brand")  # nothing focused in a panel
        check_layout(page, f"{width}-{scheme}-tree-terminal")
        open_in_editor(page, "/workspace/layout/page.html")
        check_layout(page, f"{width}-{scheme}-editor")
        page.click("#editor-close")
        page.click("#side-history")
        poll_page(page, "document.querySelector('#history-body [role=option]') !== null && "
                  "document.querySelector('#usage-body .usage-status')?.dataset.state === 'done'",
                  "the history's timeline and storage to be shown")
        check_layout(page, f"{width}-{scheme}-history")
        page.click("#side-files")
    # A scoop's terminal tab, and the name asked for it (terminal_tabs.mjs).
    page.click(".terminal-bar button:text-is('Open scoop…')")
    check_layout(page, f"1024-{scheme}-open-scoop")
    page.keyboard.type("layout")
    page.keyboard.press("Enter")
    poll_page(page, "document.querySelector('.terminal-panel:not([hidden]) .xterm-rows')"
                    "?.innerText.includes('scoop:layout@py_vfs')", "the scoop's terminal tab")
    check_layout(page, f"1024-{scheme}-scoop-tab")
    page.click(".terminal-bar button:text-is('Close')")
    page.set_viewport_size({"width": 360, "height": 740})
    for view in ("terminal", "files"):
        page.click(f".views button[data-view={view}]")
        check_layout(page, f"360-{scheme}-{view}")
    open_in_editor(page, "/workspace/layout/page.html")  # a narrow screen shows the editor then
    pressed = "document.querySelector('.views button[data-view=editor]').ariaPressed"
    poll_page(page, f"{pressed} === 'true'", "the narrow screen to show the editor")
    check_layout(page, f"360-{scheme}-editor")
    page.click("#editor-close")
    page.click(".views button[data-view=terminal]")
    page.set_viewport_size({"width": 1280, "height": 720})


def test_splitters_move_by_keys_and_the_terminal_still_works(bench):
    page = bench
    page.set_viewport_size({"width": 1280, "height": 720})
    splitter = page.locator("#files-splitter")
    assert splitter.get_attribute("role") == "separator"
    # aria-valuenow follows the pane's size once its ResizeObserver ran: after the window's
    # resize above (and the previous test's), read it only once it has.
    poll_page(page, "+document.querySelector('#files-splitter').ariaValueNow === Math.round("
                    "document.querySelector('#files-pane').getBoundingClientRect().width)",
              "the splitter's value to be the files pane's width after the resize")
    before = int(splitter.get_attribute("aria-valuenow"))
    width = page.locator("#files-pane").bounding_box()["width"]
    splitter.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    poll_page(page, f"+document.querySelector('#files-splitter').ariaValueNow === {before + 32}",
              "the splitter's value to grow by two steps")
    assert page.locator("#files-pane").bounding_box()["width"] == pytest.approx(width + 32, abs=1)
    page.keyboard.press("Home")
    poll_page(page, "+document.querySelector('#files-splitter').ariaValueNow === 140",
              "the splitter at its smallest")
    type_line(page, "echo still-here")
    poll_page(page, f"{ROWS}.includes('still-here\\n')", "the terminal's answer")
