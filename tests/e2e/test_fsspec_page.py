"""fsspec in the page (docs/python.md): a script run by the shell's `python -c` or by
`vfs.runPython` uses `fsspec.open("pyvfs:///...")`, `fs.ls`, `fs.pipe` and `fs.cat` on the
page's disk, and the JS API sees what it wrote at once (the same VFS object, no copy). fsspec's
wheel comes from our own origin on the first `import fsspec`, also after a boot from the runtime
snapshot. Inside a scoop a script reaches its own view and nothing else."""

from __future__ import annotations

import pytest

from .conftest import assert_no_offsite, js, open_app, wait_ready

# Every wait in the page is bounded and says what it waited for.
WITHIN = """
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
const py = (code, options) => within(vfs.runPython(code, options), 120000, code.slice(0, 60));
const sh = (line) => within(vfs.shell(line), 120000, line);
"""

CSV_SCRIPT = """
import csv, io, fsspec
with fsspec.open("pyvfs:///workspace/data.csv", "r", newline="") as f:
    rows = list(csv.reader(f))
total = sum(int(n) for _, n in rows[1:])
fs = fsspec.filesystem("pyvfs", name="default")
fs.pipe("/workspace/report.txt", f"total {total}\\n".encode())
print(sorted(fs.ls("/workspace", detail=False)))
print(fs.cat("/workspace/report.txt").decode().strip(), type(fs).__name__)
"""


@pytest.fixture(scope="module")
def page(app):
    """The app with a CSV written by the JS API."""
    js(app, 'await vfs.writeFile("/workspace/data.csv", "name,n\\na,1\\nb,2\\n");')
    return app


def test_a_python_c_script_reads_and_writes_the_page_disk_through_fsspec(page):
    result = js(page, WITHIN + """
      const run = await sh(`python -c '${args[0]}'`);
      return {run, report: await vfs.readFile("/workspace/report.txt", "utf8")};
    """, CSV_SCRIPT)
    assert (result["run"]["stderr"], result["run"]["code"]) == ("", 0)
    listed, total = result["run"]["stdout"].splitlines()
    assert "/workspace/data.csv" in listed and "/workspace/report.txt" in listed
    assert total == "total 3 PyVFSFileSystem"
    # Written by Python, read by the JS API right after: the same disk, no copy.
    assert result["report"] == "total 3\n"


SCOOP_SCRIPT = """
import fsspec
fs = fsspec.filesystem("pyvfs", name="default")
fs.pipe("/scoops/fs-a/workspace/mine.txt", b"mine")
print("own", fs.cat("/scoops/fs-a/workspace/mine.txt").decode())
tries = {"read": lambda: fs.cat("/workspace/secret.txt"),
         "write": lambda: fs.pipe("/workspace/planted.txt", b"x"),
         "list": lambda: fs.ls("/workspace"),
         "other disk": lambda: fsspec.filesystem("pyvfs", name="other").ls("/")}
for name, attempt in tries.items():
    try:
        attempt()
        print(name, "ok")
    except OSError as error:
        kinds = (FileNotFoundError, PermissionError)
        print(name, *[kind.__name__ for kind in kinds if isinstance(error, kind)])
"""


def test_a_script_in_a_scoop_reaches_its_own_view_only(page):
    """The same options as the page's own scripts (fsspec hands out its cached instance) reach
    only the scoop's view, entered with the shell's `scoop` or through `vfs.scoop()`'s API."""
    result = js(page, WITHIN + """
      await vfs.writeFile("/workspace/secret.txt", "secret");
      const outside = await sh(`python -c 'import fsspec; ` +
        `print(fsspec.filesystem("pyvfs", name="default").cat("/workspace/secret.txt"))'`);
      const view = await vfs.scoop("fs-a");
      await sh("scoop fs-a");
      const inShell = await sh(`python -c '${args[0]}'`);
      await sh("exit");
      const inView = await within(view.shell(`python -c '${args[0]}'`), 120000, "view.shell");
      return {outside, inShell, inView, planted: await vfs.exists("/workspace/planted.txt"),
              mine: await vfs.readFile("/scoops/fs-a/workspace/mine.txt", "utf8")};
    """, SCOOP_SCRIPT)
    assert (result["outside"]["stdout"], result["outside"]["code"]) == ("b'secret'\n", 0)
    expected = ("own mine\nread FileNotFoundError\nwrite PermissionError\n"
                "list FileNotFoundError\nother disk PermissionError\n")
    for run in (result["inShell"], result["inView"]):
        assert (run["stdout"], run["stderr"], run["code"]) == (expected, "", 0)
    assert result["planted"] is False
    assert result["mine"] == "mine"


BOOT_JS = "async () => (await (await window.pyvfs.ready).diagnostics()).boot"
WAIT_STORED_JS = """async (ms) => {
  const vfs = await window.pyvfs.ready;
  const deadline = Date.now() + ms;
  for (;;) {
    const { boot } = await vfs.diagnostics();
    if (boot.snapshot !== "waiting" && boot.snapshot !== "making") return boot.snapshot;
    if (Date.now() > deadline) throw new Error(`no snapshot after ${ms} ms: ${boot.snapshot}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}"""
PROBE = ("python -c \"import fsspec; fs = fsspec.filesystem('pyvfs'); "
         "fs.pipe('/workspace/probe.txt', b'from ' + fs.cat('/workspace/boot.txt')); "
         "print(type(fs).__module__, fs.cat('/workspace/probe.txt').decode())\"")


@pytest.mark.timeout(600)
def test_fsspec_imports_from_our_origin_on_first_use_after_either_boot(browser,
                                                                     browser_context_args):
    """Not installed at boot: the first `import fsspec` fetches its wheel from our origin (no
    other site), after a boot from the packages and after one from the runtime snapshot (whose
    restored Python has py_vfs's modules but not their files, nor py_vfs.fsspec_fs)."""
    context = browser.new_context(**browser_context_args)  # the snapshot on (no NO_SNAPSHOT)
    wheels: list[str] = []
    context.on("request", lambda r: "/wheels/fsspec-" in r.url and wheels.append(r.url))
    try:
        app = open_app(context)
        assert app.page.evaluate(BOOT_JS)["from"] == "packages"
        assert wheels == []  # nothing of fsspec before the first import
        runs = []
        for _ in range(2):
            runs.append(js(app.page, WITHIN + """
              await vfs.writeFile("/workspace/boot.txt", (await vfs.diagnostics()).boot.from);
              return await sh(args[0]);""", PROBE))
            if len(runs) == 1:
                assert app.page.evaluate(WAIT_STORED_JS, 240_000) == "stored"
                app.page.reload()
                wait_ready(app)
                assert app.page.evaluate(BOOT_JS)["from"] == "snapshot"
    finally:
        context.close()
    assert [(run["stdout"], run["stderr"], run["code"]) for run in runs] == [
        ("py_vfs.fsspec_fs from packages\n", "", 0), ("py_vfs.fsspec_fs from snapshot\n", "", 0)]
    assert len(wheels) == 2 and all(url.startswith(app.page.url.split("/")[0]) for url in wheels)
    assert_no_offsite(app.offsite, "the fsspec boot context")
