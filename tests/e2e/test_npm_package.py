"""The npm package as an app gets it (docs/package.md): `npm pack dist/`, a new Vite app in a
temporary folder that installs the tarball (offline) and imports `openVFS` from "py-vfs",
built by the repository's pinned Vite, its build served on 127.0.0.1 with the package's files
at /pyvfs/ (copied in through Vite's public/ folder, as the docs say); in Chromium it writes
and reads a file, runs a shell line and runPython, and finds it all again after a reload."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from serve import start_site

from .conftest import poll_page

ROOT = Path(__file__).resolve().parents[2]
VITE = ROOT / "node_modules" / "vite" / "bin" / "vite.js"
MAIN_JS = """\
import { openVFS, Stats } from "py-vfs";

const vfs = await openVFS({ name: "vite-app" });
window.app = { vfs, Stats };
document.body.dataset.ready = "yes";
"""
INDEX_HTML = """\
<!doctype html>
<html><head><meta charset="utf-8"><title>vite app</title></head>
<body><script type="module" src="/main.js"></script></body></html>
"""


def run(cmd: list[str], cwd: Path, what: str) -> str:
    """Run a step of the app's set-up, bounded; fail naming it, with its output."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} did not finish within 300 s: {' '.join(cmd)}", pytrace=False)
    assert proc.returncode == 0, f"{what} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def vite_app(tmp_path_factory):
    """The Vite app's build, served: its URL."""
    work = tmp_path_factory.mktemp("npm-package")
    packed = json.loads(run(["npm", "pack", str(ROOT / "dist"), "--json", "--pack-destination",
                             str(work)], work, "npm pack dist/"))
    tarball = work / packed[0]["filename"]
    app = work / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "vite-app", "private": True,
                                                   "type": "module"}))
    (app / "index.html").write_text(INDEX_HTML)
    (app / "main.js").write_text(MAIN_JS)
    run(["npm", "install", "--offline", "--no-audit", "--no-fund", str(tarball)], app,
        "npm install of the tarball")
    installed = app / "node_modules" / "py-vfs"
    assert json.loads((installed / "package.json").read_text())["name"] == "py-vfs"
    shutil.copytree(installed, app / "public" / "pyvfs")  # what docs/package.md says to copy
    run(["node", str(VITE), "build", "--logLevel", "warn"], app, "vite build")
    built = app / "dist"
    bundle = "".join(path.read_text() for path in (built / "assets").glob("*.js"))
    assert "pyvfs.mjs" in bundle and "class VFS" not in bundle, "the runtime must not be bundled"
    # The preview site, served by build/serve.py on its own origin (previews stay off here:
    # the package's pyvfs-config.json names no preview origin).
    shutil.copytree(installed / "preview-origin", built / "preview-origin")
    site = start_site(built)
    yield site.app_url
    site.stop()


@pytest.mark.timeout(600)
def test_a_vite_app_uses_the_package_across_a_reload(vite_app, context):
    page = context.new_page()
    page.goto(vite_app)
    poll_page(page, "document.body.dataset.ready === 'yes'", "the Vite app's openVFS", 120_000)
    first = page.evaluate("""async () => {
      const { vfs, Stats } = window.app;
      await vfs.writeFile("/workspace/from-vite.txt", "written by a Vite app");
      const text = await vfs.readFile("/workspace/from-vite.txt", "utf8");
      const stats = await vfs.stat("/workspace/from-vite.txt");
      const shell = await vfs.shell(
        "echo shell: $(cat /workspace/from-vite.txt) > /workspace/sh.txt");
      const python = await vfs.runPython(
        "print(open('/workspace/sh.txt').read().strip().upper())");
      return {text, isStats: stats instanceof Stats, size: stats.size, code: shell.code,
              python: python.stdout, pythonCode: python.code};
    }""")
    assert first == {"text": "written by a Vite app", "isStats": True, "size": 21, "code": 0,
                     "python": "SHELL: WRITTEN BY A VITE APP\n", "pythonCode": 0}
    page.reload()
    poll_page(page, "document.body.dataset.ready === 'yes'", "openVFS after the reload", 120_000)
    after = page.evaluate("""async () => {
      const { vfs } = window.app;
      const shell = await vfs.shell("cat /workspace/sh.txt");
      const python = await vfs.runPython("print(open('/workspace/from-vite.txt').read())");
      return {text: await vfs.readFile("/workspace/from-vite.txt", "utf8"), shell: shell.stdout,
              python: python.stdout};
    }""")
    assert after == {"text": "written by a Vite app", "shell": "shell: written by a Vite app\n",
                     "python": "written by a Vite app\n"}
