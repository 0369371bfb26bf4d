"""sed: the stream editor's everyday part (s, p, d, q, = with addresses and ranges; -n -e -E -i).

Regular expressions are POSIX BRE (ERE with -E) translated to Python's syntax (``posix_re``)
and run by Python's ``re``: unlike grep's, a sed pattern can backtrack (sed needs groups for
`\\1`), so a hostile pattern on a long line can be slow; Ctrl-C stops sed between lines.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from ...core import cancel
from ..context import Context, describe
from ..format import quote_name
from .gnu import getopts, open_input
from .posix_re import BadPattern, translate
from .registry import GNU, UsageError, command


class ScriptError(Exception):
    """A script sed cannot read: `sed: -e expression #1, char N: message`, status 1."""


@dataclass
class _Address:
    line: int | None = None  # a line number
    last: bool = False  # `$`
    regex: re.Pattern[str] | None = None

    def matches(self, number: int, is_last: bool, text: str) -> bool:
        if self.last:
            return is_last
        if self.regex is not None:
            return self.regex.search(text) is not None
        return number == self.line


@dataclass
class _Command:
    name: str
    first: _Address | None = None
    second: _Address | None = None
    negate: bool = False
    regex: re.Pattern[str] | None = None
    replacement: str = ""
    every: bool = False  # s///g
    nth: int = 1  # s///N
    print_: bool = False  # s///p
    active: bool = field(default=False)  # inside its range
    range_end: int = 0

    def selects(self, number: int, is_last: bool, text: str) -> bool:
        """Whether the address (range) selects this line; ranges keep their state."""
        if self.first is None:
            hit = True
        elif self.second is None:
            hit = self.first.matches(number, is_last, text)
        elif self.active:
            hit = True
            second = self.second
            if second.line is not None and second.regex is None and not second.last:
                self.active = number < second.line
            else:
                self.active = not second.matches(number, is_last, text)
        elif self.first.matches(number, is_last, text):
            hit = True
            second = self.second
            if second.line is not None and second.regex is None and not second.last:
                self.active = number < second.line
            else:
                self.active = not (second.last and is_last)
        else:
            hit = False
        return hit != self.negate


class _Parser:
    """Reads one -e expression into commands."""

    def __init__(self, text: str, number: int, extended: bool) -> None:
        self.text, self.number, self.extended, self.at = text, number, extended, 0

    def fail(self, message: str) -> ScriptError:
        at = min(self.at, len(self.text))
        return ScriptError(f"-e expression #{self.number}, char {at}: {message}")

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char

    def skip(self, chars: str) -> None:
        while self.peek() and self.peek() in chars:
            self.at += 1

    def delimited(self, delimiter: str) -> str:
        """Text up to the unescaped ``delimiter`` (consumed); `\\delimiter` is the character."""
        out = []
        while True:
            char = self.take()
            if not char:
                raise self.fail("unterminated `s' command")
            if char == delimiter:
                return "".join(out)
            if char == "\\":
                nxt = self.take()
                out.append(nxt if nxt == delimiter else "\\" + nxt)
            else:
                out.append(char)

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        try:
            return re.compile(translate(pattern, extended=self.extended), flags)
        except (BadPattern, re.error) as exc:
            raise self.fail(str(exc)) from None

    def address(self) -> _Address | None:
        char = self.peek()
        if char.isdigit():
            start = self.at
            while self.peek().isdigit():
                self.at += 1
            return _Address(line=int(self.text[start:self.at]))
        if char == "$":
            self.at += 1
            return _Address(last=True)
        if char in ("/", "\\"):
            self.at += 1
            delimiter = "/" if char == "/" else self.take()
            pattern = self.delimited(delimiter)
            flags = 0
            if self.peek() == "I":
                self.at += 1
                flags = re.IGNORECASE
            return _Address(regex=self.compile(pattern, flags))
        return None

    def commands(self) -> list[_Command]:
        found = []
        while True:
            self.skip(" \t\n;")
            if not self.peek():
                return found
            first = self.address()
            second = None
            if first is not None and self.peek() == ",":
                self.at += 1
                second = self.address()
                if second is None:
                    raise self.fail("unexpected `,'")
            self.skip(" \t")
            negate = self.peek() == "!"
            if negate:
                self.at += 1
                self.skip(" \t")
            name = self.take()
            command = _Command(name, first, second, negate)
            if name == "s":
                self.substitution(command)
            elif name not in "pdq=":
                raise self.fail(f"unknown command: `{name}'" if name else "missing command")
            self.skip(" \t")
            if self.peek() and self.peek() not in ";\n}":
                raise self.fail("extra characters after command")
            found.append(command)

    def substitution(self, command: _Command) -> None:
        delimiter = self.take()
        if not delimiter or delimiter in "\n\\":
            raise self.fail("unterminated `s' command")
        pattern = self.delimited(delimiter)
        command.replacement = self.delimited(delimiter)
        flags = 0
        while self.peek() and self.peek() in "gpiIm0123456789":
            char = self.take()
            if char == "g":
                command.every = True
            elif char == "p":
                command.print_ = True
            elif char in "iI":
                flags |= re.IGNORECASE
            elif char.isdigit():
                start = self.at - 1
                while self.peek().isdigit():
                    self.at += 1
                command.nth = int(self.text[start:self.at])
                if command.nth == 0:
                    raise self.fail("number option to `s' command may not be zero")
        command.regex = self.compile(pattern, flags)


def _expand(template: str, match: re.Match[str]) -> str:
    """The replacement of one match: `&` the match, `\\1`..`\\9` groups, `\\n` newline."""
    out = []
    i = 0
    while i < len(template):
        char = template[i]
        if char == "&":
            out.append(match[0])
        elif char == "\\" and i + 1 < len(template):
            i += 1
            nxt = template[i]
            if nxt.isdigit():
                out.append(match[int(nxt)] or "" if int(nxt) <= (match.re.groups) else "")
            else:
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _substitute(command: _Command, text: str) -> tuple[str, bool]:
    assert command.regex is not None
    count = 0
    changed = False
    last_end = -1  # sed, unlike re.sub, takes no empty match right after a match

    def replace(match: re.Match[str]) -> str:
        nonlocal count, changed, last_end
        if match.start() == match.end() == last_end:
            return ""
        last_end = match.end()
        count += 1
        if count < command.nth or (count > command.nth and not command.every):
            return match[0]
        changed = True
        return _expand(command.replacement, match)

    return command.regex.sub(replace, text), changed


async def _run(commands: list[_Command], lines: list[str], quiet: bool,
               out: list[str]) -> bool:
    """Edit ``lines`` (each with its newline, the last maybe without) into ``out``; False
    when `q` ended the input."""
    for number, raw in enumerate(lines, 1):
        if number % 1024 == 0:
            await cancel.checkpoint("sed", number, len(lines), "lines")
        text, end = (raw[:-1], "\n") if raw.endswith("\n") else (raw, "")
        is_last = number == len(lines)
        deleted = stop = False
        for step in commands:
            if not step.selects(number, is_last, text):
                continue
            if step.name == "s":
                text, changed = _substitute(step, text)
                if changed and step.print_:
                    out.append(text + "\n")
            elif step.name == "p":
                out.append(text + "\n")
            elif step.name == "=":
                out.append(f"{number}\n")
            elif step.name == "d":
                deleted = True
                break
            elif step.name == "q":
                stop = True
                break
        if not deleted and not quiet:
            out.append(text + end)
        if stop:
            return False
    return True


@command("sed [OPTION]... [SCRIPT] [FILE...]", "edit lines as a stream", errors=GNU)
async def sed(ctx: Context, args: list[str]) -> int:
    """Apply SCRIPT to each line of the FILEs (none or `-`: standard input) and print the
    result. Commands: s/RE/REPLACEMENT/FLAGS (flags g, p, I, a number N), p, d, q, =; each may
    have an address: N, $, /RE/, or a range A,B, and ! to negate it; commands are separated by
    ; or newlines. -n: print only what p asks; -E (-r): extended regular expressions; -e:
    several scripts, joined; -i[SUFFIX]: edit each FILE in place (one write per file), first
    copying it to FILE+SUFFIX (a `*` in SUFFIX: the file's name there)."""
    args, suffix = _backup_suffix(args)
    options, operands = getopts(args, "nEre:is", ("quiet", "silent", "regexp-extended",
                                                  "expression=", "in-place", "separate"))
    scripts = [value for flag, value in options if flag in ("-e", "--expression")]
    flags = {flag for flag, _ in options}
    quiet = bool(flags & {"-n", "--quiet", "--silent"})
    extended = bool(flags & {"-E", "-r", "--regexp-extended"})
    in_place = bool(flags & {"-i", "--in-place"})
    if not scripts:
        if not operands:
            raise UsageError("missing script")
        scripts = [operands.pop(0)]
    try:
        commands = [c for i, script in enumerate(scripts, 1)
                    for c in _Parser(script, i, extended).commands()]
    except ScriptError as exc:
        ctx.err(str(exc))
        return 1
    if in_place:
        if not operands:
            ctx.err("no input files")
            return 1
        status = 0
        for name in operands:
            try:
                path = ctx.resolve(name)
                data = await ctx.vfs.read_file(path)
                assert isinstance(data, bytes)
                out: list[str] = []
                await _run(commands, _split(data), quiet, out)
                if suffix:
                    await ctx.vfs.write_file(_backup(path, suffix), data)
                await ctx.vfs.write_file(path, "".join(out).encode("utf-8", "surrogateescape"))
            except OSError as exc:
                ctx.err(f"can't read {quote_name(name)}: {describe(exc)}")
                status = 2
            for step in commands:
                step.active = False
        return status
    status, data = 0, bytearray()
    for name in operands or ["-"]:
        try:
            data += await open_input(ctx, name).read_all()
        except OSError as exc:
            ctx.err(f"can't read {quote_name(name)}: {describe(exc)}")
            status = 2
    out = []
    await _run(commands, _split(bytes(data)), quiet, out)
    await ctx.write("".join(out).encode("utf-8", "surrogateescape"))
    return status


def _backup_suffix(args: list[str]) -> tuple[list[str], str]:
    """GNU's optional argument of -i, glued to it (`-i.bak`, `-ni.bak`, `--in-place=.bak`),
    which getopt cannot read: the arguments with it cut off, and the suffix."""
    suffix, out, value_next = "", [], False
    for index, arg in enumerate(args):
        if arg == "--":
            return [*out, *args[index:]], suffix
        if value_next:
            value_next = False
        elif arg.startswith("--in-place="):
            suffix, arg = arg.partition("=")[2], "--in-place"
        elif arg.startswith("-") and not arg.startswith("--"):
            for at, letter in enumerate(arg[1:], start=1):
                if letter == "e":  # the rest, or the next argument, is a script
                    value_next = at == len(arg) - 1
                    break
                if letter == "i":
                    suffix, arg = arg[at + 1:] or suffix, arg[:at + 1]
                    break
        out.append(arg)
    return out, suffix


def _backup(path: str, suffix: str) -> str:
    """Where sed -i keeps the original: PATH+SUFFIX, or with `*` in SUFFIX, SUFFIX with the
    file's name in place of `*`, in the file's directory."""
    if "*" not in suffix:
        return path + suffix
    directory, name = posixpath.split(path)
    return posixpath.join(directory, suffix.replace("*", name))


def _split(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
