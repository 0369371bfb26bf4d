"""AbortSignal on every method of the JS API, in real Chromium with the real worker: an aborted
signal rejects at once with Node's AbortError and sends nothing; a grep over 5,000 files stops
midway; streams, exports and imports stop and leave nothing behind."""

from __future__ import annotations

import re

import pytest

from .conftest import js

# Every method of the API object, called with an already aborted `signal` where that method
# takes it. The test fails on a method missing here, so a new one cannot skip the signal.
CALLS = """
  const s = {signal};
  const calls = {
    readFile: () => vfs.readFile("/ab/f", s), writeFile: () => vfs.writeFile("/ab/g", "x", s),
    appendFile: () => vfs.appendFile("/ab/f", "x", s),
    truncate: () => vfs.truncate("/ab/f", 0, s), mkdir: () => vfs.mkdir("/ab/d", s),
    rm: () => vfs.rm("/ab/f", s), rmdir: () => vfs.rmdir("/ab", s),
    unlink: () => vfs.unlink("/ab/f", s), rename: () => vfs.rename("/ab/f", "/ab/h", s),
    copyFile: () => vfs.copyFile("/ab/f", "/ab/h", 0, s), cp: () => vfs.cp("/ab/f", "/ab/h", s),
    symlink: () => vfs.symlink("f", "/ab/l", undefined, s),
    readlink: () => vfs.readlink("/ab/f", s),
    realpath: () => vfs.realpath("/ab/f", s), stat: () => vfs.stat("/ab/f", s),
    lstat: () => vfs.lstat("/ab/f", s), exists: () => vfs.exists("/ab/f", s),
    readdir: () => vfs.readdir("/ab", s), chmod: () => vfs.chmod("/ab/f", 0o600, s),
    utimes: () => vfs.utimes("/ab/f", 1, 1, s), walk: () => vfs.walk("/ab", s),
    du: () => vfs.du("/ab", s), ls: () => vfs.ls("/ab", s), find: () => vfs.find("/ab", null, s),
    glob: () => vfs.glob("/ab/*", s), grep: () => vfs.grep("x", "/ab", s),
    query: () => vfs.query("select 1", [], s), journal: () => vfs.journal(s),
    snapshot: () => vfs.snapshot("ab", s), snapshots: () => vfs.snapshots(s),
    deleteSnapshot: () => vfs.deleteSnapshot("ab", s), diff: () => vfs.diff(1, undefined, s),
    restore: () => vfs.restore(1, s), check: () => vfs.check(s), usage: () => vfs.usage(s),
    gc: () => vfs.gc(s), mounts: () => vfs.mounts(s), fsaCounters: () => vfs.fsaCounters(s),
    mount: () => vfs.mount("/ab/m", null, s), unmount: () => vfs.unmount("/ab/m", s),
    reconnect: () => vfs.reconnect("/ab/m", s), memoryUsage: () => vfs.memoryUsage(s),
    flush: () => vfs.flush(s), close: () => vfs.close(s), diagnostics: () => vfs.diagnostics(s),
    shell: () => vfs.shell("ls", s), complete: () => vfs.complete("l", 1, s),
    runPython: () => vfs.runPython("open_files = 1", s),
    previewUrl: () => vfs.previewUrl("/ab/f", s),
    agentTool: () => vfs.agentTool("ls", {path: "/ab"}, s),
    restrict: () => vfs.restrict({read: ["/ab"], signal}), scoop: () => vfs.scoop("ab", s),
    transferable: () => vfs.transferable(s), reset: () => vfs.reset({defaults: true, signal}),
    step: () => vfs.step(async (tx) => tx.writeFile("/ab/g", "x"), s),
    import: () => vfs.import(new Uint8Array(10), s),
    as: null,  // not a call: gives the API under another writer
    watch: async () => vfs.watch("/ab", () => {}, s),
    createReadStream: () => vfs.createReadStream("/ab/f", s).getReader().read(),
    access: () => vfs.access("/ab/f", 0, s), mkdtemp: () => vfs.mkdtemp("/ab/t-", s),
    chown: () => vfs.chown("/ab/f", -1, -1, s), lchown: () => vfs.lchown("/ab/f", -1, -1, s),
    lutimes: () => vfs.lutimes("/ab/f", 1, 1, s), statfs: () => vfs.statfs("/ab", s),
    link: () => vfs.link("/ab/f", "/ab/k", s),
    open: null,  // Node's open(path, flags, mode) takes no options: its handle's calls do
    opendir: null,  // as Node's: a Dir is read entry by entry, each read a call of its own
    export: () => vfs.export("/ab", s).getReader().read(),
    at: () => vfs.at(1).readFile("/ab/f", s),  // at() only names a state; its reads take one
    sync: () => vfs.sync(s), syncStatus: () => vfs.syncStatus(s),
    onSyncStatus: null,  // not a call: a listener on the page's own status
  };
"""


@pytest.mark.usefixtures("quiet_tree")  # the tree's listings are no calls of this test
def test_every_method_rejects_at_once_with_abort_error_and_sends_nothing(app):
    result = js(app, """
      await vfs.mkdir("/ab", {recursive: true});
      await vfs.writeFile("/ab/f", "kept");
      const controller = new AbortController();
      controller.abort(new Error("user stop"));
      const signal = controller.signal;
      """ + CALLS + """
      const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(vfs))
        .filter((name) => name !== "constructor" && typeof vfs[name] === "function");
      const before = (await vfs.diagnostics()).calls;
      const outcomes = {};
      for (const [name, call] of Object.entries(calls)) {
        if (!call) continue;
        try { await call(); outcomes[name] = "resolved"; }
        catch (e) {
          outcomes[name] = e.name === "AbortError" && e.code === "ABORT_ERR" && e instanceof Error
            && e.message === "The operation was aborted" && e.cause?.message === "user stop"
            ? "aborted" : `${e.name} ${e.code} ${e.message}`;
        }
      }
      const after = (await vfs.diagnostics()).calls;
      return {outcomes, sent: after - before - 1, missing: methods.filter((m) => !(m in calls)),
              text: await vfs.readFile("/ab/f", "utf8"), names: await vfs.readdir("/ab")};
    """)
    assert result["missing"] == []
    assert {name: outcome for name, outcome in result["outcomes"].items()
            if outcome != "aborted"} == {}
    assert result["sent"] == 0
    assert result["text"] == "kept" and result["names"] == ["f"]


def test_a_bad_signal_is_refused_as_node_refuses_it(app):
    result = js(app, """
      try { await vfs.readFile("/x", {signal: "nope"}); return "resolved"; }
      catch (e) { return [e instanceof TypeError, e.code, e.message]; }
    """)
    assert result[:2] == [True, "ERR_INVALID_ARG_TYPE"]
    assert 'The "options.signal" property must be an instance of AbortSignal' in result[2]


def test_aborting_a_grep_over_5000_files_stops_it_midway(app):
    """The grep is running when the abort comes: a worker-answered call sent after it
    (memoryUsage) is answered, which happens only once the grep, already in Python, lets the
    worker's messages in. The worker reports how many files it had searched."""
    result = js(app, """
      const files = [];
      for (let i = 0; i < 50; i++) await vfs.mkdir(`/g5000/d${i}`, {recursive: true});
      for (let i = 0; i < 5000; i++) {
        files.push(vfs.writeFile(`/g5000/d${i % 50}/f${i}.txt`, `needle ${i}\\n`));
      }
      await Promise.all(files);
      const whole = await vfs.grep("needle", "/g5000");
      const controller = new AbortController();
      let settled = null;
      const grep = vfs.grep("needle", "/g5000", {signal: controller.signal});
      grep.then(() => { settled = "resolved"; }, () => { settled = "rejected"; });
      await vfs.memoryUsage();
      const settledBeforeAbort = settled;
      controller.abort();
      try { await grep; return {outcome: "resolved"}; }
      catch (e) {
        const again = (await vfs.grep("needle", "/g5000")).matches.length;
        return {outcome: [e.name, e.code], hint: e.hint, settledBeforeAbort,
                matches: whole.matches.length, again};
      }
    """)
    assert result["outcome"] == ["AbortError", "ABORT_ERR"]
    assert result["settledBeforeAbort"] is None
    assert result["matches"] == result["again"] == 5000
    done = re.fullmatch(r"stopped after (\d+) of 5000 files", result["hint"])
    assert done, result["hint"]
    assert int(done.group(1)) < 5000


def test_aborting_a_grep_through_a_view_stops_it_midway(app):
    """A view's calls go on its own port, with its own call ids: the cancel goes the same way
    and stops the grep the view runs (after the test above, /g5000 holds 5,000 files)."""
    result = js(app, """
      const view = await vfs.restrict({read: ["/g5000"]});
      const controller = new AbortController();
      let settled = null;
      const grep = view.grep("needle", "/g5000", {signal: controller.signal});
      grep.then(() => { settled = "resolved"; }, () => { settled = "rejected"; });
      // Answered by the worker itself (refused to a view), once the grep lets messages in.
      await view.memoryUsage().catch(() => {});
      const settledBeforeAbort = settled;
      controller.abort();
      try { await grep; return {outcome: "resolved"}; }
      catch (e) {
        const again = (await view.grep("needle", "/g5000")).matches.length;
        await view.close();
        return {outcome: [e.name, e.code], hint: e.hint, settledBeforeAbort, again};
      }
    """)
    assert result["outcome"] == ["AbortError", "ABORT_ERR"]
    assert result["settledBeforeAbort"] is None
    assert result["again"] == 5000
    done = re.fullmatch(r"stopped after (\d+) of 5000 files", result["hint"])
    assert done, result["hint"]
    assert int(done.group(1)) < 5000


def test_aborted_streams_imports_and_stream_writes_leave_nothing(app):
    result = js(app, """
      const MiB = 1024 * 1024;
      await vfs.mkdir("/abs", {recursive: true});
      await vfs.writeFile("/abs/big.bin", new Uint8Array(3 * MiB).fill(7));
      const held = async () => (await vfs.diagnostics()).streams;
      const name = async (promise) => {
        try { await promise; return "resolved"; } catch (e) { return e.name; }
      };
      // A stream of `pieces`, which abort `controller` after the first.
      const aborting = (controller, first, second) => {
        const pieces = (function* () { yield first; controller.abort(); yield second; })();
        return new ReadableStream({ pull(c) {
          const next = pieces.next();
          if (next.done) c.close(); else c.enqueue(next.value);
        } });
      };
      const out = {};

      let controller = new AbortController();
      let reader = vfs.createReadStream("/abs/big.bin", {signal: controller.signal}).getReader();
      out.firstRead = (await reader.read()).value.length;
      controller.abort();
      out.readAfterAbort = await name(reader.read());

      controller = new AbortController();
      reader = vfs.export("/abs", {signal: controller.signal}).getReader();
      out.exportFirst = (await reader.read()).value.length > 0;
      controller.abort();
      out.exportAfterAbort = await name(reader.read());

      controller = new AbortController();
      const source = aborting(controller, new Uint8Array(MiB), new Uint8Array(MiB));
      out.writeStream = await name(
        vfs.writeFile("/abs/streamed.bin", source, {signal: controller.signal}));
      out.streamedExists = await vfs.exists("/abs/streamed.bin");

      const zip = new Uint8Array(await new Response(vfs.export("/abs")).arrayBuffer());
      controller = new AbortController();
      const zipSource = aborting(controller, zip.subarray(0, 1024), zip.subarray(1024));
      out.importing = await name(
        vfs.import(zipSource, {into: "/abs-in", signal: controller.signal}));
      out.importedExists = await vfs.exists("/abs-in");
      await vfs.flush();
      out.streamsHeld = await held();
      return out;
    """)
    assert result == {"firstRead": 512 * 1024, "readAfterAbort": "AbortError",
                      "exportFirst": True, "exportAfterAbort": "AbortError",
                      "writeStream": "AbortError", "streamedExists": False,
                      "importing": "AbortError", "importedExists": False, "streamsHeld": 0}


def test_aborting_a_watch_signal_unsubscribes(app):
    result = js(app, """
      await vfs.mkdir("/abw", {recursive: true});
      const seen = [];
      const controller = new AbortController();
      const unsubscribe = vfs.watch("/abw", (event) => seen.push(event.path),
                                    {signal: controller.signal});
      await unsubscribe.ready;
      await vfs.writeFile("/abw/one", "1");
      const marker = [];
      const other = vfs.watch("/abw", (event) => marker.push(event.path));
      await other.ready;
      controller.abort();
      await vfs.writeFile("/abw/two", "2");
      for (let i = 0; i < 200 && !marker.includes("/abw/two"); i++) {
        await new Promise((r) => setTimeout(r, 10));  // bounded: 2 s, then the assert says so
      }
      await other();
      return {seen, marker};
    """)
    assert "/abw/two" in result["marker"], "the second watcher never saw /abw/two"
    assert result["seen"] == ["/abw/one"]


def test_aborting_an_endless_shell_loop_stops_it_and_the_shell_goes_on(app):
    """`while true; do :; done` runs in Python when the abort comes: a worker-answered call sent
    after it (memoryUsage) is answered only because every iteration lets the worker's messages
    in; the line then stops with status 130, and the next line runs."""
    result = js(app, """
      const controller = new AbortController();
      let settled = null;
      const loop = vfs.shell("echo kept > /loop.txt; while true; do :; done; echo no > /loop.txt",
                             {signal: controller.signal});
      loop.then(() => { settled = "resolved"; }, () => { settled = "rejected"; });
      await vfs.memoryUsage();
      const settledBeforeAbort = settled;
      controller.abort();
      let outcome;
      try { const r = await loop; outcome = ["resolved", r.code, r.stdout, r.stderr]; }
      catch (e) { outcome = [e.name, e.code]; }
      const after = await vfs.shell("echo $((6 * 7)); cat /loop.txt");
      return {outcome, settledBeforeAbort, after: after.stdout};
    """)
    assert result["settledBeforeAbort"] is None
    assert result["outcome"] == ["resolved", 130, "", ""]
    assert result["after"] == "42\nkept\n"
