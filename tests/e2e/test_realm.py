"""A realm for a scoop's code (docs/sandbox.md, "A realm for code"), in Chromium: code a scoop
runs (Python by ``runPython``, ``python -c``, a ``.py`` or ``.jsh`` script in its shell) runs in
a sandboxed frame of an opaque origin whose only authority is the scoop's view. Each hostile
attempt is paired with the same program's legitimate work in the scoop, which must succeed.

The cone (the page's own disk) keeps a secret at /secret/key.txt and another scoop's file at
/scoops/other/workspace/notes.txt; the scoop is "agent"."""

from __future__ import annotations

import json

import pytest

from .conftest import js

SECRET = "s3cret-7f1b"
OTHER = "other-scoop-notes-9c2d"
WITHIN = """
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
const agent = await vfs.scoop("agent");
"""


@pytest.fixture(scope="module")
def realm_app(app):
    """The app page with the secrets written by the cone and the scoop made."""
    js(app, """
      await vfs.mkdir("/secret", {recursive: true});
      await vfs.writeFile("/secret/key.txt", args[0]);
      const other = await vfs.scoop("other");
      await other.writeFile("/scoops/other/workspace/notes.txt", args[1]);
      await vfs.scoop("agent");""", SECRET, OTHER)
    return app


def run_python(page, code: str, ms: int = 240_000) -> dict:
    """``runPython(code)`` on the scoop's API: {stdout, stderr, code}."""
    return js(page, WITHIN + "return await within(agent.runPython(args[0]), args[1], 'runPython');",
              code, ms)


def scoop_shell(page, line: str, ms: int = 240_000) -> dict:
    """One line of the scoop's own shell: {stdout, stderr, code}."""
    return js(page, WITHIN + "return await within(agent.shell(args[0]), args[1], args[0]);",
              line, ms)


def cone(page, body: str, *args):
    return js(page, body, *args)


LEGIT = """
import os, pathlib, shutil, glob
os.makedirs("/scoops/agent/workspace/legit", exist_ok=True)
open("/scoops/agent/workspace/legit/a.txt", "w").write("from the realm")
shutil.copy("/scoops/agent/workspace/legit/a.txt", "/scoops/agent/workspace/legit/b.txt")
pathlib.Path("/shared/from-agent.txt").write_text("shared by agent")
print(sorted(os.listdir("/scoops/agent/workspace/legit")),
      pathlib.Path("/shared/from-agent.txt").read_text(),
      sorted(glob.glob("/scoops/agent/workspace/legit/*.txt")))
"""


def test_a_scoops_python_reads_and_writes_its_scoop_and_shared(realm_app):
    result = run_python(realm_app, LEGIT)
    assert (result["stderr"], result["code"]) == ("", 0), result
    assert result["stdout"] == (
        "['a.txt', 'b.txt'] shared by agent ['/scoops/agent/workspace/legit/a.txt', "
        "'/scoops/agent/workspace/legit/b.txt']\n")
    found = cone(realm_app, """
      const [last] = await vfs.journal({path: "/shared/from-agent.txt", limit: 1});
      return {b: await vfs.readFile("/scoops/agent/workspace/legit/b.txt", "utf8"),
              writer: last.writer};""")
    assert found == {"b": "from the realm", "writer": "scoop:agent"}


HOSTILE_PY = """
import gc, json, sys
found = {}
def attempt(name, thunk):
    try:
        found[name] = repr(thunk())[:200]
    except BaseException as error:  # every way out must fail
        found[name] = "refused: " + type(error).__name__
# Objects that could be a disk: anything with read_file and write_file.
disks = [type(o).__name__ for o in gc.get_objects()
         if hasattr(type(o), "read_file") and hasattr(type(o), "write_file")]
found["disks"] = sorted(set(disks))
found["view internals"] = [n for n in dir(vfs) if "RestrictedView" in n or n == "_vfs"]
KINDS = ("VFS", "RestrictedView")
modules = {name: sorted(k for k, v in vars(m).items() if type(v).__name__ in KINDS)
           for name, m in list(sys.modules.items()) if name.startswith("py_vfs") and m}
found["module disks"] = {k: v for k, v in modules.items() if v}
import js, pyodide.ffi
async def tries():
    out = {}
    async def probe(name, make):
        try:
            out[name] = repr(await make())[:200]
        except BaseException as error:
            out[name] = "refused: " + type(error).__name__ + ": " + str(error)[:120]
    await probe("idb", lambda: js.indexedDB.databases())
    await probe("opfs", lambda: js.navigator.storage.getDirectory())
    await probe("locks", lambda: js.navigator.locks.request("pyvfs:default", lambda lock: 1))
    await probe("import module", lambda: js.eval("import(" + json.dumps(APP + "pyvfs.mjs") + ")"))
    await probe("fetch app", lambda: js.fetch(APP + "index.html"))
    await probe("fetch config", lambda: js.fetch(APP + "pyvfs-config.json"))
    return out
found.update(await tries())
for name in ("pyvfs:default", "pyvfs-lease:default"):
    channel = js.BroadcastChannel.new(name)
    channel.postMessage(js.JSON.parse('{"revision": 999999, "from": "realm"}'))
    channel.close()
attempt("parent", lambda: js.parent)
attempt("top", lambda: js.top)
attempt("secret", lambda: open("/secret/key.txt").read())
attempt("other", lambda: open("/scoops/other/workspace/notes.txt").read())
attempt("write outside", lambda: open("/workspace/pwned.txt", "w").write("x"))
attempt("write via view", lambda: vfs.stat("/secret/key.txt"))
# A timer that outlives the run tries to write outside later.
js.setTimeout(pyodide.ffi.create_once_callable(
    lambda: open("/workspace/pwned-late.txt", "w").write("late")), 300)
open("/scoops/agent/workspace/hostile-ran.txt", "w").write("yes")
print(json.dumps(found))
"""


def test_hostile_python_in_a_scoop_finds_nothing_of_the_app(realm_app):
    cone(realm_app, """
      window.realmBroadcasts = 0;
      window.realmChannels = ["pyvfs:default", "pyvfs-lease:default"].map((name) => {
        const channel = new BroadcastChannel(name);
        channel.onmessage = ({data}) => { if (data?.from === "realm") window.realmBroadcasts++; };
        return channel;
      });""")
    app_url = realm_app.evaluate("location.origin + '/'")
    result = run_python(realm_app, f"APP = {app_url!r}\n" + HOSTILE_PY)
    assert result["code"] == 0, result
    found = json.loads(result["stdout"])
    assert SECRET not in result["stdout"] and OTHER not in result["stdout"]
    assert found["disks"] == ["PortVFS"], found  # no VFS, no RestrictedView in this Python
    assert found["view internals"] == [] and found["module disks"] == {}, found
    for name in ("idb", "opfs", "locks", "import module", "fetch app", "fetch config",
                 "parent", "top", "secret", "other", "write outside", "write via view"):
        assert found[name].startswith("refused"), (name, found[name])
    # Outside the view is absent (ENOENT), as docs/sandbox.md says.
    assert "FileNotFoundError" in found["secret"] and "FileNotFoundError" in found["other"]
    # The program's own work in the scoop happened; nothing outside changed, also later.
    found = cone(realm_app, """
      await new Promise((resolve) => setTimeout(resolve, 1500));
      window.realmChannels.forEach((channel) => channel.close());
      return {ran: await vfs.readFile("/scoops/agent/workspace/hostile-ran.txt", "utf8"),
              pwned: await vfs.exists("/workspace/pwned.txt"),
              late: await vfs.exists("/workspace/pwned-late.txt"),
              broadcasts: window.realmBroadcasts,
              secret: await vfs.readFile("/secret/key.txt", "utf8")};""")
    assert found == {"ran": "yes", "pwned": False, "late": False, "broadcasts": 0,
                     "secret": SECRET}


HOSTILE_JSH = """
const found = {};
const probe = async (name, make) => {
  try { const value = await make(); found[name] = String(value).slice(0, 200); }
  catch (error) { found[name] = "refused: " + (error?.name ?? error); }
};
// (indexedDB.databases() also leaves a rejection with no reason behind in an opaque origin,
// which ends a script as any unhandled rejection does: open() is refused at once.)
await probe("idb", () => indexedDB.open("pyvfs:default"));
await probe("opfs", () => navigator.storage.getDirectory());
await probe("locks", () => navigator.locks.request("pyvfs:default", () => 1));
await probe("import module", () => import(process.env.APP + "pyvfs.mjs"));
await probe("fetch app", () => fetch(process.env.APP + "index.html"));
await probe("secret", () => fs.readFile("/secret/key.txt", "utf8"));
await probe("other", () => fs.readFile("/scoops/other/workspace/notes.txt", "utf8"));
await probe("write outside", () => fs.writeFile("/workspace/pwned-jsh.txt", "x"));
// Its worker's messages go to the realm's frame, which takes none: the app hears nothing.
postMessage({type: "realmOpened", id: 1, from: "realm-attack"});
postMessage({type: "realm", base: "http://127.0.0.1:1/", from: "realm-attack"});
await fs.writeFile("/scoops/agent/workspace/jsh-ran.txt", "yes");
found.shared = await fs.readFile("/shared/from-agent.txt", "utf8");
console.log(JSON.stringify(found));
"""


def test_a_hostile_jsh_script_in_a_scoop_finds_nothing_of_the_app(realm_app):
    app_url = realm_app.evaluate("""() => {
      window.realmAttacks = 0;
      window.addEventListener("message", ({data}) => {
        if (data?.from === "realm-attack") window.realmAttacks++;
      });
      return location.origin + "/";
    }""")
    js(realm_app, WITHIN + """
      await agent.writeFile("/shared/from-agent.txt", "shared by agent");
      await agent.writeFile("/scoops/agent/workspace/probe.jsh", args[0]);""", HOSTILE_JSH)
    result = scoop_shell(realm_app, f"APP={app_url} /scoops/agent/workspace/probe.jsh")
    assert (result["code"], result["stderr"]) == (0, ""), result
    found = json.loads(result["stdout"])
    assert found["shared"] == "shared by agent"
    for name in ("idb", "opfs", "locks", "import module", "fetch app", "secret", "other",
                 "write outside"):
        assert found[name].startswith("refused"), (name, found[name])
    after = js(realm_app, """
      await new Promise((resolve) => setTimeout(resolve, 500));
      return [await vfs.readFile("/scoops/agent/workspace/jsh-ran.txt", "utf8"),
              await vfs.exists("/workspace/pwned-jsh.txt"), window.realmAttacks];""")
    assert after == ["yes", False, 0]


def test_a_scoops_python_streams_pipes_and_exit_statuses_as_the_shell_does(realm_app):
    """In the realm, standard input and output are the pipeline's: a script reads what comes
    before it and writes to what comes after, line by line, and its status is the line's."""
    result = scoop_shell(realm_app, "printf 'a\\nb\\n' | python -c 'import sys; "
                                    "[print(line.strip().upper()) for line in sys.stdin]' | "
                                    "python -c 'import sys; print(repr(sys.stdin.read()))'; "
                                    "python -c 'import sys; sys.exit(3)'; echo status=$?; "
                                    "python -c 'raise ValueError(\"boom\")'; echo status=$?")
    assert result["stdout"] == "'A\\nB\\n'\nstatus=3\nstatus=1\n", result
    assert "ValueError: boom" in result["stderr"]


def test_ctrl_c_ends_a_runaway_python_in_its_realm_and_the_next_run_works(realm_app):
    result = js(realm_app, WITHIN + """
      const controller = new AbortController();
      const line = "python -c 'while True: pass'; echo after";
      const loop = agent.shell(line, {signal: controller.signal})
        .then((value) => ({value}), (error) => ({error: error.name}));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      controller.abort();
      const stopped = await within(loop, 60000, "the interrupted line");
      // The app keeps writing meanwhile, and the scoop's next run starts a new realm Python.
      await vfs.writeFile("/workspace/still-writing.txt", "ok");
      const next = await within(agent.runPython("print(6 * 7)"), 240000, "the next run");
      return {stopped, next};""")
    stopped = result["stopped"]
    # An aborted shell call resolves with the line status, as in tests/e2e/test_abort.py.
    assert stopped.get("value", {}).get("code") == 130, stopped
    assert result["next"] == {"stdout": "42\n", "stderr": "", "code": 0}


def test_the_python_conformance_cases_run_the_same_inside_a_scoop(realm_app, tmp_path):
    from .test_python_api import CASES_FILE, NAMED_SINCE_3_13, load_cases

    cases = load_cases()
    linux = cases.run_all(str(tmp_path / "linux"))
    js(realm_app, WITHIN + """
      await agent.mkdir("/scoops/agent/workspace/pyapi", {recursive: true});
      await agent.writeFile("/scoops/agent/workspace/pyapi/cases.py", args[0]);""",
       CASES_FILE.read_text())
    result = scoop_shell(realm_app, "python /scoops/agent/workspace/pyapi/cases.py "
                                    "/scoops/agent/workspace/pyapi/base", 480_000)
    assert (result["code"], result["stderr"]) == (0, ""), result
    in_realm = json.loads(result["stdout"])
    import sys

    if sys.version_info < (3, 13):
        for name in linux:
            if name.endswith(NAMED_SINCE_3_13) and linux[name][0] == "error":
                in_realm[name][3] = None
    differing = {name: {"linux": linux[name], "realm": in_realm[name]} for name in linux
                 if linux[name] != in_realm.get(name)}
    assert not differing, "\n".join(f"{name}: {both}" for name, both in differing.items())


def test_the_embedder_bounds_a_realm_s_time_and_memory(realm_app):
    """openVFS({realm: {timeoutMs, memoryBytes}}): a run past its wall time ends with 124 and
    says so; an allocation past the memory budget is Python's MemoryError; the realm then still
    answers."""
    found = js(realm_app, """
      const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
      const { openVFS } = await import(new URL("/pyvfs.mjs", location.href).href);
      const bounded = await within(openVFS({name: "realm-budget", snapshot: "off",
        realm: {timeoutMs: 20000, memoryBytes: 160 * 1024 * 1024}}), 240000, "openVFS");
      const scoop = await bounded.scoop("budget");
      const warm = await within(scoop.runPython("print('warm')"), 240000, "the first run");
      const slow = await within(scoop.runPython("while True: pass"), 120000, "the time budget");
      const big = await within(scoop.runPython(
        "try:\\n  b = bytearray(400 * 2**20)\\nexcept MemoryError:\\n  print('MemoryError')"),
        240000, "the memory budget");
      const bad = await openVFS({name: "realm-bad", realm: {timeoutMs: -1}}).then(
        () => "opened", (error) => error.name);
      await bounded.close();
      return {warm, slow, big, bad};""")
    assert found["warm"]["stdout"] == "warm\n"
    assert found["slow"]["code"] == 124
    assert "time budget (20000 ms) ran out" in found["slow"]["stderr"]
    assert (found["big"]["stdout"], found["big"]["code"]) == ("MemoryError\n", 0), found["big"]
    assert found["bad"] == "TypeError"
