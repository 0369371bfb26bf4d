"""Restricted views and scoops through the JS API, in Chromium: a real page, the real worker,
the view bound to a MessagePort in the worker (docs/sandbox.md). The escape suite runs every
read and write method against every way out; a Web Worker given only the view's port cannot
reach the rest of the disk; two scoops cannot see each other."""

from __future__ import annotations

from .conftest import booted_app, js

SETUP = """
  await vfs.rm("/in", {recursive: true, force: true});
  await vfs.rm("/hush", {recursive: true, force: true});
  await vfs.rm("/ro", {recursive: true, force: true});
  await vfs.mkdir("/in/dir", {recursive: true});
  await vfs.writeFile("/in/file.txt", "inside");
  await vfs.mkdir("/ro", {recursive: true});
  await vfs.writeFile("/ro/r.txt", "read only");
  await vfs.mkdir("/hush/sub", {recursive: true});
  await vfs.writeFile("/hush/TOPSECRET.txt", "TOPSECRET");
  await vfs.symlink("/hush/TOPSECRET.txt", "/in/out_link");
  await vfs.symlink("/hush", "/in/out_dir");
  await vfs.symlink("../hush/TOPSECRET.txt", "/in/dotdot_link");
  await vfs.symlink("/ro", "/in/ro_dir");
  const view = await vfs.restrict({read: ["/ro"], write: ["/in"], writer: "agent:e2e"});
"""


def test_the_escape_suite_through_the_js_api(app):
    found = js(app, SETUP + """
      const outsideReads = ["/hush/TOPSECRET.txt", "/hush", "/hush/", "//hush//TOPSECRET.txt",
        "/in/../hush/TOPSECRET.txt", "/in/./dir/../../hush/sub", "/in/out_link",
        "/in/dotdot_link", "/in/out_dir/TOPSECRET.txt", "/in/out_dir/sub/../TOPSECRET.txt"];
      const reads = {
        readFile: (p) => view.readFile(p), stat: (p) => view.stat(p),
        lstat: (p) => view.lstat(p + "/x"),
        readdir: (p) => view.readdir(p), realpath: (p) => view.realpath(p), du: (p) => view.du(p),
        find: (p) => view.find(p), grep: (p) => view.grep("TOPSECRET", p),
        stream: async (p) => { const r = view.createReadStream(p).getReader(); return r.read(); },
      };
      const outsideWrites = ["/hush/new.txt", "/hush/TOPSECRET.txt", "/in/../hush/new.txt",
        "/in/out_dir/new.txt", "/in/ro_dir/new.txt", "/ro/r.txt", "/newtop.txt"];
      const writes = {
        writeFile: (p) => view.writeFile(p, "pwned"),
        appendFile: (p) => view.appendFile(p, "pwned"),
        truncate: (p) => view.truncate(p, 0), mkdir: (p) => view.mkdir(p + "_d", {recursive: true}),
        rm: (p) => view.rm(p, {recursive: true}), unlink: (p) => view.unlink(p),
        renameOut: (p) => view.rename("/in/file.txt", p),
        renameIn: (p) => view.rename(p, "/in/stolen"),
        copyFile: (p) => view.copyFile("/in/file.txt", p),
        cp: (p) => view.cp("/in/dir", p, {recursive: true}),
        symlink: (p) => view.symlink("/in/file.txt", p), chmod: (p) => view.chmod(p, 0o600),
        utimes: (p) => view.utimes(p, 1, 1), restore: (p) => view.restore(1, {path: p}),
        stream: (p) => view.writeFile(p, new Blob(["pw", "ned"]).stream()),
      };
      const revision = async () => (await vfs.journal({limit: 1}))[0].revision;
      const before = await revision();
      const cases = [];
      const attempt = async (kind, method, path, call) => {
        try {
          const value = await call(path);
          cases.push([kind, method, path, "ok", JSON.stringify(value ?? null)]);
        } catch (error) {
          cases.push([kind, method, path, error.code, error.message]);
        }
      };
      for (const [method, call] of Object.entries(reads)) {
        for (const path of outsideReads) await attempt("read", method, path, call);
      }
      for (const [method, call] of Object.entries(writes)) {
        for (const path of outsideWrites) await attempt("write", method, path, call);
      }
      const listings = [await view.walk("/"), await view.ls("/"), await view.find("/"),
        await view.glob("/**"), await view.readdir("/"),
        (await view.grep("TOPSECRET", "/")).matches,
        (await view.query("SELECT path FROM files UNION ALL SELECT paths FROM journal")).rows,
        await view.journal({limit: 1000}), await view.snapshots(), await view.mounts()];
      await view.writeFile("/in/made-by-the-view.txt", "fine");
      const after = await revision();
      const writer = (await vfs.journal({limit: 1}))[0].writer;
      return {cases, listings: JSON.stringify(listings), before, after, writer,
              inside: await view.readFile("/in/ro_dir/r.txt", "utf8"),
              exists: await view.exists("/in/out_link"), name: view.name};
    """)
    cases = found["cases"]
    assert len(cases) >= 100, len(cases)
    escapes = [case for case in cases if case[3] == "ok" or "TOPSECRET" in
               case[4].replace(case[2], "") or "hush" in case[4].replace(case[2], "")]
    assert escapes == []
    assert all(code == "ENOENT" for kind, _, _, code, _ in cases if kind == "read"), cases
    spelled_out = [c for c in cases if c[0] == "write" and not c[2].startswith("/in/")]
    assert all(code == "EACCES" for _, _, _, code, _ in spelled_out), spelled_out
    assert "TOPSECRET" not in found["listings"] and "hush" not in found["listings"]
    # Nothing was committed by the attempts: the next revision is the control write's.
    assert found["after"] == found["before"] + 1 and found["writer"] == "agent:e2e"
    assert found["inside"] == "read only" and found["exists"] is False
    assert found["name"] is None  # nothing to reopen the disk with


def test_a_web_worker_holding_the_view_reaches_nothing_else(browser, browser_context_args):
    # The app's CSP allows workers from its own files only (worker-src 'self'); the agent's
    # worker here is a test's blob, so this context alone ignores the CSP (bypass_csp).
    with booted_app(browser, {**browser_context_args, "bypass_csp": True}) as session:
        found = js(session.page, SETUP + WORKER_HOLDING_THE_VIEW)
    assert found == {"secret": ["ENOENT"], "viaLink": ["ENOENT"], "write": ["EACCES"],
                     "widen": ["ok", ["in", "ro"]], "diagnostics": ["EACCES"],
                     "inside": ["ok", "inside"], "root": ["ok", ["in", "ro"]]}


WORKER_HOLDING_THE_VIEW = """
      const port = await view.transferable();
      const source = `
        onmessage = async ({data: {port, api}}) => {
          const {viewOf} = await import(api);
          const v = viewOf(port);
          const out = {};
          for (const [name, call] of Object.entries({
            secret: () => v.readFile("/hush/TOPSECRET.txt", "utf8"),
            viaLink: () => v.readFile("/in/out_link", "utf8"),
            write: () => v.writeFile("/hush/x.txt", "pwned"),
            widen: async () => (await v.restrict({read: ["/"], write: ["/"]})).readdir("/"),
            diagnostics: () => v.diagnostics(),
            inside: () => v.readFile("/in/file.txt", "utf8"),
            root: () => v.readdir("/"),
          })) {
            try { out[name] = ["ok", await call()]; } catch (e) { out[name] = [e.code]; }
          }
          postMessage(out);
        };`;
      const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
      const worker = new Worker(url, {type: "module"});
      const answer = new Promise((resolve, reject) => {
        worker.onmessage = ({data}) => resolve(data);
        worker.onerror = (e) => reject(new Error(e.message || "the view's worker failed"));
        const late = new Error("no answer from the worker holding the view in 60 s");
        setTimeout(() => reject(late), 60000);
      });
      worker.postMessage({port, api: new URL("/api.mjs", location.href).href}, [port]);
      try { return await answer; } finally { worker.terminate(); URL.revokeObjectURL(url); }
"""


def test_two_scoops_share_only_shared_and_the_cone_sees_all(app):
    found = js(app, """
      const one = await vfs.scoop("e2e-one"), two = await vfs.scoop("e2e-two");
      await one.writeFile("/scoops/e2e-one/workspace/a.txt", "one's");
      await two.writeFile("/shared/from-two.txt", "two's");
      const code = async (call) => {
        try { await call(); return "ok"; } catch (e) { return e.code; }
      };
      const seen = [];
      const stop = one.watch("/", (event) => seen.push(event.path), {recursive: true});
      await stop.ready;
      await vfs.writeFile("/scoops/e2e-two/tmp/hidden.txt", "not for one");
      await two.writeFile("/shared/marker.txt", "last");
      const deadline = Date.now() + 30000;
      while (!seen.includes("/shared/marker.txt") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await stop();
      const shell = await vfs.shell("scoop e2e-one");
      const inScoop = await vfs.shell("pwd; ls /scoops");
      const left = await vfs.shell("exit");
      return {
        oneReadsShared: await one.readFile("/shared/from-two.txt", "utf8"),
        twoReadsOne: await code(() => two.readFile("/scoops/e2e-one/workspace/a.txt")),
        twoWritesOne: await code(() => two.writeFile("/scoops/e2e-one/x", "x")),
        oneSees: await one.readdir("/scoops"),
        coneSees: (await vfs.readdir("/scoops")).filter((n) => n.startsWith("e2e-")),
        writer: (await vfs.journal({path: "/scoops/e2e-one/workspace/a.txt", limit: 1}))[0].writer,
        seen, shell: [shell.scoop, shell.cwd], inScoop: inScoop.stdout, left: left.scoop,
      };
    """)
    assert found["oneReadsShared"] == "two's"
    assert found["twoReadsOne"] == "ENOENT" and found["twoWritesOne"] == "EACCES"
    assert found["oneSees"] == ["e2e-one"]
    assert found["coneSees"] == ["e2e-one", "e2e-two"]
    assert found["writer"] == "scoop:e2e-one"
    assert found["seen"] == ["/shared/marker.txt"]  # the other scoop's file never shows
    assert found["shell"] == ["e2e-one", "/scoops/e2e-one/workspace"]
    assert found["inScoop"] == "/scoops/e2e-one/workspace\ne2e-one\n"
    assert found["left"] is None


def test_steps_and_previews_through_a_view(app, preview_origin):
    found = js(app, SETUP + """
      const code = async (call) => {
        try { await call(); return "ok"; } catch (e) { return e.code; }
      };
      const stepped = await code(() => view.step(async (tx) => {
        await tx.writeFile("/in/in-step.txt", "kept only with the rest");
        await tx.writeFile("/in/ro_dir/in-step.txt", "pwned");
      }));
      const readInStep = await view.step(async (tx) => [
        await code(() => tx.readFile("/hush/TOPSECRET.txt")),
        await code(() => tx.readdir("/in/out_dir")), await tx.readFile("/in/file.txt", "utf8")]);
      return {
        stepped, readInStep, left: await vfs.exists("/in/in-step.txt"),
        previewOut: await code(() => view.previewUrl("/hush")),
        previewLink: await code(() => view.previewUrl("/in/out_dir")),
        previewIn: await view.previewUrl("/in/ro_dir"),
      };
    """)
    assert found["stepped"] == "EACCES" and found["left"] is False
    assert found["readInStep"] == ["ENOENT", "ENOENT", "inside"]
    assert found["previewOut"] == "ENOENT" and found["previewLink"] == "ENOENT"
    assert found["previewIn"].startswith(preview_origin + "/preview/")


# A randomized differential test, as tests/unit/test_sandbox_differential.py but through the JS
# API: random operations go through the view of the page's disk, and each one that succeeds is
# applied to a second, unrestricted disk; after each one the two must be equal, nothing outside
# the writable folder may have changed, and the view must read what the second disk has,
# filtered by the rules.
DIFFERENTIAL = """
  const {openVFS} = await import("/pyvfs.mjs");
  const plain = await openVFS({name: "sandbox-oracle"});
  const READ = ["/x/r", "/x/w"], WRITE = ["/x/w"];
  const within = (p, roots) => roots.some((r) => p === r || p.startsWith(r + "/"));
  const NAMES = ["/x/w/a", "/x/w/b", "/x/w/d/c", "/x/w/d", "/x/r/a", "/x/r/d/x", "/x/o/a",
    "/x/o/d/y", "/x/w/l1", "/x/w/l2", "/x/w/d/l3", "/x/w/../o/a", "/x/w/l1/a", "/x/w/l2/x",
    "/x/w/d/../a", "/x/o/d"];
  const TARGETS = ["/x/o", "/x/o/a", "/x/r", "/x/r/a", "/x/w/a", "../o/d", "../r/d", "a",
    "/x/w/d", "l2", "/"];
  let seed = args[0];
  const random = () => {  // mulberry32: the same operations for the same seed
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const tree = async (disk) => {
    const out = {};
    for (const {path, type} of await disk.find("/x")) {
      const info = await disk.lstat(path);
      const content = type === "file" ? await disk.readFile(path, "utf8") : null;
      out[path] = [type, info.target ?? null, content];
    }
    return out;
  };
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const outside = (t) => Object.fromEntries(Object.entries(t).filter(([p]) => !within(p, WRITE)));
  for (const disk of [vfs, plain]) {
    await disk.rm("/x", {recursive: true, force: true});
    for (const p of ["/x/w/a", "/x/r/a", "/x/o/a", "/x/r/d/x", "/x/o/d/y"]) {
      await disk.mkdir(p.slice(0, p.lastIndexOf("/")), {recursive: true});
      await disk.writeFile(p, p);
    }
  }
  const view = await vfs.restrict({read: READ, write: WRITE});
  const problems = [], history = [];
  let succeeded = 0;
  for (let i = 0; i < 80; i++) {
    const name = pick(NAMES), other = pick(NAMES), data = `v${Math.floor(random() * 1000)}`;
    const op = pick([["writeFile", name, data], ["appendFile", name, data],
      ["mkdir", name, {recursive: true}], ["symlink", pick(TARGETS), name], ["rename", name, other],
      ["copyFile", name, other], ["cp", name, other, {recursive: true}],
      ["rm", name, {recursive: true}], ["truncate", name, 1]]);
    history.push(op);
    const before = outside(await tree(vfs));
    let ok = true;
    try { await view[op[0]](...op.slice(1)); } catch { ok = false; }
    if (ok) {
      succeeded++;
      try {
        await plain[op[0]](...op.slice(1));
      } catch (e) {
        problems.push(["oracle", op, e.code]);
      }
    }
    const after = await tree(vfs);
    if (!same(outside(after), before)) problems.push(["outside changed", [...history]]);
    if (!same(after, await tree(plain))) problems.push(["disks differ", [...history]]);
    const walked = (await plain.walk("/x")).filter((p) => within(p, READ));
    if (!same(await view.walk("/x"), walked)) problems.push(["walk differs", [...history]]);
    for (const path of NAMES) {
      if (!(await view.exists(path))) continue;
      const real = await plain.realpath(path);
      if (!within(real, READ)) problems.push(["escaped", path, real, [...history]]);
    }
    if (problems.length) break;
  }
  await plain.close();
  return {problems, succeeded};
"""


def test_a_view_matches_the_filtered_disk_in_chromium(app):
    for seed in (1, 2, 3):
        found = js(app, DIFFERENTIAL, seed)
        assert found["problems"] == [], (seed, found["problems"])
        assert found["succeeded"] >= 5, found  # the run did things, not only refusals
