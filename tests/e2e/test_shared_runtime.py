"""One runtime for every tab (real Chromium): pages of one origin that open a disk with
openVFS({runtime: "shared"}), the default, use one Python, in the first page's worker; the
others are guests that reach it through the broker (docs/architecture.md, "One runtime for every
tab"). runtime "own" stays available, and is what a page without SharedWorker or Web Locks gets.

Each page here is a plain document of the site (not the app), so the only Pythons are the
shared runtime's: the app page would boot a disk of its own. Read-your-writes across the tabs
is checked in lightning-fs's thread-safety shape (one tab writes with Promise.all, tells the
other on a BroadcastChannel, the other lists and reads at once), ROUNDS times each way after the
reader's stat cache was filled: a failure rate of one round in ten passes with probability
0.9 ** 40, under 2%.
"""

from __future__ import annotations

import contextlib

import pytest

from .conftest import assert_no_offsite, poll_value, record_offsite, watch_console

ROUNDS = 40
FILES = 5
OPEN_MS = 120_000
STEP_MS = 60_000

# `runtime`: the option given, or null for openVFS's default.
OPEN = """async ([name, ms, runtime]) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const options = {name, snapshot: "off", defaults: false};
  if (runtime !== null) options.runtime = runtime;
  const opening = openVFS(options);
  window.vfs = await Promise.race([opening, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`waited ${ms} ms for openVFS(${name})`)), ms))]);
  return (await window.vfs.diagnostics()).runtime;
}"""

RUNTIME = "async () => (await window.vfs.diagnostics()).runtime"


@contextlib.contextmanager
def shared_context(browser, browser_context_args, init_script: str | None = None):
    context = browser.new_context(**{**browser_context_args, "bypass_csp": True})
    if init_script:
        context.add_init_script(init_script)
    offsite: list[str] = []
    record_offsite(context, offsite)
    try:
        yield context
    finally:
        context.close()
    assert_no_offsite(offsite, "the shared runtime's tabs")


def open_tab(context, name: str, runtime: str | None = "shared", before: str | None = None):
    """A plain page of the site with `window.vfs`: the disk `name`, opened with `runtime`
    (None: openVFS's default); `before`: a script the page runs first. Its diagnostics'
    runtime."""
    page = context.new_page()
    console: list[str] = []
    watch_console(page, console)
    page.goto("/manifest.json")
    if before is not None:
        page.evaluate(before)
    try:
        runtime = page.evaluate(OPEN, [name, OPEN_MS, runtime])
    except Exception as error:  # the page's console says why
        pytest.fail(f"openVFS({name}) failed: {error}\n" + "\n".join(console[-20:]),
                    pytrace=False)
    return page, runtime


def run(page, body: str, *args):
    return page.evaluate(f"async (args) => {{ const vfs = window.vfs; {body} }}", list(args))


def test_a_second_tab_uses_the_first_tabs_runtime_with_a_shell_of_its_own(browser,
                                                                           browser_context_args):
    with shared_context(browser, browser_context_args) as context:
        first, first_runtime = open_tab(context, "shared-a")
        second, second_runtime = open_tab(context, "shared-a")
        assert first_runtime["role"] == "host"
        assert second_runtime["role"] == "guest"
        assert first.evaluate(RUNTIME)["guests"] == 1
        run(second, "await vfs.writeFile('/from-guest.txt', 'g'); return true;")
        assert run(first, "return await vfs.readFile('/from-guest.txt', 'utf8');") == "g"
        run(first, "await vfs.mkdir('/d/e', {recursive: true}); return true;")
        assert run(second, "return await vfs.readdir('/d');") == ["e"]
        # Each tab has its own shell session: a cd in one is not the other's.
        run(second, "await vfs.shell('cd /d/e'); return true;")
        assert run(second, "return (await vfs.shell('pwd')).stdout;") == "/d/e\n"
        assert run(first, "return (await vfs.shell('pwd')).stdout;") != "/d/e\n"
        refused = run(first, "try { await (await import('/pyvfs.mjs')).openVFS("
                             "{name: 'x', runtime: 'both'}); return 'opened'; } "
                             "catch (error) { return error.name; }")
        assert refused == "TypeError"
        # Only one Python: the guest's page runs no VFS worker.
        workers = [w.url for w in second.workers if w.url.endswith("/worker.mjs")]
        assert workers == []


def vfs_workers(page) -> list[str]:
    """The VFS workers `page` runs (a guest runs none)."""
    return [w.url for w in page.workers if w.url.endswith("/worker.mjs")]


def read_when_there(page, path: str, text: str) -> None:
    """Waits until `page` reads `text` at `path`: a commit of another runtime reaches a page
    within one broadcast (docs/architecture.md, "Several tabs")."""
    poll_value(page, lambda: run(page, "return await vfs.readFile(args[0], 'utf8')"
                                       ".catch((e) => e.code);", path),
               lambda got: got == text, lambda got: f"{path} read {got!r}, not {text!r}", 30)


def test_the_default_runtime_is_shared_and_own_stays_available(browser, browser_context_args):
    with shared_context(browser, browser_context_args) as context:
        first, first_runtime = open_tab(context, "shared-default", None)
        second, second_runtime = open_tab(context, "shared-default", None)
        own, own_runtime = open_tab(context, "shared-default", "own")
        assert [first_runtime["role"], second_runtime["role"], own_runtime["role"]] == \
            ["host", "guest", "own"]
        assert first.evaluate(RUNTIME)["guests"] == 1
        assert vfs_workers(second) == [] and len(vfs_workers(own)) == 1
        # The runtime of its own and the shared one keep in step through the disk.
        run(own, "await vfs.writeFile('/from-own.txt', 'o'); return true;")
        read_when_there(second, "/from-own.txt", "o")
        run(second, "await vfs.writeFile('/from-guest.txt', 'g'); return true;")
        read_when_there(own, "/from-guest.txt", "g")


# What a page without SharedWorker, or without Web Locks, looks like (canShare() is false).
WITHOUT = {
    "SharedWorker": "delete globalThis.SharedWorker;",
    "Web Locks": ("Object.defineProperty(Navigator.prototype, 'locks', "
                  "{get: () => undefined, configurable: true});"),
}


@pytest.mark.parametrize("missing", sorted(WITHOUT))
def test_where_a_page_cannot_share_the_default_is_a_runtime_of_its_own(browser,
                                                                       browser_context_args,
                                                                       missing):
    with shared_context(browser, browser_context_args, WITHOUT[missing]) as context:
        first, first_runtime = open_tab(context, f"unshared-{missing}", None)
        second, second_runtime = open_tab(context, f"unshared-{missing}", None)
        assert [first_runtime["role"], second_runtime["role"]] == ["own", "own"]
        assert len(vfs_workers(first)) == 1 and len(vfs_workers(second)) == 1
        run(first, "await vfs.writeFile('/one.txt', '1'); return true;")
        read_when_there(second, "/one.txt", "1")


THREADSAFE = """
  const [me, other, rounds, files, ms] = args;
  const channel = new BroadcastChannel("shared-steps");
  const within = (promise, what) => Promise.race([promise, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms))]);
  const misses = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // This tab's stat cache holds the listing and a miss from before the round.
      await vfs.readdir("/t");
      await vfs.exists(`/t/${other}-${round}-0`);
      const done = within(new Promise((resolve) => {
        channel.onmessage = ({data}) => data.done === round && data.from === other && resolve();
      }), `round ${round} of ${other}`);
      channel.postMessage({go: round, to: other});
      await done;
      const names = (await vfs.readdir("/t")).filter((n) => n.startsWith(`${other}-${round}-`));
      const last = `/t/${other}-${round}-${files - 1}`;
      const text = await vfs.readFile(last, "utf8").catch((e) => e.code);
      const seen = await vfs.exists(`/t/${other}-${round}-0`);
      if (names.length !== files || text !== `${round}` || !seen) {
        misses.push({round, listed: names.length, text, seen});
      }
    }
  } finally {
    channel.close();
  }
  return misses;
"""

WRITER = """
  const [me, files] = args;
  const channel = new BroadcastChannel("shared-steps");
  channel.onmessage = async ({data}) => {
    if (data.to !== me) return;
    await Promise.all(Array.from({length: files}, (_, j) =>
      vfs.writeFile(`/t/${me}-${data.go}-${j}`, `${data.go}`)));
    channel.postMessage({done: data.go, from: me});
  };
  window.__writer = channel;
  return true;
"""


def test_what_one_tab_wrote_is_listed_and_read_by_the_other_at_once(browser,
                                                                    browser_context_args):
    with shared_context(browser, browser_context_args) as context:
        host, _ = open_tab(context, "shared-b")
        guest, runtime = open_tab(context, "shared-b")
        assert runtime["role"] == "guest"
        run(host, "await vfs.mkdir('/t'); return true;")
        for reader, writer, name in ((host, guest, "g"), (guest, host, "h")):
            run(writer, WRITER, name, FILES)
            misses = run(reader, THREADSAFE, "r", name, ROUNDS, FILES, STEP_MS)
            assert misses == [], f"{len(misses)} of {ROUNDS} rounds missed {name}'s writes"
            run(writer, "window.__writer.close(); return true;")


def test_when_the_host_tab_closes_a_guest_takes_over_and_nothing_acknowledged_is_lost(
        browser, browser_context_args):
    with shared_context(browser, browser_context_args) as context:
        host, _ = open_tab(context, "shared-c")
        guest, _ = open_tab(context, "shared-c")
        third, runtime = open_tab(context, "shared-c")
        assert runtime["role"] == "guest"
        assert host.evaluate(RUNTIME)["guests"] == 2
        for n in range(20):
            run(guest, "await vfs.writeFile(args[0], args[1]); return true;", f"/k{n}", str(n))
        run(guest, """
          window.events = [];
          vfs.watch("/", (event) => window.events.push(event.filename ?? event.path ?? event));
          return true;""")
        host.close()
        # Each of the two left becomes the host or a guest of the other. A call made before a
        # page learnt that the host went may still be answered by the host's worker as it
        # closes, and a page that saw it go is a guest until it has won the election: so the
        # pages are asked until both have seen the failover and settled.
        poll_value(
            guest, lambda: [p.evaluate(RUNTIME) for p in (guest, third)],
            lambda runtimes: (all(r["failovers"] == 1 for r in runtimes)
                              and sorted(r["role"] for r in runtimes) == ["guest", "host"]),
            lambda runtimes: f"the two tabs left are not one host and one guest: {runtimes}", 30)
        for page in (guest, third):
            texts = run(page, "return await Promise.all(Array.from({length: 20}, "
                              "(_, n) => vfs.readFile(`/k${n}`, 'utf8')));")
            assert texts == [str(n) for n in range(20)]
            assert page.evaluate(RUNTIME)["failovers"] == 1
        # The guest's watch was set up again on the new host.
        run(third, "await vfs.writeFile('/after.txt', 'x'); return true;")
        poll_value(guest, lambda: guest.evaluate("window.events"),
                   lambda events: any("after.txt" in str(e) for e in events),
                   lambda events: f"no watch event for /after.txt: {events}", 30)


# A guest that can be made deaf to its answers: while `window.deaf`, the results that reach it
# on a MessagePort (its host's worker) are dropped, so a call the host committed stays in flight.
DEAF = """() => {
  window.deaf = false;
  const own = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
  Object.defineProperty(MessagePort.prototype, "onmessage", {
    configurable: true,
    get() { return own.get.call(this); },
    set(listener) {
      own.set.call(this, listener && ((event) => {
        if (window.deaf && ["result", "results"].includes(event.data?.type)) return undefined;
        return listener(event);
      }));
    },
  });
}"""


def test_a_write_in_flight_when_the_host_closes_is_applied_exactly_once(browser,
                                                                        browser_context_args):
    # Three calls of the guest are in flight when its host closes: an appendFile the host
    # committed (its answer never reached the guest), an appendFile the host had not run (an
    # open step of the host held it) and a shell line held the same way. The next host finds the
    # first in the journal by its request id and answers it without running it again, runs the
    # second, and the third, which is not retryable, fails with EIO as before.
    with shared_context(browser, browser_context_args) as context:
        host, _ = open_tab(context, "shared-d")
        guest, runtime = open_tab(context, "shared-d", before=DEAF)
        assert runtime["role"] == "guest"
        run(guest, "await vfs.writeFile('/log', ''); return true;")
        run(guest, """
          const settled = (promise) => promise.then((value) => ({value: value ?? null}),
                                                    (error) => ({error: error.code}));
          window.deaf = true;
          window.first = settled(vfs.appendFile('/log', 'A\\n'));
          return true;""")
        poll_value(host, lambda: run(host, "return await vfs.readFile('/log', 'utf8');"),
                   lambda text: text == "A\n", lambda text: f"the host has {text!r} in /log", 60)
        run(host, """
          window.stepOpen = new Promise((open) => {
            window.stepDone = vfs.step(async () => { open(true); await new Promise(() => {}); });
          });
          return await window.stepOpen;""")
        run(guest, """
          const settled = (promise) => promise.then((value) => ({value: value ?? null}),
                                                    (error) => ({error: error.code}));
          window.second = settled(vfs.appendFile('/log', 'B\\n'));
          window.third = settled(vfs.shell('echo C >> /log'));
          window.deaf = false;
          return true;""")
        host.close()
        outcomes = run(guest, f"""
          const within = new Promise((_, reject) => setTimeout(() =>
            reject(new Error("waited {OPEN_MS} ms for the calls in flight")), {OPEN_MS}));
          return await Promise.race([within, Promise.all([window.first, window.second,
                                                          window.third])]);""")
        assert outcomes == [{"value": None}, {"value": None}, {"error": "EIO"}]
        assert run(guest, "return await vfs.readFile('/log', 'utf8');") == "A\nB\n"
        assert guest.evaluate(RUNTIME)["failovers"] == 1
