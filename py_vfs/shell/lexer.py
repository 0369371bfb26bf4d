"""Read shell source into words and operators, as sh's token recognition does.

Written by hand rather than with :mod:`shlex`: a quoted operator (``'>'``) is a plain word in
sh, quoting decides what is globbed and split, and words hold expansions (``$x``, ``${x:-y}``,
``$(...)``, backquotes, ``$((...))``) whose own text may hold quotes and blanks. Here-documents
are read when the line that introduced them ends.

Linear in the source's length: runs of ordinary characters are taken with one regular
expression match, and a word's pieces are joined once, when the word ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .syntax import Arith, CmdSub, HereDoc, Lit, Param, Part, Word

BLANKS = " \t"
OPERATOR_CHARS = "&|;<>()"
# Longest first, so that ">>" is read as one operator and not as two ">".
OPERATORS = ("&>>", "<<<", "<<-", ";;", "&&", "||", ">>", ">&", ">|", "<<", "<&", "<>", "&>",
             "&", "|", ";", "<", ">", "(", ")")
DOUBLE_QUOTE_ESCAPES = '\\"$`'
SPECIAL_PARAMS = "@*#?$!-0123456789"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACE_OPS = (":-", ":=", ":+", ":?", "##", "%%", "//", "-", "=", "+", "?", "#", "%", "/")
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
                 "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?"}


class ParseError(Exception):
    """Source the shell refuses to run; sh reports these on stderr with status 2."""

    code = 2


class Incomplete(ParseError):
    """The source ends inside a construct: a terminal asks for another line."""


def where(source: str, pos: int) -> str:
    """``line L, column C`` of offset ``pos`` (both from 1)."""
    line = source.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - source.rfind(chr(10), 0, pos)}"


@dataclass
class Op:
    """An operator (``&&``, ``>``, a newline...) with its IO number (``2>``) and, for ``<<``,
    the here-document it introduces."""

    text: str
    pos: int
    fd: int | None = None
    heredoc: HereDoc | None = None
    arith: Word | None = None  # the expression of a `((...))` command


Token = Word | Op


@lru_cache(maxsize=16)
def _run_pattern(dquote: bool, stop: str) -> re.Pattern[str]:
    """Characters taken in one step: those with no meaning in this context."""
    special = '\\$`"' if dquote else " \t\n'\"\\&|;<>()$`"
    return re.compile("[^" + re.escape(special + stop) + "]+")


class _Parts:
    """Collects a word's parts, merging neighbouring literal text of the same quoting."""

    def __init__(self) -> None:
        self.parts: list[Part | tuple[list[str], bool]] = []

    def lit(self, text: str, quoted: bool) -> None:
        last = self.parts[-1] if self.parts else None
        if isinstance(last, tuple) and last[1] == quoted:
            last[0].append(text)
        else:
            self.parts.append(([text], quoted))

    def add(self, part: Part) -> None:
        self.parts.append(part)

    def done(self) -> tuple[Part, ...]:
        return tuple(Lit("".join(p[0]), p[1]) if isinstance(p, tuple) else p
                     for p in self.parts)


class Lexer:
    """Tokens of ``source``; ``final`` false when more lines may follow (an unfinished
    construct is then ``Incomplete`` rather than taken as it is)."""

    def __init__(self, source: str, *, final: bool = True) -> None:
        self.src = source
        self.pos = 0
        self.final = final
        self.tokens: list[Token] = []
        self.pending: list[HereDoc] = []
        self._delimiter_for: Op | None = None
        self.warnings: list[str] = []  # as bash's, `warning: ...` (the program still runs)

    def fail(self, message: str, pos: int) -> ParseError:
        """A syntax error at ``pos``."""
        return ParseError(f"syntax error: {message} ({where(self.src, pos)})")

    def eof(self, what: str, pos: int) -> ParseError:
        """The source ended inside ``what`` (opened at ``pos``)."""
        return Incomplete(f"syntax error: unexpected end of file (unterminated {what} from "
                          f"{where(self.src, pos)})")

    def run(self, *, until_paren: bool = False) -> list[Token]:
        """Read to the end (or, for ``$(...)``, to its closing parenthesis)."""
        src, depth, cases = self.src, 0, 0
        while True:
            while self.pos < len(src) and (src[self.pos] in BLANKS
                                           or src.startswith("\\\n", self.pos)):
                self.pos += 1 if src[self.pos] in BLANKS else 2
            if self.pos >= len(src):
                break
            char = src[self.pos]
            if char == "\n":
                self.tokens.append(Op("\n", self.pos))
                self.pos += 1
                self._read_heredocs()
            elif char == "#":
                end = src.find("\n", self.pos)
                self.pos = len(src) if end == -1 else end
            elif src.startswith("((", self.pos) and self._command_start():
                start = self.pos
                self.pos += 2
                self.tokens.append(Op("((", start, arith=Word(self._arith_parts(start), start)))
            elif char in OPERATOR_CHARS:
                op = self._operator()
                if until_paren and op.text == "(":
                    depth += 1
                elif until_paren and op.text == ")":
                    if depth == 0 and not cases:
                        self.tokens.pop()
                        return self.tokens
                    depth -= 1 if depth else 0
            else:
                word = self._word()
                cases += {"case": 1, "esac": -1 if cases else 0}.get(word.bare or "", 0)
        if until_paren:
            raise self.eof("$(", self.pos)
        if self.pending:
            if not self.final:
                raise self.eof(f"here-document <<{self.pending[0].delimiter}", self.pos)
            self._read_heredocs()
        return self.tokens

    def _command_start(self) -> bool:
        """Whether a command may start here (``((`` is then an arithmetic command)."""
        last = self.tokens[-1] if self.tokens else None
        if last is None:
            return True
        if isinstance(last, Op):
            return last.text in (";", "\n", "&&", "||", "|", "(", ";;")
        return last.bare in ("do", "then", "else", "elif", "{", "!", "if", "while", "until")

    def _operator(self) -> Op:
        text = next(op for op in OPERATORS if self.src.startswith(op, self.pos))
        op = Op(text, self.pos)
        last = self.tokens[-1] if self.tokens else None
        if (text[0] in "<>" and isinstance(last, Word) and last.bare is not None
                and last.bare.isdigit() and last.pos + len(last.bare) == self.pos):
            self.tokens.pop()
            op.fd = int(last.bare)
        self.tokens.append(op)
        self.pos += len(text)
        if text in ("<<", "<<-"):
            self._delimiter_for = op
        return op

    def _word(self) -> Word:
        start = self.pos
        parts = self.parts(stop=BLANKS + "\n" + OPERATOR_CHARS)
        word = Word(parts, start)
        self.tokens.append(word)
        if self._delimiter_for is not None:
            op, self._delimiter_for = self._delimiter_for, None
            op.heredoc = HereDoc(word.text, op.text == "<<-", not word.quoted)
            self.pending.append(op.heredoc)
        return word

    def parts(self, *, stop: str = "", dquote: bool = False, heredoc: bool = False,
              brace: bool = False) -> tuple[Part, ...]:
        """Read word parts from ``pos`` until an unquoted character of ``stop`` (left there).
        ``dquote``: inside "..."; ``heredoc``: a here-document body (``"`` is plain);
        ``brace``: the word of ``${name op word}`` (blanks are part of it)."""
        src, out = self.src, _Parts()
        while self.pos < len(src):
            char = src[self.pos]
            if char in stop:
                break
            if char == "\\":
                self._backslash(out, dquote or heredoc, stop)
            elif char == "$":
                self._dollar(out, dquote or heredoc)
            elif char == "`":
                self._backquote(out, dquote or heredoc)
            elif char == "'" and not (dquote or heredoc):
                self._single_quoted(out)
            elif char == '"' and not heredoc:
                if dquote and not brace:
                    break
                self._double_quoted(out)
            else:
                run = _run_pattern(dquote or heredoc, stop).match(src, self.pos)
                end = run.end() if run else self.pos + 1
                out.lit(src[self.pos:end], dquote)
                self.pos = end
        return out.done()

    def _backslash(self, out: _Parts, dquote: bool, stop: str) -> None:
        following = self.src[self.pos + 1:self.pos + 2]
        if following == "\n":
            self.pos += 2
        elif not following:
            if not self.final:
                raise self.eof("\\", self.pos)
            out.lit("\\", False)
            self.pos += 1
        elif dquote and following not in DOUBLE_QUOTE_ESCAPES + "}" + stop:
            out.lit("\\", True)
            self.pos += 1
        else:
            out.lit(following, True)
            self.pos += 2

    def _single_quoted(self, out: _Parts) -> None:
        end = self.src.find("'", self.pos + 1)
        if end == -1:
            raise self.eof("'", self.pos)
        out.lit(self.src[self.pos + 1:end], True)
        self.pos = end + 1

    def _double_quoted(self, out: _Parts) -> None:
        start = self.pos
        self.pos += 1
        out.lit("", True)  # "" is an empty argument
        for part in self.parts(stop='"', dquote=True):
            out.add(part) if not isinstance(part, Lit) else out.lit(part.text, True)
        if self.pos >= len(self.src):
            raise self.eof('"', start)
        self.pos += 1

    def _backquote(self, out: _Parts, quoted: bool) -> None:
        start, src, text = self.pos, self.src, []
        self.pos += 1
        while self.pos < len(src) and src[self.pos] != "`":
            if src[self.pos] == "\\" and src[self.pos + 1:self.pos + 2] in ("\\", "`", "$"):
                self.pos += 1
            text.append(src[self.pos])
            self.pos += 1
        if self.pos >= len(src):
            raise self.eof("`", start)
        self.pos += 1
        out.add(CmdSub("".join(text), quoted))

    def _dollar(self, out: _Parts, quoted: bool) -> None:
        src, start = self.src, self.pos
        following = src[start + 1:start + 2]
        if src.startswith("$((", start):
            self.pos += 3
            out.add(Arith(Word(self._arith_parts(start), start), quoted))
        elif following == "(":
            sub = Lexer(src, final=self.final)
            sub.pos = start + 2
            sub.run(until_paren=True)
            out.add(CmdSub(src[start + 2:sub.pos - 1], quoted))
            self.pos = sub.pos
        elif following == "{":
            self.pos += 2
            out.add(self._braced(quoted, start))
        elif following == "'" and not quoted:
            self._ansi_c(out)
        elif following == '"' and not quoted:
            self.pos += 1
        elif following and following in SPECIAL_PARAMS:
            out.add(Param(following, quoted=quoted))
            self.pos += 2
        elif (name := _NAME.match(src, start + 1)) is not None:
            out.add(Param(name.group(), quoted=quoted))
            self.pos = name.end()
        else:
            out.lit("$", quoted)
            self.pos += 1

    def _arith_parts(self, start: int) -> tuple[Part, ...]:
        """The expression of ``$((...))`` up to the ``))`` that closes it."""
        out, depth, src = _Parts(), 0, self.src
        while True:
            if self.pos >= len(src):
                raise self.eof("$((", start)
            char = src[self.pos]
            if char == ")" and depth == 0:
                if not src.startswith("))", self.pos):
                    raise self.fail("missing ')' of $((", self.pos)
                self.pos += 2
                return out.done()
            if char in "$`":
                (self._dollar if char == "$" else self._backquote)(out, True)
                continue
            depth += {"(": 1, ")": -1}.get(char, 0)
            out.lit(char, True)
            self.pos += 1

    def _braced(self, quoted: bool, start: int) -> Param:
        src = self.src
        length = src.startswith("#", self.pos) and src[self.pos + 1:self.pos + 2] not in ("}", "")
        if length:
            self.pos += 1
        name_match = _NAME.match(src, self.pos)
        if name_match is None and src[self.pos:self.pos + 1].isdigit():
            name_match = re.compile(r"\d+").match(src, self.pos)
        if name_match is not None:
            name = name_match.group()
        elif src[self.pos:self.pos + 1] and src[self.pos] in SPECIAL_PARAMS:
            name = src[self.pos]
        else:
            raise self.fail("bad substitution", start)
        self.pos += len(name)
        if self.pos >= len(src):
            raise self.eof("${", start)
        if length:
            return Param(name, "len", quoted=quoted) if self._close(start) else Param(name)
        if src.startswith("}", self.pos):
            self.pos += 1
            return Param(name, quoted=quoted)
        op = next((op for op in _BRACE_OPS if src.startswith(op, self.pos)), None)
        if op is None:
            raise self.fail("bad substitution", start)
        self.pos += len(op)
        arg = Word(self.parts(stop="}/" if op in ("/", "//") else "}", dquote=quoted,
                              brace=True), self.pos)
        repl = None
        if op in ("/", "//") and src.startswith("/", self.pos):
            self.pos += 1
            repl = Word(self.parts(stop="}", dquote=quoted, brace=True), self.pos)
        self._close(start)
        return Param(name, op, arg, repl, quoted)

    def _close(self, start: int) -> bool:
        if self.pos >= len(self.src):
            raise self.eof("${", start)
        if self.src[self.pos] != "}":
            raise self.fail("bad substitution", start)
        self.pos += 1
        return True

    def _ansi_c(self, out: _Parts) -> None:
        """``$'...'``: backslash escapes as C writes them."""
        src, start, text = self.src, self.pos, []
        self.pos += 2
        while self.pos < len(src) and src[self.pos] != "'":
            char = src[self.pos]
            if char == "\\" and self.pos + 1 < len(src):
                esc = src[self.pos + 1]
                if esc in _ANSI_ESCAPES:
                    text.append(_ANSI_ESCAPES[esc])
                    self.pos += 2
                    continue
                digits = re.compile(r"x[0-9a-fA-F]{1,2}|[0-7]{1,3}").match(src, self.pos + 1)
                if digits is not None:
                    value = digits.group()
                    text.append(chr(int(value[1:], 16) if value[0] == "x" else int(value, 8)))
                    self.pos = digits.end()
                    continue
            text.append(char)
            self.pos += 1
        if self.pos >= len(src):
            raise self.eof("$'", start)
        self.pos += 1
        out.lit("".join(text), True)

    def _read_heredocs(self) -> None:
        """The bodies of the here-documents of the line just ended, in order."""
        src = self.src
        for doc in self.pending:
            lines: list[str] = []
            # bash's "here-document at line N": the line that ended before its body.
            begun = src.count("\n", 0, max(self.pos - 1, 0)) + 1
            while True:
                if self.pos >= len(src):
                    if not self.final:
                        raise self.eof(f"here-document <<{doc.delimiter}", self.pos)
                    self.warnings.append(f"warning: here-document at line {begun} delimited "
                                         f"by end-of-file (wanted `{doc.delimiter}')")
                    break
                end = src.find("\n", self.pos)
                end = len(src) if end == -1 else end
                line = src[self.pos:end]
                self.pos = min(end + 1, len(src))
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delimiter:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            if doc.expand:
                inner = Lexer(body)
                doc.body = Word(inner.parts(heredoc=True))
            else:
                doc.body = Word((Lit(body, True),))
        self.pending = []


def tokenize(source: str, *, final: bool = True) -> list[Token]:
    """The source as words and operators; ParseError on an unterminated quote."""
    return Lexer(source, final=final).run()
