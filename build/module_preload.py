"""The app page's boot modules, listed in its HTML as ``<link rel="modulepreload">``.

A browser learns of a module's imports only once it has fetched that module, so an ES module
graph loads one level after another; on a returning visit every module is revalidated
(build/serve.py sends ``no-cache``). dist/index.html's graph took three such levels before
app.mjs could run (app.mjs, what it imports, what those import), then three more for the
terminal and the workbench, which app.mjs imports as it starts. Listed in the page, the browser
fetches them all at once, while it parses the HTML (docs/boot.md, "The page's modules").

Which modules: the page's module script, what it imports (transitively), and the modules its
own ``import()`` calls name, with what those import: the app's terminal and workbench, loaded at
every boot. An ``import()`` further down (the editor's CodeMirror bundle, a history panel) runs
when the user opens that view and is left out: preloading it would fetch and parse it at every
boot for nothing.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

# The page's module script: <script type="module" src="./app.mjs"></script>.
MODULE_SCRIPT = re.compile(r"""<script type="module" src="\./([\w./-]+\.mjs)"></script>\n""")
# ``import ... from "./x.mjs"``, ``export ... from "./x.mjs"`` and ``import "./x.mjs"``: the
# module cannot run before these are fetched.
STATIC = re.compile(r"""(?:\bfrom|\bimport)\s*["'](\.\.?/[\w./-]+\.mjs)["']""")
# ``import("./x.mjs")``: fetched when that code runs.
DYNAMIC = re.compile(r"""\bimport\s*\(\s*["'](\.\.?/[\w./-]+\.mjs)["']\s*\)""")


class PreloadError(Exception):
    """The page's module graph cannot be listed: build/build.py reports it as a build error."""


def _imports(root: Path, module: str, *patterns: re.Pattern[str]) -> list[str]:
    """The modules ``module`` (a path under ``root``) names with ``patterns``, as paths under
    ``root``, in the order each pattern finds them."""
    found = []
    source = (root / module).read_text()
    for spec in (spec for pattern in patterns for spec in pattern.findall(source)):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(module), spec))
        if target.startswith("../") or not (root / target).is_file():
            raise PreloadError(f"{module} imports {spec}, which is not in {root}")
        found.append(target)
    return found


def boot_modules(root: Path, entry: str) -> list[str]:
    """What loads at every boot of a page whose module script is ``entry``, but ``entry``
    itself: its static imports (transitively), then the modules its own ``import()`` calls name
    and their static imports, each once, in that order."""
    order: list[str] = []
    seen = {entry}

    def take(module: str) -> None:
        for target in _imports(root, module, STATIC):
            if target not in seen:
                seen.add(target)
                order.append(target)
                take(target)

    take(entry)
    for target in _imports(root, entry, DYNAMIC):
        if target not in seen:
            seen.add(target)
            order.append(target)
            take(target)
    return order


def every_module(root: Path, entries: list[str]) -> list[str]:
    """``entries`` and every module they can load, by a static import or an ``import()`` call,
    transitively: the files a page of those entries needs (build/page_files.py copies the realm's
    modules with it)."""
    order: list[str] = []
    todo = list(entries)
    while todo:
        module = todo.pop()
        if module in order:
            continue
        if not (root / module).is_file():
            raise PreloadError(f"{module} is not in {root}")
        order.append(module)
        todo.extend(_imports(root, module, STATIC, DYNAMIC))
    return order


def add_preloads(page: Path) -> list[str]:
    """Lists ``page``'s boot modules in it, right after its module script (so that one is
    fetched first); returns them."""
    html = page.read_text()
    script = MODULE_SCRIPT.search(html)
    if script is None:
        raise PreloadError(f"{page.name} has no <script type=\"module\" src=\"./...\">")
    modules = boot_modules(page.parent, script.group(1))
    links = "".join(f'  <link rel="modulepreload" href="./{module}">\n' for module in modules)
    page.write_text(html[:script.end()] + links + html[script.end():])
    return modules
