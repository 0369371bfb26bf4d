"""The TypeScript types (web/*.d.mts) declare every member of the real objects: the names the
objects have in Chromium (own and prototype properties and methods) against the names the
TypeScript checker finds in the declared types (tests/types/declared_names.mjs). A method added
to the API without its type fails here; `tsc -p tests/types` (the types tier) checks the types
themselves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .conftest import js

ROOT = Path(__file__).resolve().parents[2]
# Interfaces (not classes) whose real objects are compared too.
INTERFACES = ["AgentTool", "FileHandle", "Dir"]


def declared() -> dict:
    """What the .d.mts files declare, read by the TypeScript compiler's API in Node."""
    proc = subprocess.run(["node", "tests/types/declared_names.mjs", *INTERFACES], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"tests/types/declared_names.mjs failed:\n{proc.stderr}"
    return json.loads(proc.stdout)


def test_every_member_of_the_real_objects_has_a_type(app):
    types = declared()
    real = js(app, """
      const module = await import("/pyvfs.mjs");
      // Own and prototype names (up to Object's or Function's), as a caller can reach them.
      const names = (object) => {
        const found = new Set();
        for (let at = object; at && at !== Object.prototype && at !== Error.prototype;
             at = Object.getPrototypeOf(at)) {
          for (const name of Object.getOwnPropertyNames(at)) found.add(name);
        }
        found.delete("constructor");
        return [...found].sort();
      };
      await vfs.mkdir("/types-test", {recursive: true});
      const view = await vfs.restrict({read: ["/types-test"], write: ["/types-test"]});
      const scoop = await vfs.scoop("types-test");
      const tx = await vfs.step(async (tx) => tx);
      const dirent = (await vfs.readdir("/", {withFileTypes: true}))[0];
      const handle = await vfs.open("/types-test/h", "w+");
      const dir = await vfs.opendir("/types-test");
      const objects = {
        VFS: [vfs, vfs.as("agent:types"), view, scoop, tx],
        Stats: [await vfs.stat("/types-test")],
        Dirent: [dirent],
        AbortError: [new module.AbortError()],
        AgentTool: module.agentTools(vfs),
        FileHandle: [handle],
        Dir: [dir],
      };
      await handle.close();
      const members = Object.fromEntries(Object.entries(objects).map(
        ([type, list]) => [type, [...new Set(list.flatMap(names))].sort()]));
      await view.close();
      await scoop.close();
      return {exports: Object.keys(module).sort(), members};
    """)
    assert real["exports"] == types["exports"], "pyvfs.mjs's exports differ from pyvfs.d.mts's"
    assert set(real["members"]) == set(types["members"])
    untyped = {kind: sorted(set(names) - set(types["members"][kind]))
               for kind, names in real["members"].items()}
    assert untyped == {kind: [] for kind in real["members"]}, "members without a type"
    # And nothing declared that the objects lack (a typo, a method removed): a method must
    # exist; a field may be absent on some (Stats.name), so only methods are checked this way.
    methods = js(app, """
      const module = await import("/pyvfs.mjs");
      const stats = await vfs.stat("/");
      return {VFS: Object.getOwnPropertyNames(module.VFS.prototype),
              Stats: Object.getOwnPropertyNames(module.Stats.prototype),
              Dirent: Object.getOwnPropertyNames(module.Dirent.prototype),
              fields: Object.keys(stats)};
    """)
    fields = {"VFS": {"name", "writer"}, "Stats": set(methods["fields"]), "Dirent":
              {"name", "path", "parentPath", "type"}}
    for kind in ("VFS", "Stats", "Dirent"):
        missing = set(types["members"][kind]) - set(methods[kind]) - fields[kind]
        assert missing == set(), f"{kind} declares what the real object lacks: {sorted(missing)}"
