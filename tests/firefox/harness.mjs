// Drives Debian's firefox-esr over WebDriver BiDi (puppeteer-core, nothing downloaded) against
// dist/ served by build/serve.py on free ports: the app and its preview origin.
//
// No wait here may hang silently: every test carries `{ timeout: TEST_MS }` and each await that
// could stall goes through `within` (tests/pyodide/harness.mjs), whose Error names what was
// awaited. tests/run.sh also gives node --test a default --test-timeout.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";
import { root, within } from "../pyodide/harness.mjs";

export { within };

// Generous bounds on a loaded 2-core machine: Firefox starts in ~5 s, the app boots in 10-30 s.
export const LAUNCH_MS = 60_000;
export const SERVE_MS = 30_000;
export const BOOT_MS = 180_000;
export const CALL_MS = 60_000;
export const TEST_MS = 420_000;

/** Debian's firefox-esr ($FIREFOX overrides), installed by `build/setup.sh --test`. */
export const FIREFOX = process.env.FIREFOX || "/usr/bin/firefox-esr";

/** A fresh profile folder; remove it with `rmSync(dir, {recursive: true, force: true})`. */
export function tempProfile() {
  return mkdtempSync(join(tmpdir(), "pyvfs-firefox-"));
}

/**
 * build/serve.py on free ports (PORT=0): resolves {appUrl, previewUrl, stop()} once it has
 * printed both URLs, or rejects naming what it waited for.
 */
export async function startSite() {
  if (!existsSync(join(root, "dist", "index.html"))) {
    throw new Error("dist/ is not built: run `.venv/bin/python build/build.py` first");
  }
  const child = spawn(join(root, ".venv/bin/python"), [join(root, "build/serve.py")], {
    cwd: root,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const urls = new Promise((resolve, reject) => {
    const seen = [];
    child.once("exit", (code) => reject(new Error(`build/serve.py exited with ${code} before printing its URLs`)));
    child.once("error", reject);
    lines.on("line", (line) => {
      seen.push(line);
      const preview = /^preview origin: (\S+)$/.exec(line);
      if (preview) resolve({ appUrl: seen[0].trim(), previewUrl: preview[1] });
    });
  });
  let site;
  try {
    site = await within(SERVE_MS, "build/serve.py printing its app and preview URLs", urls);
  } catch (error) {
    child.kill();
    throw error;
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    ...site,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await within(SERVE_MS, "build/serve.py exiting", exited);
    },
  };
}

// As the Chromium tier's --host-resolver-rules: nothing a test does can leave 127.0.0.1. Every
// request but loopback's goes to a proxy on the discard port, where nothing listens, and fails.
const LOOPBACK_ONLY = {
  "network.proxy.type": 1,
  "network.proxy.http": "127.0.0.1",
  "network.proxy.http_port": 9,
  "network.proxy.ssl": "127.0.0.1",
  "network.proxy.ssl_port": 9,
  "network.proxy.share_proxy_settings": true,
  "network.proxy.no_proxies_on": "127.0.0.1",
  "network.proxy.allow_hijacking_localhost": false,
};

/**
 * firefox-esr, headless, over WebDriver BiDi, on the profile folder `userDataDir` (the same
 * folder again is the same browser profile: a restart keeps IndexedDB).
 */
export function launchFirefox(userDataDir) {
  if (!existsSync(FIREFOX)) {
    throw new Error(`${FIREFOX} not found: run \`sh build/setup.sh --test\` (Debian's firefox-esr) or set FIREFOX`);
  }
  return within(LAUNCH_MS, `launching ${FIREFOX} (headless, WebDriver BiDi)`, puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    protocol: "webDriverBiDi",
    userDataDir,
    extraPrefsFirefox: LOOPBACK_ONLY,
    timeout: LAUNCH_MS,
  }));
}

/**
 * A new tab on the app, once `window.pyvfs.ready` resolved. Every uncaught error and
 * console.error of the page lands in `page.problems` (the tests assert it stays empty).
 */
export async function openApp(browser, appUrl) {
  const page = await within(CALL_MS, "a new Firefox tab", browser.newPage());
  page.problems = [];
  page.on("pageerror", (error) => page.problems.push(`uncaught: ${error.message ?? error}`));
  page.on("console", (message) => {
    if (message.type() === "error") page.problems.push(`console.error: ${message.text()}`);
  });
  await within(CALL_MS, `loading ${appUrl}`, page.goto(appUrl));
  await within(BOOT_MS, "window.pyvfs.ready in Firefox",
    page.evaluate(() => window.pyvfs.ready.then(() => true)));
  return page;
}

/**
 * `fn(...args)` evaluated in the page (it reaches the VFS as `await window.pyvfs.ready`),
 * bounded by CALL_MS; `what` names it if it does not settle.
 */
export function run(page, what, fn, ...args) {
  return within(CALL_MS, what, page.evaluate(fn, ...args));
}

export function removeProfile(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * One test file's world: the site, a Firefox on a fresh profile and a booted app tab.
 * `close()` closes the browser, stops the server and removes the profile, in that order, each
 * bounded; call it from `after`.
 */
export async function bootedFirefox() {
  const site = await startSite();
  const profile = tempProfile();
  let browser;
  try {
    browser = await launchFirefox(profile);
    const page = await openApp(browser, site.appUrl);
    return { site, profile, browser, page, close: () => shutDown(browser, site, profile) };
  } catch (error) {
    await shutDown(browser, site, profile);
    throw error;
  }
}

async function shutDown(browser, site, profile) {
  try {
    if (browser) await within(LAUNCH_MS, "closing Firefox", browser.close());
  } finally {
    await site.stop();
    removeProfile(profile);
  }
}
