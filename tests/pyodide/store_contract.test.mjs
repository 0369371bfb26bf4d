// tests/unit/store_contract.py's cases against the IndexedDB store (py_vfs/storage/indexeddb.py
// over web/worker/idb_store.mjs, on fake-indexeddb): the same suite tests/unit/test_store_contract.py
// runs against the memory and SQLite stores.

import { test, before } from "node:test";
import { BOOT_MS, CALL_MS, TEST_MS, bootPyodide, within } from "./harness.mjs";
import { IDBStore } from "../../dist/idb_store.mjs";

let pyodide;

before(async () => {
  pyodide = await bootPyodide();
  pyodide.runPython("import sys; sys.path.insert(0, '/src/tests/unit')");
}, { timeout: BOOT_MS });

test("the IndexedDB store keeps the store contract", { timeout: TEST_MS }, async (t) => {
  const names = pyodide.runPython("import store_contract; sorted(store_contract.CASES)").toJs();
  for (const name of names) {
    await t.test(name, async () => {
      const globals = pyodide.toPy({ js_store: await IDBStore.open(`contract-${name}`), name });
      await within(CALL_MS, name, pyodide.runPythonAsync(
        "from py_vfs.storage.indexeddb import IndexedDBStore\n" +
        "import store_contract\n" +
        "await store_contract.CASES[name](IndexedDBStore(js_store))\n", { globals }));
    });
  }
});
