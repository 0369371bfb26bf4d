"""The page's stat cache (web/page/stat_cache.mjs) in real Chromium: stats after a readdir need no
round trip to the worker, and nothing stale is ever answered: not after a mutation of any kind
made through the vfs, not after another tab's commit, never under a mount. Round trips are
counted by `vfs.diagnostics().calls` (the calls this page posted to its worker), not timed.
"""

from __future__ import annotations

import pytest

from .conftest import assert_no_offsite, open_app, poll_page, quiet
from .test_js_api import js

# `trips(fn)`: [what fn returned, how many calls it posted to the worker]. `fields(s)`: the
# plain fields of a Stats, to compare a cached answer with the worker's.
HELPERS = """
  const trips = async (fn) => {
    const before = (await vfs.diagnostics()).calls;
    const value = await fn();
    return [value, (await vfs.diagnostics()).calls - before - 1];
  };
  const fields = (s) => ({type: s.type, size: s.size, mode: s.mode, mtimeMs: s.mtimeMs,
    ctimeMs: s.ctimeMs, atimeMs: s.atimeMs, name: s.name, path: s.path, ino: s.ino,
    file: s.isFile(), dir: s.isDirectory(), link: s.isSymbolicLink(),
    mtime: s.mtime instanceof Date && s.mtime.getTime() === s.mtimeMs});
  const code = (promise) => promise.then(() => null, (e) => e.code);
"""


def run(page, body: str, *args):
    return js(page, HELPERS + body, *args)


pytestmark = pytest.mark.usefixtures("quiet_tree")  # only the tests' calls count


def test_stats_after_a_readdir_need_no_round_trip(app):
    result = run(app, """
      await vfs.mkdir("/sc1/d", {recursive: true});
      for (let i = 0; i < 5; i++) await vfs.writeFile(`/sc1/d/f${i}`, "x".repeat(i));
      await vfs.symlink("/sc1/d/f3", "/sc1/d/link");
      const truth = {};
      await vfs.step(async (tx) => {  // a step's reads always go to the worker
        for (const name of ["f0", "f4", "link"]) {
          truth[name] = fields(await tx.lstat(`/sc1/d/${name}`));
        }
        truth.followed = fields(await tx.stat("/sc1/d/link"));
      });
      const [names, listed] = await trips(() => vfs.readdir("/sc1/d"));
      const [cached, statTrips] = await trips(async () => {
        const out = {};
        for (const name of ["f0", "f4"]) out[name] = fields(await vfs.stat(`/sc1/d/${name}`));
        out.link = fields(await vfs.lstat("/sc1/d/link"));
        out.exists = await vfs.exists("/sc1/d/f1");
        out.again = await vfs.readdir("/sc1/d");
        out.dirents = (await vfs.readdir("/sc1/d", {withFileTypes: true}))
          .map((d) => [d.name, d.path, d.parentPath, d.isFile(), d.isSymbolicLink()]);
        return out;
      });
      const [followed, followTrips] =
        await trips(async () => fields(await vfs.stat("/sc1/d/link")));
      const [, secondFollow] = await trips(() => vfs.stat("/sc1/d/link"));
      const mine = await vfs.stat("/sc1/d/f4");
      mine.size = 99;
      names.push("mine");
      const fresh = [(await vfs.stat("/sc1/d/f4")).size, await vfs.readdir("/sc1/d")];
      const diagnostics = await vfs.diagnostics();
      return {names, listed, cached, statTrips, truth, followed, followTrips, secondFollow,
              fresh, isStats: mine.constructor.name, hits: diagnostics.statCache.hits};
    """)
    assert result["listed"] == 1 and result["statTrips"] == 0
    cached = result["cached"]
    assert cached["f0"] == result["truth"]["f0"] and cached["f4"] == result["truth"]["f4"]
    assert cached["link"] == result["truth"]["link"] and cached["link"]["link"] is True
    assert cached["exists"] is True
    assert cached["again"] == ["f0", "f1", "f2", "f3", "f4", "link"]
    assert cached["dirents"][4] == ["f4", "/sc1/d", "/sc1/d", True, False]
    assert cached["dirents"][5][4] is True
    # stat follows the link: not answered by the link's lstat, but kept once asked
    assert result["followed"] == result["truth"]["followed"] and result["followed"]["size"] == 3
    assert result["followTrips"] == 1 and result["secondFollow"] == 0
    # what callers get is theirs to change
    assert result["fresh"] == [4, ["f0", "f1", "f2", "f3", "f4", "link"]]
    assert result["isStats"] == "Stats" and result["hits"] > 0


def test_errors_are_right_and_a_missing_path_is_seen_once_created(app):
    result = run(app, """
      await vfs.mkdir("/sc2", {recursive: true});
      await vfs.writeFile("/sc2/file", "f");
      const first = await code(vfs.stat("/sc2/missing"));
      const [again, trip] = await trips(async () => {
        try { await vfs.stat("/sc2/missing"); } catch (e) {
          return [e instanceof Error, e.code, e.syscall, e.path, e.message];
        }
      });
      const notDir = [await code(vfs.stat("/sc2/file/x")), await code(vfs.stat("/sc2/file/x"))];
      const gone = await vfs.exists("/sc2/missing");
      await vfs.writeFile("/sc2/missing", "now");
      return {first, again, trip, notDir, gone, size: (await vfs.stat("/sc2/missing")).size,
              exists: await vfs.exists("/sc2/missing")};
    """)
    assert result["first"] == "ENOENT" and result["trip"] == 0
    assert result["again"] == [True, "ENOENT", "stat", "/sc2/missing",
                               "ENOENT: no such file or directory, stat '/sc2/missing'"]
    assert result["notDir"] == ["ENOTDIR", "ENOTDIR"] and result["gone"] is False
    assert result["size"] == 3 and result["exists"] is True


def test_the_same_read_on_its_way_is_shared_and_never_across_a_change(app):
    result = run(app, """
      await vfs.mkdir("/scj/a/b", {recursive: true});
      await vfs.writeFile("/scj/a/b/f", "x");
      const [stats, sent] = await trips(() => Promise.all(
        Array.from({length: 50}, () => vfs.lstat("/scj/a/b"))));
      const [missing, missingSent] = await trips(() => Promise.all(
        Array.from({length: 20}, () => vfs.lstat("/scj/none").then(() => null, (e) => e))));
      // A change sent between two reads of one path: the second is sent, and sees it.
      const [sizes, changeSent] = await trips(async () => {
        const first = vfs.stat("/scj/a/b/f");
        const write = vfs.writeFile("/scj/a/b/f", "longer");
        const second = vfs.stat("/scj/a/b/f");
        await write;
        return [(await first).size, (await second).size];
      });
      const shown = stats.map((s) => JSON.stringify(fields(s)));
      return {sent, objects: new Set(stats).size, same: new Set(shown).size, path: stats[0].path,
              missingSent, errors: new Set(missing).size,
              errorObjects: missing.every((e) => e instanceof Error),
              codes: [...new Set(missing.map((e) =>
                `${e.code} ${e.syscall} ${e.path} ${e.message}`))],
              sizes, changeSent, shared: (await vfs.diagnostics()).statCache.shared};
    """)
    assert result["sent"] == 1, "fifty lstat calls of one path at once are one call to the worker"
    assert result["objects"] == 50 and result["same"] == 1 and result["path"] == "/scj/a/b"
    assert result["missingSent"] == 1
    assert result["errors"] == 20 and result["errorObjects"] is True
    assert result["codes"] == ["ENOENT lstat /scj/none ENOENT: no such file or directory, "
                               "lstat '/scj/none'"]
    assert result["sizes"] == [1, 6] and result["changeSent"] == 3
    assert result["shared"] >= 49 + 19


# Each mutation runs after /sc3/d was listed and its entries stat'ed (so they are cached, which
# `warm` checks), then the expression after it must see the change.
MUTATIONS = [
    ("writeFile", 'await vfs.writeFile(A, "longer")', "await size(A)", 6),
    ("appendFile", 'await vfs.appendFile(A, "++")', "await size(A)", 3),
    ("truncate", "await vfs.truncate(A, 0)", "(await vfs.lstat(A)).size", 0),
    ("rm", "await vfs.rm(A)", "await code(vfs.stat(A))", "ENOENT"),
    ("unlink", "await vfs.unlink(A)", "await vfs.exists(A)", False),
    ("rename", 'await vfs.rename(A, "/sc3/d/z")',
     '[await code(vfs.stat(A)), await size("/sc3/d/z"), await vfs.readdir("/sc3/d")]',
     ["ENOENT", 1, ["b", "z"]]),
    ("mkdir", 'await vfs.mkdir("/sc3/d/new")', 'await vfs.readdir("/sc3/d")', ["a", "b", "new"]),
    ("chmod", "await vfs.chmod(A, 0o600)", "(await vfs.stat(A)).mode & 0o777", 0o600),
    ("utimes", "await vfs.utimes(A, 1000, 2000)", "(await vfs.stat(A)).mtimeMs", 2_000_000),
    ("symlink", 'await vfs.symlink("/sc3/d/b", "/sc3/d/a2")', 'await size("/sc3/d/a2")', 2),
    ("copyFile", 'await vfs.copyFile("/sc3/d/b", A)', "await size(A)", 2),
    ("cp", 'await vfs.cp("/sc3/d/b", "/sc3/d/c")', 'await vfs.readdir("/sc3/d")', ["a", "b", "c"]),
    ("shell", 'await vfs.shell("echo hello > /sc3/d/a")', "await size(A)", 6),
    ("shell rm", 'await vfs.shell("rm -r /sc3/d")', 'await code(vfs.readdir("/sc3/d"))', "ENOENT"),
    ("step", 'await vfs.step(async (tx) => { await tx.writeFile(A, "step"); })',
     "await size(A)", 4),
    ("stream", 'await vfs.writeFile(A, new Blob(["streamed"]).stream())', "await size(A)", 8),
]


@pytest.mark.parametrize(("mutation", "after", "expected"),
                         [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_every_kind_of_mutation_invalidates(app, mutation, after, expected):
    result = run(app, f"""
      const A = "/sc3/d/a";
      const size = async (path) => (await vfs.stat(path)).size;
      await vfs.rm("/sc3", {{recursive: true, force: true}});
      await vfs.mkdir("/sc3/d", {{recursive: true}});
      await vfs.writeFile("/sc3/d/a", "a");
      await vfs.writeFile("/sc3/d/b", "bb");
      await vfs.readdir("/sc3/d");
      await code(vfs.stat("/sc3/d/a2"));
      const [, warm] = await trips(async () => {{
        await vfs.stat("/sc3/d/a"); await vfs.readdir("/sc3/d"); await code(vfs.stat("/sc3/d/a2"));
      }});
      {mutation};
      return {{warm, after: {after}}};
    """)
    assert result == {"warm": 0, "after": expected}


def test_an_answer_given_around_a_mutation_is_not_kept(app):
    result = run(app, """
      await vfs.mkdir("/sc4", {recursive: true});
      await vfs.writeFile("/sc4/a", "a");
      const early = vfs.stat("/sc4/a");  // to the worker, answered before the write runs
      const writing = vfs.writeFile("/sc4/a", "abcdef");
      const [before, [after, trip]] = [(await early).size, await writing.then(
        () => trips(async () => (await vfs.stat("/sc4/a")).size))];
      return [before, after, trip];
    """)
    assert result[1:] == [6, 1] and result[0] in (1, 6)


def test_mounted_paths_are_never_cached(app):
    result = run(app, """
      const root = await navigator.storage.getDirectory();
      await root.removeEntry("sc5", {recursive: true}).catch(() => {});
      const dir = await root.getDirectoryHandle("sc5", {create: true});
      const write = async (name, text) => {
        const w = await (await dir.getFileHandle(name, {create: true})).createWritable();
        await w.write(text);
        await w.close();
      };
      await write("f.txt", "one");
      await vfs.mkdir("/sc5", {recursive: true});
      await vfs.writeFile("/sc5/disk.txt", "disk");
      await vfs.mount("/sc5/mnt", dir);
      await vfs.symlink("/sc5/mnt/f.txt", "/sc5/link");
      try {
        await vfs.readdir("/sc5");
        await vfs.readdir("/sc5/mnt");
        const before = [(await vfs.stat("/sc5/mnt/f.txt")).size,
                        (await vfs.stat("/sc5/link")).size];
        await write("f.txt", "three");
        await write("g.txt", "g");
        const [after, afterTrips] = await trips(async () => [
          (await vfs.stat("/sc5/mnt/f.txt")).size, (await vfs.lstat("/sc5/mnt/f.txt")).size,
          (await vfs.stat("/sc5/link")).size, await vfs.readdir("/sc5/mnt"),
          await vfs.exists("/sc5/mnt/g.txt"), (await vfs.stat("/sc5/mnt")).isDirectory()]);
        await dir.removeEntry("g.txt");
        const gone = await vfs.exists("/sc5/mnt/g.txt");
        const [disk, diskTrips] = await trips(async () => (await vfs.stat("/sc5/disk.txt")).size);
        return {before, after, afterTrips, gone, disk, diskTrips};
      } finally {
        await vfs.unmount("/sc5/mnt");
      }
    """)
    assert result["before"] == [3, 3]
    assert result["after"] == [5, 5, 5, ["f.txt", "g.txt"], True, True]
    assert result["afterTrips"] == 6  # every one went to the worker
    assert result["gone"] is False
    assert result["disk"] == 4 and result["diskTrips"] == 0  # the disk beside it still cached


def test_a_walk_brings_the_next_siblings_with_one_call(app):
    result = run(app, """
      await vfs.rm("/sc8", {recursive: true, force: true});
      for (const d of ["a", "b", "c", "d"]) {
        await vfs.mkdir(`/sc8/${d}`, {recursive: true});
        await vfs.writeFile(`/sc8/${d}/f`, d.repeat(2));
      }
      await vfs.writeFile("/sc8/file", "x");
      const [first, firstTrips] = await trips(async () =>
        [await vfs.readdir("/sc8/a"), await vfs.readdir("/sc8/b")]);
      const [rest, restTrips] = await trips(async () => [await vfs.readdir("/sc8/c"),
        await vfs.readdir("/sc8/d"), (await vfs.stat("/sc8/d/f")).size,
        (await vfs.stat("/sc8/c/f")).mtime instanceof Date]);
      await vfs.writeFile("/sc8/d/f", "longer");
      await vfs.writeFile("/sc8/d/g", "g");
      const [after, afterTrips] = await trips(async () =>
        [await vfs.readdir("/sc8/d"), (await vfs.stat("/sc8/d/f")).size]);
      return {first, firstTrips, rest, restTrips, after, afterTrips};
    """)
    assert result["first"] == [["f"], ["f"]] and result["firstTrips"] == 2
    # b's answer brought c and d: listed and stat'ed with no call
    assert result["rest"] == [["f"], ["f"], 2, True] and result["restTrips"] == 0
    assert result["after"] == [["f", "g"], 6] and result["afterTrips"] == 1


@pytest.fixture(scope="module")
def tabs(browser, browser_context_args):
    """Two booted pages of one context: one disk."""
    context = browser.new_context(**browser_context_args)
    try:
        first = open_app(context)
        second = open_app(context, "/")
        for page in (first.page, second.page):  # only the tests' calls count
            quiet(page)
        yield first.page, second.page
    finally:
        context.close()
    assert_no_offsite(first.offsite + second.offsite, "the two tabs")


def test_another_tabs_commit_invalidates_by_the_time_its_watch_event_fires(tabs):
    first, second = tabs
    run(second, """
      await vfs.mkdir("/sc6", {recursive: true});
      await vfs.writeFile("/sc6/f", "1");
    """)
    warm = run(first, """
      // The listener stats the file the moment the event arrives: the cache must be dropped
      // before the event is delivered.
      // Armed only once this tab has seen the first write: under load the event of that write
      // could otherwise arrive after the watch began, and its stat rightly says 1.
      window.__seen = [];
      window.__armed = false;
      const unwatch = vfs.watch("/sc6", (event) => {
        if (window.__armed && event.path === "/sc6/f") {
          vfs.stat("/sc6/f").then((s) => window.__seen.push(s.size));
        }
      });
      await unwatch.ready;
      // Until this tab has caught up with the other's writes (a bound, not a timing: it fails).
      const sizeNow = () => vfs.stat("/sc6/f").then((s) => s.size, (e) => {
        if (e.code === "ENOENT") return null;
        throw e;
      });
      const deadline = Date.now() + 20000;
      while ((await sizeNow()) !== 1) {
        if (Date.now() > deadline) throw new Error("this tab never saw the other's first write");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await vfs.readdir("/sc6");
      const [size, trip] = await trips(async () => (await vfs.stat("/sc6/f")).size);
      window.__armed = true;
      return [size, trip];
    """)
    assert warm == [1, 0]
    run(second, 'await vfs.writeFile("/sc6/f", "12345");')
    poll_page(first, "window.__seen.length > 0", "the other tab's write event", 20_000)
    seen = first.evaluate("window.__seen")
    assert seen[0] == 5
    assert run(first, 'return (await vfs.stat("/sc6/f")).size;') == 5
