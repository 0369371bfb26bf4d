"""Optional packages the page ships as wheels (dist/wheels/), installed on their first import.

fsspec (py_vfs[fsspec], docs/python.md) is not installed at boot: nothing before the first read
waits for it, and a boot from the runtime snapshot stays what it was. ``install`` puts a finder
on ``sys.meta_path``; the first ``import fsspec`` in the worker's Python fetches its wheel from
the page's own origin with a synchronous request (a worker may make one; it needs no JSPI, so it
works in any call), unpacks it into site-packages and lets the import go on. A Python restored
from the runtime snapshot has py_vfs's modules but not their files (docs/boot.md), and
``py_vfs.fsspec_fs`` is not among its modules (the snapshot is made without fsspec): the same
first import then unpacks our own wheel again, which brings that module's file and the entry
point (``fsspec.specs``) through which fsspec finds the ``pyvfs`` protocol.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import io
import site
import sys
import zipfile
from pathlib import Path
from typing import Any


class _OnImport(importlib.abc.MetaPathFinder):
    """Installs a package's wheels when it is first imported, then lets the import go on."""

    def __init__(self, wheels: dict[str, list[str]]) -> None:
        self.wheels = wheels  # module -> URLs of the wheels it needs
        self.unpacked: set[str] = set()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        """None (other finders go on) unless ``fullname`` is a module waiting for its wheels:
        then they are unpacked first, once they all could be. Any failure is an ImportError
        (what ``try: import fsspec`` probes expect); the next import tries again."""
        urls = self.wheels.get(fullname)
        if urls is None:
            return None
        where = site.getsitepackages()[0]
        for url in urls:
            if url in self.unpacked:
                continue
            try:
                with zipfile.ZipFile(io.BytesIO(_fetch(url))) as wheel:
                    wheel.extractall(where)
            except Exception as exc:  # the network, a truncated wheel, the file system
                raise ImportError(f"{fullname}: could not install {url}: {exc}") from exc
            self.unpacked.add(url)
        del self.wheels[fullname]
        importlib.invalidate_caches()
        return importlib.machinery.PathFinder.find_spec(fullname, path)


def _fetch(url: str) -> bytes:
    """The bytes at ``url``, by a synchronous request (the worker's thread waits for them)."""
    from js import XMLHttpRequest

    request = XMLHttpRequest.new()
    request.open("GET", url, False)
    request.responseType = "arraybuffer"
    request.send()
    if request.status != 200:
        raise ImportError(f"{url}: HTTP {request.status}")
    return request.response.to_bytes()


def install(fsspec_wheel: str, own_wheel: str, git_wheels: Any = None) -> None:
    """``import fsspec`` installs fsspec's wheel (URL ``fsspec_wheel``) first, and our own
    (``own_wheel``) too when py_vfs's files are not there (a boot from the snapshot).
    ``import dulwich`` (or ``merge3``), which the shell's `git` does first, installs
    ``git_wheels`` (their URLs), and our own wheel too when the git modules' files are not
    there (they import dulwich, so the snapshot is made without them)."""
    if any(isinstance(f, _OnImport) for f in sys.meta_path):
        return
    own_files = Path(__file__).parent.parent
    wheels: dict[str, list[str]] = {}
    if "fsspec" not in sys.modules:
        wheels["fsspec"] = [fsspec_wheel]
        if not (own_files / "fsspec_fs.py").is_file():
            wheels["fsspec"].append(own_wheel)
            wheels["py_vfs.fsspec_fs"] = [fsspec_wheel, own_wheel]  # imported first: needs both
    git = [str(url) for url in git_wheels or []]
    if git and "dulwich" not in sys.modules:
        if not (own_files / "shell" / "commands" / "git_files.py").is_file():
            git.append(own_wheel)
        wheels["dulwich"] = git
        wheels["merge3"] = list(git)
    if wheels:
        sys.meta_path.append(_OnImport(wheels))
