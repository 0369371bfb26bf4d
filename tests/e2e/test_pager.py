"""`less` on the terminal page in real Chromium: the first page, Space, a search, `q` back to
the prompt with the screen as it was; Ctrl-C while it waits for a key quits it too. The keys
reach it through the terminal's raw input mode (web/app/terminal.mjs)."""

from __future__ import annotations

from .conftest import ROWS, js, poll_page, type_line


def test_less_pages_searches_and_gives_the_prompt_back(app):
    js(app, """
      const lines = [];
      for (let n = 1; n <= 500; n++) lines.push(`row ${n}` + (n === 7 ? "\\u001b[2J" : ""));
      await vfs.writeFile("/pager.txt", lines.join("\\n") + "\\n");
    """)
    type_line(app, "echo before-less")
    poll_page(app, f"{ROWS}.includes('before-less\\n')", "echo's output")
    type_line(app, "less /pager.txt")
    poll_page(app, f"{ROWS}.includes('row 1\\n') && {ROWS}.includes('/pager.txt')",
              "less's first page", show=ROWS)
    rows = app.evaluate(ROWS)
    assert "row 7\\033[2J" in rows and "before-less" not in rows  # escaped, alternate screen
    height = app.evaluate("document.querySelector('.xterm-rows').children.length")
    app.keyboard.press(" ")
    poll_page(app, f"{ROWS}.split('\\n')[0].trim() === 'row {height}'", "the second page")
    app.keyboard.type("/row 42")
    app.keyboard.press("Enter")
    poll_page(app, f"{ROWS}.split('\\n')[0].trim() === 'row 42'", "the line found at the top")
    app.keyboard.press("G")
    poll_page(app, f"{ROWS}.includes('(END)')", "the last page")
    app.keyboard.press("q")
    poll_page(app, f"{ROWS}.includes('before-less') && !{ROWS}.includes('row 500')",
              "the screen as it was")
    poll_page(app, f"{ROWS}.trimEnd().endsWith('$')", "the prompt after q")
    type_line(app, "echo after-less $?")
    poll_page(app, f"{ROWS}.includes('after-less 0\\n')", "a line run after less")
    # Ctrl-C while less waits for a key quits it (status 0: it is a key for the pager).
    type_line(app, "yes | less")
    poll_page(app, f"{ROWS}.includes('y\\ny\\ny\\n')", "yes | less's first page")
    app.keyboard.press("Control+C")
    poll_page(app, f"{ROWS}.trimEnd().endsWith('$') && !{ROWS}.includes('y\\ny\\ny\\n')",
              "the prompt after Ctrl-C")
