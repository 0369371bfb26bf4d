"""The JS API is a drop-in `fs` for isomorphic-git: init, add, commit, log, status on the VFS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import booted_app

NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
ISOMORPHIC_GIT = NODE_MODULES / "isomorphic-git" / "index.umd.min.js"
# isomorphic-git needs a global Buffer in browsers (its docs say to add the `buffer` package);
# a minimal CommonJS loader evaluates that package and its two dependencies on the page.
BUFFER_MODULES = {name: (NODE_MODULES / name / "index.js").read_text()
                  for name in ("buffer", "base64-js", "ieee754")}
INSTALL_BUFFER = """
const sources = %s;
const load = (name) => {
  const module = { exports: {} };
  new Function("module", "exports", "require", sources[name])(module, module.exports, load);
  return module.exports;
};
window.Buffer = load("buffer").Buffer;
"""


@pytest.fixture(scope="module")
def app(browser, browser_context_args):
    """The booted app in a context that lets the test inject isomorphic-git and its Buffer
    loader: the app's CSP refuses inline scripts and eval, and these are the test's own harness,
    not the product (the CSP itself is tested in test_preview_isolation and test_smoke_static)."""
    with booted_app(browser, {**browser_context_args, "bypass_csp": True}) as session:
        yield session.page


def test_git_workflow_on_the_vfs(app):
    # Injected from node_modules (not served by dist/): it is a test dependency, not the product.
    app.add_script_tag(content=INSTALL_BUFFER % json.dumps(BUFFER_MODULES))
    app.add_script_tag(path=str(ISOMORPHIC_GIT))
    result = app.evaluate("""async () => {
      const vfs = await window.pyvfs.ready;
      const fs = { promises: vfs };
      const dir = "/git/repo";
      const author = { name: "Ada", email: "ada@example.com" };
      await vfs.mkdir(dir, { recursive: true });
      await git.init({ fs, dir, defaultBranch: "main" });
      await vfs.writeFile(`${dir}/README.md`, "# hello\\n");
      await vfs.mkdir(`${dir}/src`);
      await vfs.writeFile(`${dir}/src/a.js`, "export const a = 1;\\n");
      const before = await git.status({ fs, dir, filepath: "README.md" });
      await git.add({ fs, dir, filepath: "README.md" });
      await git.add({ fs, dir, filepath: "src/a.js" });
      const first = await git.commit({ fs, dir, message: "first", author });
      await vfs.writeFile(`${dir}/README.md`, "# hello again\\n");
      const modified = await git.status({ fs, dir, filepath: "README.md" });
      await git.add({ fs, dir, filepath: "README.md" });
      const second = await git.commit({ fs, dir, message: "second", author });
      const log = await git.log({ fs, dir });
      const clean = await git.status({ fs, dir, filepath: "README.md" });
      const head = (await vfs.readFile(`${dir}/.git/HEAD`, "utf8")).trim();
      const { blob } = await git.readBlob({ fs, dir, oid: first, filepath: "README.md" });
      return { before, modified, clean, head, messages: log.map((c) => c.commit.message.trim()),
               oids: log.map((c) => c.oid), first, second,
               firstReadme: new TextDecoder().decode(blob) };
    }""")
    assert result["before"] == "*added"
    assert result["modified"] == "*modified"
    assert result["clean"] == "unmodified"
    assert result["head"] == "ref: refs/heads/main"
    assert result["messages"] == ["second", "first"]
    assert result["oids"] == [result["second"], result["first"]]
    assert result["firstReadme"] == "# hello\n"
