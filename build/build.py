"""Assemble dist/: the static site of py_vfs, from local packages only.

    .venv/bin/python build/build.py [--force]

dist/ holds everything the page needs, served from its own origin (no CDN):

    index.html, *.mjs, ...       every file of web/, by its name alone (web/'s folders say
                                 which realm a module runs in: page/, worker/, realm/, app/,
                                 shared/; in dist/ they sit side by side, so the URLs stay
                                 flat, and their imports are rewritten to match), but
                                 web/realm/'s frame files, kept in realm/ (the app's origin);
                                 index.html lists the modules of every boot as modulepreload
                                 links (build/module_preload.py)
    package.json                 dist/ as the npm package py-vfs (build/npm_package.py;
                                 `npm pack dist/`), its entry for bundlers bundler.mjs
    *.d.mts                      the TypeScript types of pyvfs.mjs and api.mjs (web/'s
                                 pyvfs.d.mts, api.d.mts, results.d.mts), copied as they are
    pyvfs.mjs, worker.mjs        bundles: each is its module with everything it imports (but
                                 Pyodide) in one file, made by esbuild (package.json pins it)
                                 from those copies, with its source map (*.mjs.map); loading
                                 a module graph costs a request per module, level after level
                                 (build/page_files.py)
    pyvfs-config.json            {"previewOrigin": null}: where previews are served from; a
                                 static deployment writes its preview origin here
                                 (build/serve.py answers it with its own)
    preview-origin/              the preview site, to serve on ANOTHER origin (docs/preview.md):
      preview/sw.js              service_worker/sw.js (the preview service worker), with the
                                 build id written into it (a new build is a new SW version)
                                 and PREVIEW_PROTOCOL of py_vfs/web/protocol.py
      preview/relay.html, relay.mjs  the frame each app tab embeds to talk to that service worker
      protocol.mjs               the same generated protocol module, which relay.mjs imports
      pyvfs-config.json          {"appOrigins": []}: the app origins the relay serves
    pyodide/                     the 5 runtime files of the pyodide npm package, and
      py_vfs-runtime-<hash>.bin  the runtime snapshot: Python with py_vfs imported, made in
                                 headless Chromium (build/ship_snapshot.py), which a first
                                 visit restores instead of starting Python from its packages
                                 (docs/boot.md); left out, saying so, without a browser
    vendor/                      xterm.mjs, xterm.css, addon-fit.mjs
    defaults/                    the default content (the repository's defaults/ folder):
      manifest.json              {version, files: [{path, size, sha256}]}, made by
                                 `python -m py_vfs.defaults defaults/` (docs/defaults.md)
      files/<path>               each file, at its path on the disk (files/shared/README.md)
    wheels/                      our wheel (py_vfs-<version>-py3-none-any.whl, with docs/shell.md
                                 as py_vfs/shell/pages/shell.md for `man`: that file is a
                                 link to docs/shell.md, which flit_core follows), micropip's and
                                 fsspec's (installed on Python's first `import fsspec`:
                                 py_vfs/web/lazy_wheels.py, docs/python.md)
    manifest.json                {version, wheel, wheelSha256, micropip, fsspec, pyodide, build,
                                 downloads, snapshot: {file, size} when shipped}:
                                 what the worker loads, the sizes it reports progress against,
                                 and what keys the Python memory snapshot (docs/boot.md)

protocol.mjs (in dist/ and in the preview site) is generated from py_vfs/web/protocol.py: the
operations and constants JS and Python share, declared once (see that module).

The build is skipped when nothing changed: the sha256 of every input (and of this script) is
kept in .cache/build-stamp.json together with the list of outputs. It is built in a staging
folder and swapped in whole, so a failed build leaves the previous dist/ as it was.
Stdlib only (esbuild runs from node_modules/); run it with the venv's python (its pip builds the
wheel with flit_core).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_base import NODE, ROOT, BuildError, copy, rel, run, say, sha256_of
from chromium import CHROMIUM
from module_preload import PreloadError, add_preloads
from npm_package import write_package_json
from page_files import bundle, check_esbuild, copy_page_file, copy_realm_modules, page_path
from ship_snapshot import SNAPSHOT_MAKER, ship_snapshot

DIST = ROOT / "dist"
CACHE = ROOT / ".cache"
WHEEL_CACHE = CACHE / "wheels"
STAMP = CACHE / "build-stamp.json"
STAGING = CACHE / "dist-staging"
OLD = CACHE / "dist-old"
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
# How our wheel is built (also by tests/unit/test_wheel_install.py): pip with the venv's pinned
# flit_core (no download), fixed zip timestamps so the same sources give the same wheel (flit
# honours SOURCE_DATE_EPOCH).
WHEEL_ARGS = ["wheel", "--no-deps", "--no-build-isolation", "--ignore-requires-python"]
WHEEL_ENV = {"SOURCE_DATE_EPOCH": "315532800"}

PYODIDE_VERSION = "314.0.7"
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
]
MICROPIP_VERSION = "0.11.1"
MICROPIP_WHEEL = f"micropip-{MICROPIP_VERSION}-py3-none-any.whl"
# PyPI's wheel, not the one pyodide-lock.json describes: Pyodide rebuilds micropip for its own
# distribution, so the lock file's sha256 is of another file than PyPI's wheel of that version.
MICROPIP_SHA256 = "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"
# The optional dependency py_vfs[fsspec], at the version pyproject.toml pins (checked), PyPI's
# wheel (pure Python).
FSSPEC_VERSION = "2026.9.0"
FSSPEC_WHEEL = f"fsspec-{FSSPEC_VERSION}-py3-none-any.whl"
FSSPEC_SHA256 = "8dd6e646e99ea382bd85f97a45e6b526a442d79423a7dc673f1e2756d05fcb5f"
# The optional dependency py_vfs[git] (the shell's `git`), at the versions pyproject.toml pins
# (checked): PyPI's pure-Python wheels, installed on git's first use (py_vfs/web/lazy_wheels.py).
GIT_WHEELS = [
    ("dulwich", "1.2.21", "dulwich-1.2.21-py3-none-any.whl",
     "31a522b9611e8032a43b8fb6941469c24e65ff4f14e0427986c58e90c22e154f"),
    ("merge3", "1.0.0", "merge3-1.0.0-py3-none-any.whl",
     "d7bf07e4193f02540656958227dd015f0df5fd4b91819c7d3ef2334dbe7c4b33"),
]
# (source under node_modules, destination under dist/)
VENDOR_FILES = [
    ("@xterm/xterm/lib/xterm.mjs", "vendor/xterm.mjs"),
    ("@xterm/xterm/css/xterm.css", "vendor/xterm.css"),
    ("@xterm/addon-fit/lib/addon-fit.mjs", "vendor/addon-fit.mjs"),
]
# Files of web/ the site cannot work without.
REQUIRED_WEB = ["index.html", "realm/realm.html", "realm/frame.js"]
# The preview site's folder in dist/ and its files from service_worker/ (sw.js goes to preview/).
PREVIEW_SITE = "preview-origin"
PREVIEW_FILES = ["sw.js", "relay.html", "relay.mjs"]
# Names in dist/ that the build itself writes; web/ must not hold them.
RESERVED = {"pyodide", "vendor", "wheels", "manifest.json", "pyvfs-config.json", "protocol.mjs",
            "defaults", "package.json", PREVIEW_SITE}
# The default content copied into a disk on its first open (py_vfs/defaults.py).
DEFAULTS = ROOT / "defaults"
SKIP_NAMES = {"__pycache__", ".DS_Store", "node_modules"}


def walk(folder: Path) -> list[Path]:
    """Files under folder, sorted, without caches, hidden files or editor backups."""
    if not folder.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_NAMES and not d.startswith("."))
        for name in sorted(filenames):
            if name in SKIP_NAMES or name.startswith(".") or name.endswith(("~", ".pyc")):
                continue
            out.append(Path(dirpath) / name)
    return out


def input_files() -> list[Path]:
    files = [Path(__file__).resolve(), *SNAPSHOT_MAKER, ROOT / "build" / "npm_package.py",
             ROOT / "build" / "module_preload.py", ROOT / "build" / "build_base.py",
             ROOT / "build" / "page_files.py",
             ROOT / "pyproject.toml", ROOT / "README.md"]
    # py_vfs/shell/pages/shell.md, a link to docs/shell.md, is read through: the reference too.
    files += walk(ROOT / "py_vfs")
    files += walk(ROOT / "web")
    files += walk(DEFAULTS)
    files += [ROOT / "service_worker" / name for name in PREVIEW_FILES]
    files += [NODE / "pyodide" / name for name in PYODIDE_FILES]
    files += [NODE / src for src, _ in VENDOR_FILES]
    files += [NODE / "esbuild" / "package.json"]
    # What code_editor.mjs bundles from node_modules/: a new pin is a new bundle.
    files += [ROOT / "package-lock.json"]
    return files


def inputs_digest(files: list[Path]) -> str:
    h = hashlib.sha256()
    h.update(f"pyodide={PYODIDE_VERSION} micropip={MICROPIP_SHA256} fsspec={FSSPEC_SHA256}\n"
             .encode())
    h.update(" ".join(sha for *_, sha in GIT_WHEELS).encode())
    for path in files:
        h.update(rel(path).encode() + b"\0")
        if path.is_file():
            with path.open("rb") as f:
                h.update(hashlib.file_digest(f, "sha256").digest())
        else:
            h.update(b"<missing>")
    return h.hexdigest()


def up_to_date(digest: str) -> bool:
    try:
        stamp = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return False
    if stamp.get("inputs") != digest:
        return False
    outputs = stamp.get("outputs") or {}
    # Built without the runtime snapshot, when there is a browser now to make it: again.
    if CHROMIUM and not any(name.startswith("pyodide/py_vfs-runtime-") for name in outputs):
        return False
    return bool(outputs) and all(
        (DIST / name).is_file() and (DIST / name).stat().st_size == size
        for name, size in outputs.items()
    )


@contextmanager
def step(name: str):
    """`with step("x"):` prints the step with its duration when it succeeds."""
    t = time.perf_counter()
    yield
    say(f"{name} ({time.perf_counter() - t:.1f} s)")


def check_inputs() -> None:
    if not (NODE / "pyodide" / "package.json").is_file():
        raise BuildError("node_modules/pyodide is missing: run `sh build/setup.sh` (npm ci)")
    version = json.loads((NODE / "pyodide" / "package.json").read_text())["version"]
    if version != PYODIDE_VERSION:
        raise BuildError(
            f"node_modules has pyodide {version}, this build expects {PYODIDE_VERSION}: "
            "run `npm ci` or update PYODIDE_VERSION in build/build.py"
        )
    lock = json.loads((NODE / "pyodide" / "pyodide-lock.json").read_text())
    lock_micropip = lock.get("packages", {}).get("micropip", {}).get("version")
    if lock_micropip and lock_micropip != MICROPIP_VERSION:
        say(f"warning: pyodide-lock.json has micropip {lock_micropip}, we ship {MICROPIP_VERSION}")
    check_esbuild()
    for name in REQUIRED_WEB:
        if not (ROOT / "web" / name).is_file():
            raise BuildError(f"web/{name} is missing")
    for name in PREVIEW_FILES:
        if not (ROOT / "service_worker" / name).is_file():
            raise BuildError(f"service_worker/{name} is missing")
    placed: dict[Path, Path] = {}
    for path in walk(ROOT / "web"):
        dest = page_path(path)
        if dest.parts[0] in RESERVED:
            raise BuildError(f"{rel(path)} clashes with a name the build writes into dist/")
        if dest in placed:
            raise BuildError(f"{rel(path)} and {rel(placed[dest])} would both be dist/{dest}")
        placed[dest] = path


def build_wheel(out: Path) -> str:
    wheels = out / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    for old in wheels.glob("py_vfs-*.whl"):
        old.unlink()
    run(
        [*PIP, *WHEEL_ARGS, "-w", str(wheels), "."],
        "pip wheel (our package)",
        env=WHEEL_ENV,
    )
    built = sorted(wheels.glob("py_vfs-*.whl"))
    if len(built) != 1:
        raise BuildError(f"expected one py_vfs wheel in {rel(wheels)}, found {len(built)}")
    return built[0].name


def fetch_wheel(out: Path, name: str, version: str, wheel: str, sha256: str) -> None:
    """PyPI's wheel of ``name==version`` (cached in .cache/wheels/), checked against its pinned
    sha256, into dist/wheels/."""
    cached = WHEEL_CACHE / wheel
    if not cached.is_file():
        WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
        args = ["download", "--no-deps", "--only-binary=:all:", "--python-version", "3.14",
                "--implementation", "py", "--abi", "none", "--platform", "any"]
        run([*PIP, *args, "-d", str(WHEEL_CACHE), f"{name}=={version}"], f"pip download {name}")
        if not cached.is_file():
            raise BuildError(f"pip download did not produce {rel(cached)}")
    sha = sha256_of(cached)
    if sha != sha256:
        cached.unlink()
        raise BuildError(f"{wheel} has sha256 {sha}, expected {sha256}")
    copy(cached, out / "wheels" / wheel)


def check_fsspec_pin() -> None:
    """pyproject.toml's extras py_vfs[fsspec] and py_vfs[git] pin the wheels the page ships."""
    pins = [("fsspec", FSSPEC_VERSION)] + [(name, version) for name, version, *_ in GIT_WHEELS]
    text = (ROOT / "pyproject.toml").read_text()
    for name, version in pins:
        pin = f'"{name}=={version}"'
        if pin not in text:
            raise BuildError(f"pyproject.toml must pin {pin} in its extras (build/build.py "
                             "ships it)")


SW_BUILD_LINE = 'const BUILD = "dev";'
SW_PROTOCOL_LINE = "const PROTOCOL = 0;"


def write_service_worker(dst: Path, build_id: str) -> None:
    """sw.js with this build's id in it: a new build is a byte-different script, so browsers
    install it as a new version (which takes over open previews) instead of keeping the old.
    The preview protocol's version is written in too (a classic script imports nothing)."""
    text = (ROOT / "service_worker" / "sw.js").read_text()
    for line in (SW_BUILD_LINE, SW_PROTOCOL_LINE):
        if text.count(line) != 1:
            raise BuildError(f"service_worker/sw.js must hold the line {line} exactly once")
    text = text.replace(SW_BUILD_LINE, f'const BUILD = "{build_id}";')
    dst.write_text(text.replace(SW_PROTOCOL_LINE, f"const PROTOCOL = {preview_protocol()};"))


def preview_protocol() -> int:
    """PREVIEW_PROTOCOL of py_vfs/web/protocol.py, read without importing the package."""
    for line in (ROOT / "py_vfs" / "web" / "protocol.py").read_text().splitlines():
        if line.startswith("PREVIEW_PROTOCOL = "):
            return int(line.split("=", 1)[1])
    raise BuildError("py_vfs/web/protocol.py has no PREVIEW_PROTOCOL")


def render_protocol() -> str:
    """web/protocol.py's JS module (rendered by the venv's Python, which imports the package)."""
    proc = subprocess.run([sys.executable, "-m", "py_vfs.web.protocol"], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"py_vfs/web/protocol.py does not render: {proc.stderr.strip()}")
    return proc.stdout


def write_defaults(out: Path) -> None:
    """dist/defaults/: the manifest py_vfs.defaults makes of defaults/ (so the build and the
    code that installs it agree on paths and version), and the files it lists."""
    proc = subprocess.run([sys.executable, "-m", "py_vfs.defaults", str(DEFAULTS)], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"the manifest of defaults/ cannot be made: {proc.stderr.strip()}")
    manifest = json.loads(proc.stdout)
    for entry in manifest["files"]:
        name = entry["path"].lstrip("/")
        copy(DEFAULTS / name, out / "defaults" / "files" / name)
    write_json(out / "defaults" / "manifest.json", manifest)


def write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n")


def build(out: Path, digest: str) -> dict[str, int]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    with step("wheel"):
        wheel = build_wheel(out)
    # py_vfs-<version>-py3-none-any.whl (flit normalises the name to py_vfs).
    version = wheel.split("-")[1]

    with step(f"micropip {MICROPIP_VERSION}, fsspec {FSSPEC_VERSION}"):
        fetch_wheel(out, "micropip", MICROPIP_VERSION, MICROPIP_WHEEL, MICROPIP_SHA256)
        check_fsspec_pin()
        fetch_wheel(out, "fsspec", FSSPEC_VERSION, FSSPEC_WHEEL, FSSPEC_SHA256)
        for git_wheel in GIT_WHEELS:  # (name, version, wheel, sha256)
            fetch_wheel(out, *git_wheel)

    with step(f"pyodide {PYODIDE_VERSION}"):
        for name in PYODIDE_FILES:
            copy(NODE / "pyodide" / name, out / "pyodide" / name)

    with step("vendor (xterm)"):
        for src, dst in VENDOR_FILES:
            copy(NODE / src, out / dst)

    with step("page (web/)"):
        web = ROOT / "web"
        for path in walk(web):
            copy_page_file(path, out / page_path(path))
        protocol = render_protocol()
        (out / "protocol.mjs").write_text(protocol)
        write_json(out / "pyvfs-config.json", {"previewOrigin": None})
        copy_realm_modules(out)
        bundle(out)
        add_preloads(out / "index.html")

    with step("default content (defaults/)"):
        write_defaults(out)

    with step(f"preview site ({PREVIEW_SITE}/)"):
        site = out / PREVIEW_SITE
        (site / "preview").mkdir(parents=True)
        write_service_worker(site / "preview" / "sw.js", digest[:12])
        # The relay page lies in the service worker's scope (it sees the relay's navigation);
        # its module, the protocol and the config are outside it.
        copy(ROOT / "service_worker" / "relay.html", site / "preview" / "relay.html")
        copy(ROOT / "service_worker" / "relay.mjs", site / "relay.mjs")
        (site / "protocol.mjs").write_text(protocol)
        write_json(site / "pyvfs-config.json", {"appOrigins": []})

    manifest = {
        "version": version,
        "wheel": f"wheels/{wheel}",
        # Keys the Python memory snapshot: one made with another wheel is stale (docs/boot.md).
        "wheelSha256": sha256_of(out / "wheels" / wheel),
        "micropip": f"wheels/{MICROPIP_WHEEL}",
        "fsspec": f"wheels/{FSSPEC_WHEEL}",
        "git": [f"wheels/{wheel_name}" for _, _, wheel_name, _ in GIT_WHEELS],
        "pyodide": PYODIDE_VERSION,
        "build": digest[:12],
        # Bytes of the two large runtime files, so boot can show download progress against a
        # known total while counting Pyodide's own fetches (no second download).
        "downloads": {name: (out / name).stat().st_size
                      for name in ("pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip")},
    }
    write_json(out / "manifest.json", manifest)
    with step("runtime snapshot"):
        snapshot = ship_snapshot(out)
    if snapshot:
        manifest["snapshot"] = snapshot
        write_json(out / "manifest.json", manifest)
    say(f"manifest: version {version}, wheel {wheel}, build {digest[:12]}")
    write_package_json(out, version)  # last: it lists out/'s files

    return {
        path.relative_to(out).as_posix(): path.stat().st_size
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


def swap_in(staging: Path) -> None:
    """Replace dist/ by staging/ with two renames (dist/ is never half-built)."""
    if OLD.exists():
        shutil.rmtree(OLD)
    if DIST.exists():
        DIST.rename(OLD)
    staging.rename(DIST)
    if OLD.exists():
        shutil.rmtree(OLD)


def main(argv: list[str]) -> int:
    force = "--force" in argv
    t0 = time.perf_counter()
    try:
        check_inputs()
        digest = inputs_digest(input_files())
        if not force and up_to_date(digest):
            print("dist/ is up to date", flush=True)
            return 0
        CACHE.mkdir(exist_ok=True)
        outputs = build(STAGING, digest)
        swap_in(STAGING)
        STAMP.write_text(json.dumps({"inputs": digest, "outputs": outputs}, indent=1) + "\n")
    except (BuildError, PreloadError) as e:
        print(f"build: error: {e}", file=sys.stderr, flush=True)
        return 1
    size = sum(outputs.values()) / 1e6
    secs = time.perf_counter() - t0
    say(f"dist/ ready: {len(outputs)} files, {size:.1f} MB ({secs:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
