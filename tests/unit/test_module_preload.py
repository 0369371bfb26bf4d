"""build/module_preload.py: which modules the app page lists as modulepreload links (those of
every boot: static imports, and the entry's own dynamic imports with theirs) and how it lists
them. tests/e2e/test_app_modules.py checks the built page in Chromium."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("pyvfs_module_preload",
                                                  ROOT / "build" / "module_preload.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PRELOAD = _module()
PAGE = """<!doctype html>
<head>
  <script src="./boot_error.js"></script>
  <script type="module" src="./app.mjs"></script>
</head>
"""


def site(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "index.html").write_text(PAGE)
    return tmp_path / "index.html"


def test_static_imports_and_the_entrys_own_dynamic_ones_are_listed_once_in_order(tmp_path):
    page = site(tmp_path, {
        "app.mjs": 'import { a } from "./a.mjs";\nexport * from "./b.mjs";\n'
                   'const later = import("./terminal.mjs");\nimport "./side.mjs";\n',
        "a.mjs": 'import { c } from "./c.mjs";\nimport { b } from "./b.mjs";\n',
        "b.mjs": "export const b = 1;\n",
        "c.mjs": 'import{x}from"./vendor/x.mjs";\n',  # minified, in a subfolder
        "side.mjs": "",
        "vendor/x.mjs": 'import { y } from "./y.mjs";\n',  # relative to vendor/
        "vendor/y.mjs": "",
        "terminal.mjs": 'import { a } from "./a.mjs";\nimport { t } from "./t.mjs";\n'
                        'button.onclick = () => import("./editor.mjs");\n',
        "t.mjs": "",
        "editor.mjs": 'import { big } from "./big.mjs";\n',
        "big.mjs": "",
    })
    listed = PRELOAD.add_preloads(page)
    assert listed == ["a.mjs", "c.mjs", "vendor/x.mjs", "vendor/y.mjs", "b.mjs", "side.mjs",
                      "terminal.mjs", "t.mjs"]
    # editor.mjs loads when the user opens it, not at boot: neither it nor what it imports.
    html = page.read_text()
    assert "editor.mjs" not in html and "big.mjs" not in html
    # Right after the module script, so the entry is fetched first, then every other at once.
    assert html.index('src="./app.mjs"') < html.index('href="./a.mjs"') < html.index("</head>")
    assert html.count('rel="modulepreload"') == len(listed)
    assert '  <link rel="modulepreload" href="./vendor/x.mjs">\n' in html


def test_an_import_of_a_module_the_site_lacks_fails_the_build(tmp_path):
    page = site(tmp_path, {"app.mjs": 'import { a } from "./missing.mjs";\n'})
    with pytest.raises(PRELOAD.PreloadError, match=r"missing\.mjs"):
        PRELOAD.add_preloads(page)
    page = site(tmp_path, {"app.mjs": 'import { a } from "../outside.mjs";\n'})
    with pytest.raises(PRELOAD.PreloadError, match=r"outside\.mjs"):
        PRELOAD.add_preloads(page)


def test_a_page_without_a_module_script_fails_the_build(tmp_path):
    (tmp_path / "index.html").write_text("<!doctype html><p>no script</p>\n")
    with pytest.raises(PRELOAD.PreloadError, match="no <script"):
        PRELOAD.add_preloads(tmp_path / "index.html")


def test_every_module_follows_static_and_dynamic_imports_at_every_level(tmp_path):
    # What build/build.py copies into dist/realm/ for the realm's entries.
    site(tmp_path, {
        "realm.mjs": 'import { p } from "./port.mjs";\nconst w = import("./worker.mjs");\n',
        "port.mjs": 'import{RUN}from"./protocol.mjs";\n',
        "worker.mjs": 'onmessage = () => import("./deep.mjs");\n',
        "deep.mjs": 'import { p } from "./port.mjs";\n',
        "protocol.mjs": "",
        "page.mjs": 'import { q } from "./unrelated.mjs";\n',
        "unrelated.mjs": "",
    })
    found = PRELOAD.every_module(tmp_path, ["realm.mjs"])
    assert sorted(found) == ["deep.mjs", "port.mjs", "protocol.mjs", "realm.mjs", "worker.mjs"]
    assert len(found) == len(set(found))
    with pytest.raises(PRELOAD.PreloadError, match=r"gone\.mjs"):
        PRELOAD.every_module(tmp_path, ["gone.mjs"])
