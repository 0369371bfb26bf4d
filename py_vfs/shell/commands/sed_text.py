"""The text level of sed's script: what a command is (``Command``, ``Address``), the cursor
over the script's text with GNU's error locations, and the parts read as text rather than as
commands: delimited regexes, `s` (its flags and replacement) and `y`, and the regex
translation (``compile_regex``). sed_script.Parser derives from ``TextParser`` and reads the
commands and addresses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .posix_re import BadPattern, translate

ESCAPES = {"n": "\n", "t": "\t", "a": "\a", "f": "\f", "v": "\v", "r": "\r"}


class ScriptError(Exception):
    """A script sed cannot read: `sed: -e expression #1, char N: message`, status 1 (4 for
    a label that is missing, found after the whole script is read, as GNU)."""

    status = 1


@dataclass
class Address:
    """One address: a line, `first~step`, `$`, or a regex (None: the last one used)."""

    kind: str  # "line", "step", "last", "regex", "zero"
    line: int = 0
    step: int = 0
    regex: re.Pattern[str] | None = None


@dataclass
class Command:
    """One command with its addresses; ``state`` is its range's ("idle", "active",
    ``end`` the line an `addr,+N` or `addr,~N` range ends at."""

    name: str
    first: Address | None = None
    second: Address | None = None  # kind "plus" / "tilde" for `+N` / `~N`
    negate: bool = False
    text: str = ""  # a, i, c text; r R w W file name; b t T label; y source
    target: int = -1  # b t T: index to jump to ({: the index after its }); -1 the end
    number: int = -1  # q Q exit status, l line length, s occurrence
    regex: re.Pattern[str] | None = None  # s (None: the last regex used)
    replacement: list[tuple[str, str]] = field(default_factory=list)
    every: bool = False
    print_: int = 0  # s///p: how many p flags
    table: dict[int, str] = field(default_factory=dict)  # y
    state: str = "idle"
    end: int = 0


class TextParser:
    """The cursor over the script's text (``text``, ``at``, ``starts``, ``extended``,
    ``seen_regex``: set by sed_script.Parser) and the text-level grammar."""

    text: str
    at: int
    starts: list[tuple[int, str]]
    extended: bool
    seen_regex: bool

    def _fail(self, message: str, at: int | None = None) -> ScriptError:
        """The error at ``at`` (default: after the character just read), located as GNU
        locates it: `-e expression #N, char C` or `file F line L`."""
        at = min(self.at if at is None else at, len(self.text))
        start, where = self.starts[0]
        for begin, name in self.starts:
            if begin <= max(at - 1, 0):
                start, where = begin, name
        if where.startswith("file "):
            line = self.text.count("\n", start, max(at - 1, start)) + 1
            return ScriptError(f"{where} line {line}: {message}")
        return ScriptError(f"{where}, char {at - start}: {message}")

    def _peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def _take(self) -> str:
        char = self._peek()
        self.at += 1
        return char

    def _skip(self, chars: str = " \t") -> None:
        while self._peek() and self._peek() in chars:
            self.at += 1

    def _number(self) -> int:
        start = self.at
        while self._peek().isdigit():
            self.at += 1
        return int(self.text[start:self.at])

    def _delimited(self, delimiter: str, unterminated: str) -> str:
        """Text up to the unescaped ``delimiter`` (consumed): `\\delimiter` is the character
        itself, `\\n` a newline, other escapes kept for the regex translation."""
        out = []
        while True:
            char = self._take()
            if not char:
                raise self._fail(unterminated)
            if char == delimiter:
                return "".join(out)
            if char == "\\":
                nxt = self._take()
                if not nxt:
                    raise self._fail(unterminated)
                if nxt == delimiter:
                    special = ".*[]^$\\" + ("+?(){}|" if self.extended else "")
                    out.append("\\" + nxt if nxt in special else nxt)
                elif nxt == "\n" or nxt in "nt":
                    out.append(ESCAPES.get(nxt, "\n"))
                else:
                    out.append("\\" + nxt)
            elif char == "\n" and delimiter != "\n":
                raise self._fail(unterminated)
            elif char == "[":
                out.append(self._bracket())
            else:
                out.append(char)

    def _bracket(self) -> str:
        """A bracket expression inside a regex, where the delimiter is not special."""
        start = self.at - 1
        if self._peek() == "^":
            self.at += 1
        if self._peek() == "]":
            self.at += 1
        while self._peek() and self._peek() != "]":
            if self.text.startswith(("[:", "[.", "[="), self.at):
                end = self.text.find(self.text[self.at + 1] + "]", self.at + 2)
                if end > 0:
                    self.at = end + 2
                    continue
            if self._peek() == "\n":
                break
            self.at += 1
        if self._peek() == "]":
            self.at += 1
            return self.text[start:self.at]
        self.at = start + 1  # no closing bracket: translate reports it
        return "["

    def _compile(self, pattern: str, flags: str) -> re.Pattern[str] | None:
        """The regex (None for the empty one: the last regex used)."""
        if not pattern:
            if not self.seen_regex:
                raise self._fail("no previous regular expression", 0)
            return None
        self.seen_regex = True
        return compile_regex(pattern, self.extended, flags, self._fail)

    def _substitution(self, command: Command) -> None:
        delimiter = self._take()
        if not delimiter or delimiter in "\n\\":
            raise self._fail("unterminated `s' command")
        pattern = self._delimited(delimiter, "unterminated `s' command")
        command.replacement = self._replacement(delimiter)
        flags = ""
        while True:
            char = self._peek()
            if not char:
                break
            if char == "g":
                command.every = True
            elif char == "p":
                command.print_ += 1
            elif char in "iI":
                flags += "I"
            elif char in "mM":
                flags += "M"
            elif char.isdigit():
                if command.number >= 0:
                    raise self._fail("multiple number options to `s' command")
                command.number = self._number()
                if command.number == 0:
                    raise self._fail("number option to `s' command may not be zero")
                continue
            elif char == "e":
                raise self._fail("e command not supported (no processes here)")
            elif char == "w":
                self.at += 1
                command.text = self._filename()
                break
            else:
                break
            self.at += 1
        command.regex = self._compile(pattern, flags)
        command.number = max(command.number, 1)
        self._skip()
        if self._peek() and self._peek() not in ";\n}#":
            self.at += 1
            raise self._fail("unknown option to `s'")

    def _replacement(self, delimiter: str) -> list[tuple[str, str]]:
        """The parts of a replacement: ("text", s), ("group", "0".."9"), ("case", "U"...)."""
        parts: list[tuple[str, str]] = []
        while True:
            char = self._take()
            if not char:
                raise self._fail("unterminated `s' command")
            if char == delimiter:
                return parts
            if char == "&":
                parts.append(("group", "0"))
            elif char == "\\":
                nxt = self._take()
                if not nxt:
                    raise self._fail("unterminated `s' command")
                if nxt.isdigit():
                    parts.append(("group", nxt))
                elif nxt in "LUluE":
                    parts.append(("case", nxt))
                elif nxt == "\n":
                    parts.append(("text", "\n"))
                else:
                    parts.append(("text", ESCAPES.get(nxt, nxt) if nxt != delimiter else nxt))
            elif char == "\n" and delimiter != "\n":
                raise self._fail("unterminated `s' command")
            else:
                parts.append(("text", char))

    def _transliteration(self, command: Command) -> None:
        delimiter = self._take()
        if not delimiter or delimiter in "\n\\":
            raise self._fail("unterminated `y' command")
        sides = []
        for _ in range(2):
            out = []
            while True:
                char = self._take()
                if not char:
                    raise self._fail("unterminated `y' command")
                if char == delimiter:
                    break
                if char == "\\":
                    nxt = self._take()
                    if nxt == delimiter or nxt == "\\":
                        out.append(nxt)
                    elif nxt in ESCAPES:
                        out.append(ESCAPES[nxt])
                    elif nxt == "\n":
                        out.append("\n")
                    else:
                        raise self._fail("unterminated `y' command")
                else:
                    out.append(char)
            sides.append(out)
        if len(sides[0]) != len(sides[1]):
            raise self._fail("strings for `y' command are different lengths")
        command.table = {ord(a): b for a, b in zip(*sides, strict=True)}


def compile_regex(pattern: str, extended: bool, flags: str,
                  fail: object = None) -> re.Pattern[str]:
    """A sed regex (BRE, or ERE when ``extended``) compiled; ``flags`` holds I and M."""
    python_flags = re.IGNORECASE if "I" in flags else 0
    python_flags |= re.MULTILINE if "M" in flags else re.DOTALL
    try:
        text = _end_anchors(translate(pattern, extended=extended), "M" in flags)
        return re.compile(text, python_flags)
    except (BadPattern, re.error) as exc:
        message = str(exc)
        if callable(fail):
            raise fail(message) from None
        raise ScriptError(message) from None


def _end_anchors(text: str, multiline: bool) -> str:
    """Python's `$` also matches before a final newline; sed's only at the end (or, with M,
    before any newline, which is Python's multi-line `$`)."""
    if multiline:
        return text
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        if char == "[":
            close = text.find("]", i + (3 if text.startswith("[^", i) else 2))
            close = len(text) - 1 if close < 0 else close
            out.append(text[i:close + 1])
            i = close + 1
            continue
        out.append("\\Z" if char == "$" else char)
        i += 1
    return "".join(out)
