"""A selection of the shell conformance suite typed into the terminal in Chromium.

tests/unit/test_shell_conformance.py runs every case through ``Shell`` on CPython and in
Pyodide; here one case of each topic goes through the whole product: the page's disk holds the
suite's tree at /work, the line is typed into xterm.js key by key, runs in the worker, streams
back, and what the terminal shows between the typed line and the next prompt must be what GNU
bash printed (tests/shell/expected.json). The cases chosen print only short ASCII lines on
stdout (what a terminal row shows unambiguously), read nothing, and change nothing, so they can
share one page and one tree.
"""

from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path

import pytest

from .conftest import js, poll_page

SHELL_DIR = Path(__file__).resolve().parents[1] / "shell"
EXPECTED = json.loads((SHELL_DIR / "expected.json").read_text(encoding="utf-8"))["cases"]
ROWS = "document.querySelector('.xterm-rows').innerText"
# One case per topic of the suite.
SELECTION = [
    "quoting-02", "vars-01", "arith-01", "cmdsub-01", "glob-02", "brace-01", "redir-03",
    "pipe-01", "list-03", "flow-03", "case-02", "func-01", "test-01", "builtin-01", "cat-01",
    "echo-03", "printf-01", "head-01", "tail-01", "wc-02", "sort-01", "uniq-01", "cut-01",
    "tr-01", "xargs-01", "sed-01", "diff-01", "cmp-01", "seq-01", "base64-01", "xxd-03",
    "jq-02", "misc-13", "readlink-01", "stat-02", "find-01",
]


def _cases():
    spec = importlib.util.spec_from_file_location("shell_conformance_cases", SHELL_DIR / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _cases()


@pytest.fixture(scope="module")
def tree(app):
    """The suite's tree at /work on the page's disk, with its times and modes."""
    entries = []
    for rel, node in cases.TREE.items():
        if node is None:
            entries.append([rel, "dir", None])
        elif isinstance(node, tuple):
            entries.append([rel, "link", node[1]])
        else:
            entries.append([rel, "file", base64.b64encode(node).decode()])
    js(app, """
      const [root, entries, stamp] = args;
      await vfs.rm(root, {recursive: true, force: true});
      await vfs.mkdir(root, {mode: 0o755});
      for (const [rel, kind, data] of entries) {
        const path = `${root}/${rel}`;
        if (kind === "dir") await vfs.mkdir(path, {mode: 0o755});
        else if (kind === "link") await vfs.symlink(data, path);
        else await vfs.writeFile(path, Uint8Array.from(atob(data), (c) => c.charCodeAt(0)),
                                 {mode: 0o644});
      }
      const deepestFirst = entries.filter(([, kind]) => kind !== "link")
        .sort((a, b) => b[0].split("/").length - a[0].split("/").length);
      for (const [rel] of deepestFirst) await vfs.utimes(`${root}/${rel}`, stamp, stamp);
      await vfs.utimes(root, stamp, stamp);
    """, cases.ROOT, entries, cases.MTIME)
    # What generate.py gives bash: HOME at the tree, and the tree as the current directory.
    app.evaluate("(line) => window.pyvfs.shell(line)", f"export HOME={cases.ROOT} TZ=UTC; "
                 f"cd {cases.ROOT}")
    return app


def shown_output(page, line: str) -> str:
    """Type ``line`` on a cleared screen and return the rows between it and the next prompt."""
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.press("Control+L")
    poll_page(page, f"{ROWS}.trim().split('\\n').length === 1", "a cleared screen")
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    shown = f"{ROWS}.replace(/\\u00a0/g, ' ').trimEnd()"
    poll_page(page, f"{shown}.split('\\n').length > 1 && {shown}.endsWith('$')",
              f"the prompt after {line!r}")
    rows = page.evaluate(ROWS).replace("\u00a0", " ").rstrip().split("\n")
    return "".join(row.rstrip() + "\n" for row in rows[1:-1])


@pytest.mark.parametrize("case", SELECTION)
def test_a_line_typed_in_the_terminal_prints_what_bash_prints(tree, case):
    expected = EXPECTED[case]
    assert expected["line"] == cases.CASES[case], "expected.json is stale: run generate.py"
    assert shown_output(tree, expected["line"]) == expected["stdout"]
