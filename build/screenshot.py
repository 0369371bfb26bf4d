"""Makes docs/workbench.png, the README's picture of the workbench: the app of dist/ in headless
Chromium at 1024 x 640, light theme, a small workspace written through the JS API, a folder
open in the tree, a Python file in the editor, a few commands run in the terminal and a scoop's
terminal tab beside the disk's.

    .venv/bin/python build/build.py && .venv/bin/python build/screenshot.py

Not part of any test; run it again when the workbench's look changes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from chromium import CHROMIUM, CHROMIUM_ARGS
from playwright.sync_api import sync_playwright
from serve import DIST, start_site

OUT = Path(__file__).resolve().parents[1] / "docs" / "workbench.png"
SIZE = {"width": 1024, "height": 640}
WAIT_S = 120

SEED = """async () => {
  const vfs = await window.pyvfs.ready;
  await vfs.mkdir("/workspace/site", {recursive: true});
  await vfs.writeFile("/workspace/site/index.html",
    "<!doctype html>\\n<title>Sales</title>\\n<link rel=stylesheet href=style.css>\\n" +
    "<h1>Sales</h1>\\n");
  await vfs.writeFile("/workspace/site/style.css", "body { font: 16px system-ui; }\\n");
  await vfs.writeFile("/workspace/sales.csv", "month,units\\nJan,120\\nFeb,135\\nMar,160\\n");
  await vfs.writeFile("/workspace/report.py", [
    '# Totals of sales.csv, by quarter.',
    "import csv",
    "",
    "",
    "def totals(path):",
    "    with open(path, newline='') as file:",
    "        rows = list(csv.DictReader(file))",
    "    return {row['month']: int(row['units']) for row in rows}",
    "",
    "",
    "if __name__ == '__main__':",
    "    units = totals('/workspace/sales.csv')",
    "    print(f'Q1: {sum(units.values())} units')",
    "",
  ].join("\\n"));
  const { tree, editor, terminals } = await window.pyvfs.workbench;
  await terminals.openScoop("agent");
  terminals.activate(terminals.tabs[0]);
  await tree.reveal("/workspace/site/index.html");
  await editor.open("/workspace/report.py");
}"""

COMMANDS = ["cd /workspace", "ls", "python report.py", "wc -l sales.csv"]


def wait(page, expression: str, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise SystemExit(f"screenshot: waited {WAIT_S} s for {what}")
        time.sleep(0.1)


def main() -> int:
    site = start_site(DIST)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=SIZE, color_scheme="light", device_scale_factor=1)
            page.goto(site.app_url)
            wait(page, "document.body.dataset.state === 'ready'", "the app to boot")
            wait(page, "document.querySelector('#workbench').dataset.tree === 'ready'",
                 "the file tree")
            page.evaluate(SEED)
            page.locator(".terminal-panel .xterm-helper-textarea").first.focus()
            for line in COMMANDS:
                page.keyboard.type(line)
                page.keyboard.press("Enter")
            wait(page, "document.querySelector('.xterm-rows').innerText.includes('units\\n')",
                 "the commands to run")
            page.mouse.move(0, SIZE["height"] - 1)  # no hover title over a row
            page.wait_for_timeout(500)  # the editor's highlighting and the cursor settle
            page.screenshot(path=str(OUT))
            browser.close()
    finally:
        site.stop()
    print(f"screenshot: {OUT} ({OUT.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
