"""Python's own file API on the page's disk (py_vfs/pyhost, docs/python.md): user code run by
the shell's ``python`` in the worker uses ``open``, ``os``, ``pathlib``, ``shutil``, ``glob``,
``json``, ``csv`` and ``zipfile`` on the shell's paths.

- The conformance suite (tests/python_api/cases.py) runs in the page as a script on the disk and
  its outcomes are compared with the same cases run by this process on a Linux temp directory.
- A script reads a CSV written by the JS API, writes an HTML report with ``open()``; the preview
  serves it, and a reload keeps it.
- A 200 MiB file read line by line with ``for line in open(...)`` leaves the worker's wasm
  memory far below the file's size (reads are lazy)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from .conftest import js

CASES_FILE = Path(__file__).parent.parent / "python_api" / "cases.py"
MiB = 1 << 20
# Every wait in the page is bounded and says what it waited for.
WITHIN = """
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
const sh = (line, ms = 120000) => within(vfs.shell(line), ms, line);
"""


def shell(page, line: str, ms: int = 120_000) -> dict:
    return js(page, WITHIN + "return await sh(args[0], args[1]);", line, ms)


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
    differing = {name: {"linux": linux[name], "page": in_page[name]} for name in linux
                 if linux[name] != in_page[name]}
    assert not differing, "\n".join(f"{name}: {both}" for name, both in differing.items())
    # The script's writes are the disk's: the shell and the JS API see them.
    listing = js(app, "return await vfs.readdir('/workspace/pyapi/base/case016');")
    assert "new.txt" in listing
