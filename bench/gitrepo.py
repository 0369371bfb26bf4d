"""G1's repository: files of packages in node_modules/ committed once into a bare git repository.

The bench serves it over smart HTTP (bench/server.py, `git http-backend`) and the page clones it
with isomorphic-git. The commit is deterministic (fixed author, committer and dates, every blob
stored as is, no filters), so every run clones the same commit id; the repository is cached
under .cache/bench-git/ keyed by the SHA-256 of its paths and contents, and made again only
when those change (a package upgrade).

The full repository is a fixed list of packages (PACKAGES), all source trees of JavaScript,
TypeScript declarations, source maps, JSON and docs in nested folders: about 1,100 files and
15 MB, the shape of the issue's 1,070-file, 15 MB repository. The list is fixed so that the
repository does not grow with node_modules/: it once took every package found there, and went
from 1,379 files (12 MB) to 4,944 files (136 MB) as dev dependencies were added. A package of
the list missing from node_modules/ fails the run, naming it. The smoke run clones one small
package.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules"
CACHE = ROOT / ".cache" / "bench-git"
REPO = "g1.git"  # the repository's name under GIT_PROJECT_ROOT, and in its URL
BRANCH = "main"
# The full repository's packages (see above), each installed by package-lock.json.
PACKAGES = (
    "@codemirror/autocomplete", "@codemirror/commands", "@codemirror/lang-css",
    "@codemirror/lang-html", "@codemirror/lang-javascript", "@codemirror/lang-json",
    "@codemirror/lang-markdown", "@codemirror/lang-python", "@codemirror/language",
    "@codemirror/lint", "@codemirror/search", "@codemirror/state", "@codemirror/streamparser",
    "@codemirror/view", "@lezer/common", "@lezer/css", "@lezer/highlight", "@lezer/html",
    "@lezer/javascript", "@lezer/json", "@lezer/lr", "@lezer/markdown", "@lezer/python",
    "@puppeteer/browsers", "@types/node", "@zenfs/core", "@zenfs/dom", "@zenfs/streams",
    "cliui", "fake-indexeddb", "isomorphic-git", "kerium", "memium", "pako", "source-map-js",
    "utilium", "ws", "yargs", "yargs-parser",
)
# The smoke run's repository: one small package (21 files, nested folders, 124 KB).
SMOKE_PACKAGES = ("@isomorphic-git/lightning-fs",)
# Bump when the way the repository is made changes, so the cache is made again.
FORMAT = "2"
IDENTITY = {
    "GIT_AUTHOR_NAME": "py_vfs bench", "GIT_AUTHOR_EMAIL": "bench@py-vfs.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_NAME": "py_vfs bench", "GIT_COMMITTER_EMAIL": "bench@py-vfs.invalid",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
    # No system or user configuration (a user's pack or init settings would change the result).
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}
GIT_TIMEOUT = 120.0


@dataclass(frozen=True)
class Repository:
    """A bare repository ready to serve: GIT_PROJECT_ROOT, its commit, and what it holds."""

    project_root: Path
    commit: str
    packages: tuple[str, ...]
    manifest: dict[str, str]  # path in the repository -> SHA-256 (hex) of the file's bytes
    size: int  # bytes of all files

    @property
    def files(self) -> int:
        return len(self.manifest)


def packages(smoke: bool) -> tuple[str, ...]:
    """The packages of node_modules/ G1's repository is made of, sorted."""
    return SMOKE_PACKAGES if smoke else tuple(sorted(PACKAGES))


def source_files(names: tuple[str, ...]) -> dict[str, Path]:
    """Repository path -> file, for every regular file of the packages (no symlinks, nothing
    under a folder named .git, which git refuses)."""
    files: dict[str, Path] = {}
    for name in names:
        base = NODE / name
        if not (base / "package.json").is_file():
            raise FileNotFoundError(f"{base}: no such package (run `npm ci`)")
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for filename in filenames:
                path = Path(dirpath) / filename
                if path.is_file() and not path.is_symlink():
                    files[path.relative_to(NODE).as_posix()] = path
    return dict(sorted(files.items()))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_mode(path: Path) -> str:
    """The mode git records for a regular file: executable when its owner may run it."""
    return "100755" if path.stat().st_mode & 0o100 else "100644"


def git(git_dir: Path, *args: str, stdin: str | None = None, env: dict | None = None) -> str:
    """Run a git command on `git_dir` (bounded), return its stdout; fail with its stderr."""
    proc = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=stdin,
                          capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False,
                          env={**os.environ, **IDENTITY, **(env or {})})
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout


def build(git_dir: Path, files: dict[str, Path]) -> str:
    """Commit `files` into a new bare repository at `git_dir`, packed; return the commit id."""
    subprocess.run(["git", "init", "--quiet", "--bare", f"--initial-branch={BRANCH}",
                    str(git_dir)], check=True, timeout=GIT_TIMEOUT, capture_output=True,
                   env={**os.environ, **IDENTITY})
    git(git_dir, "config", "http.receivepack", "false")  # served read-only
    git(git_dir, "config", "pack.threads", "1")  # the same deltas, so the same pack, every run
    paths = list(files)
    oids = git(git_dir, "hash-object", "-w", "--no-filters", "--stdin-paths",
               stdin="".join(f"{files[p]}\n" for p in paths)).split()
    modes = [git_mode(files[p]) for p in paths]
    index = {"GIT_INDEX_FILE": str(git_dir / "bench-index")}
    git(git_dir, "update-index", "--add", "--index-info", env=index,
        stdin="".join(f"{m} {o}\t{p}\n" for m, o, p in zip(modes, oids, paths, strict=True)))
    tree = git(git_dir, "write-tree", env=index).strip()
    (git_dir / "bench-index").unlink()
    commit = git(git_dir, "commit-tree", tree, "-m", "py_vfs bench: G1's repository").strip()
    git(git_dir, "update-ref", f"refs/heads/{BRANCH}", commit)
    git(git_dir, "repack", "-a", "-d", "-q")
    git(git_dir, "prune-packed")
    return commit


def repository(smoke: bool) -> Repository:
    """G1's repository, from the cache or made now (a few seconds)."""
    names = packages(smoke)
    files = source_files(names)
    manifest = {path: sha256(file) for path, file in files.items()}
    key = hashlib.sha256(FORMAT.encode())
    for path, digest in manifest.items():
        key.update(f"{path}\0{git_mode(files[path])}\0{digest}\n".encode())
    project_root = CACHE / key.hexdigest()[:16]
    done = project_root / "commit"
    if not done.is_file():  # made in a folder of its own, then renamed: never half there
        CACHE.mkdir(parents=True, exist_ok=True)
        making = Path(tempfile.mkdtemp(dir=CACHE, prefix="making-"))
        try:
            commit = build(making / REPO, files)
            (making / "commit").write_text(commit + "\n")
            shutil.rmtree(project_root, ignore_errors=True)
            making.rename(project_root)
        finally:
            shutil.rmtree(making, ignore_errors=True)
    size = sum(file.stat().st_size for file in files.values())
    return Repository(project_root, done.read_text().strip(), names, manifest, size)
