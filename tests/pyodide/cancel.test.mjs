// Cancel-aware waiting under the real Pyodide: Python awaits `cancel.sleep` (as `sleep` and
// `tail -f` do) and the abort comes from a JS callback, as the page's cancel message reaches the
// worker; the wait ends at once with ECANCELED. tests/unit/test_cancel_sleep.py covers CPython.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { BOOT_MS, CALL_MS, TEST_MS, bootPyodide, within } from "./harness.mjs";

let pyodide;

before(async () => {
  pyodide = await bootPyodide();
}, { timeout: BOOT_MS });

/** Resolves once Python's `ready()` is true, checking on each macrotask, bounded by CALL_MS. */
async function until(what, ready) {
  await within(CALL_MS, what, (async () => {
    while (!ready()) await new Promise((resolve) => setTimeout(resolve, 0));
  })());
}

test("an endless cancel.sleep ends with ECANCELED when JS aborts its signal", { timeout: TEST_MS }, async () => {
  const scope = pyodide.toPy({});
  pyodide.runPython(`
import math
from py_vfs.core import cancel
signal = cancel.Signal()

def waiting():
    return signal.listeners

async def sleeper():
    cancel.SIGNAL.set(signal)
    try:
        await cancel.sleep(math.inf)
    except OSError as error:
        return f"{error.code} {error.syscall}"
    return "woke without an abort"
`, { globals: scope });
  const outcome = pyodide.runPythonAsync("await sleeper()", { globals: scope });
  const signal = scope.get("signal");
  const waiting = scope.get("waiting");
  await until("the sleep registers with its signal", () => waiting() === 1);
  signal.abort(); // from a JS callback, while Python awaits
  assert.equal(await within(CALL_MS, "the aborted sleep", outcome), "ECANCELED sleep");
  assert.equal(waiting(), 0);
  waiting.destroy();
  signal.destroy();
  scope.destroy();
});

test("the shell's sleep stops on an abort from JS: status 130, nothing printed", { timeout: TEST_MS }, async () => {
  const scope = pyodide.toPy({});
  pyodide.runPython(`
from py_vfs import VFS
from py_vfs.core import cancel
from py_vfs.shell import Shell
signal = cancel.Signal()

def waiting():
    return signal.listeners

async def line():
    cancel.SIGNAL.set(signal)
    result = await Shell(VFS.memory()).run("sleep infinity; echo after")
    return [result.stdout, result.stderr, result.code]
`, { globals: scope });
  const outcome = pyodide.runPythonAsync("await line()", { globals: scope });
  const signal = scope.get("signal");
  const waiting = scope.get("waiting");
  await until("sleep waits on its signal", () => waiting() === 1);
  signal.abort();
  const result = await within(CALL_MS, "the interrupted line", outcome);
  assert.deepEqual(result.toJs(), ["", "", 130]);
  result.destroy();
  waiting.destroy();
  signal.destroy();
  scope.destroy();
});
