// Persistence across a browser restart in Debian's firefox-esr: files written in one Firefox are
// read by another launched on the same profile folder (its IndexedDB).

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LAUNCH_MS, TEST_MS, launchFirefox, openApp, removeProfile, run, startSite, tempProfile, within,
} from "./harness.mjs";

async function withFirefox(profile, appUrl, body) {
  const browser = await launchFirefox(profile);
  try {
    const page = await openApp(browser, appUrl);
    const value = await body(page);
    assert.deepEqual(page.problems, [], "uncaught errors or console.error in the tab");
    return value;
  } finally {
    await within(LAUNCH_MS, "closing Firefox", browser.close());
  }
}

test("files survive closing Firefox and launching it again on the profile", { timeout: TEST_MS }, async () => {
  const site = await startSite();
  const profile = tempProfile();
  try {
    await withFirefox(profile, site.appUrl, (page) => run(page, "writing before the restart", async () => {
      const vfs = await window.pyvfs.ready;
      await vfs.mkdir("/kept/deep", { recursive: true });
      await vfs.writeFile("/kept/deep/note.txt", "written before the restart");
      await vfs.writeFile("/kept/big.bin", new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251));
      await window.pyvfs.shell("echo from the shell > /kept/shell.txt");
    }));
    const seen = await withFirefox(profile, site.appUrl, (page) => run(page, "reading after the restart", async () => {
      const vfs = await window.pyvfs.ready;
      const big = await vfs.readFile("/kept/big.bin");
      return {
        listed: (await vfs.readdir("/kept")).sort(),
        note: await vfs.readFile("/kept/deep/note.txt", "utf8"),
        shell: await vfs.readFile("/kept/shell.txt", "utf8"),
        bigLength: big.length,
        bigWrong: big.findIndex((byte, i) => byte !== i % 251),
      };
    }));
    assert.deepEqual(seen, {
      listed: ["big.bin", "deep", "shell.txt"], note: "written before the restart",
      shell: "from the shell\n", bigLength: 3 * 1024 * 1024, bigWrong: -1,
    });
  } finally {
    await site.stop();
    removeProfile(profile);
  }
});
