"""The JS API's arguments as Python wants them: Node's options objects, encodings and copyFile
flags turned into the keywords of the VFS facade (py_vfs/web/webapi.py's operation table)."""

from __future__ import annotations

import posixpath
from collections.abc import Awaitable, Callable
from typing import Any

from ..core.errors import FsError
from .encodings import decode, encode
from .open_flags import read_with, write_with
from .protocol import COPYFILE_EXCL, COPYFILE_FICLONE_FORCE

# A plain writeFile's data, mode and digests (``plain_write``).
PlainWrite = tuple[bytes | str, int | None, list[str] | None]


def flag(options: Any, name: str) -> bool:
    """Whether the options object sets ``name`` (a missing object sets nothing)."""
    return bool(options.get(name)) if isinstance(options, dict) else False


def grep_options(options: Any) -> dict[str, Any]:
    """JS camelCase options to the Python keywords of ``VFS.grep``."""
    names = {"regex": "regex", "ignoreCase": "ignore_case", "include": "include",
             "maxResults": "max_results", "maxFileSize": "max_file_size"}
    if not isinstance(options, dict):
        return {}
    return {names[k]: v for k, v in options.items() if k in names and v is not None}


def gc_options(options: Any) -> dict[str, Any]:
    """``{graceMs}`` as the keyword of ``VFS.gc``."""
    grace = options.get("graceMs") if isinstance(options, dict) else None
    return {} if grace is None else {"grace_ms": float(grace)}


def encoding_of(options: Any) -> str | None:
    """The encoding an options argument names (a string is one), if any."""
    return options if isinstance(options, str) else (
        options.get("encoding") if isinstance(options, dict) else None)


def read_file(v: Any, path: str, options: Any = None) -> Awaitable[bytes | str]:
    """``readFile``: the bytes, or the text in the options' encoding (py_vfs/web/encodings.py;
    bytes that are not UTF-8 become U+FFFD, as Node decodes them, never an error), read with
    the options' ``flag`` (py_vfs/web/open_flags.py)."""
    file_flag = options.get("flag") if isinstance(options, dict) else None
    data = v.read_file(path) if file_flag in (None, "r") else read_with(v, path, file_flag)
    encoding = encoding_of(options)
    return _decoded(data, encoding)


async def _decoded(data: Awaitable[bytes], encoding: str | None) -> bytes | str:
    try:
        content = await data
    except IsADirectoryError:  # Node's read(2) of a directory names no path
        raise FsError.of("EISDIR", "read") from None
    return content if encoding is None else decode(content, encoding)


def written(v: Any, path: str, data: bytes | str, options: Any = None, *,
            append: bool = False) -> Awaitable[None]:
    """``writeFile`` (``appendFile`` with ``append``): text in the options' encoding, with
    their ``mode`` and ``flag``. The worker adds the chunks' sha256 to a plain writeFile's
    options as "digests" (web/worker/worker.mjs)."""
    plain = None if append else plain_write(data, options)
    if plain is not None:
        data, mode, digests = plain
        return v.write_file(path, data, mode=mode, digests=digests, parents=False)
    data = _in_encoding(data, options)
    file_flag = options.get("flag") if isinstance(options, dict) else None
    if file_flag is None and mode_of(options) is None:
        return v.append_file(path, data)
    return write_with(v, path, encode(data, None) if isinstance(data, str) else bytes(data),
                      file_flag, mode_of(options), append=append)


def plain_write(data: bytes | str, options: Any = None) -> PlainWrite | None:
    """A ``writeFile`` with no ``flag`` (replace or create, its parents not made): its data in
    the options' encoding, its mode and digests; None when a flag asks for more."""
    if isinstance(options, dict) and options.get("flag") is not None:
        return None
    digests = options.get("digests") if isinstance(options, dict) else None
    return _in_encoding(data, options), mode_of(options), digests


def _in_encoding(data: bytes | str, options: Any) -> bytes | str:
    """Text in the options' encoding as bytes (UTF-8 text stays text: the VFS encodes it)."""
    if isinstance(data, str):
        encoding = encoding_of(options)
        if encoding not in (None, "utf8", "utf-8"):
            return encode(data, encoding)
    return data


def mode_of(options: Any) -> int | None:
    """The ``mode`` an options object gives, if any."""
    return options.get("mode") if isinstance(options, dict) else None


def copy_file(v: Any, src: str, dst: str, mode: int | None = None) -> Any:
    """Node's copyFile with its mode flags, its checks in the order of libuv's
    ``uv_fs_copyfile`` on Linux: the source is opened (ENOENT, ENOTDIR...; a directory opens),
    then the destination (``O_EXCL`` with COPYFILE_EXCL: EEXIST when it exists; EISDIR for a
    directory; ENOENT or ENOTDIR for its folder), then the bytes are copied: a directory as the
    source fails there with EISDIR, and COPYFILE_FICLONE_FORCE with ENOTSUP (no reflinks here).
    Those two change nothing, where libuv empties and removes the destination it opened
    (docs/api.md, "Differences from Node"). COPYFILE_FICLONE falls back to a copy."""
    flags = int(mode or 0)

    def failure(code: str) -> FsError:
        return FsError.of(code, "copyfile", src, dst)

    try:
        source = v.stat(src)
    except FsError as error:
        raise failure(error.code) from None
    if flags & COPYFILE_EXCL and _found(v, dst, follow=False, failure=failure) is not None:
        raise failure("EEXIST")
    if not (source.is_dir or flags & COPYFILE_FICLONE_FORCE):
        return _copied(v, src, dst)
    target = _found(v, dst, follow=True, failure=failure)
    if target is not None and target.is_dir:
        raise failure("EISDIR")
    if target is None and _found(v, dst, follow=False, failure=failure) is None:
        folder = _found(v, posixpath.dirname(dst) or "/", follow=True, failure=failure)
        if folder is None:
            raise failure("ENOENT")
        if not folder.is_dir:
            raise failure("ENOTDIR")
    raise failure("EISDIR" if source.is_dir else "ENOTSUP")


def _found(v: Any, path: str, *, follow: bool, failure: Callable[[str], FsError]) -> Any:
    """The stat (``follow``) or lstat of ``path``, None when nothing is there; another error
    (a file or a loop on the way) as ``failure`` of its code."""
    try:
        return v.stat(path) if follow else v.lstat(path)
    except FileNotFoundError:
        return None
    except FsError as error:
        raise failure(error.code) from None


async def _copied(v: Any, src: str, dst: str) -> None:
    try:
        await v.copy_file(src, dst)
    except FsError as error:  # Node names both paths
        raise FsError.of(error.code, "copyfile", src, dst) from None
