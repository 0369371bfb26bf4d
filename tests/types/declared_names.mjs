// Prints, as JSON, what web/pyvfs.d.mts declares, read with the TypeScript compiler's own API
// (typescript/unstable/sync: the checker of tests/types/tsconfig.json's program, never a regex):
//   {"exports": [the module's value exports], "members": {Class: [every property and method of
//    its instances, inherited ones included]}}
// for the classes the module exports and the interfaces named on the command line.
// tests/e2e/test_types.py compares it with the real objects in Chromium.
//   node tests/types/declared_names.mjs [Interface...]

import { fileURLToPath } from "node:url";
import { API, SymbolFlags } from "typescript/unstable/sync";

const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const api = new API({ cwd: root });
try {
  const snapshot = api.updateSnapshot({ openProjects: [`${root}/tests/types/tsconfig.json`] });
  const project = snapshot.getProjects()[0];
  const checker = project.checker;
  const file = project.program.getSourceFile(`${root}/web/pyvfs.d.mts`);
  if (!file) throw new Error("web/pyvfs.d.mts is not in tests/types/tsconfig.json's program");
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(file))
    .map((symbol) => [symbol.name, symbol.flags & SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol]);
  const named = new Set(process.argv.slice(2));
  const values = exported.filter(([, target]) => target.flags & SymbolFlags.Value);
  const members = {};
  for (const [name, target] of exported) {
    if (!(target.flags & SymbolFlags.Class) && !named.has(name)) continue;
    const instance = checker.getDeclaredTypeOfSymbol(target);
    members[name] = checker.getPropertiesOfType(instance).map((symbol) => symbol.name).sort();
  }
  const unknown = [...named].filter((name) => !(name in members));
  if (unknown.length) throw new Error(`web/pyvfs.d.mts exports no ${unknown.join(", ")}`);
  process.stdout.write(JSON.stringify({ exports: values.map(([name]) => name).sort(), members }) + "\n");
} finally {
  api.close();
}
