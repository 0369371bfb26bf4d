"""Python's own file API on the VFS while user code runs (docs/python.md, "Python's own file
API"): ``open``, ``os``'s path functions, and what is built on them (``os.path``, ``pathlib``,
``shutil``, ``glob``, ``json``, ``csv``, ``zipfile``...) see the VFS at the shell's paths.

``session(binding)`` binds a runner and a virtual cwd to the running context (a
context variable, so two runs at once each see their own) and, while any run is bound, puts the
replacements in place of the module attributes (``builtins.open``, ``io.open``, ``os.stat``...).
The disk or view a run reaches is the one its shell command works on (``page_disks.working_on``),
the same one fsspec reaches.
A replacement sends a call on a VFS path to the bound VFS and any other call (a runtime path, a
descriptor, no binding: py_vfs's own code and Pyodide's runtime) to the original function.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import glob
import io
import os
import posix
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..core.errors import FsError
from .binding import BOUND, RUNTIME_ROOTS, Binding, PageRunner, bound, error, relabel
from .calls import close_left_open, make_open, replacements

__all__ = ["BOUND", "RUNTIME_ROOTS", "Binding", "PageRunner", "session"]

_SETS = ("supports_dir_fd", "supports_fd", "supports_follow_symlinks", "supports_effective_ids")
_active = [0]  # how many sessions are open: the replacements are in place while any is
_saved: dict[tuple[Any, str], Any] = {}
_process_cwd = [""]  # the process's cwd when the first session began, put back after the last


def _rmtree(original: Any) -> Any:
    """``shutil.rmtree`` on a VFS directory: one recursive removal (one commit), with
    shutil's errors and its ``onexc``/``onerror``/``ignore_errors`` handling."""

    def rmtree(path: Any, ignore_errors: bool = False, onerror: Any = None, *,
               onexc: Any = None, dir_fd: Any = None) -> None:
        binding = BOUND.get()
        located = None if binding is None or dir_fd is not None else binding.locate(path)
        if located is None:
            extra = {"onexc": onexc} if onexc is not None else {}
            if dir_fd is not None:
                extra["dir_fd"] = dir_fd
            elif binding is not None:
                path = binding.for_runtime(path)
            return original(path, ignore_errors, onerror, **extra)
        try:
            found = binding.call("lstat", located)
            if found.is_symlink:
                linked = OSError("Cannot call rmtree on a symbolic link")
                if sys.version_info >= (3, 13):  # as this Python's own rmtree labels it
                    linked.filename = path
                raise linked
            if not found.is_dir:
                raise error(errno.ENOTDIR, path)  # as os.scandir fails in shutil
            binding.call("rm", located, recursive=True)
        except OSError as exc:
            if isinstance(exc, FsError):  # the VFS's paths: shown as the caller gave them
                exc = relabel(exc, path)
            if ignore_errors:
                return None
            if onexc is not None:
                onexc(os.rmdir, path, exc)
            elif onerror is not None:
                onerror(os.rmdir, path, (type(exc), exc, exc.__traceback__))
            else:
                raise exc from None
        return None

    rmtree.avoids_symlink_attacks = getattr(original, "avoids_symlink_attacks", False)
    return rmtree


def _install() -> None:
    _process_cwd[0] = posix.getcwd()
    made: dict[tuple[Any, str], Any] = {(os, name): fn for name, fn in replacements().items()}
    for module in (builtins, io):
        made[(module, "open")] = make_open(module.open)
    made[(shutil, "rmtree")] = _rmtree(shutil.rmtree)
    # pathlib's glob (3.13 on) keeps os.lstat and os.scandir as attributes of its own class.
    globber = getattr(glob, "_StringGlobber", None)
    for name in ("lstat", "scandir"):
        held = vars(globber).get(name) if globber is not None else None
        if isinstance(held, staticmethod) and held.__func__ is getattr(os, name):
            made[(globber, name)] = staticmethod(made[(os, name)])
    for (module, name), replacement in made.items():
        original = vars(module)[name]  # a class's staticmethod as it is, to be put back
        _saved[(module, name)] = original
        setattr(module, name, replacement)
        for set_name in _SETS:
            members = getattr(os, set_name, None)
            if members is not None and original in members:
                members.add(replacement)


def _uninstall() -> None:
    for (module, name), original in _saved.items():
        replacement = getattr(module, name)
        setattr(module, name, original)
        for set_name in _SETS:
            getattr(os, set_name, set()).discard(replacement)
    _saved.clear()
    with contextlib.suppress(OSError):  # a run changed into a runtime directory (maybe gone)
        if posix.getcwd() != _process_cwd[0]:
            posix.chdir(_process_cwd[0])


@contextmanager
def session(binding: Binding) -> Iterator[Binding]:
    """Run the block with ``binding`` bound: Python's file API sees its VFS (see the module)."""
    if _active[0] == 0:
        _install()
    _active[0] += 1
    try:
        with bound(binding):
            try:
                yield binding
            finally:
                close_left_open(binding)
    finally:
        _active[0] -= 1
        if _active[0] == 0:
            _uninstall()
