"""Python's own file API on the page's disk (py_vfs/pyhost, docs/python.md): user code run by
the shell's ``python`` in the worker uses ``open``, ``os``, ``pathlib``, ``shutil``, ``glob``,
``json``, ``csv`` and ``zipfile`` on the shell's paths.

- The conformance suite (tests/python_api/cases.py) runs in the page as a script on the disk and
  its outcomes are compared with the same cases run by this process on a Linux temp directory.
- A script reads a CSV written by the JS API, writes an HTML report with ``open()``; a watch
  listener hears of it, the preview serves it, and a reload keeps it.
- A 200 MiB file read line by line with ``for line in open(...)`` leaves the worker's wasm
  memory far below the file's size (reads are lazy)."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

from .conftest import js, poll_page, wait_ready

CASES_FILE = Path(__file__).parent.parent / "python_api" / "cases.py"
MiB = 1 << 20
ROWS = "document.querySelector('.xterm-rows').innerText"
# Every wait in the page is bounded and says what it waited for.
WITHIN = """
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
const sh = (line, ms = 120000) => within(vfs.shell(line), ms, line);
"""


def shell(page, line: str, ms: int = 120_000) -> dict:
    return js(page, WITHIN + "return await sh(args[0], args[1]);", line, ms)


# Cases whose error names the path from Python 3.13 on (CPython's own os.utime and rmtree of a
# link); the page's Python (3.14) does, as py_vfs/pyhost follows the running Python.
NAMED_SINCE_3_13 = ("_utime_of_a_missing_file", "_rmtree_of_a_link")


def load_cases():
    spec = importlib.util.spec_from_file_location("python_api_cases", CASES_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(600)
def test_the_conformance_cases_give_in_the_page_what_they_give_on_linux(app, tmp_path):
    cases = load_cases()
    assert len(cases.CASES) >= 100
    linux = cases.run_all(str(tmp_path / "linux"))
    js(app, """
      await vfs.mkdir("/workspace/pyapi", {recursive: true});
      await vfs.writeFile("/workspace/pyapi/cases.py", args[0]);""", CASES_FILE.read_text())
    result = shell(app, "python /workspace/pyapi/cases.py /workspace/pyapi/base", 480_000)
    assert (result["code"], result["stderr"]) == (0, ""), result
    in_page = json.loads(result["stdout"])
    assert in_page.keys() == linux.keys()
    if sys.version_info < (3, 13):  # this process's Linux side, against the page's 3.14
        for name in linux:
            if name.endswith(NAMED_SINCE_3_13) and linux[name][0] == "error":
                in_page[name][3] = None
    differing = {name: {"linux": linux[name], "page": in_page[name]} for name in linux
                 if linux[name] != in_page[name]}
    assert not differing, "\n".join(f"{name}: {both}" for name, both in differing.items())
    # The script's writes are the disk's: the shell and the JS API see them.
    listing = js(app, "return await vfs.readdir('/workspace/pyapi/base/case016');")
    assert "new.txt" in listing


REPORT_SCRIPT = """\
import csv, html, os, pathlib
rows = list(csv.DictReader(open("sales.csv", newline="")))
total = sum(int(row["amount"]) for row in rows)
os.makedirs("report", exist_ok=True)
with open("report/index.html", "w") as out:
    out.write("<h1>Sales</h1><ul>")
    for row in rows:
        out.write(f"<li>{html.escape(row['region'])}: {row['amount']}</li>")
    out.write(f"</ul><p id='total'>{total}</p>")
print(len(rows), total, os.getcwd(), sorted(p.name for p in pathlib.Path(".").iterdir()))
"""


def test_a_script_reads_a_csv_from_the_js_api_and_its_report_is_previewed_and_kept(app_session):
    page = app_session.page
    js(page, """
      await vfs.mkdir("/workspace/sales", {recursive: true});
      await vfs.writeFile("/workspace/sales/sales.csv",
                          "region,amount\\nnorth,120\\nsouth,80\\n\\"east, far\\",5\\n");
      await vfs.writeFile("/workspace/sales/report.py", args[0]);
      window.pyhostSeen = [];
      window.pyhostUnwatch = vfs.watch("/workspace/sales",
                                       (event) => window.pyhostSeen.push(event.path),
                                       {recursive: true});
      await window.pyhostUnwatch.ready;""", REPORT_SCRIPT)
    # Typed into the terminal, as a user runs it.
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.type("cd /workspace/sales && python report.py; echo status=$?")
    page.keyboard.press("Enter")
    poll_page(page, f"/status=\\d/.test({ROWS})", "the script's end in the terminal")
    rows = page.evaluate(ROWS)
    assert "3 205 /workspace/sales ['report', 'report.py', 'sales.csv']" in rows, rows
    assert "status=0" in rows and "Traceback" not in rows, rows
    # Watch listeners hear of the script's commit (the VFS's own).
    poll_page(page, "window.pyhostSeen.includes('/workspace/sales/report/index.html')",
              "a watch event for the report the script wrote")
    js(page, "await window.pyhostUnwatch();")
    # The script's file is the disk's at once: the JS API reads it, the preview serves it.
    report = js(page, "return await vfs.readFile('/workspace/sales/report/index.html', 'utf8');")
    assert "<li>east, far: 5</li>" in report
    url = js(page, "return await vfs.previewUrl('/workspace/sales/report/index.html');")
    tab = app_session.context.new_page()
    try:
        tab.goto(url)
        assert tab.inner_text("#total") == "205"
        page.reload()
        wait_ready(app_session)
        assert js(page, "return await vfs.readFile('/workspace/sales/report/index.html', "
                        "'utf8');") == report
        tab.reload()
        assert tab.inner_text("#total") == "205"
    finally:
        tab.close()


BIG_LINES = 3_276_800  # 64-byte lines: 200 MiB
READ_BIG = """\
count = size = 0
last = ""
for line in open("/workspace/big.txt"):
    count += 1
    size += len(line)
    last = line
print(count, size, last.split()[0])
"""


@pytest.mark.timeout(900)
def test_a_200_mib_file_read_line_by_line_keeps_the_wasm_heap_far_below_its_size(app):
    """Written from JS in 1 MiB pieces of numbered lines (no two chunks alike), then read by
    ``for line in open(...)`` in the page: the worker's wasm memory, which only grows, grows
    far less than the file (measured: see docs/python.md)."""
    started = time.monotonic()
    written = js(app, WITHIN + """
      const lines = args[0], perPiece = 16384, pad = "x".repeat(52);
      async function* pieces() {
        for (let first = 0; first < lines; first += perPiece) {
          const part = [];
          for (let n = first; n < first + perPiece; n++)
            part.push(String(n).padStart(10, "0") + " " + pad + "\\n");
          yield part.join("");
        }
      }
      await within(vfs.writeFile("/workspace/big.txt", pieces()), 600000, "writing 200 MiB");
      return (await vfs.stat("/workspace/big.txt")).size;""", BIG_LINES)
    assert written == 200 * MiB
    wrote_s = time.monotonic() - started
    before = js(app, "return (await vfs.memoryUsage()).wasmBytes;")
    js(app, "await vfs.writeFile('/workspace/read_big.py', args[0]);", READ_BIG)
    started = time.monotonic()
    result = shell(app, "python /workspace/read_big.py", 600_000)
    read_s = time.monotonic() - started
    after = js(app, "return (await vfs.memoryUsage()).wasmBytes;")
    assert (result["stdout"], result["stderr"], result["code"]) == (
        f"{BIG_LINES} {200 * MiB} {BIG_LINES - 1:010d}\n", "", 0)
    growth = after - before
    print(f"wasm memory: {before / MiB:.1f} MiB before, {after / MiB:.1f} MiB after reading "
          f"200 MiB line by line (growth {growth / MiB:.1f} MiB); written in {wrote_s:.0f} s, "
          f"read in {read_s:.0f} s")
    assert growth < 32 * MiB, f"the wasm heap grew by {growth / MiB:.1f} MiB"


def test_python_c_an_executable_script_and_the_terminal_s_repl_all_see_the_disk(app):
    """Each way the shell runs Python binds the disk: ``python -c``, a ``.py`` script run by
    name from $PATH, and ``python`` alone in the terminal (the REPL), relative paths against
    the shell's cwd."""
    js(app, """
      await vfs.mkdir("/workspace/bin", {recursive: true});
      await vfs.mkdir("/workspace/pyhost", {recursive: true});
      await vfs.writeFile("/workspace/bin/pyhost_probe.py", args[0]);
      await vfs.chmod("/workspace/bin/pyhost_probe.py", 0o755);""",
       "#!/usr/bin/env python3\nimport os, sys\n"
       "open('by-name.txt', 'w').write(sys.argv[1])\nprint(sorted(os.listdir('.')))\n")
    result = shell(app, "cd /workspace/pyhost && python -c \"open('dash-c.txt', 'w').write('c')\""
                        " && pyhost_probe.py named")
    assert (result["stdout"], result["stderr"], result["code"]) == (
        "['by-name.txt', 'dash-c.txt']\n", "", 0)
    textarea = app.locator(".xterm-helper-textarea")
    for line in ("cd /workspace/pyhost", "python"):
        textarea.focus()
        app.keyboard.type(line)
        app.keyboard.press("Enter")
    poll_page(app, f"{ROWS}.includes('>>> ')", "the interactive interpreter's prompt")
    app.keyboard.type("import pathlib; print(pathlib.Path('repl.txt').write_text('typed'), "
                      "pathlib.Path.cwd())")
    app.keyboard.press("Enter")
    poll_page(app, f"{ROWS}.includes('5 /workspace/pyhost')", "the interpreter's answer")
    app.keyboard.press("Control+D")
    assert js(app, "return await vfs.readdir('/workspace/pyhost');") == [
        "by-name.txt", "dash-c.txt", "repl.txt"]
    assert js(app, "return await vfs.readFile('/workspace/pyhost/repl.txt', 'utf8');") == "typed"


def test_two_runs_at_once_each_see_their_own_cwd(app):
    """Run A waits (at its awaits, bound) for a file run B makes, while run B runs to its end:
    each sees its own current directory and files, since the binding is per run (a context
    variable), not per process. Both go through vfs.runPython, each in a copy of the session."""
    js(app, """
      for (const d of ["ta", "tb"]) await vfs.mkdir(`/workspace/${d}`, {recursive: true});
      await vfs.rm("/workspace/tb/done", {force: true});
      await vfs.writeFile("/workspace/ta/a.txt", "a");""")
    result = js(app, WITHIN + """
      const run = (code, cwd) => within(vfs.runPython(code, {cwd}), 120000, code);
      const a = run("import asyncio, os\\n" +
        "while not os.path.exists('/workspace/tb/done'):\\n    await asyncio.sleep(0.02)\\n" +
        "print(os.getcwd(), sorted(os.listdir()))\\n", "/workspace/ta");
      const b = await run("import os\\nopen('done', 'w').close()\\n" +
        "print(os.getcwd(), sorted(os.listdir()))\\n", "/workspace/tb");
      return {a: await a, b};""")
    assert (result["b"]["stdout"], result["b"]["code"]) == ("/workspace/tb ['done']\n", 0)
    assert (result["a"]["stdout"], result["a"]["code"]) == ("/workspace/ta ['a.txt']\n", 0)


def test_the_runtime_s_roots_stay_python_s_own(app):
    """/tmp (and /lib, /home/pyodide...) are Pyodide's own file system: a script's scratch file
    there is not on the disk, tempfile works there, and os.chdir there leaves the disk and
    back comes to it."""
    js(app, "await vfs.mkdir('/workspace/rt', {recursive: true});")
    code = ("import os, tempfile; os.chdir('/tmp'); open('rt.txt', 'w').write('r'); "
            "t = tempfile.NamedTemporaryFile(); os.chdir('/workspace/rt'); "
            "print(os.path.exists('/tmp/rt.txt'), os.path.exists('rt.txt'), os.getcwd(), "
            "t.name.startswith('/tmp/'), 'rt.txt' in os.listdir('/tmp'), os.path.isdir('/lib'))")
    result = shell(app, f"cd /workspace/rt && python -c \"{code}\"")
    assert (result["stdout"], result["stderr"], result["code"]) == (
        "True False /workspace/rt True True True\n", "", 0)
    assert js(app, "return await vfs.exists('/tmp/rt.txt');") is False
