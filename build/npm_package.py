"""dist/package.json: dist/ as an npm package (docs/package.md).

The repository's own package.json is the development project (private, its scripts and
devDependencies); the package an app installs is dist/ itself, everything the page fetches at
run time, with this manifest: `npm pack dist/` makes the tarball. Its entry for bundlers is
bundler.mjs, which loads pyvfs.mjs from the folder where the app serves the package's files;
pyvfs.mjs and api.mjs are exported too, for a page that serves the files and imports them
without a bundler. No dependencies: Pyodide and xterm.js are files of dist/.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NAME = "py-vfs"
DESCRIPTION = ("A durable, POSIX-like virtual file system for the browser, with a Python core "
               "running in Pyodide: the runtime files, served as they are by the app.")


def entry(module: str) -> dict[str, str]:
    """An `exports` entry: the module and its types (web/<name>.d.mts beside it)."""
    return {"types": f"./{module.removesuffix('.mjs')}.d.mts", "default": f"./{module}"}


def write_package_json(out: Path, version: str) -> None:
    """out/package.json for the files out/ holds (written last: `files` lists them), with
    pyproject.toml's license."""
    license_id = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    files = sorted(path.name for path in out.iterdir() if path.name != "package.json")
    manifest = {
        "name": NAME,
        "version": version,
        "description": DESCRIPTION,
        "license": license_id,
        "type": "module",
        "types": "./bundler.d.mts",
        "exports": {
            ".": entry("bundler.mjs"),
            "./pyvfs.mjs": entry("pyvfs.mjs"),
            "./api.mjs": entry("api.mjs"),
            "./package.json": "./package.json",
        },
        "files": files,
        "sideEffects": True,
    }
    (out / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
