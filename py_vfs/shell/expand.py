"""Word expansion done by the shell before a command runs: `~` and globbing against the VFS.

Globbing walks the pattern one path segment at a time with readdir and fnmatch, which is
enough for `*.txt`, `src/*/index.html` or `[ab]?`; like sh, a name starting with "." matches
only a segment that starts with ".", results are sorted, and a pattern that matches nothing is
kept as the literal word.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from py_vfs.shell.context import HOME, is_dir, lexists, list_names, resolve
from py_vfs.shell.parser import GLOB_CHARS, Word

if TYPE_CHECKING:
    from py_vfs.shell.disk import Disk

Segment = list[tuple[str, bool]]  # (char, quoted)


def expand_word(vfs: Disk, cwd: str, word: Word) -> list[str]:
    """The arguments one word becomes: itself with `~` expanded, or the sorted names its
    glob matches (the word as typed when nothing matches)."""
    word = _expand_tilde(word)
    if not word.has_glob:
        return [word.text]
    return _glob(vfs, cwd, word) or [word.text]


def _expand_tilde(word: Word) -> Word:
    """An unquoted leading `~` is the home directory, "/" here."""
    if not word.parts or word.parts[0][1]:
        return word
    first = word.parts[0][0]
    if first == "~" or first.startswith("~/"):
        expanded = HOME.rstrip("/") + first[1:] or "/"
        return Word(((expanded, False), *word.parts[1:]))
    return word


def _glob(vfs: Disk, cwd: str, word: Word) -> list[str]:
    text = word.text
    prefixes = ["/" if text.startswith("/") else ""]  # matches so far, each ending in "/"
    for segment in _segments(word):
        literal = "".join(char for char, _ in segment)
        if not any(char in GLOB_CHARS and not quoted for char, quoted in segment):
            prefixes = [prefix + literal + "/" for prefix in prefixes]
            continue
        pattern = _pattern(segment)
        prefixes = [
            prefix + name + "/"
            for prefix in prefixes
            for name in _names(vfs, cwd, prefix)
            if _visible(name, literal) and fnmatchcase(name, pattern)
        ]
    dirs_only = text.endswith("/")  # like sh, "*/" matches directories only, shown with "/"
    return sorted(prefix if dirs_only else prefix[:-1]
                  for prefix in prefixes if _exists(vfs, cwd, prefix, dirs_only=dirs_only))


def _segments(word: Word) -> list[Segment]:
    """Split on "/" (quoted or not, a slash always separates), dropping empty segments."""
    segments: list[Segment] = [[]]
    for char, quoted in word.chars():
        if char == "/":
            segments.append([])
        else:
            segments[-1].append((char, quoted))
    return [segment for segment in segments if segment]


def _pattern(segment: Segment) -> str:
    """An fnmatch pattern in which quoted glob characters only match themselves."""
    return "".join(f"[{char}]" if quoted and char in GLOB_CHARS else char
                   for char, quoted in segment)


def _visible(name: str, literal: str) -> bool:
    return not name.startswith(".") or literal.startswith(".")


def _names(vfs: Disk, cwd: str, prefix: str) -> list[str]:
    try:
        return list_names(vfs, resolve(cwd, prefix or "."))
    except OSError:
        return []


def _exists(vfs: Disk, cwd: str, prefix: str, *, dirs_only: bool) -> bool:
    path = resolve(cwd, prefix)
    return is_dir(vfs, path) if dirs_only else lexists(vfs, path)

