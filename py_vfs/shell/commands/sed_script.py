"""sed's script: the parser that reads the text of `-e` and `-f` scripts into a flat list of
``Command``s (blocks and branches become jumps to indices), as GNU sed 4.9 reads them.

Regular expressions are POSIX BRE (ERE with -E) translated to Python's syntax (``posix_re``);
`\\n` and `\\t` in them are the characters, `$` is the end of the pattern space (`\\Z`), `.`
matches a newline as in GNU sed, and the flag `M` makes `^` and `$` match at newlines too.
"""

from __future__ import annotations

from .sed_text import ESCAPES, Address, Command, ScriptError, TextParser

SIMPLE = "=dDgGhHlnNpPxzF"  # commands without an argument (l, q, Q take an optional number)
ONE_ADDRESS = "=aiqQrR"  # GNU takes two addresses for =, a, i, r, R; not for q and Q
NO_ADDRESS = ":}#"


class Parser(TextParser):
    """Reads the whole script (the -e and -f pieces joined by newlines) into commands."""

    def __init__(self, pieces: list[tuple[str, str]], extended: bool) -> None:
        """``pieces``: (where, text) for each -e (where: "-e expression #N") or -f (where:
        "file NAME")."""
        self.starts: list[tuple[int, str]] = []
        texts = []
        at = 0
        for where, text in pieces:
            self.starts.append((at, where))
            texts.append(text)
            at += len(text) + 1
        self.text = "\n".join(texts)
        self.extended = extended
        self.at = 0
        self.seen_regex = False

    def parse(self) -> list[Command]:
        """The commands, blocks and branches resolved; ScriptError when unreadable."""
        commands: list[Command] = []
        blocks: list[int] = []
        while True:
            self._skip(" \t\n;")
            if not self._peek():
                break
            command = self._command()
            if command is None:
                continue
            if command.name == "{":
                blocks.append(len(commands))
            elif command.name == "}":
                if not blocks:
                    raise self._fail("unexpected `}'")
                commands[blocks.pop()].target = len(commands) + 1
            commands.append(command)
        if blocks:
            raise self._fail("unmatched `{'", 0)
        labels = {c.text: i for i, c in enumerate(commands) if c.name == ":"}
        for command in commands:
            if command.name in "btT":
                if command.text and command.text not in labels:
                    error = ScriptError(f"can't find label for jump to `{command.text}'")
                    error.status = 4
                    raise error
                command.target = labels[command.text] if command.text else -1
        return commands

    def _command(self) -> Command | None:
        if self._peek() == "#":
            if self.at == 0 and self.text.startswith(("#n\n", "#n")) and (
                    len(self.text) == 2 or self.text[2] == "\n"):
                self.at = 2
                return Command("#n")
            self._line_rest()
            return None
        first = self._address()
        second = None
        if first is not None and self._peek() == ",":
            self.at += 1
            self._skip()
            second = self._second_address()
        self._skip()
        negate = False
        while self._peek() == "!":
            if negate:
                raise self._fail("multiple `!'s", self.at + 1)
            self.at += 1
            negate = True
            self._skip()
        name = self._take()
        if not name or name in "\n;":
            raise self._fail("missing command")
        command = Command(name, first, second, negate)
        if first is not None and first.kind == "zero" and (
                second is None or second.kind != "regex"):
            raise self._fail("invalid usage of line address 0")
        if first is not None and name in NO_ADDRESS:
            raise self._fail(f"{name} doesn't want any addresses" if name != "#"
                            else "comments don't accept any addresses")
        if second is not None and name in "qQ":
            raise self._fail("command only uses one address")
        self._arguments(command)
        return command

    def _arguments(self, command: Command) -> None:
        name = command.name
        if name in "aic":
            text = self._text_argument(name)
            command.text, command.number = text or "", 0 if text is None else 1
            return
        if name == ":":
            self._skip()
            command.text = self._label()
            if not command.text:
                raise self._fail("\":\" lacks a label")
            return
        if name in "btT":
            self._skip()
            command.text = self._label()
        elif name in "rRwW":
            command.text = self._filename()
            return
        elif name == "s":
            self._substitution(command)
        elif name == "y":
            self._transliteration(command)
        elif name in "qQlL":
            self._skip()
            if self._peek().isdigit():
                command.number = self._number()
        elif name == "e":
            raise self._fail("e command not supported (no processes here)")
        elif name == "v":
            self._label()
        elif name == "{":
            return
        elif name not in SIMPLE + "}":
            raise self._fail(f"unknown command: `{name}'")
        self._end_of_command()

    def _end_of_command(self) -> None:
        self._skip()
        char = self._peek()
        if char == "#":
            return
        if char and char not in ";\n}":
            self.at += 1
            raise self._fail("extra characters after command")

    def _line_rest(self) -> str:
        start = self.at
        while self._peek() and self._peek() != "\n":
            self.at += 1
        return self.text[start:self.at]

    def _label(self) -> str:
        start = self.at
        while self._peek() and self._peek() not in ";\n":
            self.at += 1
        return self.text[start:self.at].rstrip(" \t")

    def _filename(self) -> str:
        self._skip()
        name = self._line_rest()
        if not name:
            raise self._fail("missing filename in r/R/w/W commands")
        return name

    def _text_argument(self, name: str) -> str | None:
        """The text of a, i, c: GNU's one-line `a text` (leading blanks dropped) or `a\\`
        then lines, each but the last ending in a backslash; backslash escapes taken."""
        self._skip()
        if not self._peek():
            raise self._fail("expected \\ after `a', `c' or `i'")
        if self._peek() == "\\":
            self.at += 1
            if self._peek() == "\n":
                self.at += 1
            elif not self._peek():
                return None  # `a\` at the end: GNU adds no line
        out = []
        while self._peek() and self._peek() != "\n":
            char = self._take()
            if char == "\\":
                nxt = self._take()
                if nxt:
                    out.append(ESCAPES.get(nxt, nxt))
            else:
                out.append(char)
        return "".join(out)

    def _address(self) -> Address | None:
        char = self._peek()
        if char.isdigit():
            line = self._number()
            if self._peek() == "~":
                self.at += 1
                step = self._number() if self._peek().isdigit() else 0
                return Address("step", line=line, step=step)
            return Address("zero" if line == 0 else "line", line=line)
        if char == "$":
            self.at += 1
            return Address("last")
        if char in ("/", "\\"):
            self.at += 1
            delimiter = "/" if char == "/" else self._take()
            if delimiter in ("", "\n", "\\"):
                raise self._fail("unexpected `,'" if not delimiter else
                                "delimiter character is not a single-byte character")
            pattern = self._delimited(delimiter, "unterminated address regex")
            flags = ""
            while self._peek() in ("I", "M"):
                flags += self._take()
            return Address("regex", regex=self._compile(pattern, flags))
        return None

    def _second_address(self) -> Address:
        char = self._peek()
        if char and char in "+~":
            self.at += 1
            if not self._peek().isdigit():
                raise self._fail("unexpected `,'")
            return Address("plus" if char == "+" else "tilde", line=self._number())
        found = self._address()
        if found is None:
            raise self._fail("unexpected `,'")
        if found.kind == "step":  # `addr,N~M` is GNU's line N
            found = Address("line", line=found.line)
        if found.kind == "zero":
            raise self._fail("invalid usage of line address 0")
        return found
