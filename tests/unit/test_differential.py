"""Differential property tests: the VFS against the Linux kernel, operation by operation.

A Hypothesis state machine applies the same random sequence of operations to ``VFS.memory()``
and to a real temporary directory (through ``os``/``shutil``), and after every step requires the
same answer (return value or error code), the same tree (types, contents, file sizes, permission
bits, link targets) and the same set of files and directories whose mtime changed.

The oracle is the kernel wherever one system call is the operation. Where the VFS operation is a
utility rather than a system call (``write_file`` creating parents, ``rm``, ``cp``, ``walk``) the
oracle is a few lines of ``os`` calls written here; each says which behaviour it encodes. Every
place where the oracle models a deliberate deviation from Linux names its entry in
docs/semantics.md.

Choices that keep the oracle honest and the host safe:

- Symlink targets are always relative: an absolute target would point outside the sandbox on the
  real side. Targets are ``../`` repeated 0-2 times followed by plain names (no ``..`` after a
  name), and no link is ever placed (by ``symlink``, ``rename`` or ``cp``) in a directory
  shallower than its number of ``..``: such a link would climb above the sandbox on the real side
  while the VFS stops at ``/``. Those few operations are skipped on both sides.
- User paths are absolute, drawn from four names at depth <= 3, sometimes with a ``..`` or ``.``
  segment or a trailing slash; two draws in three start from an entry of the current tree, and a
  first tree is made before the random steps, so that collisions (replace, ENOTEMPTY, ENOTDIR,
  loops) are frequent.
- Operations whose operand is ``/`` itself and that would remove or rename it never reach the real
  side: the VFS answers EPERM (see docs/semantics.md, "The root").
- Directories are chmod-ed only to modes that keep owner rwx, and files to modes that keep owner
  rw, so the oracle behaves the same when the tests do not run as root.
- mtimes are compared as "changed by this step or not": before each mutation every file and
  directory on both sides is set to the same old mtime, and afterwards the two sets of paths whose
  mtime moved must be equal. ctime and atime are not compared (see docs/semantics.md, "Times").
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import os
import random
import shutil
import stat as st_mode
import sys
import tempfile
import zlib
from collections.abc import Callable
from typing import Any

import pytest

if sys.platform == "emscripten":  # the oracle is the host kernel: CPython on Linux only
    pytest.skip("differential tests need a real Linux file system", allow_module_level=True)
if not sys.platform.startswith("linux"):
    pytest.skip("the oracle is Linux (it reads /proc/self/fd)", allow_module_level=True)

from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    rule,
    run_state_machine_as_test,
)

from py_vfs import VFS, FsError
from py_vfs.core import paths as vpaths


def name_seed(name: str) -> int:
    """A state machine's seed, from its name alone."""
    return zlib.crc32(name.encode())


NAMES = ("a", "b", "c", "d")
FILE_MODES = (0o600, 0o644, 0o640, 0o664, 0o755)
DIR_MODES = (0o700, 0o755, 0o775)
OLD_MTIME_S = 1_000_000  # what every file and directory is reset to before a mutation
OLD_MTIME_NS = OLD_MTIME_S * 1_000_000_000
OLD_MTIME_MS = OLD_MTIME_S * 1000.0

# 2,000 sequences of up to 20 steps by default; PYVFS_DIFF_EXAMPLES changes the count (e.g. 20000
# for a long local soak). The default run is derandomized, so CI checks the same sequences on
# every clone and a red run is reproducible; PYVFS_DIFF_RANDOM=1 explores new ones (do that
# when changing the core, and turn each finding into a fix plus a unit test).
EXAMPLES = int(os.environ.get("PYVFS_DIFF_EXAMPLES", "2000"))
# 2,000 examples took 221 s (57 s of CPU) on the loaded 2-core machine: the time bound (pytest-
# timeout) grows with the number of examples, with a 4x margin; 3 times more under coverage.py
# (tests/run.sh), which costs CPU-bound tests about that (measured on CPython 3.11).
UNDER_COVERAGE = "coverage" in sys.modules
pytestmark = pytest.mark.timeout(0.45 * EXAMPLES * (3 if UNDER_COVERAGE else 1))
RANDOM = os.environ.get("PYVFS_DIFF_RANDOM") == "1"

Outcome = tuple[str, Any]  # ("ok", value) or ("error", "ENOENT")


# ------------------------------------------------------------------------------ strategies


def _all_paths() -> tuple[list[str], list[str], list[str]]:
    """Every path of 1-3 names: plain, with a trailing slash, and with one ``..`` or ``.``
    inserted anywhere."""
    plain = [""]
    for _ in range(3):
        plain += [p + "/" + name for p in plain if p.count("/") < 3 for name in NAMES]
    plain = sorted(set(plain) - {""}, key=lambda p: (len(p), p))
    dotted = []
    for path in plain:
        segments = path.split("/")[1:]
        for at in range(len(segments) + 1):
            for dots in ("..", "."):
                dotted.append("/" + "/".join([*segments[:at], dots, *segments[at:]]))
    return plain, [p + "/" for p in plain], dotted


PLAIN, SLASHED, DOTTED = _all_paths()
SHALLOW = [p for p in PLAIN if p.count("/") <= 2]
# Sampled lists print as literal strings in a failing example, and shrink towards their first
# (shortest) item. Two draws in five are paths of one or two names, so names collide often.
user_paths = st.one_of(
    st.sampled_from(SHALLOW), st.sampled_from(SHALLOW), st.sampled_from(PLAIN),
    st.sampled_from(SLASHED), st.sampled_from(DOTTED),
)


def _all_targets() -> list[str]:
    """Relative link targets: 0-2 ``..`` then 0-2 names, with or without a trailing slash;
    ``.``; and the empty target, which Linux refuses (ENOENT)."""
    names = [[]] + [[n] for n in NAMES] + [[m, n] for m in NAMES for n in NAMES]
    found = {"."}
    for ups in range(3):
        for tail in names:
            segments = [".."] * ups + tail
            if segments:
                found.add("/".join(segments))
                found.add("/".join(segments) + "/")
    return [*sorted(found, key=lambda t: (len(t), t)), ""]


link_targets = st.sampled_from(_all_targets())

# Suffixes that turn an entry of the current tree into an operand: itself, itself with a trailing
# slash, a child, a sibling through "..".
SUFFIXES = ("", "", "", "/", "/a", "/b", "/c", "/d", "/../b")


@functools.lru_cache(maxsize=4096)
def _operands(known: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Two draws in three near the tree (entries ``known`` with a suffix), else any path.
    Cached: building and validating a strategy per draw would cost more than the step."""
    near = st.sampled_from([(base.rstrip("/") + suffix) or "/"
                            for base in known for suffix in SUFFIXES])
    return st.one_of(near, near, user_paths)


contents = st.binary(max_size=6)
lengths = st.integers(min_value=0, max_value=8)


# ------------------------------------------------------------------------------ helpers


def _error(code: str) -> OSError:
    number = getattr(errno, code)
    return OSError(number, os.strerror(number))


def _leading_ups(target: str) -> int:
    ups = 0
    for segment in target.split("/"):
        if segment != "..":
            break
        ups += 1
    return ups


def _kind(mode: int) -> str:
    if st_mode.S_ISDIR(mode):
        return "directory"
    if st_mode.S_ISLNK(mode):
        return "symlink"
    return "file"


def _outcome(call: Callable[[], Any]) -> Outcome:
    """Run one side's operation; OSError becomes its code name, anything else propagates."""
    try:
        return ("ok", call())
    except FsError as error:
        return ("error", error.code)
    except OSError as error:
        return ("error", errno.errorcode[error.errno])


# ------------------------------------------------------------------------------ the oracle


class LinuxOracle:
    """The reference: the same operations as ``VFS``, done with ``os`` on a sandbox directory.

    VFS path ``/x`` is ``<root>/x`` here. The VFS folds ``.`` and ``..`` lexically before lookup
    while the kernel resolves ``..`` physically and gives a final ``.`` or ``..`` its own errors
    (docs/semantics.md, "Paths"): a path whose ``..`` follows a symlink, a missing name, a file
    or ``/``, or that ends in ``.`` or ``..``, reaches the kernel folded.
    """

    def __init__(self, root: str, scratch: str) -> None:
        self.root = root
        self.scratch = scratch

    # -- paths

    def host(self, path: str) -> str:
        """The host path for a VFS path: raw when the kernel resolves it the same way."""
        return self.root + (path if self._physical(path) else self._folded(path))

    @staticmethod
    def _folded(path: str) -> str:
        """``path`` folded as the VFS does, keeping what a trailing ``/`` or ``/.`` insists on."""
        normal = vpaths.normalize(path)
        return normal + "/" if vpaths.has_trailing_slash(path) and normal != "/" else normal

    def _physical(self, path: str) -> bool:
        """Whether the kernel, given ``path`` as it is, resolves it as the VFS does."""
        segments = [s for s in path.split("/") if s]
        if segments and segments[-1] in (".", ".."):
            return False
        for i, segment in enumerate(segments):
            if segment != "..":
                continue
            prefix = "/" + "/".join(s for s in segments[:i] if s != ".")
            if vpaths.normalize(prefix) == "/":
                return False
            try:
                mode = os.lstat(self.root + prefix).st_mode
            except OSError:
                return False
            if not st_mode.S_ISDIR(mode):
                return False
        return True

    def is_root(self, path: str) -> bool:
        return vpaths.normalize(path) == "/"

    def virtual(self, host_path: str) -> str:
        if host_path == self.root:
            return "/"
        assert host_path.startswith(self.root + "/"), f"escaped the sandbox: {host_path}"
        return host_path[len(self.root):]

    def canonical(self, host_path: str) -> str:
        """The kernel's own resolution of ``host_path`` (ENOENT, ENOTDIR, ELOOP included)."""
        fd = os.open(host_path, os.O_PATH)
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        finally:
            os.close(fd)

    def parent_of(self, path: str) -> str:
        """The VFS path of the directory that holds ``path``'s last name, as the kernel finds
        it (ENOENT, ENOTDIR, ELOOP as it says)."""
        parent = os.path.dirname(self.host(path).rstrip("/"))
        return self.virtual(self.canonical(parent + "/"))

    # -- the sandbox guard for links

    def links_below(self, host_path: str) -> list[tuple[int, int]]:
        """(levels below ``host_path``, leading ``..`` count) of each link in that subtree."""
        try:
            mode = os.lstat(host_path).st_mode
        except OSError:
            return []
        if st_mode.S_ISLNK(mode):
            return [(0, _leading_ups(os.readlink(host_path)))]
        if not st_mode.S_ISDIR(mode):
            return []
        found = []
        for name in os.listdir(host_path):
            for level, ups in self.links_below(os.path.join(host_path, name)):
                found.append((level + 1, ups))
        return found

    def placement_depth(self, path: str) -> int | None:
        """How deep an entry created at VFS ``path`` lands (``/`` itself is 0)."""
        if self.is_root(path):
            return 0
        try:
            parent = self.parent_of(path)
        except OSError:
            return None
        return len([s for s in parent.split("/") if s]) + 1

    def would_escape(self, links: list[tuple[int, int]], path: str) -> bool:
        """Whether placing ``links`` (from ``links_below``) at ``path`` lets one climb above
        the sandbox: a link's ``..`` count must not exceed its directory's depth."""
        depth = self.placement_depth(path)
        if depth is None:
            return False  # the operation fails before placing anything
        return any(ups > depth + level - 1 for level, ups in links)

    # -- all or nothing

    def all_or_nothing(self, change: Callable[[], Any]) -> Any:
        """Run ``change``; if it fails, put the sandbox back as it was (the VFS commits one
        mutation atomically, docs/semantics.md "Atomicity")."""
        snapshot = os.path.join(self.scratch, "snapshot")
        shutil.copytree(self.root, snapshot, symlinks=True)
        try:
            return change()
        except OSError:
            self._restore(snapshot)
            raise
        finally:
            shutil.rmtree(snapshot, ignore_errors=True)

    def _restore(self, snapshot: str) -> None:
        for name in os.listdir(self.root):
            self._remove(os.path.join(self.root, name))
        shutil.copytree(snapshot, self.root, symlinks=True, dirs_exist_ok=True)

    @staticmethod
    def _remove(host_path: str) -> None:
        if st_mode.S_ISDIR(os.lstat(host_path).st_mode):
            shutil.rmtree(host_path)
        else:
            os.unlink(host_path)

    # -- content

    def read_file(self, path: str) -> bytes:
        with open(self.host(path), "rb") as f:
            return f.read()

    def write_file(self, path: str, data: bytes) -> None:
        """Documented extension: missing parents are created first, as ``mkdir -p`` would, and
        the whole write is undone if the ``open`` then fails."""
        host = self.host(path)
        parent = os.path.dirname(host.rstrip("/"))
        if os.path.isdir(parent) or self.is_root(path):
            self._write(host, data)
            return

        def change() -> None:
            with contextlib.suppress(OSError):  # the open reports the kernel's error
                os.makedirs(parent, exist_ok=True)
            self._write(host, data)

        self.all_or_nothing(change)

    @staticmethod
    def _write(host: str, data: bytes) -> None:
        with open(host, "wb") as f:
            f.write(data)

    def append_file(self, path: str, data: bytes) -> None:
        with open(self.host(path), "ab") as f:
            f.write(data)

    def truncate(self, path: str, length: int) -> None:
        os.truncate(self.host(path), length)

    def touch(self, path: str) -> None:
        """``touch``: set an existing file's times to now, else create it empty."""
        host = self.host(path)
        if os.path.exists(host):
            os.utime(host)
        else:
            with open(host, "ab"):
                pass

    # -- namespace

    def mkdir(self, path: str, recursive: bool) -> None:
        if recursive:
            os.makedirs(self.host(path), exist_ok=True)
        else:
            os.mkdir(self.host(path))

    def rm(self, path: str, recursive: bool, force: bool) -> None:
        """``rm`` (``-d`` implied: an empty directory goes without ``-r``); ``force`` ignores
        ENOENT only, like Node's ``fs.rm``. A trailing slash on a symlink is ENOTDIR up front
        (GNU ``rm -r link/`` would first empty the link's target)."""
        if self.is_root(path):
            raise _error("EPERM")
        host = self.host(path)
        try:
            if vpaths.has_trailing_slash(path) and os.path.islink(host.rstrip("/")):
                raise _error("ENOTDIR")
            if not st_mode.S_ISDIR(os.lstat(host).st_mode):
                os.unlink(host)
            elif recursive:
                shutil.rmtree(self._physical_dir(host))
            else:
                os.rmdir(host)
        except FileNotFoundError:
            if not force:
                raise

    @staticmethod
    def _physical_dir(host: str) -> str:
        """The directory ``host`` names, reached without links. ``rmtree`` walks by path, so
        when the path passes through a link inside the tree, it deletes that link midway, cannot
        find its path again, and leaves the directory behind. The VFS removes the node the path
        named, whole (docs/semantics.md, "Atomicity")."""
        host = host.rstrip("/")
        return os.path.join(os.path.realpath(os.path.dirname(host)), os.path.basename(host))

    def rmdir(self, path: str) -> None:
        if self.is_root(path):
            raise _error("EPERM")
        os.rmdir(self.host(path))

    def unlink(self, path: str) -> None:
        if self.is_root(path):
            raise _error("EPERM")
        os.unlink(self.host(path))

    def rename(self, old: str, new: str) -> None:
        """``rename(2)``; with ``/`` as either end, the other end's parent is looked up first,
        then EPERM (Linux: EBUSY)."""
        if self.is_root(old) or self.is_root(new):
            for path in (old, new):
                if not self.is_root(path):
                    self.parent_of(path)
            raise _error("EPERM")
        os.rename(self.host(old), self.host(new))

    def symlink(self, target: str, path: str) -> None:
        os.symlink(target, self.host(path))

    def readlink(self, path: str) -> str:
        return os.readlink(self.host(path))

    def realpath(self, path: str) -> str:
        return self.virtual(self.canonical(self.host(path)))

    # -- copies

    def copy_file(self, src: str, dst: str) -> None:
        self._copy_content(self.host(src), self.host(dst))

    @staticmethod
    def _copy_content(src: str, dst: str) -> None:
        """Copy a file's bytes: both ends follow links; a new file takes the source's mode, an
        existing one keeps its own; a file copied onto itself is left alone (as libuv's
        copyfile, under Node's ``fs.copyFile``, does)."""
        with open(src, "rb") as f:
            data = f.read()
        try:
            existing = os.stat(dst)
        except OSError:
            existing = None
        if existing is not None and os.path.samestat(os.stat(src), existing):
            return
        with open(dst, "wb") as f:
            f.write(data)
        if existing is None:
            os.chmod(dst, st_mode.S_IMODE(os.stat(src).st_mode))

    def cp(self, src: str, dst: str, recursive: bool) -> None:
        """Copy ``src`` to exactly ``dst`` (Node's ``fs.cp``): links are copied as links, a
        directory needs ``recursive``, merges into an existing directory and may not be copied
        into itself (checked on the real, resolved destination); all or nothing."""
        host_src, host_dst = self.host(src), self.host(dst)
        if st_mode.S_ISDIR(os.lstat(host_src).st_mode):
            if not recursive:
                raise _error("EISDIR")
            if vpaths.is_within(self._destination(dst), self.realpath(src)):
                raise _error("EINVAL")
        self.all_or_nothing(lambda: self._copy_tree(host_src, host_dst))

    def _destination(self, dst: str) -> str:
        """Where ``dst`` really is: its parent resolved by the kernel, plus its name."""
        if self.is_root(dst):
            return "/"
        return vpaths.child(self.parent_of(dst), os.path.basename(self.host(dst).rstrip("/")))

    def _copy_tree(self, src: str, dst: str) -> None:
        mode = os.lstat(src).st_mode
        if st_mode.S_ISLNK(mode):
            self._copy_link(src, dst)
        elif not st_mode.S_ISDIR(mode):
            self._copy_content(src, dst)
        else:
            self._copy_dir(src, dst, st_mode.S_IMODE(mode))

    @staticmethod
    def _lstat_or_none(host: str) -> os.stat_result | None:
        try:
            return os.lstat(host)
        except FileNotFoundError:
            return None

    def _copy_link(self, src: str, dst: str) -> None:
        """A link replaces a non-directory at ``dst`` (a link copied onto itself stays)."""
        existing = self._lstat_or_none(dst)
        if existing is not None:
            if st_mode.S_ISDIR(existing.st_mode):
                raise _error("EISDIR")
            if os.path.samestat(os.lstat(src), existing):
                return
            os.unlink(dst)
        os.symlink(os.readlink(src), dst)

    def _copy_dir(self, src: str, dst: str, mode: int) -> None:
        existing = self._lstat_or_none(dst)
        if existing is None:
            os.mkdir(dst)
            os.chmod(dst, mode)
        elif not st_mode.S_ISDIR(existing.st_mode):
            raise _error("ENOTDIR")
        for name in sorted(os.listdir(src)):
            self._copy_tree(os.path.join(src, name), os.path.join(dst, name))

    # -- metadata and listing

    def stat(self, path: str) -> tuple:
        host = self.host(path)
        return (*self._describe(os.stat(host)), self.realpath(path))

    def lstat(self, path: str) -> tuple:
        return self._describe(os.lstat(self.host(path)))

    @staticmethod
    def _describe(result: os.stat_result) -> tuple:
        """Type, permission bits, and size (not of directories: docs/semantics.md, "Sizes")."""
        kind = _kind(result.st_mode)
        size = None if kind == "directory" else result.st_size
        return (kind, st_mode.S_IMODE(result.st_mode), size)

    def exists(self, path: str) -> bool:
        return os.path.exists(self.host(path))

    def chmod(self, path: str, mode: int) -> None:
        os.chmod(self.host(path), mode)

    def readdir(self, path: str) -> list[tuple[str, str, str]]:
        host = self.host(path)
        directory = self.realpath(path)
        entries = []
        with os.scandir(host) as listing:
            for entry in listing:
                kind = _kind(entry.stat(follow_symlinks=False).st_mode)
                entries.append((entry.name, vpaths.child(directory, entry.name), kind))
        return sorted(entries)

    def walk(self, path: str) -> list[str]:
        """Every non-directory below ``path``, links not followed (``path`` itself if it is
        not a directory), as VFS paths, sorted."""
        start = self.canonical(self.host(path))
        if not os.path.isdir(start):
            return [self.virtual(start)]
        found: list[str] = []
        self._collect(start, found)
        return sorted(self.virtual(p) for p in found)

    def _collect(self, directory: str, found: list[str]) -> None:
        with os.scandir(directory) as listing:
            for entry in listing:
                if entry.is_dir(follow_symlinks=False):
                    self._collect(entry.path, found)
                else:
                    found.append(entry.path)

    # -- whole-tree views

    def snapshot(self) -> tuple[dict[str, tuple], set[str]]:
        """The whole tree, and the files and directories whose mtime is no longer the old one.

        An entry is (type, mode, size, content) for a file, (type, mode) for a directory and
        (type, size, target) for a link."""
        tree: dict[str, tuple] = {}
        moved: set[str] = set()
        self._snapshot(self.root, "/", os.lstat(self.root), tree, moved)
        return tree, moved

    def _snapshot(self, host: str, path: str, result: os.stat_result, tree: dict[str, tuple],
                  moved: set[str]) -> None:
        kind = _kind(result.st_mode)
        if kind == "symlink":
            tree[path] = (kind, result.st_size, os.readlink(host))
            return
        if result.st_mtime_ns != OLD_MTIME_NS:
            moved.add(path)
        mode = st_mode.S_IMODE(result.st_mode)
        if kind == "file":
            with open(host, "rb") as f:
                tree[path] = (kind, mode, result.st_size, f.read())
            return
        tree[path] = (kind, mode)
        with os.scandir(host) as listing:
            for entry in listing:
                self._snapshot(entry.path, vpaths.child(path, entry.name),
                               entry.stat(follow_symlinks=False), tree, moved)

    def reset_mtimes(self, virtual_paths: set[str]) -> None:
        for path in virtual_paths:
            host = self.root if path == "/" else self.root + path
            os.utime(host, ns=(OLD_MTIME_NS, OLD_MTIME_NS), follow_symlinks=False)


# ------------------------------------------------------------------------------ the VFS side


class VfsSide:
    """The system under test behind the oracle's interface (results in the same shapes)."""

    def __init__(self) -> None:
        self.vfs = VFS.memory()
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        self.loop.close()

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def stat(self, path: str) -> tuple:
        result = self.vfs.stat(path)
        return (*self._describe(result), result.path)

    def lstat(self, path: str) -> tuple:
        return self._describe(self.vfs.lstat(path))

    @staticmethod
    def _describe(result) -> tuple:
        size = None if result.type == "directory" else result.size
        return (result.type, result.mode, size)

    def readdir(self, path: str) -> list[tuple[str, str, str]]:
        return sorted((e.name, e.path, e.type) for e in self.vfs.readdir(path, with_types=True))

    def snapshot(self) -> tuple[dict[str, tuple], set[str]]:
        """As ``LinuxOracle.snapshot``, through the public API."""
        tree: dict[str, tuple] = {}
        moved: set[str] = set()
        self._snapshot("/", tree, moved)
        return tree, moved

    def _snapshot(self, path: str, tree: dict[str, tuple], moved: set[str]) -> None:
        info = self.vfs.lstat(path)
        if info.type == "symlink":
            tree[path] = (info.type, info.size, self.vfs.readlink(path))
            return
        if info.mtime_ms != OLD_MTIME_MS:
            moved.add(path)
        if info.type == "file":
            content = self.run(self.vfs.read_file(path))
            tree[path] = (info.type, info.mode, info.size, content)
            return
        tree[path] = (info.type, info.mode)
        for name in self.vfs.readdir(path):
            self._snapshot(vpaths.child(path, name), tree, moved)

    def reset_mtimes(self, virtual_paths: set[str]) -> None:
        for path in virtual_paths:
            self.run(self.vfs.utimes(path, OLD_MTIME_MS, OLD_MTIME_MS))


# ------------------------------------------------------------------------------ the machine


class DifferentialFS(RuleBasedStateMachine):
    """Each rule is one operation kind: it draws its operands and runs it on both sides."""

    trace: list[str] | None = None  # when a list: each operation's name and drawn paths

    def __init__(self) -> None:
        super().__init__()
        self.umask = os.umask(0o022)
        self.scratch = os.path.realpath(tempfile.mkdtemp(prefix="pyvfs-diff-"))
        root = os.path.join(self.scratch, "root")
        os.mkdir(root, 0o755)
        os.utime(root, ns=(OLD_MTIME_NS, OLD_MTIME_NS))
        self.oracle = LinuxOracle(root, self.scratch)
        self.side = VfsSide()
        self.side.reset_mtimes({"/"})
        self.known: tuple[str, ...] = ("/",)

    def teardown(self) -> None:
        self.side.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.umask(self.umask)

    # -- operands

    def _path(self, data: st.DataObject, label: str = "path") -> str:
        """Two times in three a path near the current tree (an entry, its child, the entry with a
        trailing slash...), so that operations meet what earlier ones made."""
        path = data.draw(_operands(self.known), label=label)
        if DifferentialFS.trace is not None:
            DifferentialFS.trace.append(path)
        return path

    # -- comparison

    def _query(self, name: str, ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
        """A read-only operation: the answers must agree."""
        if DifferentialFS.trace is not None:
            DifferentialFS.trace.append(name)
        mine, reference = _outcome(ours), _outcome(theirs)
        assert mine == reference, f"{name}: VFS {mine!r}, Linux {reference!r}"

    def _mutation(self, name: str, ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
        """A mutation: answers, then whole trees, then which mtimes moved, must agree."""
        self._query(name, ours, theirs)
        (mine, moved), (reference, moved_ref) = self.side.snapshot(), self.oracle.snapshot()
        assert mine == reference, f"{name}: trees differ\nVFS   {mine}\nLinux {reference}"
        assert moved == moved_ref, f"{name}: mtime changed on VFS {moved}, Linux {moved_ref}"
        self.side.reset_mtimes(moved)
        self.oracle.reset_mtimes(moved_ref)
        self.known = tuple(sorted(reference))

    def _run(self, method: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
        return lambda: self.side.run(getattr(self.side.vfs, method)(*args, **kwargs))

    # -- a first tree

    @initialize(entries=st.lists(st.tuples(st.sampled_from(("file", "dir", "link")),
                                           st.sampled_from(SHALLOW), link_targets),
                                 min_size=2, max_size=8))
    def populate(self, entries: list[tuple[str, str, str]]) -> None:
        """Start from a few files, directories and links (each a compared step), so that the
        random operations that follow meet existing entries rather than ENOENT."""
        for kind, path, link_to in entries:
            if kind == "file":
                self._mutation("write_file", self._run("write_file", path, path.encode()),
                               lambda p=path: self.oracle.write_file(p, p.encode()))
            elif kind == "dir":
                self._mutation("mkdir -p", self._run("mkdir", path, recursive=True),
                               lambda p=path: self.oracle.mkdir(p, recursive=True))
            elif not self.oracle.would_escape([(0, _leading_ups(link_to))], path):
                self._mutation("symlink", self._run("symlink", link_to, path),
                               lambda p=path, t=link_to: self.oracle.symlink(t, p))

    # -- content

    @rule(data=st.data(), content=contents)
    def write_file(self, data: st.DataObject, content: bytes) -> None:
        path = self._path(data)
        self._mutation("write_file", self._run("write_file", path, content),
                       lambda: self.oracle.write_file(path, content))

    @rule(data=st.data(), content=contents)
    def append_file(self, data: st.DataObject, content: bytes) -> None:
        path = self._path(data)
        self._mutation("append_file", self._run("append_file", path, content),
                       lambda: self.oracle.append_file(path, content))

    @rule(data=st.data())
    def read_file(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("read_file", self._run("read_file", path),
                    lambda: self.oracle.read_file(path))

    @rule(data=st.data(), length=lengths)
    def truncate(self, data: st.DataObject, length: int) -> None:
        path = self._path(data)
        self._mutation("truncate", self._run("truncate", path, length),
                       lambda: self.oracle.truncate(path, length))

    @rule(data=st.data())
    def touch(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("touch", self._run("touch", path), lambda: self.oracle.touch(path))

    # -- namespace

    @rule(data=st.data())
    def mkdir(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("mkdir", self._run("mkdir", path),
                       lambda: self.oracle.mkdir(path, recursive=False))

    @rule(data=st.data())
    def mkdir_recursive(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("mkdir -p", self._run("mkdir", path, recursive=True),
                       lambda: self.oracle.mkdir(path, recursive=True))

    @rule(data=st.data())
    def rm(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("rm", self._run("rm", path),
                       lambda: self.oracle.rm(path, recursive=False, force=False))

    @rule(data=st.data())
    def rm_recursive(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("rm -r", self._run("rm", path, recursive=True),
                       lambda: self.oracle.rm(path, recursive=True, force=False))

    @rule(data=st.data(), recursive=st.booleans())
    def rm_force(self, data: st.DataObject, recursive: bool) -> None:
        path = self._path(data)
        self._mutation("rm -f", self._run("rm", path, recursive=recursive, force=True),
                       lambda: self.oracle.rm(path, recursive=recursive, force=True))

    @rule(data=st.data())
    def rmdir(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("rmdir", self._run("rmdir", path), lambda: self.oracle.rmdir(path))

    @rule(data=st.data())
    def unlink(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._mutation("unlink", self._run("unlink", path), lambda: self.oracle.unlink(path))

    @rule(data=st.data())
    def rename(self, data: st.DataObject) -> None:
        old, new = self._path(data, "old"), self._path(data, "new")
        links = [] if self.oracle.is_root(old) else self.oracle.links_below(self.oracle.host(old))
        if self.oracle.would_escape(links, new):
            event("skipped: rename would let a link climb above the sandbox")
            return
        self._mutation("rename", self._run("rename", old, new),
                       lambda: self.oracle.rename(old, new))

    @rule(data=st.data(), link_to=link_targets)
    def symlink(self, data: st.DataObject, link_to: str) -> None:
        path = self._path(data)
        if self.oracle.would_escape([(0, _leading_ups(link_to))], path):
            event("skipped: link would climb above the sandbox")
            return
        self._mutation("symlink", self._run("symlink", link_to, path),
                       lambda: self.oracle.symlink(link_to, path))

    @rule(data=st.data())
    def readlink(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("readlink", lambda: self.side.vfs.readlink(path),
                    lambda: self.oracle.readlink(path))

    @rule(data=st.data())
    def realpath(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("realpath", lambda: self.side.vfs.realpath(path),
                    lambda: self.oracle.realpath(path))

    # -- copies

    @rule(data=st.data())
    def copy_file(self, data: st.DataObject) -> None:
        src, dst = self._path(data, "src"), self._path(data, "dst")
        self._mutation("copy_file", self._run("copy_file", src, dst),
                       lambda: self.oracle.copy_file(src, dst))

    @rule(data=st.data(), recursive=st.booleans())
    def cp(self, data: st.DataObject, recursive: bool) -> None:
        src, dst = self._path(data, "src"), self._path(data, "dst")
        if self.oracle.would_escape(self.oracle.links_below(self.oracle.host(src)), dst):
            event("skipped: cp would let a link climb above the sandbox")
            return
        self._mutation("cp", self._run("cp", src, dst, recursive=recursive),
                       lambda: self.oracle.cp(src, dst, recursive))

    # -- metadata and listing

    @rule(data=st.data())
    def stat(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("stat", lambda: self.side.stat(path), lambda: self.oracle.stat(path))

    @rule(data=st.data())
    def lstat(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("lstat", lambda: self.side.lstat(path), lambda: self.oracle.lstat(path))

    @rule(data=st.data())
    def exists(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("exists", lambda: self.side.vfs.exists(path),
                    lambda: self.oracle.exists(path))

    @rule(data=st.data(), file_mode=st.sampled_from(FILE_MODES),
          dir_mode=st.sampled_from(DIR_MODES))
    def chmod(self, data: st.DataObject, file_mode: int, dir_mode: int) -> None:
        path = self._path(data)
        mode = dir_mode if os.path.isdir(self.oracle.host(path)) else file_mode
        self._mutation("chmod", self._run("chmod", path, mode),
                       lambda: self.oracle.chmod(path, mode))

    @rule(data=st.data())
    def readdir(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("readdir", lambda: self.side.readdir(path),
                    lambda: self.oracle.readdir(path))

    @rule(data=st.data())
    def walk(self, data: st.DataObject) -> None:
        path = self._path(data)
        self._query("walk", lambda: self.side.vfs.walk(path), lambda: self.oracle.walk(path))


# No example database: CI runs in fresh clones, and a failure prints its steps, enough to replay
# it (or rerun with pytest's --hypothesis-seed). Sequences are slow by Hypothesis's standards, as
# each step does real file system work on both sides: hence no deadline and no too_slow check.
# Each state machine's sequences come from a seed of its own, made from its name (not from any
# state of the process): a failure in CI reproduces alone, whatever ran before it
# (test_the_sequences_do_not_depend_on_what_ran_before). PYVFS_DIFF_RANDOM=1 draws new ones.
if not RANDOM:
    DifferentialFS = seed(name_seed("DifferentialFS"))(DifferentialFS)
DifferentialFS.TestCase.settings = settings(
    max_examples=EXAMPLES,
    derandomize=not RANDOM,
    stateful_step_count=20,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large],
)
TestDifferential = DifferentialFS.TestCase


def test_the_sequences_do_not_depend_on_what_ran_before():
    """The same operations and operands, run first and then after other random draws (the
    global generator, another Hypothesis test): a CI failure reproduces alone."""
    def sequence() -> list[str]:
        DifferentialFS.trace = []
        try:
            run_state_machine_as_test(DifferentialFS, settings=settings(
                DifferentialFS.TestCase.settings, max_examples=3))
            return DifferentialFS.trace
        finally:
            DifferentialFS.trace = None

    first = sequence()
    random.seed(os.getpid())
    random.random()

    @given(st.integers())
    @settings(max_examples=5, database=None)
    def something_else(number: int) -> None:
        random.random()

    something_else()
    assert sequence() == first and len(first) > 10
