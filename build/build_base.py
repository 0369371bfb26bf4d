"""What every step of build/build.py stands on: the repository's folders, the build's error, its
progress line, and running a command or copying a file so that a failure is a BuildError.

Stdlib only, and it imports no other module of build/: the build's step modules import it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules"


class BuildError(Exception):
    """A step of the build cannot be done: build/build.py reports it and leaves dist/ as it was."""


def say(msg: str) -> None:
    """One line of the build's progress."""
    print(f"build: {msg}", flush=True)


def rel(path: Path) -> str:
    """`path` relative to the repository, as the build names it (absolute when outside it)."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def run(cmd: list[str], what: str, env: dict[str, str] | None = None) -> None:
    """Run `cmd` in the repository with `env` added to ours; a failure, with the end of its
    output, is a BuildError about `what`."""
    env = {**os.environ, **(env or {})}
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise BuildError(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")


def copy(src: Path, dst: Path) -> None:
    """The file `src` to `dst`, making its folder; a missing `src` is a BuildError."""
    if not src.is_file():
        raise BuildError(f"missing input {rel(src)}")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def sha256_of(path: Path) -> str:
    """The sha256 of the file at `path`, in hex."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
