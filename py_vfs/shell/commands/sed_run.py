"""sed's execution: the cycle over the input lines with the pattern and hold spaces, as GNU
sed 4.9 runs a script (``sed_script`` reads it).

The editor is a generator that yields every ``STEPS`` commands so the caller can write what is
ready and let Ctrl-C in (`:a;ba` loops forever in GNU sed too); the pattern and hold spaces are
held to ``MAX_SPACE`` characters (GNU stops with status 4 when memory runs out).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .sed_script import Address, Command

STEPS = 4096  # commands run between two yields
MAX_SPACE = 64 << 20  # characters in the pattern or hold space
MAX_OUTPUT = 256 << 20  # characters held for one file (-i, w) before it is written


class SedFatal(Exception):
    """sed stops: `sed: MESSAGE` and ``status`` (4: GNU's for a resource it runs out of)."""

    def __init__(self, message: str, status: int = 4) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Sink:
    """Text going to stdout or a file; a line printed without its newline (the input's last
    line lacked one) gets it before anything else is printed after it, as GNU does."""

    newline: str = "\n"
    parts: list[str] = field(default_factory=list)
    size: int = 0
    missing: bool = False
    bounded: bool = True

    def emit(self, text: str, end: bool = True) -> None:
        """Print ``text`` and, unless ``end`` is False, the line's end."""
        if self.missing:
            self.parts.append(self.newline)
        self.parts.append(text)
        if end:
            self.parts.append(self.newline)
        self.missing = not end
        self.size += len(text) + 1
        if self.bounded and self.size > MAX_OUTPUT:
            raise SedFatal("couldn't write: output too large")

    def raw(self, text: str) -> None:
        """Print ``text`` as it is (what `r` reads)."""
        if self.missing:
            self.parts.append(self.newline)
        self.parts.append(text)
        self.missing = False
        self.size += len(text)

    def take(self) -> str:
        """What was printed since the last take."""
        text = "".join(self.parts)
        self.parts.clear()
        self.size = 0
        return text


@dataclass
class Source:
    """The input lines of one stream (one file with -s/-i, else all files in a row): (text,
    file name, whether the line ended with the separator)."""

    lines: list[tuple[str, str, bool]]
    at: int = 0

    def next(self) -> tuple[str, str, bool] | None:
        """The next line, or None at the end."""
        if self.at >= len(self.lines):
            return None
        self.at += 1
        return self.lines[self.at - 1]

    def done(self) -> bool:
        """Whether the line read last was the last one (`$`)."""
        return self.at >= len(self.lines)


def split_lines(data: str, name: str, separator: str) -> list[tuple[str, str, bool]]:
    """``data`` cut into lines at ``separator``."""
    pieces = data.split(separator)
    last = pieces.pop()
    lines = [(piece, name, True) for piece in pieces]
    if last:
        lines.append((last, name, False))
    return lines


class Editor:
    """Runs the commands; ``files`` holds what `r`/`R` read (name -> text) and gets what `w`
    writes (``written``: name -> Sink); ``stdout`` is where output goes."""

    def __init__(self, commands: list[Command], quiet: bool, separator: str, wrap: int,
                 files: dict[str, str | None], stdout: Sink) -> None:
        self.commands, self.quiet, self.separator, self.wrap = commands, quiet, separator, wrap
        self.files, self.stdout = files, stdout
        self.written: dict[str, Sink] = {}
        self.hold = ""
        self.last_regex: re.Pattern[str] | None = None
        self.status: int | None = None  # set by q/Q: stop after this line
        self.read_lines: dict[str, int] = {}  # R: lines read from each file
        for command in commands:
            if command.name in "wW" or (command.name == "s" and command.text):
                self._sink(command.text)

    def _sink(self, name: str) -> Sink:
        """Where `w NAME` writes (`/dev/stdout`: the output)."""
        if name == "/dev/stdout":
            return self.stdout
        if name not in self.written:
            self.written[name] = Sink(self.separator)
        return self.written[name]

    def run(self, source: Source, out: Sink) -> Iterator[None]:
        """Edit the lines of ``source`` into ``out``; yields now and then (see STEPS)."""
        for command in self.commands:
            command.state = "active" if command.first and command.first.kind == "zero" \
                else "idle"
        self.number = 0
        self.source, self.out = source, out
        self.appends: list[tuple[str, str]] = []
        steps = 0
        restart = None  # the pattern space D left
        while self.status is None:
            if restart is None:
                if not self._read():
                    return
            else:
                self.space, restart = restart, None
            self.replaced = False
            pc, autoprint = 0, not self.quiet
            while 0 <= pc < len(self.commands):
                steps += 1
                if steps % STEPS == 0:
                    yield
                command = self.commands[pc]
                pc += 1
                if not self._selects(command):
                    if command.name == "{":
                        pc = command.target
                    continue
                jump = self._execute(command)
                if jump is None:
                    continue
                if isinstance(jump, int):
                    pc = jump
                    continue
                if jump == "delete":
                    autoprint = False
                elif jump == "restart":
                    autoprint, restart = False, self.space
                elif jump == "quiet-quit":
                    autoprint = False
                    self.appends.clear()
                break
            if autoprint:
                out.emit(self.space, self.ended)
            self._flush_appends()

    def _read(self) -> bool:
        """The next line into the pattern space; False at the end of the input."""
        line = self.source.next()
        if line is None:
            return False
        self.space, self.name, self.ended = line
        self.number += 1
        self.replaced = False
        return True

    def _flush_appends(self) -> None:
        for kind, text in self.appends:
            if kind == "text":
                self.out.emit(text)
            elif kind == "file":
                content = self.files.get(text)
                if content:
                    self.out.raw(content)
            else:
                self.out.emit(text)
        self.appends.clear()

    def _selects(self, command: Command) -> bool:
        if command.first is None:
            return not command.negate
        return self._in_range(command) != command.negate

    def _matches(self, address: Address) -> bool:
        kind = address.kind
        if kind == "line":
            return self.number == address.line
        if kind == "last":
            return self.source.done()
        if kind == "step":
            if address.step <= 0:
                return self.number == address.line
            return self.number >= address.line and \
                (self.number - address.line) % address.step == 0
        if kind == "regex":
            return self._search(address.regex) is not None
        return False

    def _search(self, regex: re.Pattern[str] | None) -> re.Match[str] | None:
        regex = self._regex(regex)
        return regex.search(self.space)

    def _regex(self, regex: re.Pattern[str] | None) -> re.Pattern[str]:
        if regex is None:
            if self.last_regex is None:
                raise SedFatal("no previous regular expression", 1)
            return self.last_regex
        self.last_regex = regex
        return regex

    def _in_range(self, command: Command) -> bool:
        first, second = command.first, command.second
        assert first is not None
        if second is None:
            return self._matches(first)
        line = self.number
        if command.state == "active":
            if second.kind in ("line", "plus", "tilde"):
                end = second.line if second.kind == "line" else command.end
                if line >= end:
                    command.state = "idle"
                return line <= end or self._matches(first)
            if self._matches(second):
                command.state = "idle"
            return True
        if not self._matches(first):
            return False
        if second.kind == "line":
            if line >= second.line:
                return True
        elif second.kind == "plus":
            command.end = line + second.line
            if second.line == 0:
                return True
        elif second.kind == "tilde":
            if second.line <= 0 or line % second.line == 0:
                return True
            command.end = line + second.line - line % second.line
        elif second.kind == "last" and self.source.done():
            return True
        command.state = "active"
        return True

    def _grown(self, text: str) -> str:
        if len(text) > MAX_SPACE:
            raise SedFatal("couldn't re-allocate memory")
        return text

    def _execute(self, command: Command) -> int | str | None:
        """Run one selected command: None to go on, an index to jump to, or how the cycle
        ends ("end", "delete", "restart", "quiet-quit")."""
        name = command.name
        if name in "{:#}" or name == "#n":
            return None
        if name == "s":
            return self._substitute(command)
        if name == "p":
            self.out.emit(self.space)
        elif name == "d":
            return "delete"
        elif name == "D":
            if "\n" not in self.space:
                return "delete"
            return self._restart()
        elif name == "P":
            self.out.emit(self.space.partition("\n")[0])
        elif name == "n":
            if self.source.done():
                self.status = 0 if self.status is None else self.status
                return "end"
            if not self.quiet:
                self.out.emit(self.space, self.ended)
            self._flush_appends()
            self._read()
        elif name == "N":
            if self.source.done():
                self.status = 0
                return "end"
            self._flush_appends()
            held = self.space
            self._read()
            self.space = self._grown(held + "\n" + self.space)
        elif name in "btT":
            if name == "b" or (self.replaced == (name == "t")):
                if name != "b":
                    self.replaced = False
                return command.target if command.target >= 0 else len(self.commands)
        elif name == "h":
            self.hold = self.space
        elif name == "H":
            self.hold = self._grown(self.hold + "\n" + self.space)
        elif name == "g":
            self.space = self.hold
        elif name == "G":
            self.space = self._grown(self.space + "\n" + self.hold)
        elif name == "x":
            self.space, self.hold = self.hold, self.space
        elif name == "z":
            self.space = ""
        elif name == "=":
            self.out.emit(str(self.number))
        elif name == "F":
            self.out.emit(self.name)
        elif name == "l":
            self._listing(command.number if command.number >= 0 else self.wrap)
        elif name == "a" and command.number:
            self.appends.append(("text", command.text))
        elif name == "i" and command.number:
            self.out.emit(command.text)
        elif name == "c":
            if command.number and (command.negate or command.second is None
                                   or command.state != "active"):
                self.out.emit(command.text)
            return "delete"
        elif name == "r":
            self.appends.append(("file", command.text))
        elif name == "R":
            self._read_line(command.text)
        elif name in "wW":
            text = self.space if name == "w" else self.space.partition("\n")[0]
            self._sink(command.text).emit(text)
        elif name == "y":
            self.space = self.space.translate(command.table)
        elif name == "q":
            self.status = max(command.number, 0)
            return "end"
        elif name == "Q":
            self.status = max(command.number, 0)
            return "quiet-quit"
        return None

    def _restart(self) -> str:
        self.space = self.space.partition("\n")[2]
        return "restart"

    def _read_line(self, name: str) -> None:
        content = self.files.get(name)
        if not content:
            return
        lines = content.split("\n")
        if lines[-1] == "":
            lines.pop()
        index = self.read_lines.get(name, 0)
        if index < len(lines):
            self.read_lines[name] = index + 1
            self.appends.append(("line", lines[index]))

    def _substitute(self, command: Command) -> None:
        regex = self._regex(command.regex)
        count = 0
        out: list[str] = []
        position = 0
        previous_end = -1
        done = False
        for match in regex.finditer(self.space):
            if match.start() == match.end() == previous_end:
                continue  # no empty match right after a match
            previous_end = match.end()
            count += 1
            if count < command.number:
                continue
            out.append(self.space[position:match.start()])
            out.append(expand(command.replacement, match))
            position = match.end()
            done = True
            if not command.every:
                break
        if not done:
            return None
        out.append(self.space[position:])
        self.space = self._grown("".join(out))
        self.replaced = True
        for _ in range(command.print_):
            self.out.emit(self.space)
        if command.text:
            self._sink(command.text).emit(self.space)
        return None

    def _listing(self, width: int) -> None:
        """`l`: the pattern space unambiguously, wrapped at ``width`` (0 or 1: not wrapped)."""
        units = []
        names = {"\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                 "\r": "\\r", "\t": "\\t", "\v": "\\v"}
        for byte in self.space.encode("utf-8", "surrogateescape"):
            char = chr(byte)
            if char in names:
                units.append(names[char])
            elif 32 <= byte < 127:
                units.append(char)
            else:
                units.append(f"\\{byte:03o}")
        line, lines = "", []
        for unit in units:
            if width > 1 and len(line) + len(unit) > width - 1:
                lines.append(line + "\\")
                line = ""
            line += unit
        lines.append(line + "$")
        for text in lines:
            self.out.emit(text)


def expand(parts: list[tuple[str, str]], match: re.Match[str]) -> str:
    """One replacement: text, groups (`&`, `\\1`) and GNU's case changes (`\\U \\L \\u \\l
    \\E`)."""
    out: list[str] = []
    mode, once = "", ""
    for kind, value in parts:
        if kind == "case":
            if value in "ul":
                once = value
            else:
                mode = "" if value == "E" else value
                once = ""
            continue
        if kind == "group":
            number = int(value)
            text = (match[number] or "") if number <= match.re.groups else ""
        else:
            text = value
        if mode == "U":
            text = text.upper()
        elif mode == "L":
            text = text.lower()
        if once and text:
            text = (text[0].upper() if once == "u" else text[0].lower()) + text[1:]
            once = ""
        out.append(text)
    return "".join(out)
