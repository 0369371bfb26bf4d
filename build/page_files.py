"""The page's files in dist/, from web/: each file by its name alone (page_path), its references
to other files of web/ made flat (copy_page_file); then, from those flat copies, the realm's own
copy of the modules it runs (copy_realm_modules) and the esbuild bundles (bundle; esbuild from
node_modules/, the version package.json pins, check_esbuild).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from build_base import NODE, ROOT, BuildError, copy, run
from module_preload import every_module

# The modules a scoop's realm runs (docs/sandbox.md, "A realm for code"): they and every module
# they import are copied into dist/realm/, the one folder (with pyodide/ and wheels/) that the
# realm's opaque origin may load, so nothing else of the app is served to it.
REALM_MODULES = ["realm_python.mjs", "jsh_worker.mjs"]
# The modules bundled by esbuild, each with what it imports, into one file of the same name
# (overwriting its copy): the page's public entry and the disk's worker. Loading an ES module
# graph takes a request per module, level after level (about 20 modules in three levels for
# pyvfs.mjs, each revalidated): on a returning visit that was most of the time from `import`
# to the first read (benchmark W8, docs/boot.md). Nothing else in the page or the worker
# imports a module of these graphs, so none of their classes or module state exists twice;
# the other copies in dist/ serve the realm (web/realm/, its own folder), tests that import one
# module, and the snapshot maker's worker. Pyodide stays its own files (loaded by URL).
# code_editor.mjs is the workbench's editor, CodeMirror 6 from node_modules/ (package.json pins
# each @codemirror package), which the page imports when the first file opens, never at boot.
BUNDLES = ["pyvfs.mjs", "worker.mjs", "code_editor.mjs"]
BUNDLE_EXTERNAL = ["./pyodide/pyodide.mjs"]
ESBUILD = NODE / ".bin" / "esbuild"
# A reference in web/ to a file in one of its folders, relative to the referring file.
SOURCE_PATH = re.compile(r"""(["'])(?:\.\.?/)+(?:(?:page|worker|realm|app|shared)/)?"""
                         r"""([\w.-]+\.(?:mjs|js|css))\1""")


def check_esbuild() -> None:
    """node_modules has the esbuild that package.json pins."""
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["esbuild"]
    try:
        version = json.loads((NODE / "esbuild" / "package.json").read_text())["version"]
    except (OSError, ValueError):
        version = None
    if version != pinned or not ESBUILD.exists():
        raise BuildError(f"node_modules has esbuild {version}, package.json pins {pinned}: "
                         "run `sh build/setup.sh` (npm ci)")


def page_path(path: Path) -> Path:
    """Where a file of web/ goes in dist/: by its name alone, whatever folder of web/ holds it
    (the folders say which realm a module runs in; the page's URLs stay flat), but for the realm
    frame's own files (web/realm/'s realm.html and frame.js), which go to dist/realm/."""
    inside = path.relative_to(ROOT / "web")
    if inside.parts[0] == "realm" and path.suffix != ".mjs":
        return inside
    return Path(inside.name)


def copy_page_file(path: Path, dst: Path) -> None:
    """A file of web/ into dist/; a module's or the page's references to other files of web/,
    written relative to their folders (``../shared/errors.mjs``), become flat (``./errors.mjs``)
    as dist/ holds them. protocol.mjs, which the build generates, is named as if it were
    web/shared/protocol.mjs."""
    if path.suffix not in (".mjs", ".html") or dst.parent.name == "realm":
        copy(path, dst)
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(SOURCE_PATH.sub(r"\1./\2\1", path.read_text()))


def copy_realm_modules(out: Path) -> None:
    """REALM_MODULES and every module they load (module_preload.every_module) into
    out/realm/."""
    for name in every_module(out, REALM_MODULES):
        copy(out / name, out / "realm" / name)


def bundle(out: Path) -> None:
    """BUNDLES, each made from the flat copies in out/ (so protocol.mjs, which the build writes,
    is found) into one ES module of the same name, with the same exports, and its source map."""
    for name in BUNDLES:
        if not (out / name).is_file():
            raise BuildError(f"the bundle's entry {name} is not in the page")
    # Without comments and white space (pyvfs.mjs 166 -> 108 KB, worker.mjs 109 -> 78 KB), which
    # the page parses before its first read (W8: the module's load, from the timer to its first
    # line, 29 -> 24 ms in the median of 10 browser restarts each, alternating). Names are kept,
    # so stack traces read as the source does; the source maps lead back to it.
    run([str(ESBUILD), *(str(out / name) for name in BUNDLES), "--bundle", "--format=esm",
         f"--outdir={out}", "--out-extension:.js=.mjs", "--allow-overwrite", "--sourcemap",
         "--minify-whitespace", "--minify-syntax", "--log-level=warning",
         *(f"--external:{path}" for path in BUNDLE_EXTERNAL)],
        "esbuild (the bundles)")
