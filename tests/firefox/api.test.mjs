// The core JS API, the shell, Python and mounts in Debian's firefox-esr (docs/testing.md,
// "The Firefox tier"): one booted app tab for the whole file.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { CALL_MS, TEST_MS, bootedFirefox, run, within } from "./harness.mjs";

let world;
before(async () => {
  world = await bootedFirefox();
  console.log(`firefox tier ran on ${await world.browser.version()}`);
}, { timeout: TEST_MS });
after(async () => { await world?.close(); }, { timeout: TEST_MS });

test("files: write, read, list, stat, rename, remove", { timeout: TEST_MS }, async () => {
  const seen = await run(world.page, "the file calls", async () => {
    const vfs = await window.pyvfs.ready;
    await vfs.mkdir("/api/sub", { recursive: true });
    await vfs.writeFile("/api/a.txt", "h\u00e9llo");
    await vfs.writeFile("/api/sub/b.bin", new Uint8Array([0, 1, 2, 255]));
    const text = await vfs.readFile("/api/a.txt", "utf8");
    const bytes = Array.from(await vfs.readFile("/api/sub/b.bin"));
    const listed = (await vfs.readdir("/api")).sort();
    const stat = await vfs.stat("/api/a.txt");
    await vfs.rename("/api/a.txt", "/api/sub/c.txt");
    const moved = await vfs.readFile("/api/sub/c.txt", "utf8");
    await vfs.rm("/api/sub", { recursive: true });
    return { text, bytes, listed, size: stat.size, isFile: stat.isFile(), isDir: stat.isDirectory(),
      moved, after: await vfs.readdir("/api") };
  });
  assert.deepEqual(seen, { text: "h\u00e9llo", bytes: [0, 1, 2, 255], listed: ["a.txt", "sub"],
    size: 6, isFile: true, isDir: false, moved: "h\u00e9llo", after: [] });
});

test("errors carry Node's codes", { timeout: TEST_MS }, async () => {
  const codes = await run(world.page, "calls that fail", async () => {
    const vfs = await window.pyvfs.ready;
    await vfs.mkdir("/errs/dir", { recursive: true });
    await vfs.writeFile("/errs/file", "x");
    const codeOf = (promise) => promise.then(() => "resolved", (error) => [error.code, error.syscall]);
    return {
      readMissing: await codeOf(vfs.readFile("/errs/missing")),
      readDir: await codeOf(vfs.readFile("/errs/dir")),
      mkdirExisting: await codeOf(vfs.mkdir("/errs/dir")),
      underFile: await codeOf(vfs.writeFile("/errs/file/x", "y")),
      rmdirFull: await codeOf(vfs.rmdir("/errs")),
    };
  });
  assert.deepEqual(codes, {
    readMissing: ["ENOENT", "open"], readDir: ["EISDIR", "read"], mkdirExisting: ["EEXIST", "mkdir"],
    underFile: ["ENOTDIR", "open"], rmdirFull: ["ENOTEMPTY", "rmdir"],
  });
});

test("the shell runs a line and sees the API's files", { timeout: TEST_MS }, async () => {
  const result = await run(world.page, "a shell line", async () => {
    const vfs = await window.pyvfs.ready;
    await vfs.writeFile("/shell-in.txt", "from the API\n");
    const line = await window.pyvfs.shell("echo hi > /shell-out.txt; cat /shell-in.txt /shell-out.txt | wc -l");
    return { ...line, written: await vfs.readFile("/shell-out.txt", "utf8") };
  });
  assert.equal(result.stderr, "");
  assert.equal(result.code, 0);
  assert.equal(result.stdout.trim(), "2");
  assert.equal(result.written, "hi\n");
});

// Firefox has WebAssembly JSPI (checked on firefox-esr 153.8.0esr), so Python's blocking open()
// reaches the disk as in Chromium.
test("Python's open() reads and writes the disk", { timeout: TEST_MS }, async () => {
  const result = await run(world.page, "runPython", async () => {
    const vfs = await window.pyvfs.ready;
    await vfs.writeFile("/py-in.txt", "seven");
    const ran = await vfs.runPython(
      "open('/py-out.txt', 'w').write(open('/py-in.txt').read().upper())\nprint('done')");
    return { ...ran, written: await vfs.readFile("/py-out.txt", "utf8") };
  });
  assert.deepEqual(result, { stdout: "done\n", stderr: "", code: 0, written: "SEVEN" });
});

test("mount: no picker is ENOTSUP with the reason; an OPFS handle mounts", { timeout: TEST_MS }, async () => {
  const result = await run(world.page, "mount", async () => {
    const vfs = await window.pyvfs.ready;
    const shell = await window.pyvfs.shell("mount /picked");
    const opfs = await navigator.storage.getDirectory();
    const folder = await opfs.getDirectoryHandle("mounted", { create: true });
    const info = await vfs.mount("/opfs", folder);
    await vfs.writeFile("/opfs/x.txt", "in OPFS");
    const text = await (await (await folder.getFileHandle("x.txt")).getFile()).text();
    await vfs.unmount("/opfs");
    return { picker: typeof window.showDirectoryPicker, shell, state: info.state, text };
  });
  assert.equal(result.picker, "undefined", "this Firefox has a folder picker: the test needs updating");
  assert.equal(result.shell.code, 1);
  assert.match(result.shell.stderr,
    /^mount: cannot mount '\/picked': Not supported \(this browser has no folder picker, showDirectoryPicker/);
  assert.equal(result.state, "active");
  assert.equal(result.text, "in OPFS");
});

test("persisted resolves (headless Firefox never answers persist())", { timeout: TEST_MS }, async () => {
  const persisted = await run(world.page, "window.pyvfs.persisted", () => window.pyvfs.persisted);
  assert.equal(persisted, false);
  const usage = await run(world.page, "usage()", async () => (await window.pyvfs.ready).usage());
  assert.equal(usage.persisted, false);
});

test("nothing leaves 127.0.0.1 (the harness's proxy prefs)", { timeout: TEST_MS }, async () => {
  const tab = await within(CALL_MS, "a new tab", world.browser.newPage());
  try {
    await assert.rejects(within(CALL_MS, "navigating to example.com", tab.goto("http://example.com/")),
      /NS_ERROR_PROXY_CONNECTION_REFUSED/);
  } finally {
    await within(CALL_MS, "closing the tab", tab.close());
  }
});

test("no uncaught error or console.error in the tab", () => {
  assert.deepEqual(world.page.problems, []);
});
