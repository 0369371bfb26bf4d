"""fsspec in the page (docs/python.md): a script run by the shell's `python -c` or by
`vfs.runPython` uses `fsspec.open("pyvfs:///...")`, `fs.ls`, `fs.pipe` and `fs.cat` on the
page's disk, and the JS API sees what it wrote at once (the same VFS object, no copy). fsspec's
wheel comes from our own origin on the first `import fsspec`, also after a boot from the runtime
snapshot. Inside a scoop a script reaches its own view and nothing else."""

from __future__ import annotations

import pytest

from .conftest import (
    BOOT_JS,
    WAIT_STORED_JS,
    assert_no_offsite,
    js,
    open_app,
    wait_ready,
    without_shipped_snapshot,
)

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
    only the scoop's view, entered with the shell's `scoop` or through `vfs.scoop()`'s API
    (its shell and its runPython)."""
    result = js(page, WITHIN + """
      await vfs.writeFile("/workspace/secret.txt", "secret");
      const outside = await sh(`python -c 'import fsspec; ` +
        `print(fsspec.filesystem("pyvfs", name="default").cat("/workspace/secret.txt"))'`);
      const view = await vfs.scoop("fs-a");
      await sh("scoop fs-a");
      const inShell = await sh(`python -c '${args[0]}'`);
      await sh("exit");
      const inView = await within(view.shell(`python -c '${args[0]}'`), 120000, "view.shell");
      const inRun = await within(view.runPython(args[0]), 120000, "view.runPython");
      return {outside, inShell, inView, inRun, planted: await vfs.exists("/workspace/planted.txt"),
              mine: await vfs.readFile("/scoops/fs-a/workspace/mine.txt", "utf8")};
    """, SCOOP_SCRIPT)
    assert (result["outside"]["stdout"], result["outside"]["code"]) == ("b'secret'\n", 0)
    expected = ("own mine\nread FileNotFoundError\nwrite PermissionError\n"
                "list FileNotFoundError\nother disk PermissionError\n")
    for run in (result["inShell"], result["inView"], result["inRun"]):
        assert (run["stdout"], run["stderr"], run["code"]) == (expected, "", 0)
    assert result["planted"] is False
    assert result["mine"] == "mine"


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
    without_shipped_snapshot(context)  # from the packages first, then from a stored snapshot
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


def test_run_python_runs_code_as_python_c_with_cwd_args_stdin_and_status(page):
    """`vfs.runPython` is the shell's `python -c`: sys.argv, cwd, stdin and the exit status as
    there, the session's own directory untouched; fsspec writes seen by the JS API at once."""
    result = js(page, WITHIN + """
      const before = (await sh("pwd")).stdout;
      const ran = await py("import sys, os\\nprint(sys.argv, cwd, sys.stdin.read().strip())",
        {cwd: "/workspace", args: ["a", "b c"], stdin: "typed\\n"});
      const bytesIn = await py("import sys; print(sys.stdin.buffer.read())",
        {stdin: new Uint8Array([104, 105])});
      const exits = await py("import sys; print('out'); sys.exit(3)");
      const raises = await py("1 / 0");
      const written = await py(args[0]);
      const report = await vfs.readFile("/workspace/report.txt", "utf8");
      const seen = [];
      const twoStreams = "print('one', flush=True)\\nimport sys\\nprint('two', file=sys.stderr)";
      const streamed = await py(twoStreams, {onOutput: (kind, text) => seen.push([kind, text])});
      return {before, after: (await sh("pwd")).stdout, ran, bytesIn, exits, raises, written,
              report, seen, streamed};
    """, CSV_SCRIPT)
    assert result["after"] == result["before"]
    assert result["ran"] == {"stdout": "['-c', 'a', 'b c'] /workspace typed\n", "stderr": "",
                             "code": 0}
    assert result["bytesIn"]["stdout"] == "b'hi'\n"
    assert result["exits"] == {"stdout": "out\n", "stderr": "", "code": 3}
    assert result["raises"]["code"] == 1
    assert result["raises"]["stderr"].endswith("ZeroDivisionError: division by zero\n")
    assert (result["written"]["code"], result["written"]["stderr"]) == (0, "")
    assert result["report"] == "total 3\n"
    # Handed on as written (print writes the text and the newline apart), stdout before stderr.
    assert result["seen"][0] == ["stdout", "one"]
    assert {stream: "".join(text for kind, text in result["seen"] if kind == stream)
            for stream in ("stdout", "stderr")} == {"stdout": "one\n", "stderr": "two\n"}
    assert result["streamed"] == {"stdout": "", "stderr": "", "code": 0}


def test_run_python_rejects_bad_arguments_and_stops_at_its_signal(page):
    """Bad arguments reject in the page as Node's do (nothing sent); a cwd that is not there
    rejects with the core's ENOENT; an abort stops a script waiting in an await (status 130)
    and an already aborted signal rejects with AbortError."""
    result = js(page, WITHIN + """
      const outcome = (call) => call().then((r) => ["resolved", r.code],
        (e) => [e.name, e.code]);
      const bad = [];
      for (const call of [() => vfs.runPython(5), () => vfs.runPython("1", {args: "a"}),
                          () => vfs.runPython("1", {args: [1]}),
                          () => vfs.runPython("1", {bogus: 1}),
                          () => vfs.runPython("1", {onOutput: "no"}),
                          () => vfs.runPython("1", {cwd: "/no/such/dir"}),
                          () => vfs.runPython("1", {cwd: "/workspace/data.csv"})]) {
        bad.push(await outcome(call));
      }
      const controller = new AbortController();
      await vfs.rm("/workspace/py-waiting", {force: true});
      const running = vfs.runPython("await vfs.write_file('/workspace/py-waiting', b'1')\\n" +
        "import asyncio\\nawait asyncio.sleep(3600)", {signal: controller.signal});
      for (let i = 0; i < 600 && !(await vfs.exists("/workspace/py-waiting")); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      controller.abort();
      const stopped = await within(running, 60000, "the aborted runPython");
      const early = await outcome(() => vfs.runPython("1", {signal: AbortSignal.abort()}));
      return {bad, stopped: stopped.code, early, after: (await py("print(6 * 7)")).stdout};
    """)
    assert result["bad"] == [["TypeError", "ERR_INVALID_ARG_TYPE"]] * 3 + [
        ["TypeError", "ERR_INVALID_ARG_VALUE"], ["TypeError", "ERR_INVALID_ARG_TYPE"],
        ["Error", "ENOENT"], ["Error", "ENOTDIR"]]
    assert result["stopped"] == 130
    assert result["early"] == ["AbortError", "ABORT_ERR"]
    assert result["after"] == "42\n"


NOT_PROMISING = """
import asyncio, errno, fsspec
fs = fsspec.filesystem("pyvfs")
loop = asyncio.get_running_loop()
done = loop.create_future()
def attempt(name):
    try:
        fs.ls("/workspace")
        return f"{name} listed"
    except OSError as error:
        return f"{name} {errno.errorcode[error.errno]} {error}"
def from_js():
    done.set_result(attempt("from a JS timer:"))
from js import setTimeout
from pyodide.ffi import create_once_callable
setTimeout(create_once_callable(from_js), 0)
print(await done)
again = loop.create_future()
loop.call_soon(lambda: again.set_result(attempt("from the page's loop:")))
print(await again)
"""


def test_a_call_that_cannot_block_fails_with_eagain_and_says_where_it_can(page):
    """A Python callback a JS timer calls directly is not a promising call: fsspec cannot wait
    for the page's loop there and fails at once with EAGAIN (never hangs); the same call from
    the page's own loop (asyncio's callbacks) blocks with JSPI and works."""
    result = js(page, WITHIN + "return await py(args[0]);", NOT_PROMISING)
    # Which entries into Python may block is JSPI's: checked on Chromium 156.0.8078.79.
    assert result["stdout"].splitlines() == [
        "from a JS timer: EAGAIN EAGAIN: resource temporarily unavailable, call (a synchronous "
        "call into the page's disk must wait for the page's event loop, which only a script run "
        "by the shell's python or vfs.runPython can do (in a browser with JSPI); elsewhere "
        "await the VFS's coroutines)",
        "from the page's loop: listed"]
    assert (result["stderr"], result["code"]) == ("", 0)
