"""Lexical path handling: every path inside the VFS is an absolute, normalized POSIX string.

Normalization here is purely lexical (``..`` pops a segment, never above ``/``); symlinks are
resolved later, by the operations layer, against the index.
"""

from __future__ import annotations

from .errors import FsError

NAME_MAX = 255
PATH_MAX = 4096


def too_long(path: str) -> bool:
    """Linux's PATH_MAX counts the terminating NUL: the longest path (or link target) is 4,095
    bytes."""
    return len(path.encode("utf-8", "surrogatepass")) >= PATH_MAX


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` is not valid Unicode text (Python strings, and JS strings handed over
    by Pyodide, may hold surrogates that UTF-8, hence storage, cannot encode)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def split_segments(path: str, syscall: str = "open") -> list[str]:
    """The segments of ``path`` after validation, without resolving ``.`` or ``..``."""
    if not isinstance(path, str):
        raise TypeError(f"path must be a string, not {type(path).__name__}")
    if not path:  # as Linux and Node: the empty path names nothing (it is not "/")
        raise FsError.of("ENOENT", syscall, path)
    if "\0" in path:
        raise FsError.of("EINVAL", syscall, path)
    if path.isascii():  # one byte a character: the lengths need no encoding (most paths)
        if len(path) >= PATH_MAX:
            raise FsError.of("ENAMETOOLONG", syscall, path)
        names = [s for s in path.split("/") if s and s != "."]
        if len(path) > NAME_MAX and any(len(name) > NAME_MAX for name in names):
            raise FsError.of("ENAMETOOLONG", syscall, path)
        return names
    if has_lone_surrogate(path):
        raise FsError.of("EINVAL", syscall, path).with_hint(
            "a name holds a lone surrogate, which UTF-8 cannot encode")
    if too_long(path):
        raise FsError.of("ENAMETOOLONG", syscall, path)
    names = [s for s in path.split("/") if s and s != "."]
    for name in names:
        if len(name.encode("utf-8", "surrogatepass")) > NAME_MAX:
            raise FsError.of("ENAMETOOLONG", syscall, path)
    return names


def segments(path: str, syscall: str = "open") -> list[str]:
    """The names of ``path`` after lexical normalization (``.``, ``..`` and repeated slashes
    folded): the names of ``normalize(path)``."""
    names = split_segments(path, syscall)
    if ".." not in names:
        return names
    parts: list[str] = []
    for segment in names:
        if segment == "..":
            if parts:
                parts.pop()
        else:
            parts.append(segment)
    return parts


def normalize(path: str, syscall: str = "open") -> str:
    """``path`` made absolute (relative to ``/``) with ``.``, ``..`` and repeated slashes folded."""
    return "/" + "/".join(segments(path, syscall))


def join(base: str, path: str) -> str:
    """``path`` resolved against the directory ``base`` (an absolute ``path`` ignores it)."""
    if path.startswith("/"):
        return normalize(path)
    return normalize(base.rstrip("/") + "/" + path)


def has_trailing_slash(path: str) -> bool:
    """True when the caller insisted on a directory, as POSIX honours: ``a/``, or ``a/.`` (which
    folds to ``a`` but must still be a directory). ``/`` itself insists on nothing."""
    insists = path.endswith("/") or path == "." or path.endswith("/.")
    return insists and any(segment not in ("", ".") for segment in path.split("/"))


def dirname(path: str) -> str:
    """The directory part of a normalized path (``/`` for ``/a``)."""
    head = path.rsplit("/", 1)[0]
    return head or "/"


def basename(path: str) -> str:
    """The last name of a path (empty for ``/``)."""
    return path.rsplit("/", 1)[-1]


def child(parent: str, name: str) -> str:
    """The path of ``name`` in the directory ``parent``."""
    return parent.rstrip("/") + "/" + name


def is_within(path: str, ancestor: str) -> bool:
    """Segment-aware prefix test: ``/a`` contains ``/a/b`` but not ``/ab``."""
    return ancestor == "/" or path == ancestor or path.startswith(ancestor.rstrip("/") + "/")
