// tests/unit, the CPython pytest suite, run again inside the real Pyodide (Python 3.14 on
// Emscripten/wasm32, in Node), so that wasm or 3.14 differences show up as failures.
//
// pytest, hypothesis and their dependencies are wheels from PyPI, pinned with hashes in
// tests/pyodide/requirements.txt and downloaded by `sh build/setup.sh --test` into
// .cache/pyodide-wheels/; loadPackage installs them from file:// URLs (nothing from a CDN).
// What differs from CPython, and how the suite copes (tests/unit/conftest.py):
//   - no event loop can block (no JSPI in Node 20): asyncio.run/Runner are replaced by a
//     synchronous driver that fails loudly if a coroutine suspends (tests/unit/aio.py);
//   - no time.tzset and $TZ is ignored: local time is Node's, so TZ=UTC is set here;
//   - no processes, and the "real" file system is MEMFS, not Linux: the tests that need them
//     skip themselves there (skipif sys.platform == "emscripten"), and -rs prints why.
// Extra pytest options: PYTEST_ADDOPTS (forwarded), e.g. PYTEST_ADDOPTS="-x -k tree".

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bootPyodide, root } from "./harness.mjs";

// Emscripten's localtime asks JS's Date, which follows Node's TZ even when set at runtime.
process.env.TZ = "UTC";

const WHEELS = join(root, ".cache", "pyodide-wheels");
const REQUIREMENTS = join(root, "tests", "pyodide", "requirements.txt");
const PYTEST_ARGS = ["-q", "-rs", "--color=no", "-p", "no:cacheprovider", "tests/unit"];

/** file:// URLs of the pinned wheels, checked against Pyodide's platform tag. */
function wheelUrls() {
  const lock = JSON.parse(readFileSync(join(root, "node_modules/pyodide/pyodide-lock.json")));
  const platform = `pyemscripten_${lock.info.abi_version}_wasm32`;
  const present = existsSync(WHEELS) ? readdirSync(WHEELS) : [];
  const pins = readFileSync(REQUIREMENTS, "utf8")
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0]);
  return pins.map((pin) => {
    const [name, version] = pin.split("==");
    const prefix = `${name.toLowerCase().replace(/[-_.]+/g, "_")}-${version}-`;
    const file = present.find((f) => f.toLowerCase().startsWith(prefix) && f.endsWith(".whl"));
    if (!file) {
      throw new Error(`${pin}: no wheel in .cache/pyodide-wheels/: run \`sh build/setup.sh --test\``);
    }
    const tag = file.slice(0, -".whl".length).split("-").at(-1);
    if (tag !== "any" && tag !== platform) {
      throw new Error(`${file} is not for this Pyodide (${platform}): fix tests/pyodide/requirements.txt`);
    }
    return pathToFileURL(join(WHEELS, file)).href;
  });
}

test("tests/unit passes inside Pyodide (Python 3.14, Emscripten)", { timeout: 600_000 }, async (t) => {
  const urls = wheelUrls();
  const output = [];
  const pyodide = await bootPyodide({
    stdout: (line) => output.push(line),
    stderr: (line) => output.push(line),
  });
  await pyodide.loadPackage(urls, {
    messageCallback: () => {},
    errorCallback: (message) => output.push(message),
  });
  const scope = pyodide.toPy({ args: PYTEST_ARGS, addopts: process.env.PYTEST_ADDOPTS ?? "" });
  const code = pyodide.runPython(
    `
import os, sys
import pytest

sys.dont_write_bytecode = True  # /src is the repository itself (NODEFS)
if addopts:
    os.environ["PYTEST_ADDOPTS"] = addopts
home = os.getcwd()
os.chdir("/src")  # node ids print as tests/unit/..., as on CPython
try:
    code = int(pytest.main(list(args)))
finally:
    os.chdir(home)
code
`,
    { globals: scope },
  );
  scope.destroy();
  const text = output.join("\n");
  assert.equal(code, 0, `pytest in Pyodide exited with ${code}:\n${text}`);
  for (const line of output) {
    if (/^SKIPPED|^\d+ passed|^=+ .*(passed|skipped)/.test(line)) t.diagnostic(line);
  }
});
