"""Turn a command line into commands joined by ``&&``, ``||`` and ``;``, as sh reads it.

The tokenizer is written by hand instead of using :mod:`shlex`: with ``punctuation_chars``,
``shlex`` returns the same token for ``'>'`` and ``>``, so a quoted operator (a plain word in
sh) cannot be told apart from a real one, and it forgets which characters were quoted, which
globbing needs (``'*.txt'`` must stay literal while ``*.txt`` expands).

The whole line is parsed before anything runs, so a syntax error runs nothing, as in sh.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

BLANKS = " \t"
OPERATOR_CHARS = "&|;<>()"
# Longest first, so that ">>" is read as one operator and not as two ">".
OPERATORS = ("&&", "||", ">>", ">&", ">|", "<<", "<&", "<>", "&", "|", ";", "<", ">", "(", ")")
SEPARATORS = ("&&", "||", ";", "\n")
REDIRECTIONS = (">", ">>", ">|", ">&")
DOUBLE_QUOTE_ESCAPES = '\\"$`'
GLOB_CHARS = "*?["
SUPPORTED_FDS = (1, 2)
# What the tokenizer may take in one step: characters with no meaning of their own ("#" starts a
# comment only at the start of a word, so it is taken alone), and the inside of "..." up to the
# next quote or backslash.
_PLAIN_RUN = re.compile(r"[^ \t\n#'\"\\&|;<>()]+")
_DOUBLE_QUOTED_RUN = re.compile(r'[^"\\]+')


class ParseError(Exception):
    """A line the shell refuses to run; sh reports these on stderr with status 2."""

    code = 2


@dataclass(frozen=True)
class Word:
    """A word with the quoting of each piece kept, because quoting decides what a glob is."""

    parts: tuple[tuple[str, bool], ...]  # (text, quoted)

    @property
    def text(self) -> str:
        """The word as typed, quotes removed."""
        return "".join(text for text, _ in self.parts)

    def chars(self) -> Iterator[tuple[str, bool]]:
        """Each character with whether it was quoted."""
        for text, quoted in self.parts:
            for char in text:
                yield char, quoted

    @property
    def has_glob(self) -> bool:
        """Whether an unquoted *, ? or [ makes this word a pattern."""
        return any(char in GLOB_CHARS and not quoted for char, quoted in self.chars())


@dataclass(frozen=True)
class Operator:
    """An operator token (`&&`, `>`, a newline...), with its IO number if any."""
    text: str
    fd: int | None = None  # the IO number written before a redirection, as in "2>"


@dataclass(frozen=True)
class Redirect:
    """``fd`` goes to the file ``target``, or to wherever ``dup`` goes (``2>&1``)."""

    fd: int
    target: Word | None = None
    append: bool = False
    dup: int | None = None


@dataclass
class Command:
    """One simple command: its words and its redirections, in order."""
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when nothing was written between two separators."""
        return not self.words and not self.redirects


@dataclass(frozen=True)
class Step:
    """One pipeline of an AND-OR list; ``connector`` is what joins it to the previous one."""

    connector: str | None  # None for the first pipeline, else ";", "&&" or "||"
    pipeline: list[Command]  # `a | b | c`: each command's output is the next one's input


class _Tokenizer:
    """Reads words and operators; a newline is kept as an operator so the parser can treat it
    like ";" except where sh lets a line continue (after "&&" and "||").

    Linear in the line's length: runs of ordinary characters are taken with one regular
    expression match (not character by character), and a word's pieces are joined once, when
    the word ends (appending to a growing string copied it whole each time: a 1 MB word took
    seconds)."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.pos = 0
        self.tokens: list[Word | Operator] = []
        self.parts: list[tuple[list[str], bool]] = []  # (pieces, quoted), joined at the end
        self.in_word = False  # true once a word has started, even as an empty '' word

    def run(self) -> list[Word | Operator]:
        while self.pos < len(self.line):
            char = self.line[self.pos]
            if char in BLANKS:
                self._end_word()
                self.pos += 1
            elif char == "\n":
                self._end_word()
                self.tokens.append(Operator("\n"))
                self.pos += 1
            elif char == "#" and not self.in_word:
                self._skip_comment()
            elif char == "'":
                self._single_quoted()
            elif char == '"':
                self._double_quoted()
            elif char == "\\":
                self._escaped()
            elif char in OPERATOR_CHARS:
                self._operator()
            else:
                run = _PLAIN_RUN.match(self.line, self.pos)
                end = run.end() if run else self.pos + 1  # a "#" inside a word
                self._add(self.line[self.pos:end], quoted=False)
                self.pos = end
        self._end_word()
        return self.tokens

    def _add(self, text: str, *, quoted: bool) -> None:
        self.in_word = True
        if self.parts and self.parts[-1][1] == quoted:
            self.parts[-1][0].append(text)
        elif text:
            self.parts.append(([text], quoted))

    def _end_word(self) -> None:
        if self.in_word:
            self.tokens.append(Word(tuple(("".join(pieces), quoted)
                                          for pieces, quoted in self.parts)))
        self.parts = []
        self.in_word = False

    def _skip_comment(self) -> None:
        end = self.line.find("\n", self.pos)
        self.pos = len(self.line) if end == -1 else end

    def _single_quoted(self) -> None:
        end = self.line.find("'", self.pos + 1)
        if end == -1:
            raise ParseError("syntax error: unterminated quote")
        self._add(self.line[self.pos + 1 : end], quoted=True)
        self.pos = end + 1

    def _double_quoted(self) -> None:
        self._add("", quoted=True)
        self.pos += 1
        while self.pos < len(self.line):
            char = self.line[self.pos]
            following = self.line[self.pos + 1 : self.pos + 2]
            if char == '"':
                self.pos += 1
                return
            if char == "\\" and following and following in DOUBLE_QUOTE_ESCAPES:
                self._add(following, quoted=True)
                self.pos += 2
            elif char == "\\" and following == "\n":
                self.pos += 2
            elif char == "\\":
                self._add(char, quoted=True)
                self.pos += 1
            else:
                end = _DOUBLE_QUOTED_RUN.match(self.line, self.pos).end()
                self._add(self.line[self.pos:end], quoted=True)
                self.pos = end
        raise ParseError("syntax error: unterminated quote")

    def _escaped(self) -> None:
        following = self.line[self.pos + 1 : self.pos + 2]
        if following == "\n":  # line continuation
            self.pos += 2
        elif following:
            self._add(following, quoted=True)
            self.pos += 2
        else:  # a backslash ending the line has nothing to escape; sh keeps it
            self._add("\\", quoted=False)
            self.pos += 1

    def _operator(self) -> None:
        text = next(op for op in OPERATORS if self.line.startswith(op, self.pos))
        fd = self._io_number() if text[0] in "<>" else None
        self._end_word()
        self.tokens.append(Operator(text, fd))
        self.pos += len(text)

    def _io_number(self) -> int | None:
        """In sh, unquoted digits right before a redirection name a file descriptor (2>f)."""
        if self.in_word and len(self.parts) == 1:
            pieces, quoted = self.parts[0]
            text = "".join(pieces)
            if not quoted and text.isdigit():
                self.parts = []
                self.in_word = False
                return int(text)
        return None


def tokenize(line: str) -> list[Word | Operator]:
    """The line as words and operators (no parsing yet); ParseError on a bad quote."""
    return _Tokenizer(line).run()


def parse(line: str) -> list[Step]:
    """Parse a whole line; raise ParseError (status 2) before anything runs if it is invalid."""
    tokens = tokenize(line)
    steps: list[Step] = []
    connector: str | None = None
    pipeline: list[Command] = []
    command = Command()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if isinstance(token, Word):
            command.words.append(token)
        elif token.text == "|":
            if command.empty:
                raise ParseError("syntax error near unexpected token '|'")
            pipeline.append(command)
            command = Command()
        elif token.text in SEPARATORS:
            if command.empty:
                # a blank line, or a line continued after &&, || or |
                if token.text == "\n":
                    index += 1
                    continue
                raise ParseError(f"syntax error near unexpected token '{token.text}'")
            steps.append(Step(connector, [*pipeline, command]))
            pipeline = []
            connector = ";" if token.text == "\n" else token.text
            command = Command()
        elif token.text in REDIRECTIONS:
            index += 1
            target = tokens[index] if index < len(tokens) else None
            command.redirects.append(_redirect(token, target))
        else:
            raise ParseError(_unsupported(token.text))
        index += 1
    if not command.empty:
        steps.append(Step(connector, [*pipeline, command]))
    elif pipeline or connector in ("&&", "||"):
        raise ParseError("syntax error: unexpected end of file")
    return steps


def _redirect(operator: Operator, target: Word | Operator | None) -> Redirect:
    if not isinstance(target, Word):
        shown = "newline" if target is None or target.text == "\n" else target.text
        raise ParseError(f"syntax error near unexpected token '{shown}'")
    fd = 1 if operator.fd is None else operator.fd
    if fd not in SUPPORTED_FDS:
        raise ParseError(f"redirecting file descriptor {fd} is not supported")
    if operator.text == ">&":
        if target.text not in ("1", "2"):
            raise ParseError(f"'>&{target.text}' is not supported (only >&1 and >&2)")
        return Redirect(fd, dup=int(target.text))
    return Redirect(fd, target=target, append=operator.text == ">>")


def _unsupported(operator: str) -> str:
    if operator == "&":
        return "background jobs ('&') are not supported"
    if operator.startswith("<"):
        return f"input redirection ('{operator}') is not supported"
    return f"'{operator}' is not supported"
