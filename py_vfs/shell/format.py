"""How `ls -l` and `stat` show a node: the shapes users know from coreutils.

The VFS has no users, groups or hard links, so every node is owned by "user" with one link.
"""

from __future__ import annotations

import stat as stat_module
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..core.node import Stat

OWNER = "user"
TYPE_BITS = {
    "file": stat_module.S_IFREG,
    "directory": stat_module.S_IFDIR,
    "symlink": stat_module.S_IFLNK,
}
SIX_MONTHS_MS = 31_556_952_000 // 2  # GNU ls: half a Gregorian year


def mode_string(node: Stat) -> str:
    """`drwxr-xr-x`: the type letter comes from the node's type, the rest from its mode."""
    return stat_module.filemode(TYPE_BITS.get(node.type, 0) | (node.mode & 0o7777))


def long_lines(entries: list[tuple[str, Stat, str | None]],
               size: Callable[[int], str] | None = None) -> list[str]:
    """One `ls -l` line per (name, node, symlink target), the size column as wide as its
    widest entry, as GNU ls aligns it; ``size`` formats the size (`ls -lh`: ``human``), else
    it is in bytes."""
    sizes = [(size or str)(node.size) for _, node, _ in entries]
    width = max([0, *(len(shown) for shown in sizes)])
    now = time.time() * 1000
    lines = []
    for (name, node, target), shown_size in zip(entries, sizes, strict=True):
        shown = name if target is None else f"{name} -> {target}"
        lines.append(f"{mode_string(node)} 1 {OWNER} {OWNER} "
                     f"{shown_size:>{width}} {ls_time(node.mtime_ms, now)} {shown}")
    return lines


def total_blocks(nodes: list[Stat]) -> int:
    """The `total` line of `ls -l`: space used, in 1 KiB blocks."""
    return sum(-(-node.size // 1024) for node in nodes)


def ls_time(ms: float, now: float) -> str:
    """The time column of `ls -l`, in local time, as GNU ls shows it: `Nov  3 18:43` within
    six months before ``now``, `Nov  3  2023` for anything older or in the future."""
    recent = now - SIX_MONTHS_MS <= ms <= now
    return time.strftime("%b %e %H:%M" if recent else "%b %e  %Y", time.localtime(ms / 1000))


# ------------------------------------------------------------------ names on a terminal
# Names and messages reach the terminal (xterm.js) as they are, so a control character in a
# name could erase lines, retitle the window or make the terminal answer a query into the
# prompt. Every name the shell prints goes through ``quote_name`` (or ``quote_arg`` inside a
# message), GNU ls's `--quoting-style=shell-escape` (coreutils 9.1's quotearg, without the bug
# that doubles a leading '' when a name holds both ' and a control character): a name that the
# shell would read as it is stays bare, others are single-quoted, and a character the terminal
# would interpret becomes $'\033' (\a \b \f \n \r \t \v by name, others as the octal of their
# UTF-8 bytes). "Printable" is Python's str.isprintable(), stricter than glibc's: format
# characters (U+202E...) and non-ASCII spaces are escaped too, where GNU ls shows them raw.

_LETTERS = {"\a": "a", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t", "\v": "v"}
_SHELL_SPECIAL = set(" !\"$&()*;<=>[^`|?\\'")
_BARE_SAFE = set("%+,-./0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ]_abcdefghijklmnopqrstuvwxyz@")


def _printable(char: str) -> bool:
    return char.isprintable() or char == " "


def _needs_quotes(name: str) -> bool:
    if not name or name[0] in "#~" or name in ("{", "}"):
        return True
    return any(char in _SHELL_SPECIAL or not _printable(char) for char in name)


def quote_name(name: str) -> str:
    """``name`` as GNU ls shows it on a terminal (shell-escape): bare when safe."""
    if not _needs_quotes(name):
        return name
    return quote_arg(name)


def quote_arg(name: str) -> str:
    """``name`` always quoted (shell-escape-always), as coreutils' messages quote operands:
    ``'plain'``, ``"it's"``, ``'a'$'\\033''b'``."""
    if "'" in name and all(_printable(char) and char not in '?\\!"$&()*;<=>[^`|'
                           and (char not in "{}" or name == char)
                           and (char not in "#~" or index == 0)
                           for index, char in enumerate(name)):
        return f'"{name}"'
    out = ["'"]
    escaping = False  # inside a $'...' section
    for char in name:
        if char == "'":
            out.append("'\\''")
            escaping = False
        elif char in _LETTERS or not _printable(char):
            if not escaping:
                out.append("'$'")
                escaping = True
            if char in _LETTERS:
                out.append("\\" + _LETTERS[char])
            else:
                out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogatepass"))
        else:
            if escaping:
                out.append("''")
                escaping = False
            out.append(char)
    out.append("'")
    return "".join(out)


def shown_name(name: str) -> str:
    """A name a command prints as its data, one a line (find, grep's file names, wc, the
    checksums, readlink, realpath, scoops; the prompt's cwd and Tab's listing): as it is, as
    GNU prints it, unless it holds a character a terminal would interpret; then quoted as ls
    quotes it (``'a'$'\\033''b'``), whether the output is a terminal or not, so no pipeline
    (``find | head``) carries it raw to the screen. Null-separated outputs (``-print0``,
    ``-z``) are for programs and print names raw."""
    return name if all(map(_printable, name)) else quote_arg(name)


def visible(text: str) -> str:
    """Free text (a message, a hint) with every character a terminal would interpret written
    as ``\\ooo`` octal of its UTF-8 bytes, newlines included: one line, nothing hidden."""
    if all(_printable(char) for char in text):
        return text
    return "".join(char if _printable(char) else
                   "".join(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogatepass"))
                   for char in text)
