"""Reads before Python has booted (docs/boot.md, "Reads before Python"): on a returning visit
the page answers readFile, stat, lstat, exists and readdir from the disk's IndexedDB records
while the worker still boots, and every answer (value or error: code, message, syscall, path)
is the one Python gives. Python is held back by holding the worker's first request (its
manifest.json), so the early answers cannot have come from it; it is released, by the test,
only once they are in.

A page that boots a Python reads early: with the shared runtime (openVFS's default) the first
page of the disk, the host. The tests of a tab booting while another tab commits open both
with runtime "own", where each tab boots a Python of its own; a second tab of a shared disk
boots nothing and reads through the host's worker (the last test).
"""

from __future__ import annotations

import contextlib
import time

import pytest

from .console_errors import expect_failed_load

PAGE = "/early-reads-test"  # the server's 404 page: a same-origin document the app never touches
DISK = "early"

# The tree: inline and chunked files, directories, links (relative, absolute, to a directory,
# with "..", a loop, a dangling one, one with a trailing slash), a file used as a directory,
# names that sort differently by UTF-16 unit and by code point.
SEED_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: disk, snapshot: "off" });
  const big = new Uint8Array(512 * 1024 * 2 + 77).map((_, i) => (i * 31) % 251);  // 3 chunks
  await vfs.mkdir("/d/sub/deep", { recursive: true });
  await vfs.writeFile("/d/a.txt", "héllo");
  await vfs.writeFile("/d/sub/deep/z.txt", "deep");
  await vfs.writeFile("/d/big.bin", big);
  await vfs.writeFile("/d/latin.bin", new Uint8Array([0x41, 0xe9, 0x80, 0xff]));
  await vfs.writeFile("/d/bom.txt", new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]));
  await vfs.writeFile("/d/empty", "");
  await vfs.writeFile("/d/\\u{1F600}.txt", "astral");
  await vfs.writeFile("/d/\\uFF21.txt", "fullwidth");
  await vfs.symlink("a.txt", "/d/rel");
  await vfs.symlink("/d/sub", "/d/abs");
  await vfs.symlink("../d/sub/deep/z.txt", "/d/sub/up");
  await vfs.symlink("loop2", "/d/loop1");
  await vfs.symlink("loop1", "/d/loop2");
  await vfs.symlink("nowhere", "/d/dangling");
  await vfs.symlink("sub/", "/d/slash");
  await vfs.symlink("a.txt/", "/d/fileslash");
  await vfs.symlink("/d/\\u{1F600}.txt", "/d/\\u00e9link");
}"""

PATHS = ["/", "/d", "/d/", "/d/a.txt", "/d/a.txt/", "/d/a.txt/x", "/d/missing", "/d/missing/x",
         "/d/big.bin", "/d/latin.bin", "/d/bom.txt", "/d/empty", "/d/sub", "/d/sub/deep/z.txt",
         "/d/rel", "/d/abs", "/d/abs/deep/z.txt", "/d/abs/", "/d/sub/up", "/d/loop1",
         "/d/loop1/x", "/d/dangling", "/d/dangling/", "/d/slash", "/d/slash/deep",
         "/d/fileslash", "/d/\U0001F600.txt", "/d/\uFF21.txt", "/d/\u00e9link",
         "/d/../d/./sub//deep/../deep/z.txt", "/../d/a.txt", "/d/sub/..", "/d/a.txt/.."]
# [op, path, options]: every path through every read, and readFile with each encoding.
QUERIES = ([["stat", p, None] for p in PATHS] + [["lstat", p, None] for p in PATHS]
           + [["exists", p, None] for p in PATHS] + [["readdir", p, None] for p in PATHS]
           + [["readdir", p, {"withFileTypes": True}] for p in ("/d", "/d/abs")]
           + [["readFile", p, None] for p in PATHS]
           + [["readFile", p, "utf8"] for p in ("/d/a.txt", "/d/rel", "/d/bom.txt", "/d/empty",
                                                "/d/\u00e9link", "/d/sub/up", "/d/latin.bin")]
           + [["readFile", p, {"encoding": "latin1"}] for p in ("/d/latin.bin", "/d/big.bin")])

# Runs QUERIES one after another on the disk's API; each answer as plain data.
# `python`: first wait until Python is ready (diagnostics is the worker's), so Python answers
# all; else each answer is bounded, since one that waits for Python would wait for ever.
ASK_JS = """async ([disk, queries, python]) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: disk, snapshot: "off" });
  if (python) await vfs.diagnostics();
  const late = (what) => new Promise((_, reject) => setTimeout(() => reject(
    new Error(`${what} waited 60 s: the early reader did not answer it`)), 60000));
  const bounded = (promise, what) => python ? promise : Promise.race([promise, late(what)]);
  const plain = (value) => {
    if (value instanceof Uint8Array) return { bytes: Array.from(value) };
    if (Array.isArray(value)) return value.map(plain);
    if (value && typeof value === "object") {
      const out = {};
      for (const key of Object.keys(value).sort()) {
        const field = value[key];
        if (typeof field !== "function" && !(field instanceof Date)) out[key] = field;
      }
      return out;
    }
    return value;
  };
  const answers = [];
  for (const [op, path, options] of queries) {
    try {
      const asked = options === null ? vfs[op](path) : vfs[op](path, options);
      answers.push({ value: plain(await bounded(asked, `${op} ${path}`)) });
    } catch (e) {
      if (e.message.includes("the early reader did not answer")) throw e;
      answers.push({ error: { code: e.code, message: e.message, syscall: e.syscall, path: e.path,
                              errno: e.errno } });
    }
  }
  window.__vfs = vfs;
  return answers;
}"""

DIAGNOSTICS_JS = "async () => (await window.__vfs.diagnostics())"


@contextlib.contextmanager
def python_held(context):
    """Holds the worker's first request (dist/manifest.json) until the block ends: Python cannot
    start, let alone answer, inside it."""
    held = []

    def hold(route):
        held.append(route)

    def is_manifest(url: str) -> bool:
        return url.endswith("/manifest.json") and "/defaults/" not in url

    context.route(is_manifest, hold)
    try:
        yield held
    finally:
        for route in held:
            route.continue_()
        context.unroute(is_manifest, hold)


def worker_asked(page, held, bound_ms: int = 30_000) -> None:
    """Waits until python_held holds the worker's request: openVFS may resolve (early reads)
    before the worker has even asked for its manifest."""
    waited = 0
    while not held:
        if waited >= bound_ms:
            raise AssertionError(f"the worker asked for no manifest.json in {bound_ms} ms")
        page.wait_for_timeout(50)
        waited += 50


@pytest.mark.timeout(600)  # two boots and 350 answers: over 300 s at load 18 on 2 cores
@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_early_answers_are_the_cores(page):
    page.goto(PAGE)
    page.evaluate(SEED_JS, DISK)
    core = page.evaluate(ASK_JS, [DISK, QUERIES, True])
    assert page.evaluate(DIAGNOSTICS_JS)["earlyReads"] == 0  # Python was ready: none early

    with python_held(page.context) as held:
        page.reload()
        early = page.evaluate(ASK_JS, [DISK, QUERIES, False])
        worker_asked(page, held)
    diagnostics = page.evaluate(DIAGNOSTICS_JS)
    assert diagnostics["earlyReads"] == len(QUERIES)
    assert diagnostics["earlyReadsFromMemory"] > 0  # compared too (web/page/early_peer.mjs)
    for query, mine, theirs in zip(QUERIES, early, core, strict=True):
        assert mine == theirs, query
    # Spot checks that the comparison compared something.
    assert core[QUERIES.index(["readFile", "/d/rel", "utf8"])] == {"value": "héllo"}
    assert core[QUERIES.index(["stat", "/d/loop1", None])]["error"]["code"] == "ELOOP"
    assert core[QUERIES.index(["readdir", "/d", None])]["value"][-2:] == ["\uFF21.txt",
                                                                           "\U0001F600.txt"]


# A read made before the write is answered early; one made after it (not even awaiting it)
# waits for Python (it is not counted as early), and so does everything after, so a read once
# the write resolved sees it.
ORDER_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: disk, snapshot: "off" });
  window.__vfs = vfs;
  const before = vfs.readFile("/d/a.txt", "utf8");
  const write = vfs.writeFile("/d/a.txt", "after");
  const queued = vfs.stat("/d/a.txt");
  window.__order = write.then(async () => {
    await queued;
    return vfs.readFile("/d/a.txt", "utf8");
  });
  return await before;
}"""


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_write_ends_early_reads_so_the_tab_reads_its_own_write(page):
    page.goto(PAGE)
    page.evaluate(SEED_JS, DISK)
    with python_held(page.context):
        page.reload()
        assert page.evaluate(ORDER_JS, DISK) == "héllo"
    assert page.evaluate("() => window.__order") == "after"
    assert page.evaluate(DIAGNOSTICS_JS)["earlyReads"] == 1


FRESH_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: disk, snapshot: "off" });
  const text = await vfs.readFile("/shared/README.md", "utf8");
  return { text: text.length > 0, early: (await vfs.diagnostics()).earlyReads };
}"""


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_fresh_disk_waits_for_python_and_its_default_content(page):
    page.goto(PAGE)
    assert page.evaluate(FRESH_JS, "early-fresh") == {"text": True, "early": 0}


# The page fetches the default content's manifest while it opens the database: the reader
# answers only once the manifest says the disk holds this build's content.
NEW_BUILD_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  window.__read = openVFS({ name: disk, snapshot: "off" }).then(async (vfs) => {
    const text = await vfs.readFile("/d/a.txt", "utf8");
    return { text, early: (await vfs.diagnostics()).earlyReads };
  });
}"""


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_new_builds_default_content_waits_for_python_even_when_its_manifest_comes_late(page):
    """A disk that holds an older build's default content is not read early: the new build's
    content is installed first. The manifest that says so arrives after the database opened."""
    page.goto(PAGE)
    page.evaluate(SEED_JS, DISK)
    held_manifests = []

    def newer_defaults(route):
        held_manifests.append(route)

    def is_defaults(url: str) -> bool:
        return url.endswith("/defaults/manifest.json")

    page.context.route(is_defaults, newer_defaults)
    try:
        with python_held(page.context):
            page.reload()
            page.evaluate(NEW_BUILD_JS, DISK)
            page.wait_for_timeout(500)  # the database opens meanwhile
            assert held_manifests, "the page never asked for the default content's manifest"
            for route in held_manifests[:1]:  # the page's; the worker asks once it is released
                answer = route.fetch()
                body = answer.json()
                route.fulfill(response=answer, json={**body, "version": f"{body['version']}-next"})
    finally:
        page.context.unroute(is_defaults, newer_defaults)
        for route in held_manifests[1:]:
            route.continue_()
    assert page.evaluate("() => window.__read") == {"text": "héllo", "early": 0}


# Another tab that commits while this one boots has a Python of its own (runtime "own"), and so
# has this tab: with the shared runtime one would be the other's guest and boot nothing.
OTHER_TAB_WRITES_JS = """async ([disk, text]) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: disk, snapshot: "off", runtime: "own" });
  await vfs.writeFile("/d/a.txt", text);
  await vfs.writeFile("/d/new.txt", text);
}"""
EARLY_READ_JS = """async ([disk, path]) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = window.__vfs = await openVFS({ name: disk, snapshot: "off", runtime: "own" });
  return [await vfs.readFile(path, "utf8"), await vfs.exists("/d/new.txt")];
}"""


def seeded_with_another_tab(page):
    """The disk seeded from `page`, and a second page of its context on the same origin."""
    page.goto(PAGE)
    page.evaluate(SEED_JS, DISK)
    other = page.context.new_page()
    other.goto(PAGE)
    return other


def reads_until_from_memory(page, text: str, timeout_s: float = 30) -> int:
    """Reads /d/a.txt (whose content is `text`) early until a read makes no IndexedDB `get`
    (it was answered from what earlier answers read); returns how many reads that took."""
    deadline = time.monotonic() + timeout_s
    reads = 0
    while True:
        got, gets = page.evaluate(COUNTED_READ_JS, [DISK, "/d/a.txt"])
        assert got == text
        reads += 1
        if not gets:
            return reads
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout_s} s for an early read answered from memory (the page "
                        f"joined to the disk's peers); the last read made the gets {gets}")
        time.sleep(0.1)


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_another_tabs_commit_during_boot_is_read_whole(page):
    other = seeded_with_another_tab(page)
    other.evaluate(OTHER_TAB_WRITES_JS, [DISK, "first"])  # the other tab's Python is up
    page.context.add_init_script(COUNT_GETS_JS)
    with python_held(page.context):
        page.reload()
        assert page.evaluate(EARLY_READ_JS, [DISK, "/d/a.txt"]) == ["first", True]
        # Once the page is a peer of the disk (web/page/early_peer.mjs) and found the disk still
        # at the revision it read, it answers from what it read before, with no transaction.
        # Polled: joining takes the disk's lock once, which the other tab's worker lets go of
        # between its steps, and the check of the revision is one more transaction.
        reads = reads_until_from_memory(page, "first")
        assert page.evaluate(EARLY_READ_JS, [DISK, "/d/a.txt"]) == ["first", True]
        # Committed in the other tab after this tab's reader read the records: the commit
        # resolves only once the page forgot them, so the next early answer reads them again.
        other.evaluate(OTHER_TAB_WRITES_JS, [DISK, "second"])
        assert page.evaluate(EARLY_READ_JS, [DISK, "/d/a.txt"]) == ["second", True]
    diagnostics = page.evaluate(DIAGNOSTICS_JS)
    assert diagnostics["earlyReads"] == 2 + reads + 2 + 2
    # The poll's last read and at least the read after it: neither took a transaction.
    assert diagnostics["earlyReadsFromMemory"] >= 2


# Every IndexedDB `get` of the page, by object store, from before its scripts run.
COUNT_GETS_JS = """(() => {
  const get = IDBObjectStore.prototype.get;
  window.__gets = [];
  IDBObjectStore.prototype.get = function (...args) {
    window.__gets.push(this.name);
    return get.apply(this, args);
  };
})();"""
# An early read of `path`, with the `get`s it made (not the reader's own checks at open).
COUNTED_READ_JS = """async ([disk, path]) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = window.__vfs = await openVFS({ name: disk, snapshot: "off", runtime: "own" });
  const before = window.__gets.length;
  const text = await vfs.readFile(path, "utf8");
  return [text, window.__gets.slice(before)];
}"""
KEPT = f"pyvfs-early:{DISK}"
KEPT_REV_JS = f"() => JSON.parse(localStorage.getItem('{KEPT}') ?? 'null')?.rev ?? null"


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_returning_visit_reads_a_path_read_last_time_with_one_request(page):
    """The records the early reader read are kept for the next visit (web/page/kept_records.mjs):
    its first read of the same path asks for the revision at most, no entry or record; after
    another tab's commit they are of an older revision, and the read walks the disk as it is."""
    other = seeded_with_another_tab(page)
    page.context.add_init_script(COUNT_GETS_JS)
    with python_held(page.context):
        page.reload()
        text, gets = page.evaluate(COUNTED_READ_JS, [DISK, "/d/sub/deep/z.txt"])
        assert text == "deep"
        assert gets.count("names") == 4 and gets.count("nodes") >= 4, gets  # one per segment
        page.wait_for_function(f"{KEPT_REV_JS} !== null")
    with python_held(page.context):
        page.reload()
        # The revision at most: none once the page joined the disk's peers and found the disk
        # still at the kept records' revision (web/page/early_reader.mjs, trust).
        text, gets = page.evaluate(COUNTED_READ_JS, [DISK, "/d/sub/deep/z.txt"])
        assert text == "deep" and set(gets) <= {"meta"}, gets
        kept_rev = page.evaluate(KEPT_REV_JS)
    other.evaluate(OTHER_TAB_WRITES_JS, [DISK, "changed"])
    with python_held(page.context):
        page.reload()
        text, gets = page.evaluate(COUNTED_READ_JS, [DISK, "/d/a.txt"])
        assert text == "changed"
        assert "names" in gets, gets  # walked again: the kept records were of an older revision
        page.wait_for_function(f"{KEPT_REV_JS} > {kept_rev}")


# The write is sent before Python fails, the mkdir after: both reject saying why.
BROKEN_BOOT_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = window.__vfs = await openVFS({ name: disk, snapshot: "off" });
  const text = await vfs.readFile("/d/a.txt", "utf8");
  const failed = (e) => ({ code: e.code, message: e.message });
  window.__write = vfs.writeFile("/d/b.txt", "x").then(() => null, failed);
  return text;
}"""
AFTER_FAILURE_JS = """async () => {
  const failed = (e) => ({ code: e.code, message: e.message });
  const write = await window.__write;
  return [write, await window.__vfs.mkdir("/d/c").then(() => null, failed)];
}"""


@expect_failed_load(r"/manifest\.json", 500, reason="the worker's manifest is refused")
@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_boot_failure_after_early_reads_rejects_every_later_call(page):
    page.goto(PAGE)
    page.evaluate(SEED_JS, DISK)
    with python_held(page.context) as held:
        page.reload()
        assert page.evaluate(BROKEN_BOOT_JS, DISK) == "héllo"  # openVFS resolved, read early
        worker_asked(page, held)
        for route in held:
            route.fulfill(status=500, body="refused by the test")
        held.clear()
    for failure in page.evaluate(AFTER_FAILURE_JS):
        assert failure["code"] == "EIO", failure
        assert failure["message"].startswith("EIO: py_vfs failed to start: "), failure


# A chunk of /d/big.bin deleted behind the disk's back (as damage would): the page must not
# answer the file, with zeros or at all, and Python's answer is EIO. The stat after it shows the
# reader was answering. The records are read once the seeding worker moved its pending writes
# into place (docs/storage.md, "Pending writes"), which it does after 100 ms idle.
DROP_CHUNK_JS = """async (disk) => {
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open(`pyvfs:${disk}`);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const got = (req) => new Promise((resolve) => { req.onsuccess = () => resolve(req.result); });
  const pending = () => got(db.transaction("pending").objectStore("pending").count());
  for (let waited = 0; await pending(); waited += 50) {
    if (waited > 10000) throw new Error("the seed's pending writes were not settled within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const tx = db.transaction(["names", "nodes", "chunks"], "readwrite");
  const dir = await got(tx.objectStore("names").get("root/d"));
  const file = await got(tx.objectStore("names").get(`${dir}/big.bin`));
  const { chunks } = JSON.parse(await got(tx.objectStore("nodes").get(file)));
  tx.objectStore("chunks").delete(chunks[1]);
  await new Promise((resolve) => { tx.oncomplete = resolve; });
  db.close();
}"""
MISSING_CHUNK_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = window.__vfs = await openVFS({ name: disk, snapshot: "off" });
  window.__read = vfs.readFile("/d/big.bin").then((data) => ({ bytes: data.byteLength }),
                                                  (e) => ({ code: e.code }));
  return (await vfs.stat("/d/big.bin")).size;
}"""


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_missing_chunk_is_the_workers_eio_not_zeros(page):
    page.goto(PAGE)
    page.evaluate(SEED_JS, DISK)
    page.evaluate(DROP_CHUNK_JS, DISK)
    with python_held(page.context):
        page.reload()
        assert page.evaluate(MISSING_CHUNK_JS, DISK) == 512 * 1024 * 2 + 77
    assert page.evaluate("() => window.__read") == {"code": "EIO"}
    assert page.evaluate(DIAGNOSTICS_JS)["earlyReads"] == 1  # the stat; the read was Python's


# Another tab rewrites /d/big.bin (3 chunks) again and again, each version in chunks of its
# own, so every commit deletes the chunks of the version before; meanwhile this tab reads it
# early, Python held, until it sees the last version. Each answer is one version whole: the node
# record and its chunks come from one transaction, which a commit deleting them cannot overtake.
# A read that lost a chunk would be declined and wait for Python, which is held: the bound
# fails it.
VERSION_JS = "(seed) => new Uint8Array(512 * 1024 * 2 + 77).map((_, i) => (i * 31 + seed) % 251)"
REWRITER_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = await openVFS({ name: disk, snapshot: "off", runtime: "own" });
  const version = VERSION;
  await vfs.writeFile("/d/big.bin", version(1));  // this tab's Python is up
  window.__rewrite = async (last) => {
    for (let seed = 2; seed <= last; seed++) await vfs.writeFile("/d/big.bin", version(seed));
  };
}""".replace("VERSION", VERSION_JS)
OPEN_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  window.__vfs = await openVFS({ name: disk, snapshot: "off", runtime: "own" });
}"""
READ_UNTIL_JS = """async (last) => {
  const version = VERSION;
  const late = () => new Promise((_, reject) => setTimeout(
    () => reject(new Error("not answered early")), 30000));
  const seeds = [];
  while (seeds.at(-1) !== last && seeds.length < 10000) {
    const data = await Promise.race([window.__vfs.readFile("/d/big.bin"), late()]);
    const seed = data[0];  // the version's seed; every other byte must agree with it
    const expected = version(seed);
    const whole = data.length === expected.length && data.every((b, i) => b === expected[i]);
    seeds.push(whole ? seed : -1);
  }
  return seeds;
}""".replace("VERSION", VERSION_JS)
LAST = 30


@pytest.mark.timeout(600)
@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_chunked_file_read_early_is_of_one_revision_while_another_tab_rewrites_it(page):
    other = seeded_with_another_tab(page)
    other.evaluate(REWRITER_JS, DISK)
    with python_held(page.context):
        page.reload()
        page.evaluate(OPEN_JS, DISK)
        other.evaluate("(last) => { window.__rewrites = window.__rewrite(last); }", LAST)
        seeds = page.evaluate(READ_UNTIL_JS, LAST)
        other.evaluate("() => window.__rewrites")
    assert -1 not in seeds, seeds
    assert len(set(seeds)) > 2, f"the reads saw too few versions to race the commits: {seeds}"
    assert page.evaluate(DIAGNOSTICS_JS)["earlyReads"] == len(seeds)


# A second tab of a disk whose runtime is shared (openVFS's default): a guest of the first.
GUEST_READ_JS = """async (disk) => {
  const { openVFS } = await import("/pyvfs.mjs");
  const vfs = window.__vfs = await openVFS({ name: disk, snapshot: "off" });
  const { earlyReads, runtime } = await vfs.diagnostics();
  return { text: await vfs.readFile("/d/a.txt", "utf8"), big: (await vfs.stat("/d/big.bin")).size,
           earlyReads, role: runtime.role };
}"""


@expect_failed_load(PAGE, 404, reason="the page is the server's 404 page")
def test_a_second_tab_of_a_shared_disk_boots_nothing_and_reads_through_the_first(page):
    """The guest has no early reader and needs none: with every Python boot of the context held,
    its reads (and diagnostics, the worker's) are answered by the first tab's worker at once."""
    other = seeded_with_another_tab(page)  # `page` is the disk's host: its Python is up
    with python_held(page.context) as held:
        answers = other.evaluate(GUEST_READ_JS, DISK)
        assert held == [], "the guest started a Python of its own"
    assert answers == {"text": "héllo", "big": 512 * 1024 * 2 + 77, "earlyReads": 0,
                       "role": "guest"}
