"""The calls of Node's ``fs/promises`` that the disk answers through its other operations:
``access``, ``mkdtemp``, ``chown``/``lchown``, ``lutimes``, ``statfs``, ``link``, a recursive
``readdir`` and a recursive ``mkdir`` that says what it made, each with Node's result and its
errors' ``syscall`` (docs/api.md, "node:fs/promises, method by method").
"""

from __future__ import annotations

import os
import string
from typing import Any

from ..core import paths
from ..core.errors import FsError
from .protocol import FS_CONSTANTS, OWNER_ID

_TEMP_LETTERS = string.ascii_letters + string.digits
# statfs: the block size reported, and the type (Node's `type` is the file system's magic;
# this one spells "pyvf").
BLOCK = 4096
STATFS_TYPE = 0x70797666


def _stat_as(v: Any, path: str, syscall: str, follow: bool = True) -> Any:
    """``stat`` (or ``lstat``) with the errors of ``syscall``."""
    try:
        return v.stat(path) if follow else v.lstat(path)
    except FsError as error:
        raise FsError.of(error.code, syscall, path) from None


def access(v: Any, path: str, mode: int | None = None) -> None:
    """``access(path, mode)``: ENOENT when missing, EACCES when the owner's permission bits
    lack one asked for (the one user owns every file), EINVAL for bits beyond ``R|W|X``."""
    wanted = int(mode or 0)
    if wanted & ~7:
        raise FsError.of("EINVAL", "access", path)
    st = _stat_as(v, path, "access")
    owner = (st.mode >> 6) & 7
    checks = ((FS_CONSTANTS["R_OK"], 4), (FS_CONSTANTS["W_OK"], 2), (FS_CONSTANTS["X_OK"], 1))
    if any(wanted & bit and not owner & have for bit, have in checks):
        raise FsError.of("EACCES", "access", path)


async def mkdtemp(v: Any, prefix: str, options: Any = None) -> str:
    """``mkdtemp(prefix)``: makes ``prefix`` + six random letters and digits, a new directory
    (mode 0700), and resolves to its path."""
    for _ in range(100):
        name = prefix + "".join(_TEMP_LETTERS[b % len(_TEMP_LETTERS)] for b in os.urandom(6))
        try:
            await v.mkdir(name, mode=0o700)
        except FileExistsError:
            continue
        except FsError as error:
            raise FsError.of(error.code, "mkdtemp", name) from None
        return name
    raise FsError.of("EEXIST", "mkdtemp", prefix + "XXXXXX")


def chown(v: Any, path: str, uid: int, gid: int, *, follow: bool = True) -> None:
    """``chown``/``lchown`` as for a user who is not root: the owner every file has
    (``OWNER_ID``) or -1 (unchanged) is accepted and changes nothing; another is EPERM."""
    syscall = "chown" if follow else "lchown"
    _stat_as(v, path, syscall, follow)
    if any(value not in (-1, OWNER_ID) for value in (uid, gid)):
        raise FsError.of("EPERM", syscall, path)


async def lutimes(v: Any, path: str, atime_ms: float, mtime_ms: float) -> None:
    """``lutimes``: the times of the entry itself. A link's own times are not kept (the disk
    has no such field): ENOTSUP for a link, as for an operation the file system lacks."""
    if _stat_as(v, path, "lutime", follow=False).is_symlink:
        raise FsError.of("ENOTSUP", "lutime", path)
    await v.utimes(path, atime_ms, mtime_ms)


async def statfs(v: Any, path: str, options: Any = None) -> dict[str, int]:
    """``statfs``: blocks of ``BLOCK`` bytes from the disk's usage and the origin's quota (a
    quota the browser does not tell counts as the bytes stored), files from its node count."""
    _stat_as(v, path, "statfs")
    usage = await v.usage()
    used = (usage.store_bytes or usage.stored_bytes or 0) // BLOCK
    total = (usage.quota_bytes or 0) // BLOCK or used
    free = max(total - used, 0)
    nodes = usage.files + usage.directories + usage.symlinks
    return {"type": STATFS_TYPE, "bsize": BLOCK, "blocks": total, "bfree": free,
            "bavail": free, "files": nodes + 2 ** 20, "ffree": 2 ** 20}


def link(v: Any, existing: str, new: str) -> None:
    """``link``: the disk has no hard links. The errors Linux checks first stay as Linux's
    (ENOENT for a missing source or parent, EEXIST for a taken name), then EPERM, as Linux
    answers on a file system without hard links (and for a directory)."""
    try:
        v.lstat(existing)
    except FsError as error:
        raise FsError.of(error.code, "link", existing, new) from None
    if v.exists(new) or _is_link(v, new):
        raise FsError.of("EEXIST", "link", existing, new)
    if not v.exists(paths.dirname(paths.normalize(new))):
        raise FsError.of("ENOENT", "link", existing, new)
    raise FsError.of("EPERM", "link", existing, new)


def _is_link(v: Any, path: str) -> bool:
    try:
        return v.lstat(path).is_symlink
    except FsError:
        return False


def readdir_tree(v: Any, path: str, options: Any = None) -> list[Any]:
    """``readdir(path, {recursive: true})`` in Node 20's order: the entries of ``path``, then,
    directory by directory in the order they were listed, the entries of each (breadth first);
    names relative to ``path``, or entries ``{name, path, type}`` with
    ``withFileTypes``."""
    typed = isinstance(options, dict) and bool(options.get("withFileTypes"))
    top = paths.normalize(path)
    out: list[Any] = []
    queue = [(top, "")]
    while queue:
        directory, relative = queue.pop(0)
        for entry in v.readdir(directory, with_types=True):
            name = f"{relative}/{entry.name}" if relative else entry.name
            out.append({"name": entry.name, "path": paths.child(directory, entry.name),
                        "type": entry.type} if typed else name)
            if entry.type == "directory":
                queue.append((paths.join(directory, entry.name), name))
    return out


async def mkdir(v: Any, path: str, recursive: bool, mode: int | None) -> str | None:
    """``mkdir``: with ``recursive``, resolves to the first directory it made (None when all
    existed), as Node's."""
    first = None
    if recursive:
        at = paths.normalize(path)
        while at != "/" and not v.exists(at) and not _is_link(v, at):
            first, at = at, paths.dirname(at)
    await v.mkdir(path, recursive=recursive, mode=mode)
    return first


async def rm(v: Any, path: str, recursive: bool, force: bool) -> None:
    """``rm`` with Node's errors: a missing path is ENOENT of ``lstat`` (what Node asks
    first), a directory without ``recursive`` EISDIR (Node's SystemError ERR_FS_EISDIR) even
    when empty."""
    try:
        st = v.lstat(path)
    except FileNotFoundError:
        # The disk's or the view's own answer first: a view refuses a path outside its writable
        # ones (EACCES) whether it can see it or not; ``force`` silences a missing one.
        try:
            await v.rm(path, recursive=recursive, force=force)
        except FileNotFoundError:
            raise FsError.of("ENOENT", "lstat", path) from None
        return
    if st.is_dir and not recursive:
        raise FsError.of("EISDIR", "rm", path)
    await v.rm(path, recursive=recursive, force=force)
