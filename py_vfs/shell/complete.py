"""Tab completion for the terminal (``vfs.complete(line, cursor)``, ``python -m py_vfs shell``).

The word under the cursor is completed as bash does: in a command's position, from the command
names (``COMMAND_SOURCES``: the registered commands, the functions, the aliases and the scripts
in $PATH and in the skills, py_vfs/shell/skills.py); after ``$``, from the variable names
(``VARIABLE_SOURCES``); elsewhere, from the paths below the current directory. Each candidate is
the text that replaces the word, quoted as the word was (backslashes, or inside the quote it
opened) and ending as bash ends it: ``/`` after a directory, else the closing quote and a space.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .commands import COMMANDS
from .context import resolve
from .format import shown_name
from .scripts import script_names

if TYPE_CHECKING:
    from .interpreter import Shell

# Where command names come from; another part appends a function of the shell.
COMMAND_SOURCES: list[Callable[[Shell], Iterable[str]]] = [
    lambda shell: COMMANDS,
    lambda shell: shell.functions,
    lambda shell: shell.aliases,
    lambda shell: script_names(shell.vfs, shell.cwd, shell.environment()),
]
# Where variable names come from (the exported ones; the language's shell variables add theirs).
VARIABLE_SOURCES: list[Callable[[Shell], Iterable[str]]] = [
    lambda shell: shell.variables.names(),
]

_OPERATORS = "|&;<>()"
# After these words a command name comes next.
_COMMAND_WORDS = {"then", "do", "else", "elif", "if", "while", "until", "!", "time", "exec"}
# Characters a bare word must escape with a backslash (as bash's completion quotes them).
_SPECIAL = set(" \t\n\\'\"$`&|;<>()*?[]{}!")


@dataclass
class Completion:
    """``line[start:cursor]`` is replaced by one of ``candidates``; ``names`` are what a
    listing of them shows (the last path component, ``/`` after a directory)."""

    start: int
    candidates: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """As the JS API answers: ``{start, candidates, names}``."""
        return {"start": self.start, "candidates": self.candidates, "names": self.names}


@dataclass
class _Word:
    start: int  # where the word begins in the line
    text: str  # its value, quotes and backslashes removed
    quote: str  # the quote still open at the cursor ("" when none)


def complete(shell: Shell, line: str, cursor: int) -> Completion:
    """The completions of the word that ends at ``cursor`` in ``line``."""
    cursor = max(0, min(cursor, len(line)))
    before = line[:cursor]
    word = _current_word(before)
    if word.quote != "'" and (found := re.search(r"\$\{?(\w*)$", word.text)) is not None:
        return _variables(shell, word, found)
    if _command_position(before[:word.start]) and "/" not in word.text:
        names = sorted({name for source in COMMAND_SOURCES for name in source(shell)
                        if name.startswith(word.text)})
        return _finish(word, [(name, name, False) for name in names])
    return _paths(shell, word)


def _current_word(text: str) -> _Word:
    start, value, quote, index = 0, [], "", 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and index + 1 < len(text) \
                    and text[index + 1] in '"\\$`':
                index += 1
                value.append(text[index])
            else:
                value.append(char)
        elif char == "\\" and index + 1 < len(text):
            index += 1
            value.append(text[index])
        elif char in "'\"":
            quote = char
        elif char.isspace() or char in _OPERATORS:
            start, value = index + 1, []
        else:
            value.append(char)
        index += 1
    return _Word(start, "".join(value), quote)


def _command_position(before: str) -> bool:
    stripped = before.rstrip()
    if not stripped or stripped[-1] in "|&;(":
        return True
    return stripped.split()[-1] in _COMMAND_WORDS


def _variables(shell: Shell, word: _Word, found: re.Match[str]) -> Completion:
    head = word.text[:found.start(1)]
    braced = head.endswith("{")
    names = sorted({name for source in VARIABLE_SOURCES for name in source(shell)
                    if name.startswith(found.group(1))})
    close = ("}" if braced else "") + word.quote + " "
    return Completion(word.start, [word.quote + head + name + close for name in names], names)


def _paths(shell: Shell, word: _Word) -> Completion:
    folder, _, base = word.text.rpartition("/")
    folder = folder + "/" if "/" in word.text else ""
    looked_up = folder
    if word.text.startswith("~") and (folder == "~/" or folder.startswith("~/")):
        looked_up = (shell.environment().get("HOME") or "/").rstrip("/") + folder[1:]
    try:
        directory = resolve(shell.cwd, looked_up or ".")
        entries = shell.vfs.readdir(directory, with_types=True)
    except OSError:
        return Completion(word.start)
    found = []
    for entry in entries:
        name = getattr(entry, "name", entry)
        if not name.startswith(base) or (name.startswith(".") and not base.startswith(".")):
            continue
        is_dir = _is_dir(shell, posixpath.join(directory, name), entry)
        found.append((folder + name, name + ("/" if is_dir else ""), is_dir))
    return _finish(word, sorted(found))


def _is_dir(shell: Shell, path: str, entry: Any) -> bool:
    kind = getattr(entry, "type", None)
    if kind == "directory":
        return True
    if kind != "symlink":
        return False
    try:
        return shell.vfs.stat(path).type == "directory"
    except OSError:
        return False


def _finish(word: _Word, found: list[tuple[str, str, bool]]) -> Completion:
    """Quote each (value, name, is_dir) as the word is quoted, and end it as bash does."""
    candidates = []
    for value, _, is_dir in found:
        text = _quote(value, word.quote)
        candidates.append(text + ("/" if is_dir else word.quote + " "))
    return Completion(word.start, candidates, [shown_name(name) for _, name, _ in found])


def _quote(value: str, quote: str) -> str:
    """``value`` as shell text inside ``quote``; a character a terminal would interpret is
    written ``$'\\ooo'`` (outside the quote), so the line shows it and the shell reads it."""
    if quote == "'":
        parts = ["'\\''" if char == "'" else char for char in value]
    elif quote == '"':
        parts = ["\\" + char if char in '"\\$`' else char for char in value]
    else:
        parts = ["\\" + char if char in _SPECIAL and shown_name(char) == char else char
                 for char in value]
        if value[:1] in ("#", "~") and not value.startswith("~/"):
            parts[0] = "\\" + parts[0]
    return quote + "".join(part if shown_name(part) == part else quote + _ansi_c(part) + quote
                           for part in parts)


def _ansi_c(char: str) -> str:
    """``$'\\033'``: a character as the octal of its UTF-8 bytes, in bash's ANSI-C quotes."""
    return "$'" + "".join("\\" + format(byte, "03o")
                          for byte in char.encode("utf-8", "surrogatepass")) + "'"
