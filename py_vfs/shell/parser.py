"""Build the syntax tree (``syntax.py``) of a program from the lexer's tokens, as sh's grammar
reads it: lists, AND-OR lists, pipelines, simple commands and the compound commands.

The whole program is parsed before anything runs, so a syntax error runs nothing, as in sh; it
names the token and its line and column. Aliases are expanded here, as bash does: a command
word that is an alias is replaced by the tokens of its value.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .lexer import Incomplete, Lexer, Op, ParseError, Token, tokenize, where
from .syntax import (
    AndOr,
    ArithCommand,
    Assign,
    Case,
    For,
    FunctionDef,
    Group,
    If,
    Lit,
    Node,
    Pipeline,
    Redirect,
    Redirected,
    Sequence,
    Simple,
    While,
    Word,
)

__all__ = ["Incomplete", "ParseError", "needs_more", "parse", "tokenize"]

REDIRECT_OPS = ("<", ">", ">>", ">|", "&>", "&>>", "<<", "<<-", "<<<", ">&", "<&", "<>")
KEYWORDS = ("if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until",
            "case", "esac", "function", "{", "}", "!", "time")
CLOSERS = ("then", "elif", "else", "fi", "do", "done", "esac", "}")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:+-]*")  # bash also takes `my-func`
MAX_DEPTH = 50  # nested compound commands; deeper is refused rather than a RecursionError


class _Parser:
    def __init__(self, source: str, tokens: list[Token], aliases: dict[str, str]) -> None:
        self.src = source
        self.tokens = tokens
        self.index = 0
        self.aliases = aliases
        self.depth = 0
        self.alias_blank = False  # the last alias's value ended in a blank

    # -- tokens --------------------------------------------------------------------------

    def peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def op(self, *texts: str) -> bool:
        token = self.peek()
        return isinstance(token, Op) and token.text in texts

    def reserved(self, *words: str) -> bool:
        token = self.peek()
        return isinstance(token, Word) and token.bare in words

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise Incomplete("syntax error: unexpected end of file")
        self.index += 1
        return token

    def unexpected(self) -> ParseError:
        token = self.peek()
        if token is None:
            return Incomplete("syntax error: unexpected end of file")
        shown = "newline" if isinstance(token, Op) and token.text == "\n" else token.text
        return ParseError(f"syntax error near unexpected token '{shown}' "
                          f"({where(self.src, token.pos)})")

    def expect_reserved(self, word: str) -> None:
        if not self.reserved(word):
            raise self.unexpected()
        self.index += 1

    def expect_op(self, text: str) -> None:
        if not self.op(text):
            raise self.unexpected()
        self.index += 1

    def newlines(self) -> None:
        while self.op("\n"):
            self.index += 1

    # -- lists ---------------------------------------------------------------------------

    def program(self) -> Sequence:
        body = self.sequence()
        if self.peek() is not None:
            raise self.unexpected()
        return body

    def sequence(self) -> Sequence:
        """and-or lists separated by ``;`` or newlines, up to a closing word or ``)``."""
        items: list[AndOr] = []
        self.newlines()
        while self.peek() is not None and not self.reserved(*CLOSERS) and not self.op(")", ";;"):
            items.append(self.and_or())
            if self.op("&"):
                token = self.peek()
                assert isinstance(token, Op)
                raise ParseError("background jobs ('&') are not supported "
                                 f"({where(self.src, token.pos)})")
            if not self.op(";", "\n"):
                break
            self.index += 1
            self.newlines()
        return Sequence(items)

    def body(self) -> Sequence:
        """A compound command's list, which must hold at least one command."""
        body = self.sequence()
        if not body.items:
            raise self.unexpected()
        return body

    def and_or(self) -> AndOr:
        node = AndOr(self.pipeline())
        while self.op("&&", "||"):
            connector = self.take()
            assert isinstance(connector, Op)
            self.newlines()
            node.rest.append((connector.text, self.pipeline()))
        return node

    def pipeline(self) -> Pipeline:
        negate, timed = False, None
        while self.reserved("!") or (timed is None and self.reserved("time")):
            if self.reserved("time"):
                self.index += 1
                timed = "default"
                if self.peek() is not None and self.reserved("-p"):
                    self.index += 1
                    timed = "posix"
                if self._pipeline_ends():  # `time` alone times nothing
                    return Pipeline([Simple()], negate, timed)
                continue
            self.index += 1
            negate = not negate
        pipeline = Pipeline([self.command()], negate, timed)
        while self.op("|"):
            self.index += 1
            self.newlines()
            pipeline.commands.append(self.command())
        return pipeline

    def _pipeline_ends(self) -> bool:
        return self.peek() is None or self.op(";", "\n", "&&", "||", ")", ";;", "&") \
            or self.reserved(*CLOSERS)

    # -- commands ------------------------------------------------------------------------

    def command(self) -> Node:
        self._expand_alias()
        token = self.peek()
        if not isinstance(token, Word | Op):
            raise self.unexpected()
        compound = self._compound(token)
        if compound is None:
            return self.simple()
        redirects = []
        while (redirect := self._redirect()) is not None:
            redirects.append(redirect)
        return Redirected(compound, redirects) if redirects else compound

    def _compound(self, token: Token) -> Node | None:
        if isinstance(token, Op):
            if token.arith is not None:
                self.index += 1
                return ArithCommand(token.arith)
            if token.text != "(":
                return None
            return self._nested(lambda: self._group(")", subshell=True))
        kind = token.bare
        if kind == "{":
            return self._nested(lambda: self._group("}", subshell=False))
        parsers = {"if": self._if, "for": self._for, "while": self._while,
                   "until": self._while, "case": self._case, "function": self._function}
        if kind in parsers:
            return self._nested(parsers[kind])
        following = [t.text for t in self.tokens[self.index + 1:self.index + 3]
                     if isinstance(t, Op)]
        if kind and _FUNCTION_NAME.fullmatch(kind) and kind not in KEYWORDS \
                and following == ["(", ")"]:
            self.index += 3
            return self._function_body(kind)
        return None

    def _nested(self, parse: Callable[[], Node]) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"syntax error: more than {MAX_DEPTH} nested commands")
        try:
            return parse()
        finally:
            self.depth -= 1

    def _group(self, closer: str, *, subshell: bool) -> Group:
        self.index += 1
        body = self.body()
        if closer == ")":
            self.expect_op(")")
        else:
            self.expect_reserved("}")
        return Group(body, subshell)

    def _if(self) -> If:
        self.index += 1
        clauses = []
        cond = self.body()
        self.expect_reserved("then")
        clauses.append((cond, self.body()))
        otherwise = None
        while self.reserved("elif"):
            self.index += 1
            cond = self.body()
            self.expect_reserved("then")
            clauses.append((cond, self.body()))
        if self.reserved("else"):
            self.index += 1
            otherwise = self.body()
        self.expect_reserved("fi")
        return If(clauses, otherwise)

    def _loop_body(self) -> Sequence:
        self.expect_reserved("do")
        body = self.body()
        self.expect_reserved("done")
        return body

    def _for(self) -> For:
        self.index += 1
        name = self.take()
        if not isinstance(name, Word) or name.bare is None or not _NAME.fullmatch(name.bare):
            self.index -= 1
            raise self.unexpected()
        words: list[Word] | None = None
        self.newlines()
        if self.reserved("in"):
            self.index += 1
            words = []
            while isinstance(token := self.peek(), Word):
                words.append(token)
                self.index += 1
            if not self.op(";", "\n"):
                raise self.unexpected()
        if self.op(";"):
            self.index += 1
        self.newlines()
        return For(name.bare, words, self._loop_body())

    def _while(self) -> While:
        until = self.reserved("until")
        self.index += 1
        cond = self.body()
        return While(cond, self._loop_body(), until)

    def _case(self) -> Case:
        self.index += 1
        word = self.take()
        if not isinstance(word, Word):
            self.index -= 1
            raise self.unexpected()
        self.newlines()
        self.expect_reserved("in")
        self.newlines()
        items = []
        while not self.reserved("esac"):
            if self.op("("):
                self.index += 1
            patterns = [self._pattern()]
            while self.op("|"):
                self.index += 1
                patterns.append(self._pattern())
            self.expect_op(")")
            body = self.sequence()
            items.append((patterns, body))
            if not self.op(";;"):
                break
            self.index += 1
            self.newlines()
        self.expect_reserved("esac")
        return Case(word, items)

    def _pattern(self) -> Word:
        token = self.take()
        if not isinstance(token, Word):
            self.index -= 1
            raise self.unexpected()
        return token

    def _function(self) -> FunctionDef:
        self.index += 1
        name = self.take()
        if not isinstance(name, Word) or not name.bare:
            self.index -= 1
            raise self.unexpected()
        if self.op("("):
            self.index += 1
            self.expect_op(")")
        return self._function_body(name.bare)

    def _function_body(self, name: str) -> FunctionDef:
        self.newlines()
        token = self.peek()
        body = self._compound(token) if token is not None else None
        if body is None:
            raise self.unexpected()
        return FunctionDef(name, body)

    def simple(self) -> Simple:
        command = Simple()
        while True:
            redirect = self._redirect()
            if redirect is not None:
                command.redirects.append(redirect)
                continue
            token = self.peek()
            if not isinstance(token, Word):
                break
            self.index += 1
            first = token.parts[0] if token.parts else None
            match = (_ASSIGNMENT.match(first.text) if isinstance(first, Lit)
                     and not first.quoted and not command.words else None)
            if match is not None:
                assert isinstance(first, Lit)
                rest = first.text[match.end():]
                value = Word(((Lit(rest),) if rest else ()) + token.parts[1:], token.pos)
                command.assigns.append(Assign(match.group(1), value, bool(match.group(2))))
            else:
                command.words.append(token)
                if len(command.words) == 1 and self.alias_blank:
                    self._expand_alias()
        if not (command.words or command.assigns or command.redirects):
            raise self.unexpected()
        return command

    def _redirect(self) -> Redirect | None:
        token = self.peek()
        if not isinstance(token, Op) or token.text not in REDIRECT_OPS:
            return None
        self.index += 1
        target = self.peek()
        if not isinstance(target, Word):
            raise self.unexpected()
        self.index += 1
        text = token.text
        fd = token.fd if token.fd is not None else (0 if text[0] == "<" else 1)
        if text in ("<<", "<<-"):
            return Redirect(fd, "<<", heredoc=token.heredoc)
        if text in (">&", "<&") and target.bare is not None and target.bare.isdigit():
            return Redirect(fd, text, dup=int(target.bare))
        if text in (">&", "<&") and target.bare == "-":
            return Redirect(fd, "close")
        if text == ">&":
            return Redirect(fd, "&>", target)
        return Redirect(fd, "<" if text == "<>" else text, target)

    def _expand_alias(self) -> None:
        """Replace a command word that is an alias by its value's tokens (once per alias, so
        ``alias ls='ls -l'`` does not loop); a value ending in a blank makes the next word a
        command word too."""
        seen: set[str] = set()
        self.alias_blank = False
        while True:
            token = self.peek()
            if not isinstance(token, Word):
                return
            name = token.bare
            if name is None or name not in self.aliases or name in seen:
                return
            seen.add(name)
            value = self.aliases[name]
            replacement = [_moved(t, token.pos) for t in tokenize(value)]
            self.tokens[self.index:self.index + 1] = replacement
            self.alias_blank = value.endswith((" ", "\t"))


def _moved(token: Token, pos: int) -> Token:
    """An alias's token, placed where the alias was typed (for error positions)."""
    if isinstance(token, Word):
        return Word(token.parts, pos)
    return Op(token.text, pos, token.fd, token.heredoc)


def parse(source: str, aliases: dict[str, str] | None = None, *,
          final: bool = True) -> Sequence:
    """Parse a whole program; raise ParseError (status 2) before anything runs if it is
    invalid (``Incomplete`` when it ends inside a construct). Its ``warnings`` are bash's
    (a here-document ended by the end of the file)."""
    lexer = Lexer(source, final=final)
    tokens = lexer.run()
    program = _Parser(source, tokens, aliases or {}).program()
    program.warnings = lexer.warnings
    return program


def needs_more(text: str, aliases: dict[str, str] | None = None) -> bool:
    """Whether ``text`` ends inside a construct (an open quote, ``if`` without ``fi``, a line
    ending in ``|`` or ``&&``, a pending here-document): a terminal then shows ``> `` and
    reads another line instead of running it."""
    try:
        parse(text, aliases, final=False)
    except Incomplete:
        return True
    except ParseError:
        return False
    return False
