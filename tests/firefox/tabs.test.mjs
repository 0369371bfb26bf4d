// Two tabs on one disk, and the preview origin's service worker, in Debian's firefox-esr.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { BOOT_MS, CALL_MS, TEST_MS, bootedFirefox, openApp, run, within } from "./harness.mjs";

let world;
let second;
before(async () => {
  world = await bootedFirefox();
  second = await openApp(world.browser, world.site.appUrl);
}, { timeout: TEST_MS });
after(async () => { await world?.close(); }, { timeout: TEST_MS });

const write = (page, path, text) => run(page, `writeFile ${path}`,
  async (path, text) => (await window.pyvfs.ready).writeFile(path, text), path, text);
const read = (page, path) => run(page, `readFile ${path}`,
  async (path) => (await window.pyvfs.ready).readFile(path, "utf8"), path);

test("the tabs share one runtime, the first tab's (openVFS's default)", { timeout: TEST_MS }, async () => {
  const role = (page) => run(page, "diagnostics", async () =>
    (await (await window.pyvfs.ready).diagnostics()).runtime.role);
  assert.deepEqual([await role(world.page), await role(second)], ["host", "guest"]);
});

test("a write in one tab is read in the other, both ways", { timeout: TEST_MS }, async () => {
  await run(world.page, "mkdir /tabs", async () => (await window.pyvfs.ready).mkdir("/tabs"));
  await write(world.page, "/tabs/one.txt", "from the first tab");
  assert.equal(await read(second, "/tabs/one.txt"), "from the first tab");
  await write(second, "/tabs/one.txt", "changed by the second");
  assert.equal(await read(world.page, "/tabs/one.txt"), "changed by the second");
});

test("both tabs writing at once lose nothing", { timeout: TEST_MS }, async () => {
  const writes = (page, tag) => run(page, `20 writes in tab ${tag}`, async (tag) => {
    const vfs = await window.pyvfs.ready;
    await Promise.all(Array.from({ length: 20 }, (_, i) => vfs.writeFile(`/race/${tag}${i}`, tag)));
  }, tag);
  await run(world.page, "mkdir /race", async () => (await window.pyvfs.ready).mkdir("/race"));
  await Promise.all([writes(world.page, "a"), writes(second, "b")]);
  for (const page of [world.page, second]) {
    const names = await run(page, "readdir /race", async () => (await window.pyvfs.ready).readdir("/race"));
    assert.equal(names.length, 40);
  }
});

test("a preview is served on the preview origin by its service worker", { timeout: TEST_MS }, async () => {
  const url = await run(world.page, "previewUrl", async () => {
    const vfs = await window.pyvfs.ready;
    await vfs.mkdir("/site", { recursive: true });
    await vfs.writeFile("/site/index.html",
      "<!doctype html><title>preview</title><link rel=stylesheet href=s.css><p id=p>from the disk</p>");
    await vfs.writeFile("/site/s.css", "#p { color: rgb(1, 2, 3) }");
    return vfs.previewUrl("/site/index.html", { root: "/site" });
  });
  assert.ok(url.startsWith(world.site.previewUrl), `${url} is not on ${world.site.previewUrl}`);
  const tab = await within(CALL_MS, "a tab for the preview", world.browser.newPage());
  try {
    await within(BOOT_MS, `loading the preview ${url}`, tab.goto(url));
    const seen = await run(tab, "the preview page", async () => ({
      text: document.getElementById("p")?.textContent,
      color: getComputedStyle(document.getElementById("p")).color,
      controlled: Boolean(navigator.serviceWorker.controller),
    }));
    assert.deepEqual(seen, { text: "from the disk", color: "rgb(1, 2, 3)", controlled: true });
    // A write shows on the next request.
    await write(world.page, "/site/s.css", "#p { color: rgb(4, 5, 6) }");
    const fresh = await run(tab, "fetching the stylesheet again", async () => (await fetch("s.css")).text());
    assert.equal(fresh, "#p { color: rgb(4, 5, 6) }");
  } finally {
    await within(CALL_MS, "closing the preview tab", tab.close());
  }
});

test("no uncaught error or console.error in either app tab", () => {
  assert.deepEqual([...world.page.problems, ...second.problems], []);
});
