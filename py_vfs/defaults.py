"""Default content: files shipped with py_vfs, copied into a disk when it is first opened.

A ``Bundle`` is the shipped content: a version and the bytes of each file, by its path on the
disk. The build makes one from the repository's ``defaults/`` folder (``python -m
py_vfs.defaults DIR`` prints its manifest; build/build.py writes it to
``dist/defaults/manifest.json`` beside the files), the worker fetches it from the app's own
origin, and CPython reads it from a folder (``Bundle.from_folder``).

``install`` (on open) and ``reset`` (on request) each make ONE change of the commit engine,
by the writer ``defaults``: every file it writes, the layout folders (``/workspace``,
``/shared``, ``/scoops``) and the record ``meta/defaults`` (the version installed and the
sha256 of each shipped file) commit together or not at all. The record is on the disk, so it
travels with it across tabs and reloads; it is read inside the change, under the cross-tab
turn, so two tabs opening a fresh disk at once install it once.

What ``install`` writes (docs/defaults.md): on a disk that has no record (a fresh disk, or one
made before default content existed), every shipped file whose path is free. On a disk that has
a record of another version (an upgrade): files new in this version whose path is free, and
files whose content is still the previous version's default (never edited) get the new one. A
file the user changed, or deleted after it was installed, is left as it is. ``reset`` puts every
shipped file back as shipped, replacing changed ones; files that are not default content are
never touched by either.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core import paths
from .core.errors import FsError
from .fs.disk_side import DEFAULT_DIR_MODE
from .storage.transaction import Transaction
from .vfs import VFS

META_KEY = "defaults"  # meta/defaults: {"version": V, "files": {path: sha256}}
WRITER = "defaults"
OPERATION = "defaults"
LAYOUT = ("/workspace", "/shared", "/scoops")
MANIFEST = "manifest.json"
SKIP = {"__pycache__", ".DS_Store"}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def version_of(hashes: Mapping[str, str]) -> str:
    """The version of a set of files: a digest of their paths and contents, so any change to
    the shipped content is a new version (16 hex digits)."""
    listing = "".join(f"{path}\0{hashes[path]}\n" for path in sorted(hashes))
    return _sha256(listing.encode())[:16]


def _disk_path(name: object) -> str:
    """A manifest's path as a path on the disk: absolute, normalized, never the root."""
    if not isinstance(name, str) or not name.startswith("/"):
        raise ValueError(f"default content: {name!r} is not an absolute path")
    path = paths.normalize(name, "defaults")
    if path == "/" or path != name:
        raise ValueError(f"default content: {name!r} is not a normalized file path")
    return path


@dataclass(frozen=True)
class Bundle:
    """Shipped default content: its ``version`` and each file's bytes by disk path."""

    version: str
    files: dict[str, bytes]

    @property
    def hashes(self) -> dict[str, str]:
        """Each file's sha256 (hex)."""
        return {path: _sha256(data) for path, data in self.files.items()}

    def manifest(self) -> dict[str, Any]:
        """The manifest the build ships: version, and each file's path, size and sha256."""
        hashes = self.hashes
        return {"version": self.version,
                "files": [{"path": path, "size": len(self.files[path]), "sha256": hashes[path]}
                          for path in sorted(self.files)]}

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any],
                      contents: Mapping[str, bytes | memoryview]) -> Bundle:
        """The bundle a manifest describes, from the fetched bytes of its files (by disk path);
        ValueError when a file is missing, or its size or sha256 differs from the manifest."""
        files: dict[str, bytes] = {}
        for entry in manifest.get("files") or []:
            path = _disk_path(entry.get("path"))
            data = contents.get(path)
            if data is None:
                raise ValueError(f"default content: {path} was not fetched")
            data = bytes(data)
            if len(data) != entry.get("size") or _sha256(data) != entry.get("sha256"):
                raise ValueError(f"default content: {path} does not match its manifest")
            files[path] = data
        bundle = cls(str(manifest.get("version")), files)
        if bundle.version != version_of(bundle.hashes):
            raise ValueError(f"default content: version {bundle.version} is not that of its "
                             "files")
        return bundle

    @classmethod
    def from_folder(cls, folder: str | Path) -> Bundle:
        """The files under a host folder, each at its relative path below ``/`` on the disk
        (hidden files and caches left out)."""
        root = Path(folder)
        if not root.is_dir():
            raise ValueError(f"default content: {folder} is not a folder")
        files: dict[str, bytes] = {}
        for path in sorted(root.rglob("*")):
            parts = path.relative_to(root).parts
            if any(part.startswith(".") or part in SKIP for part in parts) or not path.is_file():
                continue
            files["/" + "/".join(parts)] = path.read_bytes()
        return cls(version_of({p: _sha256(d) for p, d in files.items()}), files)


async def installed(vfs: VFS) -> dict[str, Any] | None:
    """The record of the default content installed on this disk, or None."""
    stored = await vfs.store.get("meta", META_KEY)
    return None if stored is None else json.loads(str(stored))


async def install(vfs: VFS, bundle: Bundle) -> dict[str, Any]:
    """Install ``bundle`` if this disk does not have its version yet (see the module's rules);
    returns ``{version, written, kept}``: the paths written, and the shipped paths left as the
    user had them. A disk that has this version already costs one read, and no commit.

    Either way it ends caught up with the disk: when another tab installed it first (its commit
    may have been announced before this one listened), this VFS's index would otherwise miss
    the files that tab wrote until its next change."""
    record = await installed(vfs)
    if record is not None and record.get("version") == bundle.version:
        report = {"version": bundle.version, "written": [], "kept": []}
    else:
        report = await _apply(vfs, bundle, replace=False)
    await vfs.sync()
    return report


async def reset(vfs: VFS, bundle: Bundle) -> dict[str, Any]:
    """Put every shipped file back as shipped (a changed one replaced, a deleted one made
    again) and the layout folders, in one change; other files are not touched. A path where a
    directory or a link now stands, or inside a mounted folder, is left (listed in ``kept``)."""
    return await _apply(vfs, bundle, replace=True)


async def _apply(vfs: VFS, bundle: Bundle, *, replace: bool) -> dict[str, Any]:
    hashes = bundle.hashes

    async def change(tx: Transaction) -> dict[str, Any]:
        stored = await vfs.store.get("meta", META_KEY)  # again: under the turn, as of now
        record = None if stored is None else json.loads(str(stored))
        if not replace and record is not None and record.get("version") == bundle.version:
            return {"version": bundle.version, "written": [], "kept": []}
        fresh = replace or record is None
        before: dict[str, str] = dict(record.get("files") or {}) if record else {}
        written, kept = [], []
        if fresh:
            for folder in LAYOUT:
                _try(tx, lambda sub, folder=folder: vfs.files.disk.make_dirs(
                    folder, "mkdir", sub, folder, DEFAULT_DIR_MODE))
        for path in sorted(bundle.files):
            current = await _content(vfs, path)
            if current == hashes[path]:
                continue
            if replace:
                wanted = current != "other"
            elif record is None or path not in before:
                wanted = current is None  # a free path only: a file already there is the user's
            else:  # an upgrade: only a file still as the previous version shipped it
                wanted = current == before[path]
            if wanted and _try(tx, vfs.files.write_change(path, bundle.files[path], None, None)):
                written.append(path)
            elif current is not None:
                kept.append(path)
        now = json.dumps({"version": bundle.version, "files": hashes}, separators=(",", ":"),
                         sort_keys=True)
        if stored is None or now != str(stored):  # a reset with nothing to do commits nothing
            tx.put_meta(META_KEY, now)
        return {"version": bundle.version, "written": written, "kept": kept}

    return await vfs.engine.run(change, OPERATION, WRITER)


def _try(tx: Transaction, change: Any) -> bool:
    """Run one write in a transaction of its own, folded into ``tx`` when it succeeds; a write
    the disk refuses (a file where a folder should be, a mounted folder) leaves nothing."""
    sub = Transaction(tx.writer)
    try:
        change(sub)
    except FsError:
        sub.rollback()
        return False
    tx.merge(sub)
    return True


async def _content(vfs: VFS, path: str) -> str | None:
    """What is at ``path`` now: None (nothing), the sha256 of a regular file on the disk, or
    "other" (a directory, a link, a mounted folder's entry, a path that cannot be looked up)."""
    if any(paths.is_within(path, point) for point in vfs.mount_table.by_path):
        return "other"
    try:
        stat = vfs.lstat(path)
    except FileNotFoundError:
        return None
    except FsError:
        return "other"
    return _sha256(await vfs.read_file(path)) if stat.is_file else "other"


def main(argv: list[str]) -> int:
    """``python -m py_vfs.defaults DIR``: print the manifest of the folder DIR (the build's)."""
    if len(argv) != 1:
        print("usage: python -m py_vfs.defaults DIR", file=sys.stderr)
        return 2
    print(json.dumps(Bundle.from_folder(argv[0]).manifest(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
