"""The JS API's arguments as Python wants them: Node's options objects, encodings and copyFile
flags turned into the keywords of the VFS facade (py_vfs/web/webapi.py's operation table)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from ..core.errors import FsError
from .protocol import COPYFILE_EXCL, COPYFILE_FICLONE_FORCE


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
    """Node's encoding name to Python's codec; the page refused any not in protocol.ENCODINGS."""
    name = options if isinstance(options, str) else (
        options.get("encoding") if isinstance(options, dict) else None)
    return "latin-1" if name == "binary" else name


def read_file(v: Any, path: str, options: Any = None) -> Awaitable[bytes | str]:
    """``readFile``: the bytes, or the text in the options' encoding; bytes that are not
    UTF-8 become U+FFFD replacement characters, as Node decodes them (never an error)."""
    encoding = encoding_of(options)
    if encoding is None:
        return v.read_file(path)
    return _decoded(v.read_file(path), encoding)


async def _decoded(data: Awaitable[bytes], encoding: str) -> str:
    return (await data).decode(encoding, "replace")


def mode_of(options: Any) -> int | None:
    """The ``mode`` an options object gives, if any."""
    return options.get("mode") if isinstance(options, dict) else None


def copy_file(v: Any, src: str, dst: str, mode: int | None = None) -> Any:
    """Node's copyFile with its mode flags: COPYFILE_EXCL fails with EEXIST when ``dst`` exists
    (checked as the call starts), COPYFILE_FICLONE_FORCE with ENOTSUP (no reflinks here, as
    Node answers on a file system without them); COPYFILE_FICLONE falls back to a copy."""
    flags = int(mode or 0)
    if flags & COPYFILE_FICLONE_FORCE:
        raise FsError.of("ENOTSUP", "copyfile", src, dst)
    if flags & COPYFILE_EXCL:
        try:
            v.lstat(dst)
        except FileNotFoundError:
            pass
        else:
            raise FsError.of("EEXIST", "copyfile", src, dst)
    return v.copy_file(src, dst)
